// SPDX-License-Identifier: GPL-2.0
#include "cli.h"

#include <cerrno>
#include <iostream>

#include <CLI/CLI.hpp>
#include <libctl/nldev.h>
#include <libctl/vrnic.h>
#include <uapi/vrnic.h>

#ifndef RDMACTL_VERSION
#define RDMACTL_VERSION "0"
#endif

namespace rdmactl {

namespace {

// "Error: <reason>." on one line, whatever the reason ends with.
std::string sentence(std::string msg) {
    while (!msg.empty() && (msg.back() == '.' || msg.back() == '\n' || msg.back() == ' '))
        msg.pop_back();
    for (char& c : msg)
        if (c == '\n')
            c = ' ';
    return "Error: " + msg + ".";
}

} // namespace

int Context::fail(const libctl::Error& e) {
    return fail(e.message(), kExitFailed);
}

int Context::fail(const std::string& message, int code) {
    err << sentence(message) << std::endl;
    rc = code;
    return code;
}

std::optional<uint64_t> parse_uint(const std::string& s, uint64_t max) {
    if (s.empty() || s[0] == '-' || s[0] == '+' || s[0] == ' ')
        return std::nullopt;
    errno = 0;
    char* end = nullptr;
    unsigned long long v = std::strtoull(s.c_str(), &end, 0);
    if (errno || !end || *end || v > max)
        return std::nullopt;
    return static_cast<uint64_t>(v);
}

CLI::App* add_object(CLI::App& app, Context& ctx, const std::string& name,
                     const std::string& description, std::function<void()> on_default) {
    CLI::App* obj = app.add_subcommand(name, description);
    obj->require_subcommand(0, 1);
    obj->fallthrough();
    CLI::App* help = obj->add_subcommand("help", "Show the commands of " + name);
    // App::help() would describe the selected "help" subcommand itself.
    help->callback([obj, &ctx] {
        ctx.out << obj->get_formatter()->make_help(obj, "rdmactl " + obj->get_name(),
                                                   CLI::AppFormatMode::Normal);
    });
    obj->callback([obj, on_default = std::move(on_default)] {
        if (obj->get_subcommands().empty())
            on_default();
    });
    return obj;
}

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
    Context ctx(out, err);
    CLI::App app("rdmactl: configure vrnic and other RDMA devices over netlink", "rdmactl");
    app.require_subcommand(1, 1);
    app.fallthrough();
    app.add_flag("-j,--json", ctx.json_out, "Output JSON");
    app.add_flag("-p,--pretty", ctx.pretty, "Pretty-print JSON output (with -j)");
    app.set_version_flag("-V,--version",
                         std::string("rdmactl " RDMACTL_VERSION " (vrnic netlink API ") +
                             std::to_string(VRNIC_GENL_VERSION) + ")");
    register_dev(app, ctx);
    register_link(app, ctx);
    register_limits(app, ctx);
    register_qos(app, ctx);
    register_dcqcn(app, ctx);
    register_gid(app, ctx);
    register_stats(app, ctx);
    register_config(app, ctx);
    register_monitor(app, ctx);

    try {
        app.parse(argc, argv);
    } catch (const CLI::Success& e) { // --help, --version
        app.exit(e, out, err);
        return kExitOk;
    } catch (const CLI::ParseError& e) {
        // Every CLI11 parse error is a usage error: exit code 2.  An
        // unknown OBJECT is left over ("remaining") with no object
        // parsed, which CLI11 reports as a missing subcommand: name it.
        std::vector<std::string> left = app.remaining();
        if (app.get_subcommands().empty() && !left.empty() && !left[0].empty() && left[0][0] != '-')
            return ctx.usage("unknown object \"" + left[0] + "\" (see rdmactl --help)");
        ctx.usage(std::string(e.what()) + " (see rdmactl --help)");
        return kExitUsage;
    }
    return ctx.rc;
}

} // namespace rdmactl
