// SPDX-License-Identifier: GPL-2.0
// The rdmactl command line: one registration function per object, thin
// callbacks over libctl, and the exit-code table.
#pragma once

#include "output.h"

#include <libctl/result.h>

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace rdmactl {

/// rdmactl's exit codes (documented in rdmactl(8)).
enum ExitCode {
    kExitOk = 0,     ///< success
    kExitFailed = 1, ///< the operation failed (kernel error, unknown device, bad file)
    kExitUsage = 2,  ///< command-line usage error (CLI11 parse errors map here)
};

/// Global options and the streams of one invocation.
struct Context {
    bool json_out = false; ///< -j
    bool pretty = false;
    std::ostream& out;
    std::ostream& err;
    int rc = kExitOk;

    Context(std::ostream& o, std::ostream& e) : out(o), err(e) {}

    /// Prints "Error: <error>." and records exit code 1.
    int fail(const libctl::Error& e);
    /// Prints "Error: <message>." and records exit code @p code.
    int fail(const std::string& message, int code = kExitFailed);
    /// Prints "Error: <message>." and records exit code 2.
    int usage(const std::string& message) { return fail(message, kExitUsage); }
    /// JSON when -j was given, otherwise the text renderer's output.
    template <typename TextFn> void emit(const rdmactl::json& j, TextFn&& text) {
        if (json_out)
            print_json(out, j, pretty);
        else
            text();
    }
};

/// Runs rdmactl with @p argv; returns the process exit code.  Never exits.
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

/// Creates an OBJECT subcommand that understands "OBJECT help" and runs
/// @p on_default (its "show") when no command follows.
CLI::App* add_object(CLI::App& app, Context& ctx, const std::string& name,
                     const std::string& description, std::function<void()> on_default);

void register_dev(CLI::App& app, Context& ctx);
void register_link(CLI::App& app, Context& ctx);
void register_limits(CLI::App& app, Context& ctx);
void register_dcqcn(CLI::App& app, Context& ctx);
void register_qos(CLI::App& app, Context& ctx);
void register_gid(CLI::App& app, Context& ctx);
void register_stats(CLI::App& app, Context& ctx);
void register_config(CLI::App& app, Context& ctx);
void register_monitor(CLI::App& app, Context& ctx);

/// Parses an unsigned decimal (or 0x hex) number no larger than @p max.
std::optional<uint64_t> parse_uint(const std::string& s, uint64_t max);

} // namespace rdmactl
