// SPDX-License-Identifier: GPL-2.0
// "OBJECT show [DEV]" for the per-device configuration objects (limits,
// dcqcn, qos) and "config dump [DEV]": the same choice of devices, errors
// and output shape for all of them.
#pragma once

#include "cli.h"

#include <libctl/result.h>
#include <libctl/vrnic.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rdmactl {

/// The vrnic family, opened, and the devices a "show [DEV]" reads through it.
struct ShowTargets {
    libctl::Vrnic vrnic;
    std::vector<std::string> devs; ///< DEV alone, or every vrnic device when none was named
};

/// Opens the vrnic family and lists the devices to show (@p dev alone, whose
/// existence the kernel checks when it is read); on failure prints the
/// error and returns nullopt.
std::optional<ShowTargets> open_show_targets(Context& ctx, const std::string& dev);

/// Reads one object of one device as JSON.
using ReadObjectFn =
    std::function<libctl::Result<json>(libctl::Vrnic& vrnic, const std::string& dev)>;

/// Shows @p object of @p dev, or of every vrnic device when @p dev is empty:
/// one {"dev_name": DEV, OBJECT: ...} per device, in JSON that object alone
/// for a named device and an array of them for all; in text key/value lines.
/// Stops at the first error.
void show_object(Context& ctx, const std::string& dev, const std::string& object,
                 const ReadObjectFn& read);

/// show_object() for an object that a Vrnic getter returns and a *_to_json
/// function describes.
template <typename T>
void show_object(Context& ctx, const std::string& dev, const std::string& object,
                 libctl::Result<T> (libctl::Vrnic::*get)(const std::string&),
                 json (*to_json)(const T&)) {
    show_object(ctx, dev, object,
                [get, to_json](libctl::Vrnic& vrnic, const std::string& d) -> libctl::Result<json> {
                    auto value = (vrnic.*get)(d);
                    if (!value)
                        return value.error();
                    return to_json(*value);
                });
}

} // namespace rdmactl
