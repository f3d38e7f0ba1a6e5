// SPDX-License-Identifier: GPL-2.0
// Message building, policy parsing and extack decoding, without a kernel.
#include <libctl/netlink.h>
#include <libctl/nldev.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>
#include <linux/genetlink.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/msg.h>
#include <rdma/rdma_netlink.h>

using namespace libctl;

namespace {

// A fake kernel reply: an nldev message built with the same builder.
Message nldev_reply(int cmd) {
    return Message::nldev(cmd, NLM_F_MULTI);
}

// Appends @p tlvs (raw attributes) after an NLMSG_ERROR payload.
// @p tlvs: further extack TLVs, already encoded.
std::vector<uint8_t> make_error_msg(int error, const nlmsghdr* orig, bool capped,
                                    const std::string& ext_msg, int offs = -1,
                                    const std::vector<uint8_t>& tlvs = {}) {
    std::vector<uint8_t> buf(4096, 0);
    auto* nlh = reinterpret_cast<nlmsghdr*>(buf.data());
    nlh->nlmsg_type = NLMSG_ERROR;
    nlh->nlmsg_flags = (capped ? NLM_F_CAPPED : 0) | (ext_msg.empty() ? 0 : NLM_F_ACK_TLVS);
    size_t len = NLMSG_HDRLEN;
    auto* e = reinterpret_cast<nlmsgerr*>(buf.data() + len);
    e->error = error;
    e->msg = *orig;
    if (capped) {
        len += sizeof(nlmsgerr);
    } else {
        std::memcpy(&e->msg, orig, orig->nlmsg_len);
        len += NLMSG_ALIGN(sizeof(int) + orig->nlmsg_len);
    }
    auto put = [&](uint16_t type, const void* data, size_t dlen) {
        auto* a = reinterpret_cast<nlattr*>(buf.data() + len);
        a->nla_type = type;
        a->nla_len = static_cast<uint16_t>(NLA_HDRLEN + dlen);
        std::memcpy(reinterpret_cast<uint8_t*>(a) + NLA_HDRLEN, data, dlen);
        len += NLA_ALIGN(a->nla_len);
    };
    if (!ext_msg.empty())
        put(NLMSGERR_ATTR_MSG, ext_msg.c_str(), ext_msg.size() + 1);
    if (offs >= 0) {
        uint32_t o = static_cast<uint32_t>(offs);
        put(NLMSGERR_ATTR_OFFS, &o, sizeof(o));
    }
    std::memcpy(buf.data() + len, tlvs.data(), tlvs.size());
    len += tlvs.size();
    if (!tlvs.empty())
        nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
    nlh->nlmsg_len = static_cast<uint32_t>(len);
    buf.resize(len);
    return buf;
}

// One encoded attribute (or a nest of @p inner).
std::vector<uint8_t> tlv(uint16_t type, const void* data, size_t len) {
    std::vector<uint8_t> out(NLA_ALIGN(NLA_HDRLEN + len), 0);
    auto* a = reinterpret_cast<nlattr*>(out.data());
    a->nla_type = type;
    a->nla_len = static_cast<uint16_t>(NLA_HDRLEN + len);
    std::memcpy(out.data() + NLA_HDRLEN, data, len);
    return out;
}

std::vector<uint8_t> operator+(std::vector<uint8_t> a, const std::vector<uint8_t>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

} // namespace

TEST(Message, NldevTypeAndFlags) {
    Message m = Message::nldev(RDMA_NLDEV_CMD_GET, NLM_F_DUMP);
    ASSERT_TRUE(m.status());
    EXPECT_EQ(m.header()->nlmsg_type, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET));
    EXPECT_EQ(m.header()->nlmsg_flags & NLM_F_DUMP, NLM_F_DUMP);
}

