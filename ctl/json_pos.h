// SPDX-License-Identifier: GPL-2.0
// Where things are in a JSON text: nlohmann::json forgets positions once a
// document is parsed, but a configuration error must name the line and
// column of the key it is about.
#pragma once

#include <cstddef>
#include <map>
#include <string>

namespace rdmactl {

/// A 1-based line and column (in bytes) of a text.
struct TextPos {
    size_t line = 1;
    size_t column = 1;
};

/// The line and column of byte @p offset (0-based) of @p text; offsets past
/// the end give the position just after the last byte.
TextPos text_pos(const std::string& text, size_t offset);

/// Maps each JSON path of a valid JSON text to the offset of its key (for
/// object members: "devices[0].limits.max_qp") or of its value (for array
/// elements: "devices[1]"); the root is "".  Path syntax is that of the
/// configuration validator's errors.  Returns what it found so far when
/// @p text is not valid JSON.
std::map<std::string, size_t> json_key_offsets(const std::string& text);

} // namespace rdmactl
