// SPDX-License-Identifier: GPL-2.0
#include <libctl/rtnl.h>

#include <cerrno>
#include <memory>

#include <arpa/inet.h>
#include <netlink/addr.h>
#include <netlink/route/addr.h>

namespace libctl {

namespace {
struct RtnlAddrDeleter {
    void operator()(rtnl_addr* a) const { rtnl_addr_put(a); }
};
struct NlAddrDeleter {
    void operator()(nl_addr* a) const { nl_addr_put(a); }
};
} // namespace

Result<IfAddr> parse_ifaddr(const std::string& text) {
    auto bad = [&](const std::string& why) {
        Error e = make_error(EINVAL, "invalid address \"" + text + "\"");
        e.extack = why;
        return e;
    };
    size_t slash = text.find('/');
    if (slash == std::string::npos)
        return bad("expected ADDR/PLEN");
    IfAddr a;
    a.addr = text.substr(0, slash);
    std::string plen = text.substr(slash + 1);
    unsigned char buf[16];
    if (inet_pton(AF_INET, a.addr.c_str(), buf) == 1)
        a.family = AF_INET;
    else if (inet_pton(AF_INET6, a.addr.c_str(), buf) == 1)
        a.family = AF_INET6;
    else
        return bad("not an IPv4 or IPv6 address");
    if (plen.empty() || plen.size() > 3 ||
        plen.find_first_not_of("0123456789") != std::string::npos)
        return bad("prefix length must be a number");
    a.prefixlen = static_cast<unsigned>(std::stoul(plen));
    if (a.prefixlen > (a.family == AF_INET ? 32u : 128u))
        return bad("prefix length out of range");
    return a;
}

Result<Message> build_addr_request(bool add, int ifindex, const IfAddr& a) {
    std::unique_ptr<rtnl_addr, RtnlAddrDeleter> ra(rtnl_addr_alloc());
    if (!ra)
        return make_error(ENOMEM, "allocate address");
    nl_addr* raw = nullptr;
    std::string text = a.addr + "/" + std::to_string(a.prefixlen);
    int ret = nl_addr_parse(text.c_str(), a.family, &raw);
    std::unique_ptr<nl_addr, NlAddrDeleter> local(raw);
    if (ret < 0)
        return make_error(nle_to_errno(ret), "parse address " + text);
    rtnl_addr_set_ifindex(ra.get(), ifindex);
    rtnl_addr_set_family(ra.get(), a.family);
    ret = rtnl_addr_set_local(ra.get(), local.get());
    if (ret < 0)
        return make_error(nle_to_errno(ret), "set address " + text);
    rtnl_addr_set_prefixlen(ra.get(), static_cast<int>(a.prefixlen));
    nl_msg* msg = nullptr;
    ret = add ? rtnl_addr_build_add_request(ra.get(), NLM_F_CREATE | NLM_F_EXCL, &msg)
              : rtnl_addr_build_delete_request(ra.get(), 0, &msg);
    if (ret < 0)
        return make_error(nle_to_errno(ret), "build address request");
    return Message::adopt(msg);
}

Result<Rtnl> Rtnl::open() {
    auto sk = Socket::open(NETLINK_ROUTE);
    if (!sk)
        return sk.error();
    return Rtnl(std::move(sk).value());
}

Status Rtnl::addr_add(int ifindex, const std::string& ifname, const IfAddr& a) {
    auto m = build_addr_request(true, ifindex, a);
    if (!m)
        return m.error();
    return sk_.transact(*m, "add address " + a.addr + "/" + std::to_string(a.prefixlen) + " to " +
                                ifname);
}

Status Rtnl::addr_del(int ifindex, const std::string& ifname, const IfAddr& a) {
    auto m = build_addr_request(false, ifindex, a);
    if (!m)
        return m.error();
    return sk_.transact(*m, "delete address " + a.addr + "/" + std::to_string(a.prefixlen) +
                                " from " + ifname);
}

} // namespace libctl
