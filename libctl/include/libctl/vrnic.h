// SPDX-License-Identifier: GPL-2.0
// Client of the "vrnic" generic netlink family (uapi/vrnic.h): typed structs
// per object, one parameter table per object that drives message building,
// parsing and JSON keys.  Ranges are the kernel's: read from its policy
// (CTRL_CMD_GETPOLICY), never written here.
#pragma once

#include <libctl/netlink.h>
#include <libctl/nldev.h>
#include <libctl/result.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace libctl {

/// Resource limits (VRNIC_ATTR_LIMITS).  Unset members are "not reported"
/// in a GET and "leave unchanged" in a SET.
struct Limits {
    std::optional<uint32_t> max_qp, max_cq, max_mr, max_pd, max_srq, max_ah, max_qp_wr, max_cqe,
        max_sge, max_inline_data;
    std::optional<uint64_t> max_mr_size;
    std::optional<uint32_t> max_qp_rd_atom;
    bool operator==(const Limits&) const;
};

/// DCQCN parameters (VRNIC_ATTR_DCQCN); units in uapi/vrnic.h.
struct Dcqcn {
    std::optional<uint32_t> rpg_time_reset, rpg_byte_reset, rpg_threshold, rpg_max_rate,
        rpg_ai_rate, rpg_hai_rate, rpg_gd, rpg_min_dec_fac, rpg_min_rate, rate_to_set_on_first_cnp,
        dce_tcp_g, dce_tcp_rtt, rate_reduce_monitor_period, initial_alpha_value,
        min_time_between_cnps;
    std::optional<uint8_t> cnp_dscp, cnp_802p_prio, clamp_tgt_rate, clamp_tgt_rate_after_time_inc;
    bool operator==(const Dcqcn&) const;
};

/// QoS settings (VRNIC_ATTR_QOS).  The maps hold every entry in a GET and
/// only the entries to change in a SET.
struct Qos {
    std::optional<uint8_t> trust; ///< enum vrnic_trust
    std::map<uint8_t, uint8_t> dscp2prio;
    std::optional<uint8_t> pfc_en, ecn_en, tclass, cnp_dscp, cnp_prio;
    bool operator==(const Qos&) const;
};

/// One scalar parameter of an object: its JSON key (the attribute name),
/// attribute type and width.
template <typename S> struct Param {
    const char* name;
    int attr;
    std::variant<std::optional<uint8_t> S::*, std::optional<uint32_t> S::*,
                 std::optional<uint64_t> S::*>
        member;

    std::optional<uint64_t> get(const S& s) const;
    /// Largest value the attribute's type can carry (255, 2^32-1, 2^64-1).
    uint64_t type_max() const {
        return member.index() == 0 ? 0xffu : member.index() == 1 ? 0xffffffffu : ~uint64_t{0};
    }
    void set(S& s, uint64_t v) const;
};

const std::vector<Param<Limits>>& limits_params();
const std::vector<Param<Dcqcn>>& dcqcn_params();
/// The scalar QoS parameters (trust and the maps are handled apart).
const std::vector<Param<Qos>>& qos_params();

/// Looks a parameter up by name; nullptr when unknown.
template <typename S>
const Param<S>* find_param(const std::vector<Param<S>>& params, const std::string& name);

/// The parameter a SET attribute path (as attr_path() finds it: object
/// nest first) stands for, as rdmactl and the JSON name it ("rpg_gd",
/// "dscp2prio prio"); empty when the path names no parameter.
std::string attr_name(const std::vector<int>& path);

std::string trust_name(uint8_t trust);
std::optional<uint8_t> trust_from_name(const std::string& name);

/// The counters of one QP.
struct Stats {
    std::string dev_name;
    uint32_t dev_index = 0;
    std::optional<uint32_t> qpn;
    std::vector<Counter> counters;
};

/// A VRNIC_CMD_CONFIG_NTF notification.
struct ConfigEvent {
    std::string dev_name;
    uint32_t dev_index = 0;
    std::optional<Limits> limits;
    std::optional<Qos> qos;
    std::optional<Dcqcn> dcqcn;
};

/// The range a netlink policy entry allows (NL_POLICY_TYPE_ATTR_MIN_VALUE_U
/// and _MAX_VALUE_U).
struct Range {
    uint64_t min = 0;
    uint64_t max = 0;
};

