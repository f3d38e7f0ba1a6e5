// SPDX-License-Identifier: GPL-2.0
#include <libctl/netlink.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <rdma/rdma_netlink.h>
#include <sys/socket.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

namespace libctl {

std::string Error::message() const {
    std::string reason = extack.empty() ? std::string(std::strerror(err)) : extack;
    if (err == ERANGE && range_min && range_max)
        reason =
            "value out of range " + std::to_string(*range_min) + ".." + std::to_string(*range_max);
    else if (extack.empty() && miss_type >= 0)
        reason = "required attribute " + std::to_string(miss_type) + " missing";
    // Unless the kernel's own message names the attribute already.
    if (!attr_name.empty() && reason.compare(0, attr_name.size(), attr_name) != 0)
        reason = attr_name + ": " + reason;
    if (context.empty())
        return reason;
    return context + ": " + reason;
}

Error make_error(int err, std::string context) {
    Error e;
    e.err = err;
    e.context = std::move(context);
    return e;
}

void NlSockDeleter::operator()(nl_sock* sk) const {
    nl_socket_free(sk);
}
void NlMsgDeleter::operator()(nl_msg* msg) const {
    nlmsg_free(msg);
}

int nle_to_errno(int nle) {
    switch (nle < 0 ? -nle : nle) {
    case 0:
        return 0;
    case NLE_INTR:
        return EINTR;
    case NLE_BAD_SOCK:
        return EBADF;
    case NLE_AGAIN:
        return EAGAIN;
    case NLE_NOMEM:
        return ENOMEM;
    case NLE_EXIST:
        return EEXIST;
    case NLE_INVAL:
        return EINVAL;
    case NLE_RANGE:
        return ERANGE;
    case NLE_MSGSIZE:
        return EMSGSIZE;
    case NLE_OPNOTSUPP:
        return EOPNOTSUPP;
    case NLE_AF_NOSUPPORT:
        return EAFNOSUPPORT;
    case NLE_OBJ_NOTFOUND:
        return ENOENT;
    case NLE_NOATTR:
        return ENOENT;
    case NLE_BUSY:
        return EBUSY;
    case NLE_PROTO_MISMATCH:
        return EPROTONOSUPPORT;
    case NLE_NOACCESS:
        return EACCES;
    case NLE_PERM:
        return EPERM;
    case NLE_NODEV:
        return ENODEV;
    case NLE_NOADDR:
        return EADDRNOTAVAIL;
    case NLE_SEQ_MISMATCH:
    case NLE_MSG_OVERFLOW:
    case NLE_MSG_TRUNC:
    case NLE_MSGTYPE_NOSUPPORT:
        return EPROTO;
    default:
        return EIO;
    }
}

// ---- Message ---------------------------------------------------------------

Message Message::make(int type, int flags, size_t hdrlen) {
    Message m{NlMsgPtr(nlmsg_alloc_simple(type, flags))};
    if (!m.msg_) {
        m.err_ = ENOMEM;
        return m;
    }
    if (hdrlen) {
        void* hdr = nlmsg_reserve(m.msg_.get(), hdrlen, NLMSG_ALIGNTO);
        if (!hdr)
            m.err_ = EMSGSIZE;
        else
            std::memset(hdr, 0, hdrlen);
    }
    return m;
}

Message Message::nldev(int cmd, int flags) {
    return make(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd), flags);
}

Message Message::genl(int family, uint8_t cmd, uint8_t version, int flags) {
    Message m{NlMsgPtr(nlmsg_alloc())};
    if (!m.msg_) {
        m.err_ = ENOMEM;
        return m;
    }
    if (!genlmsg_put(m.msg_.get(), NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, flags, cmd, version))
        m.err_ = EMSGSIZE;
    return m;
}

Message Message::adopt(nl_msg* msg) {
    Message m{NlMsgPtr(msg)};
    if (!msg)
        m.err_ = ENOMEM;
    return m;
}

nlmsghdr* Message::header() const {
    return msg_ ? nlmsg_hdr(msg_.get()) : nullptr;
}

#define PUT_OR_FAIL(expr)                                                                          \
    do {                                                                                           \
        if (!err_ && msg_ && (expr) < 0)                                                           \
            err_ = EMSGSIZE;                                                                       \
        return *this;                                                                              \
    } while (0)