TEST(Message, NestsAreMarkedNested) {
    Message m = nldev_reply(RDMA_NLDEV_CMD_STAT_GET);
    m.begin_nest(RDMA_NLDEV_ATTR_STAT_HWCOUNTERS).put_u32(RDMA_NLDEV_ATTR_DEV_INDEX, 1).end_nest();
    ASSERT_TRUE(m.status());
    auto* a = static_cast<nlattr*>(nlmsg_data(m.header()));
    EXPECT_TRUE(a->nla_type & NLA_F_NESTED);
    EXPECT_EQ(a->nla_type & NLA_TYPE_MASK, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
}

TEST(Message, UnbalancedNestIsAnError) {
    Message m = nldev_reply(RDMA_NLDEV_CMD_GET);
    m.begin_nest(RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
    EXPECT_FALSE(m.status());
    Message n = nldev_reply(RDMA_NLDEV_CMD_GET);
    n.end_nest();
    EXPECT_FALSE(n.status());
}

TEST(Message, OverflowIsReportedNotIgnored) {
    Message m = nldev_reply(RDMA_NLDEV_CMD_GET);
    std::string big(1 << 20, 'x');
    m.put_string(RDMA_NLDEV_ATTR_DEV_NAME, big);
    ASSERT_FALSE(m.status());
    EXPECT_EQ(m.status().error().err, EMSGSIZE);
}

TEST(Nldev, DeviceRoundTrip) {
    Message m = nldev_reply(RDMA_NLDEV_CMD_GET);
    m.put_u32(RDMA_NLDEV_ATTR_DEV_INDEX, 7)
        .put_string(RDMA_NLDEV_ATTR_DEV_NAME, "vrnic0")
        .put_u32(RDMA_NLDEV_ATTR_PORT_INDEX, 1)
        .put_u64(RDMA_NLDEV_ATTR_NODE_GUID, 0x1122334455667788ull)
        .put_u8(RDMA_NLDEV_ATTR_DEV_NODE_TYPE, 1)
        .put_string(RDMA_NLDEV_ATTR_DEV_PROTOCOL, "roce");
    ASSERT_TRUE(m.status());
    auto d = parse_device(m.header());
    ASSERT_TRUE(d) << d.error().message();
    EXPECT_EQ(d->dev_index, 7u);
    EXPECT_EQ(d->dev_name, "vrnic0");
    EXPECT_EQ(d->num_ports, 1u);
    EXPECT_EQ(d->node_guid, 0x1122334455667788ull);
    EXPECT_EQ(node_type_name(*d->dev_node_type), "ca");
    EXPECT_EQ(d->dev_protocol, "roce");
    EXPECT_FALSE(d->fw_version.has_value()); // absent stays absent
}

TEST(Nldev, DeviceWithoutNameIsRejected) {
    Message m = nldev_reply(RDMA_NLDEV_CMD_GET);
    m.put_u32(RDMA_NLDEV_ATTR_DEV_INDEX, 7);
    auto d = parse_device(m.header());
    ASSERT_FALSE(d);
    EXPECT_EQ(d.error().err, EPROTO);
}

TEST(Nldev, PolicyRejectsShortAttribute) {
    // DEV_INDEX is a u32; one byte must fail the policy, not be misread.
    Message m = nldev_reply(RDMA_NLDEV_CMD_GET);
    m.put_u8(RDMA_NLDEV_ATTR_DEV_INDEX, 7).put_string(RDMA_NLDEV_ATTR_DEV_NAME, "x");
    auto d = parse_device(m.header());
    ASSERT_FALSE(d);
    EXPECT_EQ(d.error().err, EINVAL);
}

TEST(Nldev, PortRoundTrip) {
    Message m = nldev_reply(RDMA_NLDEV_CMD_PORT_GET);
    m.put_u32(RDMA_NLDEV_ATTR_DEV_INDEX, 0)
        .put_string(RDMA_NLDEV_ATTR_DEV_NAME, "rxe0")
        .put_u32(RDMA_NLDEV_ATTR_PORT_INDEX, 1)
        .put_u8(RDMA_NLDEV_ATTR_PORT_STATE, 4)
        .put_u8(RDMA_NLDEV_ATTR_PORT_PHYS_STATE, 5)
        .put_u32(RDMA_NLDEV_ATTR_NDEV_INDEX, 3)
        .put_string(RDMA_NLDEV_ATTR_NDEV_NAME, "d0");
    auto p = parse_port(m.header());
    ASSERT_TRUE(p) << p.error().message();
    EXPECT_EQ(p->port_index, 1u);
    EXPECT_EQ(port_state_name(*p->port_state), "ACTIVE");
    EXPECT_EQ(port_phys_state_name(*p->port_phys_state), "LINK_UP");
    EXPECT_EQ(p->ndev_index, 3u);
    EXPECT_EQ(p->ndev_name, "d0");
}

TEST(Nldev, HwCounters) {
    Message m = nldev_reply(RDMA_NLDEV_CMD_STAT_GET);
    m.put_u32(RDMA_NLDEV_ATTR_DEV_INDEX, 0).put_u32(RDMA_NLDEV_ATTR_PORT_INDEX, 1);
    m.begin_nest(RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
    m.begin_nest(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY)
        .put_string(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, "sent_pkts")
        .put_u64(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, 42)
        .end_nest();
    m.begin_nest(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY)
        .put_string(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, "rcvd_pkts")
        .put_u64(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, 1ull << 40)
        .end_nest();
    m.end_nest();
    ASSERT_TRUE(m.status());
    auto cs = parse_hwcounters(m.header());
    ASSERT_TRUE(cs) << cs.error().message();
    ASSERT_EQ(cs->size(), 2u);
    EXPECT_EQ((*cs)[0].name, "sent_pkts");
    EXPECT_EQ((*cs)[0].value, 42u);
    EXPECT_EQ((*cs)[1].value, 1ull << 40);
}

TEST(Nldev, EmptyCounterTableIsEmptyNotError) {
    Message m = nldev_reply(RDMA_NLDEV_CMD_STAT_GET);
    m.put_u32(RDMA_NLDEV_ATTR_DEV_INDEX, 0);
    auto cs = parse_hwcounters(m.header());
    ASSERT_TRUE(cs);
    EXPECT_TRUE(cs->empty());
}

TEST(Extack, CappedErrorCarriesMessage) {
    Message req = Message::nldev(RDMA_NLDEV_CMD_NEWLINK, 0);
    req.put_string(RDMA_NLDEV_ATTR_DEV_NAME, "vrnic0");
    auto buf = make_error_msg(-EINVAL, req.header(), true, "max_qp below 1");
    auto st = parse_nlmsgerr(reinterpret_cast<nlmsghdr*>(buf.data()), "set limits of vrnic0");
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().err, EINVAL);
    EXPECT_EQ(st.error().extack, "max_qp below 1");
    EXPECT_EQ(st.error().message(), "set limits of vrnic0: max_qp below 1");
}

TEST(Extack, UncappedErrorSkipsEchoedRequest) {
    Message req = Message::nldev(RDMA_NLDEV_CMD_NEWLINK, 0);
    req.put_string(RDMA_NLDEV_ATTR_DEV_NAME, "a-rather-long-device-name-to-echo");
    auto buf = make_error_msg(-ENODEV, req.header(), false, "no such device");
    auto st = parse_nlmsgerr(reinterpret_cast<nlmsghdr*>(buf.data()), "ctx");
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().err, ENODEV);
    EXPECT_EQ(st.error().extack, "no such device");
}

TEST(Extack, ErrorWithoutExtackUsesStrerror) {
    Message req = Message::nldev(RDMA_NLDEV_CMD_NEWLINK, 0);
    auto buf = make_error_msg(-EPERM, req.header(), true, "");
    auto st = parse_nlmsgerr(reinterpret_cast<nlmsghdr*>(buf.data()), "set limits");
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().err, EPERM);
    EXPECT_TRUE(st.error().extack.empty());
    EXPECT_EQ(st.error().message(), std::string("set limits: ") + std::strerror(EPERM));
}

