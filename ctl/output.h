// SPDX-License-Identifier: GPL-2.0
// Output of rdmactl: every object is first turned into JSON whose keys are
// the netlink attribute names; text (tables or key/value lists) is rendered
// from that JSON, so the two formats cannot drift apart.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rdmactl {

using json = nlohmann::ordered_json;

/// A table column: its header and the JSON keys it shows (the first one a
/// row has wins, e.g. "ipv4" then "ipv6").
struct Column {
    std::string header;
    std::vector<std::string> keys;
};

/// Renders one JSON value for text output: strings verbatim, booleans as
/// on/off, arrays of scalars comma-separated, null or missing as "-".
std::string text_value(const json& v);

/// Prints @p rows (JSON objects) as an aligned table with @p columns.
void print_table(std::ostream& os, const std::vector<Column>& columns,
                 const std::vector<json>& rows);

/// Prints a JSON object as "key value" lines, nested objects indented under
/// their key, keys aligned per level.
void print_kv(std::ostream& os, const json& obj, int indent = 0);

/// Prints JSON compactly or pretty (4-space indent) followed by a newline.
void print_json(std::ostream& os, const json& v, bool pretty);

} // namespace rdmactl