Message& Message::put_u8(int attr, uint8_t v) {
    PUT_OR_FAIL(nla_put_u8(msg_.get(), attr, v));
}
Message& Message::put_u16(int attr, uint16_t v) {
    PUT_OR_FAIL(nla_put_u16(msg_.get(), attr, v));
}
Message& Message::put_u32(int attr, uint32_t v) {
    PUT_OR_FAIL(nla_put_u32(msg_.get(), attr, v));
}
Message& Message::put_u64(int attr, uint64_t v) {
    PUT_OR_FAIL(nla_put_u64(msg_.get(), attr, v));
}
Message& Message::put_string(int attr, const std::string& v) {
    PUT_OR_FAIL(nla_put_string(msg_.get(), attr, v.c_str()));
}
Message& Message::put_flag(int attr) {
    PUT_OR_FAIL(nla_put_flag(msg_.get(), attr));
}
Message& Message::put_binary(int attr, const void* data, size_t len) {
    PUT_OR_FAIL(nla_put(msg_.get(), attr, static_cast<int>(len), data));
}

#undef PUT_OR_FAIL

Message& Message::begin_nest(int attr) {
    if (err_ || !msg_)
        return *this;
    nlattr* nest = nla_nest_start(msg_.get(), attr);
    if (!nest) {
        err_ = EMSGSIZE;
        return *this;
    }
    nest->nla_type |= NLA_F_NESTED;
    nests_.push_back(nest);
    return *this;
}

Message& Message::end_nest() {
    if (err_ || !msg_)
        return *this;
    if (nests_.empty()) {
        err_ = EINVAL;
        return *this;
    }
    nla_nest_end(msg_.get(), nests_.back());
    nests_.pop_back();
    return *this;
}

Status Message::status() const {
    if (err_)
        return make_error(err_, "build netlink message");
    if (!nests_.empty())
        return make_error(EINVAL, "build netlink message: unterminated nest");
    return ok_status();
}

// ---- Attrs -----------------------------------------------------------------

Result<Attrs> Attrs::parse(const nlmsghdr* nlh, size_t hdrlen, int maxtype,
                           const nla_policy* policy) {
    Attrs a;
    a.tb_.assign(static_cast<size_t>(maxtype) + 1, nullptr);
    int ret = nlmsg_parse(const_cast<nlmsghdr*>(nlh), static_cast<int>(hdrlen), a.tb_.data(),
                          maxtype, const_cast<nla_policy*>(policy));
    if (ret < 0)
        return make_error(EINVAL, "malformed netlink reply");
    return a;
}

Result<Attrs> Attrs::parse_nested(const nlattr* nest, int maxtype, const nla_policy* policy) {
    Attrs a;
    a.tb_.assign(static_cast<size_t>(maxtype) + 1, nullptr);
    int ret = nla_parse_nested(a.tb_.data(), maxtype, const_cast<nlattr*>(nest),
                               const_cast<nla_policy*>(policy));
    if (ret < 0)
        return make_error(EINVAL, "malformed nested netlink attribute");
    return a;
}

bool Attrs::has(int attr) const {
    return raw(attr) != nullptr;
}

const nlattr* Attrs::raw(int attr) const {
    if (attr < 0 || static_cast<size_t>(attr) >= tb_.size())
        return nullptr;
    return tb_[static_cast<size_t>(attr)];
}

// The policy guarantees minimum lengths; these re-check so that an
// attribute parsed without a policy entry can never be over-read.
std::optional<uint8_t> Attrs::u8(int attr) const {
    const nlattr* a = raw(attr);
    if (!a || nla_len(a) < 1)
        return std::nullopt;
    return nla_get_u8(const_cast<nlattr*>(a));
}

std::optional<uint16_t> Attrs::u16(int attr) const {
    const nlattr* a = raw(attr);
    if (!a || nla_len(a) < 2)
        return std::nullopt;
    return nla_get_u16(const_cast<nlattr*>(a));
}

std::optional<uint32_t> Attrs::u32(int attr) const {
    const nlattr* a = raw(attr);
    if (!a || nla_len(a) < 4)
        return std::nullopt;
    return nla_get_u32(const_cast<nlattr*>(a));
}

std::optional<uint64_t> Attrs::u64(int attr) const {
    const nlattr* a = raw(attr);
    if (!a || nla_len(a) < 8)
        return std::nullopt;
    return nla_get_u64(const_cast<nlattr*>(a));
}

std::optional<std::string> Attrs::str(int attr) const {
    const nlattr* a = raw(attr);
    if (!a)
        return std::nullopt;
    const char* data = static_cast<const char*>(nla_data(a));
    size_t len = static_cast<size_t>(nla_len(a));
    return std::string(data, strnlen(data, len));
}

std::vector<const nlattr*> Attrs::nested_list(int attr) const {
    std::vector<const nlattr*> out;
    const nlattr* a = raw(attr);
    if (!a)
        return out;
    nlattr* pos;
    int rem;
    nla_for_each_nested(pos, const_cast<nlattr*>(a), rem) out.push_back(pos);
    return out;
}

// ---- errors and the request loop ---------------------------------------------

