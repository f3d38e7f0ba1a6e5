// SPDX-License-Identifier: GPL-2.0
// rdmactl gid show [DEV]; rdmactl gid add|del DEV ADDR/PLEN
#include "cli.h"

#include <memory>

#include <CLI/CLI.hpp>
#include <libctl/gid.h>
#include <libctl/nldev.h>
#include <libctl/rtnl.h>

namespace rdmactl {

namespace {

json gid_to_json(const libctl::Gid& g) {
    json j = json::object();
    j["dev_name"] = g.dev_name;
    j["port"] = g.port;
    j["index"] = g.index;
    j["gid"] = g.gid;
    j["type"] = libctl::gid_type_name(g.type);
    if (g.ndev_ifindex)
        j["ndev_ifindex"] = *g.ndev_ifindex;
    if (g.ndev_name)
        j["ndev_name"] = *g.ndev_name;
    if (g.ipv4)
        j["ipv4"] = *g.ipv4;
    if (g.ipv6)
        j["ipv6"] = *g.ipv6;
    return j;
}

const std::vector<Column> kGidColumns = {
    {"DEV", {"dev_name"}}, {"PORT", {"port"}},        {"INDEX", {"index"}},     {"GID", {"gid"}},
    {"TYPE", {"type"}},    {"NETDEV", {"ndev_name"}}, {"IP", {"ipv4", "ipv6"}},
};

// The GID table as ib_core shows it in sysfs: any RDMA device.
void show_gids(Context& ctx, const std::string& dev) {
    auto gids = libctl::read_gids(dev.empty() ? std::nullopt : std::optional<std::string>(dev));
    if (!gids)
        return (void)ctx.fail(gids.error());
    json out = json::array();
    std::vector<json> rows;
    for (const auto& g : *gids) {
        out.push_back(gid_to_json(g));
        rows.push_back(out.back());
    }
    ctx.emit(out, [&] { print_table(ctx.out, kGidColumns, rows); });
}

// ib_core derives RoCE GIDs from the addresses of the port's netdev, so a
// GID is added by adding the address there.
void change(Context& ctx, bool add, const std::string& dev, const std::string& addr) {
    const char* verb = add ? "gid add" : "gid del";
    auto a = libctl::parse_ifaddr(addr);
    if (!a)
        return (void)ctx.usage(std::string(verb) + " " + dev + ": " + a.error().message());
    auto nl = libctl::Nldev::open();
    if (!nl)
        return (void)ctx.fail(nl.error());
    auto d = nl->device(dev);
    if (!d)
        return (void)ctx.fail(d.error());
    if (d->ports.empty() || !d->ports[0].ndev_index)
        return (void)ctx.fail(std::string(verb) + ": " + dev + " has no bound netdev");
    const libctl::Port& p = d->ports[0];
    auto rt = libctl::Rtnl::open();
    if (!rt)
        return (void)ctx.fail(rt.error());
    auto st = add ? rt->addr_add(static_cast<int>(*p.ndev_index), p.ndev_name.value_or("?"), *a)
                  : rt->addr_del(static_cast<int>(*p.ndev_index), p.ndev_name.value_or("?"), *a);
    if (!st)
        ctx.fail(st.error());
}

} // namespace

void register_gid(CLI::App& app, Context& ctx) {
    struct Args {
        std::string dev, addr;
    };
    auto a = std::make_shared<Args>();
    CLI::App* obj =
        add_object(app, ctx, "gid", "GID tables of RDMA devices", [&ctx] { show_gids(ctx, ""); });
    CLI::App* sh = obj->add_subcommand("show", "Show the GID table of DEV (or all)");
    sh->add_option("DEV", a->dev, "RDMA device");
    sh->callback([&ctx, a] { show_gids(ctx, a->dev); });
    CLI::App* add = obj->add_subcommand("add", "Add ADDR/PLEN to DEV's netdev (ib_core adds GIDs)");
    add->add_option("DEV", a->dev, "RDMA device")->required();
    add->add_option("ADDR", a->addr, "IPv4 or IPv6 address with prefix length")->required();
    add->callback([&ctx, a] { change(ctx, true, a->dev, a->addr); });
    CLI::App* del = obj->add_subcommand("del", "Remove ADDR/PLEN from DEV's netdev");
    del->alias("delete");
    del->add_option("DEV", a->dev, "RDMA device")->required();
    del->add_option("ADDR", a->addr, "IPv4 or IPv6 address with prefix length")->required();
    del->callback([&ctx, a] { change(ctx, false, a->dev, a->addr); });
}

} // namespace rdmactl