TEST(Extack, PolicyRangeAndBlamedAttribute) {
    Message req = Message::genl(0x20, 6, 1, 0);
    req.put_string(2, "vrnic0");
    req.begin_nest(7).put_u32(3, 9);
    uint32_t off = static_cast<uint32_t>(req.header()->nlmsg_len);
    req.put_u32(7, 16).end_nest();
    ASSERT_TRUE(req.status());
    uint64_t lo = 0, hi = 15;
    auto pol =
        tlv(NL_POLICY_TYPE_ATTR_MIN_VALUE_U, &lo, 8) + tlv(NL_POLICY_TYPE_ATTR_MAX_VALUE_U, &hi, 8);
    auto buf =
        make_error_msg(-ERANGE, req.header(), true, "integer out of range", static_cast<int>(off),
                       tlv(NLMSGERR_ATTR_POLICY | NLA_F_NESTED, pol.data(), pol.size()));
    auto* nlh = reinterpret_cast<nlmsghdr*>(buf.data());
    // parse_nlmsgerr() has no request: the attribute is resolved by offset.
    auto st = parse_nlmsgerr(nlh, "set dcqcn of vrnic0");
    ASSERT_FALSE(st);
    Error e = st.error();
    EXPECT_EQ(e.err, ERANGE);
    EXPECT_EQ(e.bad_attr_offset, 0u);
    ASSERT_TRUE(e.range_min && e.range_max);
    EXPECT_EQ(*e.range_min, 0u);
    EXPECT_EQ(*e.range_max, 15u);
    EXPECT_EQ(e.message(), "set dcqcn of vrnic0: value out of range 0..15");
    e.attr_name = "rpg_gd";
    EXPECT_EQ(e.message(), "set dcqcn of vrnic0: rpg_gd: value out of range 0..15");
    EXPECT_EQ(attr_path(req.header(), GENL_HDRLEN, off), (std::vector<int>{7, 7}));
    EXPECT_TRUE(attr_path(req.header(), GENL_HDRLEN, off + 2).empty());
}

