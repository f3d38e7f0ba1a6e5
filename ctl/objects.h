// SPDX-License-Identifier: GPL-2.0
// The one description of each vrnic object in JSON: show, config dump,
// apply and monitor all go through these, and text is rendered from the
// JSON.  Keys are the netlink attribute names of uapi/vrnic.h.
#pragma once

#include "output.h"

#include <libctl/result.h>
#include <libctl/vrnic.h>

#include <optional>
#include <string>
#include <vector>

namespace rdmactl {

json limits_to_json(const libctl::Limits& l);
json dcqcn_to_json(const libctl::Dcqcn& d);
/// pfc_en/ecn_en become lists of priorities, trust a name, dscp2prio an
/// array of 64 priorities and prio2tc an array of 8 traffic classes.
json qos_to_json(const libctl::Qos& q);

/// Parse one object of a configuration; errors name the JSON path
/// ("devices[0].limits.max_qp") and the rule broken.  Every key is
/// optional; unknown keys, wrong types and out-of-range values fail.
libctl::Result<libctl::Limits> limits_from_json(const json& j, const std::string& path);
libctl::Result<libctl::Dcqcn> dcqcn_from_json(const json& j, const std::string& path);
libctl::Result<libctl::Qos> qos_from_json(const json& j, const std::string& path);

/// The configuration of one device, as "config dump" prints it and
/// "apply" accepts it.
struct DeviceConfig {
    std::string dev_name;
    std::optional<libctl::Limits> limits;
    std::optional<libctl::Qos> qos;
    std::optional<libctl::Dcqcn> dcqcn;
};

struct Config {
    std::vector<DeviceConfig> devices;
};

/// Version of the configuration file format ("version" key).
constexpr int kConfigVersion = 1;

json config_to_json(const Config& c);
/// Validates a whole configuration document before anything is applied.
libctl::Result<Config> config_from_json(const json& j);
/// Parses configuration text; malformed JSON fails with line/column.
libctl::Result<Config> config_from_text(const std::string& text);

/// One difference between the running and the wanted configuration.
struct Change {
    std::string dev_name;
    std::string object; ///< "limits", "qos" or "dcqcn"
    std::string key;    ///< attribute name, "dscp2prio[46]" for map entries
    json from;
    json to;
};

/// What must change to turn @p current into @p wanted (wanted may be
/// partial: absent keys are left alone).  @p delta receives the partial
/// objects to send.
std::vector<Change> diff_config(const DeviceConfig& current, const DeviceConfig& wanted,
                                DeviceConfig* delta);

} // namespace rdmactl
