// SPDX-License-Identifier: GPL-2.0
#include "objects.h"

#include "json_pos.h"

#include <cctype>
#include <cerrno>
#include <optional>
#include <set>

#include <net/if.h>

#include <uapi/vrnic.h>

namespace rdmactl {

using libctl::Dcqcn;
using libctl::Error;
using libctl::Limits;
using libctl::Param;
using libctl::Qos;
using libctl::Result;

namespace {

Error bad(const std::string& path, const std::string& why) {
    Error e = libctl::make_error(EINVAL, path);
    e.extack = why;
    return e;
}

template <typename S> json params_to_json(const std::vector<Param<S>>& ps, const S& s) {
    json j = json::object();
    for (const auto& p : ps)
        if (auto v = p.get(s))
            j[p.name] = *v;
    return j;
}

// @p u at @p path, unless it lies within [min, max].
std::optional<Error> out_of_range(const std::string& path, uint64_t u, uint64_t min, uint64_t max) {
    if (u >= min && u <= max)
        return std::nullopt;
    return bad(path, "value " + std::to_string(u) + " out of range " + std::to_string(min) + ".." +
                         std::to_string(max));
}

// An unsigned JSON integer within [min, max].
Result<uint64_t> get_uint(const json& v, const std::string& path, uint64_t min, uint64_t max) {
    if (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() < 0)
        return bad(path, "negative value " + v.dump() + " (range " + std::to_string(min) + ".." +
                             std::to_string(max) + ")");
    if (!v.is_number_integer())
        return bad(path, "expected an unsigned integer, got " + v.dump());
    uint64_t u = v.get<uint64_t>();
    if (auto e = out_of_range(path, u, min, max))
        return *e;
    return u;
}

template <typename S>
Result<S> params_from_json(const json& j, const std::vector<Param<S>>& ps,
                           const std::string& path) {
    if (!j.is_object())
        return bad(path, "expected an object");
    S s;
    for (auto it = j.begin(); it != j.end(); ++it) {
        std::string kpath = path + "." + it.key();
        const Param<S>* p = libctl::find_param(ps, it.key());
        if (!p)
            return bad(kpath, "unknown key");
        auto u = get_uint(it.value(), kpath, 0, p->type_max());
        if (!u)
            return u.error();
        p->set(s, *u);
    }
    return s;
}

// The first parameter of @p s outside the kernel's range for it.
template <typename S>
libctl::Status params_in_ranges(const std::vector<Param<S>>& ps, const S& s,
                                const libctl::NestRanges& ranges, const std::string& path) {
    for (const auto& p : ps) {
        auto v = p.get(s);
        auto r = ranges.find(p.attr);
        if (!v || r == ranges.end())
            continue;
        if (auto e = out_of_range(path + "." + p.name, *v, r->second.min, r->second.max))
            return *e;
    }
    return libctl::ok_status();
}

json bitmap_to_json(uint8_t bits) {
    json a = json::array();
    for (int i = 0; i < VRNIC_NUM_PRIO; i++)
        if (bits & (1u << i))
            a.push_back(i);
    return a;
}

// A list of priorities (or the raw bitmap as a number) to a bitmap.
Result<uint8_t> bitmap_from_json(const json& v, const std::string& path) {
    if (v.is_number()) {
        auto u = get_uint(v, path, 0, 255);
        if (!u)
            return u.error();
        return static_cast<uint8_t>(*u);
    }
    if (!v.is_array())
        return bad(path, "expected a list of priorities 0..7");
    uint8_t bits = 0;
    for (size_t i = 0; i < v.size(); i++) {
        auto u = get_uint(v[i], path + "[" + std::to_string(i) + "]", 0, VRNIC_NUM_PRIO - 1);
        if (!u)
            return u.error();
        if (bits & (1u << *u))
            return bad(path, "priority " + std::to_string(*u) + " listed twice");
        bits = static_cast<uint8_t>(bits | (1u << *u));
    }
    return bits;
}

json map_to_json(const std::map<uint8_t, uint8_t>& m, size_t full) {
    bool complete = m.size() == full;
    for (size_t i = 0; complete && i < full; i++)
        complete = m.count(static_cast<uint8_t>(i)) != 0;
    if (complete) {
        json a = json::array();
        for (const auto& kv : m)
            a.push_back(kv.second);
        return a;
    }
    json o = json::object();
    for (const auto& kv : m)
        o[std::to_string(kv.first)] = kv.second;
    return o;
}

// An array of exactly @p full values, or an object {"KEY": VALUE} naming
// only the entries to change.
Result<std::map<uint8_t, uint8_t>> map_from_json(const json& v, const std::string& path,
                                                 size_t full, uint64_t vmax) {
    std::map<uint8_t, uint8_t> m;
    if (v.is_array()) {
        if (v.size() != full)
            return bad(path, "expected " + std::to_string(full) + " entries, got " +
                                 std::to_string(v.size()));
        for (size_t i = 0; i < full; i++) {
            auto u = get_uint(v[i], path + "[" + std::to_string(i) + "]", 0, vmax);
            if (!u)
                return u.error();
            m[static_cast<uint8_t>(i)] = static_cast<uint8_t>(*u);
        }
        return m;
    }
    if (!v.is_object())
        return bad(path, "expected an array of " + std::to_string(full) +
                             " entries or an object of entries");
    for (auto it = v.begin(); it != v.end(); ++it) {
        std::string kpath = path + "." + it.key();
        const std::string& k = it.key();
        if (k.empty() || k.size() > 2 || k.find_first_not_of("0123456789") != std::string::npos ||
            std::stoul(k) >= full)
            return bad(kpath, "key must be a number 0.." + std::to_string(full - 1));
        auto u = get_uint(it.value(), kpath, 0, vmax);
        if (!u)
            return u.error();
        m[static_cast<uint8_t>(std::stoul(k))] = static_cast<uint8_t>(*u);
    }
    return m;
}

} // namespace

json limits_to_json(const Limits& l) {
    return params_to_json(libctl::limits_params(), l);
}
json dcqcn_to_json(const Dcqcn& d) {
    return params_to_json(libctl::dcqcn_params(), d);
}

json qos_to_json(const Qos& q) {
    json j = json::object();
    if (q.trust)
        j["trust"] = libctl::trust_name(*q.trust);
    if (!q.dscp2prio.empty())
        j["dscp2prio"] = map_to_json(q.dscp2prio, VRNIC_NUM_DSCP);
    if (q.pfc_en)
        j["pfc_en"] = bitmap_to_json(*q.pfc_en);
    if (q.ecn_en)
        j["ecn_en"] = bitmap_to_json(*q.ecn_en);
    for (const auto& p : libctl::qos_params()) {
        std::string name = p.name;
        if (name == "pfc_en" || name == "ecn_en")
            continue;
        if (auto v = p.get(q))
            j[name] = *v;
    }
    return j;
}

Result<Limits> limits_from_json(const json& j, const std::string& path) {
    return params_from_json(j, libctl::limits_params(), path);
}

Result<Dcqcn> dcqcn_from_json(const json& j, const std::string& path) {
    return params_from_json(j, libctl::dcqcn_params(), path);
}

Result<Qos> qos_from_json(const json& j, const std::string& path) {
    if (!j.is_object())
        return bad(path, "expected an object");
    Qos q;
    for (auto it = j.begin(); it != j.end(); ++it) {
        const std::string& k = it.key();
        const json& v = it.value();
        std::string kpath = path + "." + k;
        if (k == "trust") {
            auto t = v.is_string() ? libctl::trust_from_name(v.get<std::string>()) : std::nullopt;
            if (!t)
                return bad(kpath, "expected \"pcp\" or \"dscp\", got " + v.dump());
            q.trust = *t;
        } else if (k == "pfc_en" || k == "ecn_en") {
            auto b = bitmap_from_json(v, kpath);
            if (!b)
                return b.error();
            (k == "pfc_en" ? q.pfc_en : q.ecn_en) = *b;
        } else if (k == "dscp2prio") {
            auto m = map_from_json(v, kpath, VRNIC_NUM_DSCP, VRNIC_NUM_PRIO - 1);
            if (!m)
                return m.error();
            q.dscp2prio = std::move(m).value();
        } else if (k == "prio2tc") {
            // Every "config dump" before its removal wrote it: say why
            // the saved file no longer applies, not just "unknown key".
            return bad(kpath, "removed (vrnic has no traffic classes: the netdev maps "
                              "priorities to them); delete the key");
        } else if (const Param<Qos>* p = libctl::find_param(libctl::qos_params(), k)) {
            auto u = get_uint(v, kpath, 0, p->type_max());
            if (!u)
                return u.error();
            p->set(q, *u);
        } else {
            return bad(kpath, "unknown key");
        }
    }
    return q;
}

json config_to_json(const Config& c) {
    json devs = json::array();
    for (const DeviceConfig& d : c.devices) {
        json j = json::object();
        j["dev_name"] = d.dev_name;
        if (d.netdev)
            j["netdev"] = *d.netdev;
        if (d.limits)
            j["limits"] = limits_to_json(*d.limits);
        if (d.qos)
            j["qos"] = qos_to_json(*d.qos);
        if (d.dcqcn)
            j["dcqcn"] = dcqcn_to_json(*d.dcqcn);
        devs.push_back(std::move(j));
    }
    json out = json::object();
    out["version"] = kConfigVersion;
    out["devices"] = std::move(devs);
    return out;
}

Result<Config> config_from_json(const json& j) {
    if (!j.is_object())
        return bad("configuration", "expected a JSON object with \"version\" and \"devices\"");
    for (auto it = j.begin(); it != j.end(); ++it)
        if (it.key() != "version" && it.key() != "devices")
            return bad(it.key(), "unknown key");
    if (!j.contains("version"))
        return bad("version", "missing");
    if (j["version"] != kConfigVersion)
        return bad("version", "unsupported version " + j["version"].dump() + " (expected " +
                                  std::to_string(kConfigVersion) + ")");
    if (!j.contains("devices") || !j["devices"].is_array())
        return bad("devices", "missing or not an array");
    Config c;
    std::set<std::string> seen;
    const json& devs = j["devices"];
    for (size_t i = 0; i < devs.size(); i++) {
        std::string path = "devices[" + std::to_string(i) + "]";
        const json& d = devs[i];
        if (!d.is_object())
            return bad(path, "expected an object");
        if (!d.contains("dev_name") || !d["dev_name"].is_string() ||
            d["dev_name"].get<std::string>().empty())
            return bad(path + ".dev_name", "missing or not a non-empty string");
        DeviceConfig dc;
        dc.dev_name = d["dev_name"].get<std::string>();
        if (!seen.insert(dc.dev_name).second)
            return bad(path + ".dev_name", "device " + dc.dev_name + " listed twice");
        for (auto it = d.begin(); it != d.end(); ++it) {
            const std::string& k = it.key();
            std::string kpath = path + "." + k;
            if (k == "dev_name") {
                continue;
            } else if (k == "netdev") {
                const json& v = it.value();
                if (!v.is_string() || !valid_netdev_name(v.get<std::string>()))
                    return bad(kpath, "expected a network interface name (1.." +
                                          std::to_string(IFNAMSIZ - 1) +
                                          " bytes, no '/', ':' or spaces), got " + v.dump());
                dc.netdev = v.get<std::string>();
            } else if (k == "limits") {
                auto l = limits_from_json(it.value(), kpath);
                if (!l)
                    return l.error();
                dc.limits = *l;
            } else if (k == "qos") {
                auto q = qos_from_json(it.value(), kpath);
                if (!q)
                    return q.error();
                dc.qos = *q;
            } else if (k == "dcqcn") {
                auto dq = dcqcn_from_json(it.value(), kpath);
                if (!dq)
                    return dq.error();
                dc.dcqcn = *dq;
            } else {
                return bad(kpath, "unknown key");
            }
        }
        // The CNP DSCP and priority are one setting reachable from both.
        if (dc.qos && dc.dcqcn) {
            if (dc.qos->cnp_dscp && dc.dcqcn->cnp_dscp && *dc.qos->cnp_dscp != *dc.dcqcn->cnp_dscp)
                return bad(path, "qos.cnp_dscp and dcqcn.cnp_dscp disagree");
            if (dc.qos->cnp_prio && dc.dcqcn->cnp_802p_prio &&
                *dc.qos->cnp_prio != *dc.dcqcn->cnp_802p_prio)
                return bad(path, "qos.cnp_prio and dcqcn.cnp_802p_prio disagree");
        }
        c.devices.push_back(std::move(dc));
    }
    return c;
}

bool valid_netdev_name(const std::string& name) {
    if (name.empty() || name.size() >= IFNAMSIZ || name == "." || name == "..")
        return false;
    for (unsigned char c : name)
        if (c == '/' || c == ':' || std::isspace(c))
            return false;
    return true;
}

namespace {

std::string where(const std::string& source, const std::string& text, size_t offset) {
    TextPos p = text_pos(text, offset);
    return (source.empty() ? "" : source + ":") + std::to_string(p.line) + ":" +
           std::to_string(p.column);
}

} // namespace

Result<Config> config_from_text(const std::string& text, const std::string& source) {
    json j;
    try {
        j = json::parse(text);
    } catch (const json::parse_error& e) {
        // e.byte counts from 1 and is the byte the parser stopped at; its
        // message repeats a line/column we compute ourselves, so keep only
        // the reason after it.
        std::string what = e.what();
        size_t pos = what.find(": ", what.find("parse error"));
        Error err = bad(where(source, text, e.byte ? e.byte - 1 : 0) + ": malformed JSON",
                        pos == std::string::npos ? what : what.substr(pos + 2));
        return err;
    }
    auto c = config_from_json(j);
    if (c)
        return c;
    return locate_error(text, source, c.error());
}

Result<ConfigRanges> read_config_ranges(libctl::Vrnic& v) {
    ConfigRanges r;
    auto l = v.set_ranges(VRNIC_CMD_LIMITS_SET, VRNIC_ATTR_LIMITS);
    if (!l)
        return l.error();
    auto q = v.set_ranges(VRNIC_CMD_QOS_SET, VRNIC_ATTR_QOS);
    if (!q)
        return q.error();
    auto d = v.set_ranges(VRNIC_CMD_DCQCN_SET, VRNIC_ATTR_DCQCN);
    if (!d)
        return d.error();
    r.limits = std::move(l).value();
    r.qos = std::move(q).value();
    r.dcqcn = std::move(d).value();
    return r;
}

libctl::Status check_config_ranges(const Config& c, const ConfigRanges& r) {
    for (size_t i = 0; i < c.devices.size(); i++) {
        const DeviceConfig& d = c.devices[i];
        std::string path = "devices[" + std::to_string(i) + "]";
        libctl::Status st = libctl::ok_status();
        if (d.limits)
            st = params_in_ranges(libctl::limits_params(), *d.limits, r.limits, path + ".limits");
        if (st && d.qos)
            st = params_in_ranges(libctl::qos_params(), *d.qos, r.qos, path + ".qos");
        if (st && d.dcqcn)
            st = params_in_ranges(libctl::dcqcn_params(), *d.dcqcn, r.dcqcn, path + ".dcqcn");
        if (!st)
            return st;
    }
    return libctl::ok_status();
}

Error locate_error(const std::string& text, const std::string& source, Error e) {
    // A path not in the text (a missing key) is reported at the object
    // that lacks it, or at the document.
    auto offsets = json_key_offsets(text);
    std::string path = e.context;
    auto it = offsets.find(path);
    while (it == offsets.end() && !path.empty()) {
        size_t cut = path.find_last_of(".[");
        path = cut == std::string::npos ? "" : path.substr(0, cut);
        it = offsets.find(path);
    }
    e.context = where(source, text, it != offsets.end() ? it->second : 0) + ": " + e.context;
    return e;
}

Result<LinkPlan> plan_links(const Config& c, const std::map<std::string, std::string>& running,
                            const std::function<bool(const std::string&)>& netdev_exists) {
    LinkPlan plan;
    for (size_t i = 0; i < c.devices.size(); i++) {
        const DeviceConfig& d = c.devices[i];
        std::string path = "devices[" + std::to_string(i) + "]";
        auto it = running.find(d.dev_name);
        if (it != running.end()) {
            if (d.netdev && !it->second.empty() && it->second != *d.netdev) {
                Error e = libctl::make_error(EEXIST, path + ".netdev");
                e.extack = "RDMA device " + d.dev_name + " exists over netdev " + it->second +
                           ", not " + *d.netdev;
                return e;
            }
            continue;
        }
        if (!d.netdev) {
            Error e = libctl::make_error(ENODEV, path + ".dev_name");
            e.extack =
                "RDMA device " + d.dev_name + " not found, and no \"netdev\" to create it over";
            return e;
        }
        if (netdev_exists(*d.netdev))
            plan.create.emplace_back(d.dev_name, *d.netdev);
        else
            plan.waiting.emplace_back(d.dev_name, *d.netdev);
    }
    return plan;
}

namespace {

template <typename S>
void diff_params(const std::vector<Param<S>>& ps, const std::string& dev, const char* object,
                 const S& cur, const S& want, S& delta, bool& any, std::vector<Change>& out) {
    for (const auto& p : ps) {
        auto w = p.get(want);
        if (!w)
            continue;
        auto c = p.get(cur);
        if (c && *c == *w)
            continue;
        out.push_back({dev, object, p.name, c ? json(*c) : json(), json(*w)});
        p.set(delta, *w);
        any = true;
    }
}

void diff_map(const std::map<uint8_t, uint8_t>& cur, const std::map<uint8_t, uint8_t>& want,
              const std::string& dev, const char* key, std::map<uint8_t, uint8_t>& delta, bool& any,
              std::vector<Change>& out) {
    for (auto [k, v] : want) {
        auto it = cur.find(k);
        if (it != cur.end() && it->second == v)
            continue;
        out.push_back({dev, "qos", std::string(key) + "[" + std::to_string(k) + "]",
                       it != cur.end() ? json(it->second) : json(), json(v)});
        delta[k] = v;
        any = true;
    }
}

} // namespace

std::vector<Change> diff_config(const DeviceConfig& cur, const DeviceConfig& want,
                                DeviceConfig* delta) {
    std::vector<Change> out;
    DeviceConfig d;
    d.dev_name = want.dev_name;
    const std::string& dev = want.dev_name;
    if (want.limits) {
        Limits l;
        bool any = false;
        diff_params(libctl::limits_params(), dev, "limits", cur.limits.value_or(Limits{}),
                    *want.limits, l, any, out);
        if (any)
            d.limits = l;
    }
    if (want.qos) {
        Qos q;
        Qos c = cur.qos.value_or(Qos{});
        bool any = false;
        if (want.qos->trust && c.trust != want.qos->trust) {
            out.push_back({dev, "qos", "trust",
                           c.trust ? json(libctl::trust_name(*c.trust)) : json(),
                           json(libctl::trust_name(*want.qos->trust))});
            q.trust = want.qos->trust;
            any = true;
        }
        diff_map(c.dscp2prio, want.qos->dscp2prio, dev, "dscp2prio", q.dscp2prio, any, out);
        diff_params(libctl::qos_params(), dev, "qos", c, *want.qos, q, any, out);
        if (any)
            d.qos = q;
    }
    if (want.dcqcn) {
        Dcqcn dq;
        bool any = false;
        diff_params(libctl::dcqcn_params(), dev, "dcqcn", cur.dcqcn.value_or(Dcqcn{}), *want.dcqcn,
                    dq, any, out);
        if (any)
            d.dcqcn = dq;
    }
    if (delta)
        *delta = std::move(d);
    return out;
}

} // namespace rdmactl