std::vector<int> attr_path(const nlmsghdr* request, size_t hdrlen, uint32_t offset) {
    std::vector<int> path;
    size_t pos = NLMSG_HDRLEN + NLMSG_ALIGN(hdrlen);
    size_t end = request->nlmsg_len;
    const auto* base = reinterpret_cast<const unsigned char*>(request);
    // Descend into the attribute that contains @offset, level by level.
    while (pos + NLA_HDRLEN <= end) {
        const auto* a = reinterpret_cast<const nlattr*>(base + pos);
        if (a->nla_len < NLA_HDRLEN || pos + a->nla_len > end)
            break;
        if (offset >= pos + NLA_ALIGN(a->nla_len)) {
            pos += NLA_ALIGN(a->nla_len);
            continue;
        }
        if (offset < pos)
            break;
        path.push_back(a->nla_type & NLA_TYPE_MASK);
        if (offset == pos)
            return path;
        end = pos + a->nla_len;
        pos += NLA_HDRLEN;
    }
    return {};
}

namespace {

// Offset of the extack TLVs inside an NLMSG_ERROR payload.
size_t nlmsgerr_tlv_offset(const nlmsghdr* nlh, const nlmsgerr* e) {
    if (nlh->nlmsg_flags & NLM_F_CAPPED)
        return sizeof(*e);
    return NLMSG_ALIGN(sizeof(e->error) + e->msg.nlmsg_len);
}

// The range of the policy entry in NLMSGERR_ATTR_POLICY, when it has one.
void parse_policy(Error& err, const nlattr* pol) {
    nlattr* tb[NL_POLICY_TYPE_ATTR_MAX + 1] = {};
    if (nla_parse_nested(tb, NL_POLICY_TYPE_ATTR_MAX, const_cast<nlattr*>(pol), nullptr) < 0)
        return;
    const nlattr* lo = tb[NL_POLICY_TYPE_ATTR_MIN_VALUE_U];
    const nlattr* hi = tb[NL_POLICY_TYPE_ATTR_MAX_VALUE_U];
    if (lo && hi && nla_len(lo) == 8 && nla_len(hi) == 8) {
        err.range_min = nla_get_u64(const_cast<nlattr*>(lo));
        err.range_max = nla_get_u64(const_cast<nlattr*>(hi));
    }
}

// Fills extack, bad_attr, the policy range and the missing attribute from
// TLVs at @p tlv of @p len bytes.
void parse_ext_ack(Error& err, const unsigned char* tlv, size_t len, const nlmsghdr* request) {
    const nlattr* tb[NLMSGERR_ATTR_MAX + 1] = {};
    auto* head = reinterpret_cast<nlattr*>(const_cast<unsigned char*>(tlv));
    if (nla_parse(const_cast<nlattr**>(tb), NLMSGERR_ATTR_MAX, head, static_cast<int>(len),
                  nullptr) < 0)
        return;
    if (const nlattr* m = tb[NLMSGERR_ATTR_MSG]) {
        const char* s = static_cast<const char*>(nla_data(m));
        err.extack.assign(s, strnlen(s, static_cast<size_t>(nla_len(m))));
    }
    if (const nlattr* o = tb[NLMSGERR_ATTR_OFFS]; o && request && nla_len(o) >= 4) {
        uint32_t off = nla_get_u32(const_cast<nlattr*>(o));
        if (off >= NLMSG_HDRLEN && off + NLA_HDRLEN <= request->nlmsg_len) {
            const auto* bad =
                reinterpret_cast<const nlattr*>(reinterpret_cast<const char*>(request) + off);
            err.bad_attr = bad->nla_type & NLA_TYPE_MASK;
            err.bad_attr_offset = off;
        }
    }
    if (const nlattr* p = tb[NLMSGERR_ATTR_POLICY])
        parse_policy(err, p);
    if (const nlattr* t = tb[NLMSGERR_ATTR_MISS_TYPE]; t && nla_len(t) >= 4)
        err.miss_type = static_cast<int>(nla_get_u32(const_cast<nlattr*>(t)));
}

} // namespace

static Status parse_nlmsgerr_req(const nlmsghdr* nlh, const std::string& context,
                                 const nlmsghdr* request) {
    Error err;
    err.context = context;
    const auto* payload = static_cast<const unsigned char*>(NLMSG_DATA(nlh));
    size_t plen = nlh->nlmsg_len >= NLMSG_HDRLEN ? nlh->nlmsg_len - NLMSG_HDRLEN : 0;

    if (nlh->nlmsg_type == NLMSG_DONE) {
        if (plen < sizeof(int))
            return ok_status();
        int code;
        std::memcpy(&code, payload, sizeof(code));
        if (code == 0)
            return ok_status();
        err.err = -code;
        if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
            parse_ext_ack(err, payload + sizeof(int), plen - sizeof(int), request);
        return err;
    }

    if (plen < sizeof(nlmsgerr)) {
        err.err = EPROTO;
        err.extack = "truncated netlink error message";
        return err;
    }
    const auto* e = reinterpret_cast<const nlmsgerr*>(payload);
    if (e->error == 0)
        return ok_status();
    err.err = e->error < 0 ? -e->error : e->error;
    size_t off = nlmsgerr_tlv_offset(nlh, e);
    if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) && off < plen)
        parse_ext_ack(err, payload + off, plen - off, request);
    return err;
}

