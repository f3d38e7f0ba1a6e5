// SPDX-License-Identifier: GPL-2.0
#include "show.h"

#include <utility>

namespace rdmactl {

std::optional<ShowTargets> open_show_targets(Context& ctx, const std::string& dev) {
    auto v = libctl::Vrnic::open();
    if (!v) {
        ctx.fail(v.error());
        return std::nullopt;
    }
    std::vector<std::string> devs{dev};
    if (dev.empty()) {
        auto all = v->devices();
        if (!all) {
            ctx.fail(all.error());
            return std::nullopt;
        }
        devs = std::move(all).value();
    }
    return ShowTargets{std::move(v).value(), std::move(devs)};
}

void show_object(Context& ctx, const std::string& dev, const std::string& object,
                 const ReadObjectFn& read) {
    auto targets = open_show_targets(ctx, dev);
    if (!targets)
        return;
    json out = json::array();
    for (const auto& d : targets->devs) {
        auto value = read(targets->vrnic, d);
        if (!value) {
            ctx.fail(value.error());
            return;
        }
        json j = json::object();
        j["dev_name"] = d;
        j[object] = std::move(value).value();
        out.push_back(std::move(j));
    }
    ctx.emit(dev.empty() ? out : out[0], [&] {
        for (const json& j : out)
            print_kv(ctx.out, j);
    });
}

} // namespace rdmactl
