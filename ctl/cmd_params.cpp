// SPDX-License-Identifier: GPL-2.0
// rdmactl limits|dcqcn show [DEV]; rdmactl limits|dcqcn set DEV KEY VALUE ...
#include "cli.h"
#include "objects.h"
#include "show.h"

#include <memory>
#include <set>

#include <CLI/CLI.hpp>
#include <libctl/vrnic.h>

namespace rdmactl {

namespace {

using libctl::Vrnic;

// Everything that differs between limits and dcqcn.
template <typename S> struct ParamObject {
    const char* name;
    const std::vector<libctl::Param<S>>& (*params)();
    libctl::Result<S> (Vrnic::*get)(const std::string&);
    libctl::Status (Vrnic::*set)(const std::string&, const S&);
    json (*to_json)(const S&);
};

const ParamObject<libctl::Limits> kLimits = {"limits", libctl::limits_params, &Vrnic::limits,
                                             &Vrnic::set_limits, limits_to_json};
const ParamObject<libctl::Dcqcn> kDcqcn = {"dcqcn", libctl::dcqcn_params, &Vrnic::dcqcn,
                                           &Vrnic::set_dcqcn, dcqcn_to_json};

template <typename S>
void show_params(Context& ctx, const ParamObject<S>& obj, const std::string& dev) {
    show_object(ctx, dev, obj.name, obj.get, obj.to_json);
}

template <typename S>
void set(Context& ctx, const ParamObject<S>& obj, const std::string& dev,
         const std::vector<std::string>& pairs) {
    if (pairs.size() % 2) {
        ctx.usage(std::string(obj.name) + " set: " + pairs.back() + " needs a value");
        return;
    }
    S s;
    std::set<std::string> seen;
    for (size_t i = 0; i < pairs.size(); i += 2) {
        const std::string& key = pairs[i];
        const libctl::Param<S>* p = libctl::find_param(obj.params(), key);
        if (!p) {
            ctx.usage(std::string(obj.name) + " set " + dev + ": unknown key \"" + key + "\"");
            return;
        }
        if (!seen.insert(key).second) {
            ctx.usage(std::string(obj.name) + " set " + dev + ": " + key + " given twice");
            return;
        }
        // The kernel checks ranges (and explains itself); here only the
        // number itself and the width of its attribute.
        auto v = parse_uint(pairs[i + 1], p->type_max());
        if (!v) {
            ctx.usage(std::string(obj.name) + " set " + dev + ": invalid value \"" + pairs[i + 1] +
                      "\" for " + key + " (an unsigned integer up to " +
                      std::to_string(p->type_max()) + ")");
            return;
        }
        p->set(s, *v);
    }
    auto v = Vrnic::open();
    if (!v) {
        ctx.fail(v.error());
        return;
    }
    if (auto st = ((*v).*obj.set)(dev, s); !st)
        ctx.fail(st.error());
}

template <typename S>
void register_params(CLI::App& app, Context& ctx, const ParamObject<S>& obj,
                     const std::string& description) {
    struct Args {
        std::string dev;
        std::vector<std::string> pairs;
    };
    auto a = std::make_shared<Args>();
    const ParamObject<S>* o = &obj;
    CLI::App* sub =
        add_object(app, ctx, obj.name, description, [&ctx, o] { show_params(ctx, *o, ""); });
    std::string keys;
    for (const auto& p : obj.params())
        keys += std::string(keys.empty() ? "" : ", ") + p.name;
    CLI::App* sh =
        sub->add_subcommand("show", std::string("Show ") + obj.name + " of DEV (or all)");
    sh->add_option("DEV", a->dev, "vrnic device");
    sh->callback([&ctx, o, a] { show_params(ctx, *o, a->dev); });
    CLI::App* st =
        sub->add_subcommand("set", std::string("Set ") + obj.name + ": DEV KEY VALUE ...");
    st->add_option("DEV", a->dev, "vrnic device")->required();
    st->add_option("PAIRS", a->pairs, "KEY VALUE pairs; keys: " + keys)->required();
    st->callback([&ctx, o, a] { set(ctx, *o, a->dev, a->pairs); });
}

} // namespace

void register_limits(CLI::App& app, Context& ctx) {
    register_params(app, ctx, kLimits, "Resource limits of vrnic devices");
}

void register_dcqcn(CLI::App& app, Context& ctx) {
    register_params(app, ctx, kDcqcn, "DCQCN congestion control parameters of vrnic devices");
}

} // namespace rdmactl
