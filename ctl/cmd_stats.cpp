// SPDX-License-Identifier: GPL-2.0
// rdmactl stats show [DEV] [qp [QPN]]
#include "cli.h"

#include <cerrno>
#include <memory>

#include <CLI/CLI.hpp>
#include <libctl/nldev.h>
#include <libctl/vrnic.h>

namespace rdmactl {

namespace {

json counters_to_json(const std::vector<libctl::Counter>& cs) {
    json j = json::object();
    for (const auto& c : cs)
        j[c.name] = c.value;
    return j;
}

// Port counters come from nldev (the driver's hw stats), so they work for
// any RDMA device; per-QP counters are vrnic's.
void port_stats(Context& ctx, const std::string& dev) {
    auto nl = libctl::Nldev::open();
    if (!nl)
        return (void)ctx.fail(nl.error());
    auto devs = nl->devices();
    if (!devs)
        return (void)ctx.fail(devs.error());
    json out = json::array();
    bool found = false;
    for (const auto& d : *devs) {
        if (!dev.empty() && d.dev_name != dev)
            continue;
        found = true;
        for (const auto& p : d.ports) {
            auto cs = nl->port_counters(d, p.port_index);
            if (!cs) {
                // Listing everything skips devices without hw counters.
                if (dev.empty() && (cs.error().err == EOPNOTSUPP || cs.error().err == EINVAL))
                    continue;
                return (void)ctx.fail(cs.error());
            }
            json j = json::object();
            j["dev_name"] = d.dev_name;
            j["port_index"] = p.port_index;
            j["counters"] = counters_to_json(*cs);
            out.push_back(std::move(j));
        }
    }
    if (!dev.empty() && !found)
        return (void)ctx.fail("RDMA device " + dev + " not found");
    ctx.emit(out, [&] {
        for (const json& j : out)
            print_kv(ctx.out, j);
    });
}

void qp_stats(Context& ctx, const std::string& dev, const std::optional<uint32_t>& qpn) {
    auto v = libctl::Vrnic::open();
    if (!v)
        return (void)ctx.fail(v.error());
    auto all = v->qp_stats(dev.empty() ? std::nullopt : std::optional<std::string>(dev), qpn);
    if (!all)
        return (void)ctx.fail(all.error());
    json out = json::array();
    for (const auto& s : *all) {
        json j = json::object();
        j["dev_name"] = s.dev_name;
        if (s.qpn)
            j["qpn"] = *s.qpn;
        j["counters"] = counters_to_json(s.counters);
        out.push_back(std::move(j));
    }
    ctx.emit(out, [&] {
        for (const json& j : out)
            print_kv(ctx.out, j);
    });
}

void show_stats(Context& ctx, const std::vector<std::string>& args) {
    // [DEV] [qp [QPN]]
    std::string dev;
    size_t i = 0;
    if (i < args.size() && args[i] != "qp")
        dev = args[i++];
    if (i == args.size())
        return port_stats(ctx, dev);
    if (args[i] != "qp")
        return (void)ctx.usage("stats show: unexpected \"" + args[i] + "\" (expected qp)");
    i++;
    std::optional<uint32_t> qpn;
    if (i < args.size()) {
        auto n = parse_uint(args[i], 0xffffff);
        if (!n)
            return (void)ctx.usage("stats show: invalid QPN \"" + args[i] + "\"");
        qpn = static_cast<uint32_t>(*n);
        i++;
    }
    if (i != args.size())
        return (void)ctx.usage("stats show: unexpected \"" + args[i] + "\"");
    if (qpn && dev.empty())
        return (void)ctx.usage("stats show: qp QPN needs a device");
    qp_stats(ctx, dev, qpn);
}

} // namespace

void register_stats(CLI::App& app, Context& ctx) {
    auto args = std::make_shared<std::vector<std::string>>();
    CLI::App* obj =
        add_object(app, ctx, "stats", "Port and QP counters", [&ctx] { show_stats(ctx, {}); });
    CLI::App* sh = obj->add_subcommand("show", "Show counters: [DEV] [qp [QPN]]");
    sh->add_option("ARGS", *args, "[DEV] [qp [QPN]]");
    sh->callback([&ctx, args] { show_stats(ctx, *args); });
}

} // namespace rdmactl
