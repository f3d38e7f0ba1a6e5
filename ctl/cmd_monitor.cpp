// SPDX-License-Identifier: GPL-2.0
// rdmactl monitor
#include "cli.h"
#include "objects.h"

#include <ostream>

#include <CLI/CLI.hpp>
#include <libctl/vrnic.h>

namespace rdmactl {

namespace {

// "vrnic0 limits max_qp 16 max_cq 32 ..." on one line.
std::string one_line(const json& j) {
    std::string s;
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (!s.empty())
            s += " ";
        if (it.value().is_object())
            s += it.key() + " " + one_line(it.value());
        else if (it.key() == "dev_name")
            s += text_value(it.value());
        else
            s += it.key() + " " + text_value(it.value());
    }
    return s;
}

void monitor(Context& ctx) {
    auto v = libctl::Vrnic::open();
    if (!v)
        return (void)ctx.fail(v.error());
    auto st = v->monitor([&](const libctl::ConfigEvent& ev) -> libctl::Status {
        json j = json::object();
        j["dev_name"] = ev.dev_name;
        if (ev.limits)
            j["limits"] = limits_to_json(*ev.limits);
        if (ev.qos)
            j["qos"] = qos_to_json(*ev.qos);
        if (ev.dcqcn)
            j["dcqcn"] = dcqcn_to_json(*ev.dcqcn);
        if (ctx.json_out)
            ctx.out << (ctx.pretty ? j.dump(4) : j.dump()) << std::endl;
        else
            ctx.out << one_line(j) << std::endl;
        return libctl::ok_status();
    });
    if (!st)
        ctx.fail(st.error());
}

} // namespace

void register_monitor(CLI::App& app, Context& ctx) {
    CLI::App* m = app.add_subcommand("monitor", "Print vrnic configuration changes as they happen");
    m->callback([&ctx] { monitor(ctx); });
}

} // namespace rdmactl