/// Attribute type -> its range, for the integer attributes of one nest.
using NestRanges = std::map<int, Range>;

/// The replies of a CTRL_CMD_GETPOLICY dump for one command, put together:
/// which policy the command's "do" uses and the entries of every policy.
class PolicyDump {
public:
    /// Takes one reply of the dump.
    Status add(const nlmsghdr* nlh);
    /// The ranges of the attributes inside the nest @p nest_attr of the
    /// command's top-level "do" policy; empty when there is no such nest.
    NestRanges nest_ranges(int nest_attr) const;

private:
    struct Entry {
        std::optional<Range> range;
        std::optional<uint32_t> nested_policy;
    };
    std::optional<uint32_t> do_policy_;
    std::map<uint32_t, std::map<int, Entry>> policies_;
};

/// The family id, version and multicast group of a resolved genl family.
struct Family {
    uint16_t id = 0;
    uint32_t version = 0;
    std::map<std::string, uint32_t> groups;
};

// ---- message building and parsing (no I/O; unit tested) --------------------

/// CTRL_CMD_GETFAMILY request for @p name and the parser of its reply.
Message build_getfamily(const std::string& name);
Result<Family> parse_family(const nlmsghdr* nlh);

/// CTRL_CMD_GETPOLICY dump of the policy of command @p cmd of @p family.
Message build_getpolicy(uint16_t family, uint8_t cmd);

Message build_get(uint16_t family, uint8_t cmd, const std::optional<std::string>& dev, bool dump);
Message build_limits_set(uint16_t family, const std::string& dev, const Limits& l);
Message build_dcqcn_set(uint16_t family, const std::string& dev, const Dcqcn& d);
Message build_qos_set(uint16_t family, const std::string& dev, const Qos& q);

/// Reply parsers; each also returns DEV_NAME/DEV_INDEX through @p dev.
Result<Limits> parse_limits(const nlmsghdr* nlh, std::string* dev = nullptr);
Result<Dcqcn> parse_dcqcn(const nlmsghdr* nlh, std::string* dev = nullptr);
Result<Qos> parse_qos(const nlmsghdr* nlh, std::string* dev = nullptr);
Result<Stats> parse_stats(const nlmsghdr* nlh);
Result<ConfigEvent> parse_config_event(const nlmsghdr* nlh);

/// Client of the vrnic family.  Errors for an unknown or non-vrnic device
/// come back as the kernel reports them (ENODEV with extack).
class Vrnic {
public:
    /// Resolves the family; ENOENT with "vrnic module not loaded" if absent.
    static Result<Vrnic> open();

    const Family& family() const { return family_; }

    /// Names of all vrnic devices (in this netns).  Empty is not an error.
    Result<std::vector<std::string>> devices();

    Result<Limits> limits(const std::string& dev);
    Status set_limits(const std::string& dev, const Limits& l);
    Result<Qos> qos(const std::string& dev);
    Status set_qos(const std::string& dev, const Qos& q);
    Result<Dcqcn> dcqcn(const std::string& dev);
    Status set_dcqcn(const std::string& dev, const Dcqcn& d);

    /// The ranges the kernel's policy allows for the attributes nested in
    /// @p nest_attr of SET command @p cmd (e.g. VRNIC_CMD_DCQCN_SET,
    /// VRNIC_ATTR_DCQCN).
    Result<NestRanges> set_ranges(uint8_t cmd, int nest_attr);

    /// Per-QP counters: one QP (dev and qpn set), or all QPs of dev or of
    /// every device.
    Result<std::vector<Stats>> qp_stats(const std::optional<std::string>& dev,
                                        const std::optional<uint32_t>& qpn);

    /// Blocks, calling @p on_event for each configuration change; returns
    /// only on error (including an error returned by @p on_event).
    Status monitor(const std::function<Status(const ConfigEvent&)>& on_event);

private:
    Vrnic(Socket sk, Family f) : sk_(std::move(sk)), family_(std::move(f)) {}
    template <typename T>
    Result<T> get_one(uint8_t cmd, const std::string& dev, const char* what,
                      Result<T> (*parse)(const nlmsghdr*, std::string*));
    Socket sk_;
    Family family_;
};

} // namespace libctl