TEST(Extack, MissingAttributeIsNamedByType) {
    Message req = Message::genl(0x20, 6, 1, 0);
    uint32_t type = 2;
    auto buf =
        make_error_msg(-EINVAL, req.header(), true, "", -1, tlv(NLMSGERR_ATTR_MISS_TYPE, &type, 4));
    auto st = parse_nlmsgerr(reinterpret_cast<nlmsghdr*>(buf.data()), "set");
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().miss_type, 2);
    EXPECT_EQ(st.error().message(), "set: required attribute 2 missing");
}

TEST(Extack, AckIsSuccess) {
    Message req = Message::nldev(RDMA_NLDEV_CMD_NEWLINK, 0);
    auto buf = make_error_msg(0, req.header(), true, "");
    EXPECT_TRUE(parse_nlmsgerr(reinterpret_cast<nlmsghdr*>(buf.data()), "ctx"));
}

TEST(Extack, TruncatedErrorIsProtocolError) {
    nlmsghdr nlh{};
    nlh.nlmsg_len = NLMSG_HDRLEN + 2;
    nlh.nlmsg_type = NLMSG_ERROR;
    std::vector<uint8_t> buf(NLMSG_HDRLEN + 4, 0);
    std::memcpy(buf.data(), &nlh, sizeof(nlh));
    auto st = parse_nlmsgerr(reinterpret_cast<nlmsghdr*>(buf.data()), "ctx");
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().err, EPROTO);
}

TEST(Extack, DoneWithErrorFailsTheDump) {
    std::vector<uint8_t> buf(NLMSG_HDRLEN + 4, 0);
    auto* nlh = reinterpret_cast<nlmsghdr*>(buf.data());
    nlh->nlmsg_len = static_cast<uint32_t>(buf.size());
    nlh->nlmsg_type = NLMSG_DONE;
    int err = -EMSGSIZE;
    std::memcpy(buf.data() + NLMSG_HDRLEN, &err, sizeof(err));
    auto st = parse_nlmsgerr(nlh, "list devices");
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().err, EMSGSIZE);
    err = 0;
    std::memcpy(buf.data() + NLMSG_HDRLEN, &err, sizeof(err));
    EXPECT_TRUE(parse_nlmsgerr(nlh, "list devices"));
}

TEST(Errno, LibnlCodesMap) {
    EXPECT_EQ(nle_to_errno(-NLE_PERM), EPERM);
    EXPECT_EQ(nle_to_errno(-NLE_OBJ_NOTFOUND), ENOENT);
    EXPECT_EQ(nle_to_errno(-NLE_NODEV), ENODEV);
    EXPECT_EQ(nle_to_errno(0), 0);
}