Status parse_nlmsgerr(const nlmsghdr* nlh, const std::string& context) {
    return parse_nlmsgerr_req(nlh, context, nullptr);
}

Result<Socket> Socket::open(int protocol) {
    NlSockPtr sk(nl_socket_alloc());
    if (!sk)
        return make_error(ENOMEM, "allocate netlink socket");
    int ret = nl_connect(sk.get(), protocol);
    if (ret < 0) {
        const char* name = protocol == NETLINK_RDMA ? "RDMA netlink socket (is ib_core loaded?)"
                           : protocol == NETLINK_GENERIC ? "generic netlink socket"
                           : protocol == NETLINK_ROUTE   ? "rtnetlink socket"
                                                         : "netlink socket";
        return make_error(nle_to_errno(ret), std::string("open ") + name);
    }
    int one = 1;
    int fd = nl_socket_get_fd(sk.get());
    // Both are best effort: kernels without them still answer, just tersely.
    setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
    setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
    nl_socket_enable_msg_peek(sk.get());
    nl_socket_disable_auto_ack(sk.get());
    return Socket(std::move(sk));
}

namespace {
struct FreeDeleter {
    void operator()(unsigned char* p) const { std::free(p); }
};
} // namespace

Status Socket::transact(Message& msg, const std::string& context, const Handler& on_reply) {
    if (Status st = msg.status(); !st)
        return st;
    nlmsghdr* req = msg.header();
    bool dump = (req->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
    if (!dump)
        req->nlmsg_flags |= NLM_F_ACK;
    nl_complete_msg(sk_.get(), msg.get());
    uint32_t seq = req->nlmsg_seq;
    int ret = nl_send(sk_.get(), msg.get());
    if (ret < 0)
        return make_error(nle_to_errno(ret), context);

    Status first_failure = ok_status();
    for (;;) {
        sockaddr_nl peer{};
        unsigned char* raw = nullptr;
        int n = nl_recv(sk_.get(), &peer, &raw, nullptr);
        std::unique_ptr<unsigned char, FreeDeleter> buf(raw);
        if (n < 0)
            return make_error(nle_to_errno(n), context);
        if (n == 0)
            return make_error(EPIPE, context);
        auto* nlh = reinterpret_cast<nlmsghdr*>(buf.get());
        for (; nlmsg_ok(nlh, n); nlh = nlmsg_next(nlh, &n)) {
            if (nlh->nlmsg_seq != seq)
                continue; // a late reply to an earlier request
            switch (nlh->nlmsg_type) {
            case NLMSG_NOOP:
                continue;
            case NLMSG_OVERRUN:
                return make_error(EOVERFLOW, context);
            case NLMSG_ERROR: {
                Status st = parse_nlmsgerr_req(nlh, context, req);
                if (st && dump)
                    continue;
                return !st ? st : first_failure;
            }
            case NLMSG_DONE: {
                Status st = parse_nlmsgerr_req(nlh, context, req);
                return !st ? st : first_failure;
            }
            default:
                if (on_reply && first_failure) {
                    Status st = on_reply(nlh);
                    if (!st)
                        first_failure = st; // keep draining the dump
                }
            }
        }
    }
}

Status Socket::listen(int group, const Handler& on_event) {
    int ret = nl_socket_add_membership(sk_.get(), group);
    if (ret < 0)
        return make_error(nle_to_errno(ret), "join multicast group");
    for (;;) {
        sockaddr_nl peer{};
        unsigned char* raw = nullptr;
        int n = nl_recv(sk_.get(), &peer, &raw, nullptr);
        std::unique_ptr<unsigned char, FreeDeleter> buf(raw);
        if (n < 0) {
            if (n == -NLE_INTR || n == -NLE_AGAIN)
                continue;
            return make_error(nle_to_errno(n), "receive notification");
        }
        auto* nlh = reinterpret_cast<nlmsghdr*>(buf.get());
        for (; nlmsg_ok(nlh, n); nlh = nlmsg_next(nlh, &n)) {
            if (nlh->nlmsg_type < NLMSG_MIN_TYPE)
                continue;
            if (Status st = on_event(nlh); !st)
                return st;
        }
    }
}

} // namespace libctl
