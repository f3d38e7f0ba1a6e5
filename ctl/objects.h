// SPDX-License-Identifier: GPL-2.0
// The one description of each vrnic object in JSON: show, config dump,
// apply and monitor all go through these, and text is rendered from the
// JSON.  Keys are the netlink attribute names of uapi/vrnic.h.
#pragma once

#include "output.h"

#include <libctl/result.h>
#include <libctl/vrnic.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rdmactl {

json limits_to_json(const libctl::Limits& l);
json dcqcn_to_json(const libctl::Dcqcn& d);
/// pfc_en/ecn_en become lists of priorities, trust a name, dscp2prio an
/// array of 64 priorities.
json qos_to_json(const libctl::Qos& q);

/// Parse one object of a configuration; errors name the JSON path
/// ("devices[0].limits.max_qp") and the rule broken.  Every key is
/// optional; unknown keys, wrong types and values wider than the
/// attribute fail.  The kernel's ranges are checked apart
/// (check_config_ranges()).
libctl::Result<libctl::Limits> limits_from_json(const json& j, const std::string& path);
libctl::Result<libctl::Dcqcn> dcqcn_from_json(const json& j, const std::string& path);
libctl::Result<libctl::Qos> qos_from_json(const json& j, const std::string& path);

/// The configuration of one device, as "config dump" prints it and
/// "apply" accepts it.
struct DeviceConfig {
    std::string dev_name;
    /// The netdev the device is a link over ("netdev" key): apply creates
    /// the device there when it is missing (rdma link add).
    std::optional<std::string> netdev;
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
/// Parses and validates configuration text.  Every error's context starts
/// with "SOURCE:LINE:COLUMN: " (just "LINE:COLUMN: " when @p source is
/// empty) locating the offending key, then names the JSON path.
libctl::Result<Config> config_from_text(const std::string& text, const std::string& source = "");

/// The ranges the kernel's policy allows for each object's parameters.
struct ConfigRanges {
    libctl::NestRanges limits, qos, dcqcn;
};
libctl::Result<ConfigRanges> read_config_ranges(libctl::Vrnic& v);
/// Checks every parameter of @p c against @p r; the error names the JSON
/// path of the first value out of range ("devices[0].dcqcn.rpg_gd").
libctl::Status check_config_ranges(const Config& c, const ConfigRanges& r);

/// Prefixes the context of @p e, a JSON path (as the validator and
/// plan_links() report), with "SOURCE:LINE:COLUMN: " of that path in @p text.
libctl::Error locate_error(const std::string& text, const std::string& source, libctl::Error e);

/// Whether @p name can be a network interface name (as the kernel's
/// dev_valid_name() decides: 1..15 bytes, no '/', ':' or white space, not
/// "." or "..").
bool valid_netdev_name(const std::string& name);

/// What apply must do about the links of a configuration.
struct LinkPlan {
    /// Devices to create: (dev_name, netdev).
    std::vector<std::pair<std::string, std::string>> create;
    /// Devices whose netdev does not exist (yet): left out of this apply;
    /// they are created when the netdev appears (vrnic-config@.service).
    std::vector<std::pair<std::string, std::string>> waiting;
};

/// Decides which links of @p c to create.  @p running maps each existing
/// RDMA device to the netdev of its port 1 ("" when not visible here);
/// @p netdev_exists says whether a netdev is present.  Fails (with the JSON
/// path as context) for a device that exists over another netdev, and for
/// a missing device the file gives no netdev for.
libctl::Result<LinkPlan> plan_links(const Config& c,
                                    const std::map<std::string, std::string>& running,
                                    const std::function<bool(const std::string&)>& netdev_exists);

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
