// SPDX-License-Identifier: GPL-2.0
// rdmactl config dump [DEV]; rdmactl apply -f FILE [--dry-run] [--netdev IFNAME]
#include "cli.h"
#include "objects.h"
#include "show.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <set>

#include <fcntl.h>
#include <net/if.h>
#include <sys/file.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <libctl/fd.h>
#include <libctl/nldev.h>
#include <libctl/vrnic.h>

namespace rdmactl {

namespace {

using libctl::Fd;
using libctl::Result;
using libctl::Vrnic;

Result<DeviceConfig> read_device(Vrnic& v, const std::string& dev) {
    DeviceConfig dc;
    dc.dev_name = dev;
    auto l = v.limits(dev);
    if (!l)
        return l.error();
    auto q = v.qos(dev);
    if (!q)
        return q.error();
    auto d = v.dcqcn(dev);
    if (!d)
        return d.error();
    dc.limits = *l;
    dc.qos = *q;
    dc.dcqcn = *d;
    return dc;
}

// RDMA device name -> the netdev of its port 1 ("" when it has none in
// this network namespace).
Result<std::map<std::string, std::string>> running_links() {
    auto nl = libctl::Nldev::open();
    if (!nl)
        return nl.error();
    auto devs = nl->devices();
    if (!devs)
        return devs.error();
    std::map<std::string, std::string> out;
    for (const auto& d : *devs) {
        std::string nd;
        for (const auto& p : d.ports)
            if (p.port_index == 1 && p.ndev_name)
                nd = *p.ndev_name;
        out[d.dev_name] = nd;
    }
    return out;
}

void dump(Context& ctx, const std::string& dev) {
    auto targets = open_show_targets(ctx, dev);
    if (!targets)
        return;
    auto links = running_links();
    if (!links)
        return (void)ctx.fail(links.error());
    Config c;
    for (const auto& d : targets->devs) {
        auto dc = read_device(targets->vrnic, d);
        if (!dc)
            return (void)ctx.fail(dc.error());
        if (auto it = links->find(d); it != links->end() && !it->second.empty())
            dc->netdev = it->second;
        c.devices.push_back(std::move(dc).value());
    }
    // A configuration file is meant to be read and edited: always pretty,
    // unless -j alone asks for one compact line.
    print_json(ctx.out, config_to_json(c), !ctx.json_out || ctx.pretty);
}

// Sends the objects of @p d one SET each, recording in @p done the partial
// configurations that the kernel accepted (for rollback).
libctl::Status set_device(Vrnic& v, const DeviceConfig& d, std::vector<DeviceConfig>* done) {
    DeviceConfig one;
    one.dev_name = d.dev_name;
    if (d.limits) {
        if (auto st = v.set_limits(d.dev_name, *d.limits); !st)
            return st;
        if (done) {
            done->push_back(one);
            done->back().limits = d.limits;
        }
    }
    if (d.qos) {
        if (auto st = v.set_qos(d.dev_name, *d.qos); !st)
            return st;
        if (done) {
            done->push_back(one);
            done->back().qos = d.qos;
        }
    }
    if (d.dcqcn) {
        if (auto st = v.set_dcqcn(d.dev_name, *d.dcqcn); !st)
            return st;
        if (done) {
            done->push_back(one);
            done->back().dcqcn = d.dcqcn;
        }
    }
    return libctl::ok_status();
}

struct ApplyArgs {
    std::string file;
    std::string netdev;
    bool dry_run = false;
};

// Reads @p fd to its end.
libctl::Result<std::string> read_all(int fd, const std::string& name) {
    std::string text;
    char buf[4096];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return libctl::make_error(errno, "cannot read " + name);
        if (n == 0)
            return text;
        text.append(buf, static_cast<size_t>(n));
    }
}

void apply(Context& ctx, const ApplyArgs& a) {
    // Concurrent applies (the boot unit and one unit per appearing netdev)
    // take turns on a lock on the file, so each sees what the previous one
    // created.
    const bool from_stdin = a.file == "-";
    Fd fd(from_stdin ? dup(STDIN_FILENO) : open(a.file.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0)
        return (void)ctx.fail("apply: cannot read " + a.file + ": " + std::strerror(errno));
    if (!from_stdin && flock(fd.get(), LOCK_EX) < 0)
        return (void)ctx.fail("apply: cannot lock " + a.file + ": " + std::strerror(errno));
    const std::string source = from_stdin ? "<stdin>" : a.file;
    auto text = read_all(fd.get(), source);
    if (!text)
        return (void)ctx.fail(text.error());
    auto nothing = [&ctx](libctl::Error e) {
        e.extack = (e.extack.empty() ? std::strerror(e.err) : e.extack) + "; nothing applied";
        return (void)ctx.fail(e);
    };
    // 1. The whole file must be valid before anything is looked at.
    auto cfg = config_from_text(*text, source);
    if (!cfg)
        return nothing(cfg.error());
    // The ranges are the kernel's (its policy), so they are checked once
    // the vrnic family is there: before anything changes when devices
    // exist already, else right after creating the links (undone then).
    // The whole file is checked, as it was written (paths count from it).
    const Config whole = *cfg;
    bool ranges_checked = false;
    auto in_ranges = [&](Vrnic& v) -> libctl::Status {
        if (ranges_checked)
            return libctl::ok_status();
        ranges_checked = true;
        auto r = read_config_ranges(v);
        if (!r)
            return r.error();
        if (auto st = check_config_ranges(whole, *r); !st)
            return locate_error(*text, source, st.error());
        return libctl::ok_status();
    };
    // Only the devices over @p a.netdev, when it is given (a netdev that
    // just appeared).
    if (!a.netdev.empty()) {
        auto& ds = cfg->devices;
        ds.erase(std::remove_if(ds.begin(), ds.end(),
                                [&](const DeviceConfig& d) { return d.netdev != a.netdev; }),
                 ds.end());
        if (ds.empty())
            return;
    }
    // 2. Which links to create; devices whose netdev is absent wait for it.
    auto running = running_links();
    if (!running)
        return (void)ctx.fail(running.error());
    auto plan = plan_links(*cfg, *running,
                           [](const std::string& n) { return if_nametoindex(n.c_str()) != 0; });
    if (!plan)
        return nothing(locate_error(*text, source, plan.error()));
    for (const auto& [dev, netdev] : plan->waiting) {
        ctx.err << "Note: " << dev << ": netdev " << netdev
                << " does not exist; the device is created when it appears." << std::endl;
        auto& ds = cfg->devices;
        ds.erase(std::remove_if(ds.begin(), ds.end(),
                                [&](const DeviceConfig& d) { return d.dev_name == dev; }),
                 ds.end());
    }
    auto creating = [&plan](const std::string& dev) {
        for (const auto& c : plan->create)
            if (c.first == dev)
                return true;
        return false;
    };
    // 3. The devices that exist must be vrnic devices.
    std::set<std::string> vrnic_devs;
    if (cfg->devices.size() > plan->create.size()) {
        auto v = Vrnic::open();
        if (!v)
            return nothing(v.error());
        auto names = v->devices();
        if (!names)
            return nothing(names.error());
        vrnic_devs.insert(names->begin(), names->end());
        for (const auto& d : cfg->devices)
            if (!creating(d.dev_name) && !vrnic_devs.count(d.dev_name))
                return (void)ctx.fail(d.dev_name + " is not a vrnic device; nothing applied");
        if (auto st = in_ranges(*v); !st)
            return nothing(st.error());
    }
    if (a.dry_run) {
        // Devices still to create are compared with nothing: every key
        // they set is a change.
        json out = json::array();
        auto v = Vrnic::open();
        if (v) {
            if (auto st = in_ranges(*v); !st)
                return nothing(st.error());
        } else {
            ctx.err << "Note: values not checked against the kernel's ranges: " << v.error().extack
                    << std::endl;
        }
        for (const auto& want : cfg->devices) {
            DeviceConfig cur;
            if (creating(want.dev_name)) {
                out.push_back(json{{"dev_name", want.dev_name},
                                   {"object", "link"},
                                   {"key", "netdev"},
                                   {"from", nullptr},
                                   {"to", *want.netdev}});
            } else {
                if (!v)
                    return (void)ctx.fail(v.error());
                auto c = read_device(*v, want.dev_name);
                if (!c)
                    return (void)ctx.fail(c.error());
                cur = std::move(c).value();
            }
            for (const auto& c : diff_config(cur, want, nullptr))
                out.push_back(json{{"dev_name", c.dev_name},
                                   {"object", c.object},
                                   {"key", c.key},
                                   {"from", c.from},
                                   {"to", c.to}});
        }
        ctx.emit(out, [&] {
            for (const auto& c : out)
                ctx.out << c["dev_name"].get<std::string>() << " " << c["object"].get<std::string>()
                        << " " << c["key"].get<std::string>() << ": " << text_value(c["from"])
                        << " -> " << text_value(c["to"]) << "\n";
        });
        return;
    }
    // 4. Create the missing links (as "rdma link add NAME type vrnic
    //    netdev NETDEV"); a failure removes the ones created before it.
    auto nl = libctl::Nldev::open();
    if (!nl)
        return (void)ctx.fail(nl.error());
    std::vector<std::string> created;
    auto undo_links = [&] {
        bool ok = true;
        for (auto it = created.rbegin(); it != created.rend(); ++it)
            ok = nl->link_del(*it) && ok;
        return ok;
    };
    for (const auto& [dev, netdev] : plan->create) {
        if (auto st = nl->link_add(dev, "vrnic", netdev); !st) {
            libctl::Error e = st.error();
            bool undone = undo_links();
            e.extack = (e.extack.empty() ? std::strerror(e.err) : e.extack) +
                       (undone ? "; nothing applied" : "; removing the links created failed");
            return (void)ctx.fail(e);
        }
        created.push_back(dev);
    }
    // 5. Compare with what runs now.
    auto v = Vrnic::open();
    if (!v) {
        undo_links();
        return (void)ctx.fail(v.error());
    }
    if (auto st = in_ranges(*v); !st) {
        libctl::Error e = st.error();
        bool undone = undo_links();
        e.extack += undone ? "; nothing applied" : "; removing the links created failed";
        return (void)ctx.fail(e);
    }
    std::vector<DeviceConfig> current, deltas;
    for (const auto& want : cfg->devices) {
        auto cur = read_device(*v, want.dev_name);
        if (!cur) {
            undo_links();
            return (void)ctx.fail(cur.error());
        }
        DeviceConfig delta;
        diff_config(*cur, want, &delta);
        current.push_back(std::move(cur).value());
        deltas.push_back(std::move(delta));
    }
    // 6. Apply object by object; each SET is atomic in the kernel.  If one
    //    fails, put back the objects already changed (in reverse order),
    //    using the values read in step 5, and remove the links created.
    std::vector<DeviceConfig> done;
    for (const DeviceConfig& delta : deltas) {
        auto st = set_device(*v, delta, &done);
        if (st)
            continue;
        bool restored = true;
        for (auto it = done.rbegin(); it != done.rend(); ++it) {
            const DeviceConfig* cur = nullptr;
            for (const auto& c : current)
                if (c.dev_name == it->dev_name)
                    cur = &c;
            DeviceConfig undo;
            undo.dev_name = it->dev_name;
            if (it->limits)
                undo.limits = cur->limits;
            if (it->qos)
                undo.qos = cur->qos;
            if (it->dcqcn)
                undo.dcqcn = cur->dcqcn;
            restored = set_device(*v, undo, nullptr) && restored;
        }
        restored = undo_links() && restored;
        libctl::Error e = st.error();
        std::string reason = e.extack.empty() ? std::strerror(e.err) : e.extack;
        e.context = "apply " + source + ": " + e.context;
        e.extack = reason + (restored ? "; nothing changed" : "; rollback failed, check the state");
        return (void)ctx.fail(e);
    }
}

} // namespace

void register_config(CLI::App& app, Context& ctx) {
    auto dev = std::make_shared<std::string>();
    CLI::App* obj = add_object(app, ctx, "config", "The whole vrnic configuration as JSON",
                               [&ctx] { dump(ctx, ""); });
    CLI::App* d = obj->add_subcommand("dump", "Print the configuration of DEV (or all) as JSON");
    d->add_option("DEV", *dev, "vrnic device");
    d->callback([&ctx, dev] { dump(ctx, *dev); });

    auto a = std::make_shared<ApplyArgs>();
    CLI::App* ap =
        app.add_subcommand("apply", "Apply a configuration file (as config dump prints)");
    ap->add_option("-f,--file", a->file, "configuration file, - for stdin")->required();
    ap->add_flag("-n,--dry-run", a->dry_run, "validate and print the changes, change nothing");
    ap->add_option("--netdev", a->netdev,
                   "only the devices over this netdev (when it appears: vrnic-config@.service)");
    ap->callback([&ctx, a] { apply(ctx, *a); });
}

} // namespace rdmactl
