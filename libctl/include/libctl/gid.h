// SPDX-License-Identifier: GPL-2.0
// GID tables of RDMA devices, read where ib_core shows them: sysfs
// (/sys/class/infiniband/DEV/ports/N/gids/I, gid_attrs/types/I,
// gid_attrs/ndevs/I).  Works for any RDMA device (vrnic, rdma_rxe,
// hardware); no netlink involved.
#pragma once

#include <libctl/result.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace libctl {

/// The sysfs mount the readers use unless told otherwise.
inline constexpr const char* kSysfsRoot = "/sys";

/// What a GID table entry is for.  sysfs says "IB/RoCE v1" for both IB
/// and RoCE v1; the port's link layer tells them apart.
enum class GidType { ib, roce_v1, roce_v2 };

/// "IB", "RoCE v1", "RoCE v2".
std::string gid_type_name(GidType type);

/// One valid GID table entry.
struct Gid {
    std::string dev_name;
    uint32_t port = 0;
    uint32_t index = 0;
    std::string gid; ///< as sysfs spells it: "fe80:0000:...", 8 groups of 4 hex digits
    GidType type = GidType::roce_v2;
    /// The entry's netdev; the ifindex only when that netdev is in this
    /// sysfs (this network namespace).
    std::optional<uint32_t> ndev_ifindex;
    std::optional<std::string> ndev_name;
    /// The address a RoCE GID stands for: ipv4 for an IPv4-mapped GID
    /// (::ffff:a.b.c.d), ipv6 for any other; neither for IB.
    std::optional<std::string> ipv4, ipv6;
};

/// The valid entries of every port of @p dev, or of every RDMA device
/// (sorted by name) when @p dev is unset; ports and indexes in ascending
/// order.  Empty slots (sysfs shows them as the zero GID) are skipped.
/// ENODEV ("RDMA device X not found") when @p dev does not exist; no RDMA
/// device at all is an empty list, not an error.  @p sysfs is the sysfs
/// mount to read (tests point it at a tree of their own).
Result<std::vector<Gid>> read_gids(const std::optional<std::string>& dev,
                                   const std::string& sysfs = kSysfsRoot);

} // namespace libctl
