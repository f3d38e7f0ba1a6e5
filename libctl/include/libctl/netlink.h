// SPDX-License-Identifier: GPL-2.0
// RAII over libnl sockets and messages, a request/response loop that keeps
// the kernel's extended ACK, and policy-checked attribute parsing.
#pragma once

#include <libctl/result.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <linux/netlink.h>

struct nl_sock;
struct nl_msg;
struct nlattr;
struct nla_policy;

namespace libctl {

struct NlSockDeleter {
    void operator()(nl_sock* sk) const;
};
struct NlMsgDeleter {
    void operator()(nl_msg* msg) const;
};
using NlSockPtr = std::unique_ptr<nl_sock, NlSockDeleter>;
using NlMsgPtr = std::unique_ptr<nl_msg, NlMsgDeleter>;

/// A netlink request under construction.  Attribute puts never fail loudly:
/// the first failure is remembered and reported by status(), so building
/// code stays linear.  Nests are marked NLA_F_NESTED.
class Message {
public:
    /// A message with netlink type @p type, flags NLM_F_REQUEST | @p flags,
    /// and @p hdrlen zeroed bytes of family header.
    static Message make(int type, int flags, size_t hdrlen = 0);
    /// An RDMA netlink nldev request for command @p cmd.
    static Message nldev(int cmd, int flags);
    /// A generic netlink request (family id, command, version).
    static Message genl(int family, uint8_t cmd, uint8_t version, int flags);
    /// Takes ownership of a message libnl built for us (e.g. libnl-route).
    static Message adopt(nl_msg* msg);

    Message& put_u8(int attr, uint8_t v);
    Message& put_u16(int attr, uint16_t v);
    Message& put_u32(int attr, uint32_t v);
    Message& put_u64(int attr, uint64_t v);
    Message& put_string(int attr, const std::string& v);
    Message& put_flag(int attr);
    Message& put_binary(int attr, const void* data, size_t len);
    Message& begin_nest(int attr);
    Message& end_nest();

    /// ok() unless a put or nest overflowed or nests are unbalanced.
    Status status() const;
    nl_msg* get() const { return msg_.get(); }
    nlmsghdr* header() const;

private:
    explicit Message(NlMsgPtr msg) : msg_(std::move(msg)) {}
    NlMsgPtr msg_;
    std::vector<nlattr*> nests_;
    int err_ = 0;
};

/// Attributes of one message or nest, parsed and checked against a policy.
/// Absent attributes read as std::nullopt.
class Attrs {
public:
    /// Parses the attributes following a @p hdrlen byte family header of
    /// @p nlh.  Fails with EINVAL when an attribute violates @p policy.
    static Result<Attrs> parse(const nlmsghdr* nlh, size_t hdrlen, int maxtype,
                               const nla_policy* policy);
    /// Parses the attributes nested in @p nest.
    static Result<Attrs> parse_nested(const nlattr* nest, int maxtype, const nla_policy* policy);

    bool has(int attr) const;
    const nlattr* raw(int attr) const;
    std::optional<uint8_t> u8(int attr) const;
    std::optional<uint16_t> u16(int attr) const;
    std::optional<uint32_t> u32(int attr) const;
    std::optional<uint64_t> u64(int attr) const;
    std::optional<std::string> str(int attr) const;
    /// The raw payloads of every nested attribute directly inside @p attr
    /// (for arrays encoded as a nest of entries).
    std::vector<const nlattr*> nested_list(int attr) const;

private:
    std::vector<nlattr*> tb_;
};

/// The types of the attributes from the top level of @p request (after a
/// @p hdrlen byte family header) down to the one at byte @p offset,
/// outermost first; empty when no attribute starts there.
std::vector<int> attr_path(const nlmsghdr* request, size_t hdrlen, uint32_t offset);

/// Decodes an NLMSG_ERROR (or an NLMSG_DONE carrying an error) into an
/// Error, including the NLMSGERR_ATTR_MSG extack text and the offending
/// attribute when the kernel sent them.  Returns ok() for an ACK (error 0).
Status parse_nlmsgerr(const nlmsghdr* nlh, const std::string& context);

/// A netlink socket bound to one protocol, with extended ACK enabled.
/// Move-only; closes on destruction.
class Socket {
public:
    using Handler = std::function<Status(const nlmsghdr*)>;

    /// Opens and connects a socket for @p protocol (NETLINK_RDMA,
    /// NETLINK_GENERIC, NETLINK_ROUTE).
    static Result<Socket> open(int protocol);

    /// Sends @p msg (NLM_F_ACK is added to non-dump requests) and feeds each
    /// reply that belongs to it to @p on_reply until the final ACK, error or
    /// NLMSG_DONE.  Kernel errors come back with their extack text.
    Status transact(Message& msg, const std::string& context, const Handler& on_reply = {});

    /// transact() for requests (mostly dumps) whose every reply is one item:
    /// returns what @p parse makes of each; a reply it rejects ends the
    /// request with its error.
    template <typename T>
    Result<std::vector<T>> collect_replies(Message& msg, const std::string& context,
                                           Result<T> (*parse)(const nlmsghdr*)) {
        std::vector<T> items;
        Status st = transact(msg, context, [&](const nlmsghdr* nlh) -> Status {
            auto item = parse(nlh);
            if (!item)
                return item.error();
            items.push_back(std::move(item).value());
            return ok_status();
        });
        if (!st)
            return st.error();
        return items;
    }

    /// Joins multicast group @p group and waits for messages; each is passed
    /// to @p on_event until it returns an error.  Never returns on success.
    Status listen(int group, const Handler& on_event);

    nl_sock* get() const { return sk_.get(); }

private:
    explicit Socket(NlSockPtr sk) : sk_(std::move(sk)) {}
    NlSockPtr sk_;
};

/// Converts a libnl error code (negative NLE_*) to the closest errno.
int nle_to_errno(int nle);

} // namespace libctl
