// SPDX-License-Identifier: GPL-2.0
// rdmactl config dump [DEV]; rdmactl apply -f FILE [--dry-run]
#include "cli.h"
#include "objects.h"
#include "show.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <CLI/CLI.hpp>
#include <libctl/vrnic.h>

namespace rdmactl {

namespace {

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

void dump(Context& ctx, const std::string& dev) {
    auto targets = open_show_targets(ctx, dev);
    if (!targets)
        return;
    Config c;
    for (const auto& d : targets->devs) {
        auto dc = read_device(targets->vrnic, d);
        if (!dc)
            return (void)ctx.fail(dc.error());
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
    bool dry_run = false;
};

void apply(Context& ctx, const ApplyArgs& a) {
    std::string text;
    if (a.file == "-") {
        std::stringstream ss;
        ss << std::cin.rdbuf();
        text = ss.str();
    } else {
        std::ifstream in(a.file);
        if (!in)
            return (void)ctx.fail("apply: cannot read " + a.file + ": " + std::strerror(errno));
        std::stringstream ss;
        ss << in.rdbuf();
        text = ss.str();
    }
    // 1. The whole file must be valid before anything is looked at.
    auto cfg = config_from_text(text);
    if (!cfg)
        return (void)ctx.fail("apply " + a.file + ": " + cfg.error().message());
    // 2. Every device must exist and be a vrnic device.
    for (const auto& d : cfg->devices)
        if (!require_vrnic(ctx, d.dev_name))
            return;
    auto v = Vrnic::open();
    if (!v)
        return (void)ctx.fail(v.error());
    // 3. Compare with what runs now.
    std::vector<DeviceConfig> current, deltas;
    std::vector<Change> changes;
    for (const auto& want : cfg->devices) {
        auto cur = read_device(*v, want.dev_name);
        if (!cur)
            return (void)ctx.fail(cur.error());
        DeviceConfig delta;
        auto ch = diff_config(*cur, want, &delta);
        changes.insert(changes.end(), ch.begin(), ch.end());
        current.push_back(std::move(cur).value());
        deltas.push_back(std::move(delta));
    }
    if (a.dry_run) {
        json out = json::array();
        for (const auto& c : changes)
            out.push_back(json{{"dev_name", c.dev_name},
                               {"object", c.object},
                               {"key", c.key},
                               {"from", c.from},
                               {"to", c.to}});
        ctx.emit(out, [&] {
            for (const auto& c : changes)
                ctx.out << c.dev_name << " " << c.object << " " << c.key << ": "
                        << text_value(c.from) << " -> " << text_value(c.to) << "\n";
        });
        return;
    }
    // 4. Apply object by object; each SET is atomic in the kernel.  If one
    //    fails, put back the objects already changed (in reverse order),
    //    using the values read in step 3.
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
        libctl::Error e = st.error();
        std::string reason = e.extack.empty() ? std::strerror(e.err) : e.extack;
        e.context = "apply " + a.file + ": " + e.context;
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
    ap->callback([&ctx, a] { apply(ctx, *a); });
}

} // namespace rdmactl
