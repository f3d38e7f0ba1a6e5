// SPDX-License-Identifier: GPL-2.0
// rdmactl qos show [DEV]; rdmactl qos set DEV [trust pcp|dscp] [pfc PRIOS|none]
//   [ecn PRIOS|none] [dscp2prio DSCP:PRIO ...] [tclass N] [cnp_dscp N] [cnp_prio N]
#include "cli.h"
#include "objects.h"
#include "show.h"

#include <memory>
#include <set>
#include <sstream>

#include <CLI/CLI.hpp>
#include <libctl/vrnic.h>

namespace rdmactl {

namespace {

using libctl::Qos;
using libctl::Vrnic;

void show_qos(Context& ctx, const std::string& dev) {
    show_object(ctx, dev, "qos", &Vrnic::qos, qos_to_json);
}

// "3,4" or "none" to a priority bitmap.
std::optional<uint8_t> parse_prio_list(const std::string& s) {
    if (s == "none")
        return 0;
    uint8_t bits = 0;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ',')) {
        auto p = parse_uint(item, 7);
        if (!p)
            return std::nullopt;
        bits = static_cast<uint8_t>(bits | (1u << *p));
    }
    return s.empty() ? std::nullopt : std::optional<uint8_t>(bits);
}

// "KEY:VALUE" with both parts u8 (the kernel checks the real ranges).
bool parse_map_entry(const std::string& s, std::map<uint8_t, uint8_t>& m) {
    size_t colon = s.find(':');
    if (colon == std::string::npos)
        return false;
    auto k = parse_uint(s.substr(0, colon), 255);
    auto v = parse_uint(s.substr(colon + 1), 255);
    if (!k || !v || m.count(static_cast<uint8_t>(*k)))
        return false;
    m[static_cast<uint8_t>(*k)] = static_cast<uint8_t>(*v);
    return true;
}

void set(Context& ctx, const std::string& dev, const std::vector<std::string>& args) {
    Qos q;
    std::set<std::string> seen;
    auto usage = [&](const std::string& why) { ctx.usage("qos set " + dev + ": " + why); };
    for (size_t i = 0; i < args.size();) {
        const std::string& key = args[i++];
        if (!seen.insert(key).second)
            return usage(key + " given twice");
        if (i >= args.size())
            return usage(key + " needs a value");
        if (key == "trust") {
            auto t = libctl::trust_from_name(args[i]);
            if (!t)
                return usage("invalid trust \"" + args[i] + "\" (pcp or dscp)");
            q.trust = *t;
            i++;
        } else if (key == "pfc" || key == "ecn") {
            auto b = parse_prio_list(args[i]);
            if (!b)
                return usage("invalid " + key + " \"" + args[i] +
                             "\" (comma-separated priorities 0..7, or none)");
            (key == "pfc" ? q.pfc_en : q.ecn_en) = *b;
            i++;
        } else if (key == "dscp2prio") {
            size_t start = i;
            while (i < args.size() && args[i].find(':') != std::string::npos) {
                if (!parse_map_entry(args[i], q.dscp2prio))
                    return usage("invalid " + key + " entry \"" + args[i] + "\"");
                i++;
            }
            if (i == start)
                return usage(key + " needs KEY:VALUE entries");
        } else {
            const libctl::Param<Qos>* p = libctl::find_param(libctl::qos_params(), key);
            if (!p || key == "pfc_en" || key == "ecn_en")
                return usage("unknown key \"" + key + "\"");
            auto v = parse_uint(args[i], p->type_max());
            if (!v)
                return usage("invalid value \"" + args[i] + "\" for " + key);
            p->set(q, *v);
            i++;
        }
    }
    if (args.empty())
        return usage("nothing to set");
    auto v = Vrnic::open();
    if (!v)
        return (void)ctx.fail(v.error());
    if (auto st = v->set_qos(dev, q); !st)
        ctx.fail(st.error());
}

} // namespace

void register_qos(CLI::App& app, Context& ctx) {
    struct Args {
        std::string dev;
        std::vector<std::string> rest;
    };
    auto a = std::make_shared<Args>();
    CLI::App* obj = add_object(app, ctx, "qos", "QoS: trust, DSCP/priority maps, PFC, ECN",
                               [&ctx] { show_qos(ctx, ""); });
    CLI::App* sh = obj->add_subcommand("show", "Show QoS settings of DEV (or all)");
    sh->add_option("DEV", a->dev, "vrnic device");
    sh->callback([&ctx, a] { show_qos(ctx, a->dev); });
    CLI::App* st = obj->add_subcommand(
        "set", "Set QoS: DEV [trust pcp|dscp] [pfc PRIO,...|none] [ecn PRIO,...|none] "
               "[dscp2prio DSCP:PRIO ...] [tclass N] [cnp_dscp N] [cnp_prio N]");
    st->add_option("DEV", a->dev, "vrnic device")->required();
    st->add_option("ARGS", a->rest, "settings")->required();
    st->callback([&ctx, a] { set(ctx, a->dev, a->rest); });
}

} // namespace rdmactl
