// SPDX-License-Identifier: GPL-2.0
// rtnetlink through libnl-route: the IP addresses from which ib_core derives
// a RoCE port's GIDs.
#pragma once

#include <libctl/netlink.h>
#include <libctl/result.h>

#include <string>

namespace libctl {

/// An interface address in "ADDR/PLEN" form, parsed and checked.
struct IfAddr {
    int family = 0; ///< AF_INET or AF_INET6
    std::string addr;
    unsigned prefixlen = 0;
};

/// Parses "ADDR/PLEN" (IPv4 or IPv6); EINVAL with a reason when malformed
/// or when the prefix length is missing or too long.
Result<IfAddr> parse_ifaddr(const std::string& text);

/// Builds the RTM_NEWADDR (@p add) or RTM_DELADDR request for @p ifindex.
Result<Message> build_addr_request(bool add, int ifindex, const IfAddr& a);

/// Adds or removes an address of a netdev through rtnetlink.
class Rtnl {
public:
    static Result<Rtnl> open();
    Status addr_add(int ifindex, const std::string& ifname, const IfAddr& a);
    Status addr_del(int ifindex, const std::string& ifname, const IfAddr& a);

private:
    explicit Rtnl(Socket sk) : sk_(std::move(sk)) {}
    Socket sk_;
};

} // namespace libctl
