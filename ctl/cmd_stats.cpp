// SPDX-License-Identifier: GPL-2.0
// rdmactl stats show [DEV] [qp [QPN]]
#include "cli.h"

#include <cerrno>
#include <memory>
#include <optional>

#include <CLI/CLI.hpp>
#include <libctl/nldev.h>
#include <libctl/vrnic.h>

namespace rdmactl {

namespace {

// IBA 9.2: QP numbers are 24 bits.
constexpr uint64_t kMaxQpn = 0xffffff;

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

} // namespace

void register_stats(CLI::App& app, Context& ctx) {
    struct Args {
        std::string dev;
        std::string qpn;
    };
    auto args = std::make_shared<Args>();
    CLI::App* obj =
        add_object(app, ctx, "stats", "Port and QP counters", [&ctx] { port_stats(ctx, ""); });
    CLI::App* sh = obj->add_subcommand("show", "Show counters: [DEV] [qp [QPN]]");
    sh->add_option("DEV", args->dev, "RDMA device (default: every device)");
    CLI::App* qp = sh->add_subcommand("qp", "Per-QP counters of DEV's QPs you may see");
    qp->add_option("QPN", args->qpn, "Only this QP")
        ->check(CLI::Validator(
            [](std::string& s) {
                return parse_uint(s, kMaxQpn)
                           ? std::string()
                           : "invalid QPN \"" + s + "\" (0.." + std::to_string(kMaxQpn) + ")";
            },
            "QPN"));
    sh->callback([&ctx, args, qp] {
        if (!qp->parsed())
            return port_stats(ctx, args->dev);
        std::optional<uint32_t> qpn;
        if (!args->qpn.empty())
            qpn = static_cast<uint32_t>(*parse_uint(args->qpn, kMaxQpn));
        if (qpn && args->dev.empty())
            return (void)ctx.usage("stats show: qp QPN needs a device");
        qp_stats(ctx, args->dev, qpn);
    });
}

} // namespace rdmactl
