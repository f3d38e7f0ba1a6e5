// SPDX-License-Identifier: GPL-2.0
// rdmactl dev show [DEV]; rdmactl link add|del
#include "cli.h"

#include <cstdio>
#include <set>

#include <CLI/CLI.hpp>
#include <libctl/nldev.h>
#include <libctl/vrnic.h>
#include <net/if.h>

namespace rdmactl {

namespace {

std::string format_guid(uint64_t g) {
    char buf[20];
    std::snprintf(buf, sizeof(buf), "%04x:%04x:%04x:%04x", static_cast<unsigned>(g >> 48) & 0xffff,
                  static_cast<unsigned>(g >> 32) & 0xffff, static_cast<unsigned>(g >> 16) & 0xffff,
                  static_cast<unsigned>(g) & 0xffff);
    return buf;
}

json port_to_json(const libctl::Port& p) {
    json j = json::object();
    j["port_index"] = p.port_index;
    if (p.port_state)
        j["port_state"] = libctl::port_state_name(*p.port_state);
    if (p.port_phys_state)
        j["port_phys_state"] = libctl::port_phys_state_name(*p.port_phys_state);
    if (p.ndev_index)
        j["ndev_index"] = *p.ndev_index;
    if (p.ndev_name)
        j["ndev_name"] = *p.ndev_name;
    return j;
}

// "driver" is not an nldev attribute: vrnic devices are those the vrnic
// family lists, the others are named by their uverbs driver id.
json device_to_json(const libctl::Device& d, const std::set<std::string>& vrnic_devs) {
    json j = json::object();
    j["dev_index"] = d.dev_index;
    j["dev_name"] = d.dev_name;
    if (d.dev_node_type)
        j["dev_node_type"] = libctl::node_type_name(*d.dev_node_type);
    if (d.dev_protocol)
        j["dev_protocol"] = *d.dev_protocol;
    if (vrnic_devs.count(d.dev_name))
        j["driver"] = "vrnic";
    else if (d.uverbs_driver_id)
        j["driver"] = libctl::driver_id_name(*d.uverbs_driver_id);
    if (d.fw_version)
        j["fw_version"] = *d.fw_version;
    if (d.node_guid)
        j["node_guid"] = format_guid(*d.node_guid);
    if (d.sys_image_guid)
        j["sys_image_guid"] = format_guid(*d.sys_image_guid);
    json ports = json::array();
    for (const auto& p : d.ports)
        ports.push_back(port_to_json(p));
    j["ports"] = std::move(ports);
    return j;
}

const std::vector<Column> kDevColumns = {
    {"DEV", {"dev_name"}},          {"PORT", {"port_index"}},
    {"STATE", {"port_state"}},      {"PHYS_STATE", {"port_phys_state"}},
    {"NETDEV", {"ndev_name"}},      {"NODE_TYPE", {"dev_node_type"}},
    {"PROTOCOL", {"dev_protocol"}}, {"DRIVER", {"driver"}},
};

void dev_show(Context& ctx, const std::string& name) {
    auto nl = libctl::Nldev::open();
    if (!nl) {
        ctx.fail(nl.error());
        return;
    }
    auto devs = nl->devices();
    if (!devs) {
        ctx.fail(devs.error());
        return;
    }
    std::set<std::string> vrnic_devs;
    if (auto v = libctl::Vrnic::open()) { // absent family: no vrnic devices
        if (auto names = v->devices())
            vrnic_devs.insert(names->begin(), names->end());
    }
    json all = json::array();
    for (const auto& d : *devs)
        if (name.empty() || d.dev_name == name)
            all.push_back(device_to_json(d, vrnic_devs));
    if (!name.empty() && all.empty()) {
        ctx.fail("RDMA device " + name + " not found");
        return;
    }
    ctx.emit(all, [&] {
        // One text row per port, with the device's fields repeated.
        std::vector<json> rows;
        for (const json& d : all) {
            json base = d;
            base.erase("ports");
            if (d["ports"].empty())
                rows.push_back(base);
            for (const json& p : d["ports"]) {
                json row = base;
                for (auto it = p.begin(); it != p.end(); ++it)
                    row[it.key()] = it.value();
                rows.push_back(std::move(row));
            }
        }
        print_table(ctx.out, kDevColumns, rows);
    });
}

struct LinkArgs {
    std::string name;
    std::vector<std::string> rest;
};

void link_add(Context& ctx, const LinkArgs& a) {
    std::string netdev, type = "vrnic";
    for (size_t i = 0; i < a.rest.size(); i += 2) {
        if (i + 1 >= a.rest.size()) {
            ctx.usage("link add: " + a.rest[i] + " needs a value");
            return;
        }
        if (a.rest[i] == "netdev")
            netdev = a.rest[i + 1];
        else if (a.rest[i] == "type")
            type = a.rest[i + 1];
        else {
            ctx.usage("link add: unknown keyword \"" + a.rest[i] + "\"");
            return;
        }
    }
    if (netdev.empty()) {
        ctx.usage("link add: missing \"netdev IFNAME\"");
        return;
    }
    // nldev answers an unknown netdev with a bare ENODEV; say which.
    if (if_nametoindex(netdev.c_str()) == 0) {
        ctx.fail("link add " + a.name + ": netdev " + netdev + " not found");
        return;
    }
    auto nl = libctl::Nldev::open();
    if (!nl) {
        ctx.fail(nl.error());
        return;
    }
    if (auto st = nl->link_add(a.name, type, netdev); !st)
        ctx.fail(st.error());
}

void link_del(Context& ctx, const std::string& name) {
    auto nl = libctl::Nldev::open();
    if (!nl) {
        ctx.fail(nl.error());
        return;
    }
    if (auto st = nl->link_del(name); !st)
        ctx.fail(st.error());
}

} // namespace

void register_dev(CLI::App& app, Context& ctx) {
    auto name = std::make_shared<std::string>();
    CLI::App* obj =
        add_object(app, ctx, "dev", "RDMA devices (any driver)", [&ctx] { dev_show(ctx, ""); });
    CLI::App* show = obj->add_subcommand("show", "List RDMA devices and their ports");
    show->add_option("DEV", *name, "RDMA device name");
    show->callback([&ctx, name] { dev_show(ctx, *name); });
}

void register_link(CLI::App& app, Context& ctx) {
    auto add_args = std::make_shared<LinkArgs>();
    auto del_name = std::make_shared<std::string>();
    CLI::App* obj =
        add_object(app, ctx, "link", "Soft RDMA links (vrnic, rxe)", [&ctx] { dev_show(ctx, ""); });
    CLI::App* add = obj->add_subcommand("add", "Create NAME over a netdev: add NAME netdev IFNAME "
                                               "[type vrnic|rxe]");
    add->add_option("NAME", add_args->name, "new RDMA device name")->required();
    add->add_option("ARGS", add_args->rest, "netdev IFNAME [type TYPE]");
    add->callback([&ctx, add_args] { link_add(ctx, *add_args); });
    CLI::App* del = obj->add_subcommand("del", "Delete a soft RDMA device");
    del->alias("delete");
    del->add_option("NAME", *del_name, "RDMA device name")->required();
    del->callback([&ctx, del_name] { link_del(ctx, *del_name); });
}

} // namespace rdmactl
