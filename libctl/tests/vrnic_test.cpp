// SPDX-License-Identifier: GPL-2.0
// The vrnic family client: requests built from the parameter tables parse
// back to the same values; replies with bad types are refused.
#include <libctl/rtnl.h>
#include <libctl/vrnic.h>

#include <cerrno>
#include <functional>

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <linux/genetlink.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include <uapi/vrnic.h>

using namespace libctl;

namespace {
constexpr uint16_t kFamily = 0x20;
}

TEST(Vrnic, LimitsSetRoundTrip) {
    Limits l;
    l.max_qp = 16;
    l.max_mr_size = 1ull << 40;
    l.max_inline_data = 0;
    Message m = build_limits_set(kFamily, "vrnic0", l);
    ASSERT_TRUE(m.status());
    auto* gh = static_cast<genlmsghdr*>(nlmsg_data(m.header()));
    EXPECT_EQ(gh->cmd, VRNIC_CMD_LIMITS_SET);
    EXPECT_EQ(gh->version, VRNIC_GENL_VERSION);
    EXPECT_EQ(m.header()->nlmsg_type, kFamily);
    std::string dev;
    auto back = parse_limits(m.header(), &dev);
    ASSERT_TRUE(back) << back.error().message();
    EXPECT_EQ(dev, "vrnic0");
    EXPECT_EQ(back->max_qp, 16u);
    EXPECT_EQ(back->max_mr_size, 1ull << 40);
    EXPECT_EQ(back->max_inline_data, 0u); // zero is a value, not "absent"
    EXPECT_FALSE(back->max_cq.has_value());
    EXPECT_TRUE(*back == l);
}

TEST(Vrnic, LimitsWithoutNestIsProtocolError) {
    Message m = build_get(kFamily, VRNIC_CMD_LIMITS_GET, std::string("vrnic0"), false);
    auto l = parse_limits(m.header());
    ASSERT_FALSE(l);
    EXPECT_EQ(l.error().err, EPROTO);
}

TEST(Vrnic, LimitsPolicyRejectsWrongWidth) {
    // max_mr_size is u64; a u32 in its place must not parse.
    Message m = Message::genl(kFamily, VRNIC_CMD_LIMITS_GET, 1, 0);
    m.put_string(VRNIC_ATTR_DEV_NAME, "vrnic0")
        .begin_nest(VRNIC_ATTR_LIMITS)
        .put_u32(VRNIC_LIMITS_ATTR_MAX_MR_SIZE, 5)
        .end_nest();
    EXPECT_FALSE(parse_limits(m.header()));
}

TEST(Vrnic, DcqcnSetRoundTripIncludesU8Params) {
    Dcqcn d;
    d.rpg_ai_rate = 40;
    d.cnp_dscp = 48;
    d.cnp_802p_prio = 6;
    d.clamp_tgt_rate = 1;
    d.clamp_tgt_rate_after_time_inc = 0;
    Message m = build_dcqcn_set(kFamily, "vrnic0", d);
    ASSERT_TRUE(m.status());
    auto back = parse_dcqcn(m.header());
    ASSERT_TRUE(back) << back.error().message();
    EXPECT_TRUE(*back == d);
    EXPECT_EQ(back->cnp_dscp, 48);
    EXPECT_EQ(back->clamp_tgt_rate, 1);
    EXPECT_EQ(back->clamp_tgt_rate_after_time_inc, 0);
}

TEST(Vrnic, QosSetRoundTripWithMaps) {
    Qos q;
    q.trust = VRNIC_TRUST_DSCP;
    q.pfc_en = 0x18;
    q.dscp2prio = {{46, 5}, {26, 3}};
    q.tclass = 106;
    Message m = build_qos_set(kFamily, "vrnic0", q);
    ASSERT_TRUE(m.status());
    auto back = parse_qos(m.header());
    ASSERT_TRUE(back) << back.error().message();
    EXPECT_TRUE(*back == q);
    EXPECT_EQ(trust_name(*back->trust), "dscp");
}

TEST(Vrnic, QosReplyOfAnOlderModuleWithPrio2tcParses) {
    // A module loaded before an upgrade of rdmactl still reports the
    // removed PRIO2TC map: it is skipped, the rest of the reply is read.
    Message m = Message::genl(kFamily, VRNIC_CMD_QOS_GET, 1, 0);
    m.put_string(VRNIC_ATTR_DEV_NAME, "vrnic0")
        .begin_nest(VRNIC_ATTR_QOS)
        .put_u8(VRNIC_QOS_ATTR_TRUST, VRNIC_TRUST_DSCP)
        .begin_nest(VRNIC_QOS_ATTR_PRIO2TC)
        .begin_nest(VRNIC_ENTRY)
        .put_u8(VRNIC_TC_MAP_ATTR_PRIO, 3)
        .put_u8(VRNIC_TC_MAP_ATTR_TC, 1)
        .end_nest()
        .end_nest()
        .put_u8(VRNIC_QOS_ATTR_TCLASS, 106)
        .end_nest();
    auto q = parse_qos(m.header());
    ASSERT_TRUE(q) << q.error().message();
    EXPECT_EQ(q->trust, VRNIC_TRUST_DSCP);
    EXPECT_EQ(q->tclass, 106);
}

TEST(Vrnic, ReplyWithoutItsNestIsAProtocolError) {
    // A reply that lacks the object's nest must not pass as an empty object.
    Message m = Message::genl(kFamily, VRNIC_CMD_QOS_GET, 1, 0);
    m.put_string(VRNIC_ATTR_DEV_NAME, "vrnic0");
    std::string dev;
    auto q = parse_qos(m.header(), &dev);
    ASSERT_FALSE(q);
    EXPECT_EQ(q.error().err, EPROTO);
    EXPECT_EQ(q.error().extack, "reply without qos");
    EXPECT_EQ(dev, "vrnic0");
    EXPECT_FALSE(parse_limits(m.header()));
}

TEST(Vrnic, ParamTablesMatchUapi) {
    EXPECT_EQ(limits_params().size(),
              static_cast<size_t>(VRNIC_LIMITS_ATTR_MAX - VRNIC_LIMITS_ATTR_PAD));
    EXPECT_EQ(dcqcn_params().size(), static_cast<size_t>(VRNIC_DCQCN_ATTR_MAX));
    ASSERT_NE(find_param(dcqcn_params(), "rpg_gd"), nullptr);
    EXPECT_EQ(find_param(dcqcn_params(), "rpg_gd")->attr, VRNIC_DCQCN_ATTR_RPG_GD);
    EXPECT_EQ(find_param(limits_params(), "max_qp")->type_max(), 0xffffffffu);
    EXPECT_EQ(find_param(dcqcn_params(), "cnp_dscp")->type_max(), 0xffu);
    EXPECT_EQ(find_param(limits_params(), "nope"), nullptr);
}

TEST(Vrnic, StatsReply) {
    Message m = Message::genl(kFamily, VRNIC_CMD_QP_STATS_GET, 1, NLM_F_MULTI);
    m.put_string(VRNIC_ATTR_DEV_NAME, "vrnic0").put_u32(VRNIC_ATTR_QPN, 17);
    m.begin_nest(VRNIC_ATTR_COUNTERS);
    m.begin_nest(VRNIC_ENTRY)
        .put_string(VRNIC_COUNTER_ATTR_NAME, "tx_packets")
        .put_u64(VRNIC_COUNTER_ATTR_VALUE, 9)
        .end_nest();
    m.end_nest();
    auto s = parse_stats(m.header());
    ASSERT_TRUE(s) << s.error().message();
    EXPECT_EQ(s->qpn, 17u);
    ASSERT_EQ(s->counters.size(), 1u);
    EXPECT_EQ(s->counters[0].name, "tx_packets");
    EXPECT_EQ(s->counters[0].value, 9u);
}

TEST(Vrnic, ConfigNotification) {
    Limits l;
    l.max_qp = 5;
    Message m = build_limits_set(kFamily, "vrnic0", l);
    auto ev = parse_config_event(m.header());
    ASSERT_TRUE(ev) << ev.error().message();
    EXPECT_EQ(ev->dev_name, "vrnic0");
    ASSERT_TRUE(ev->limits);
    EXPECT_EQ(ev->limits->max_qp, 5u);
    EXPECT_FALSE(ev->qos);
}

TEST(Vrnic, FamilyReply) {
    Message m = Message::genl(GENL_ID_CTRL, CTRL_CMD_NEWFAMILY, 1, 0);
    m.put_u16(CTRL_ATTR_FAMILY_ID, 0x1f)
        .put_string(CTRL_ATTR_FAMILY_NAME, "vrnic")
        .put_u32(CTRL_ATTR_VERSION, 1)
        .begin_nest(CTRL_ATTR_MCAST_GROUPS)
        .begin_nest(1)
        .put_string(CTRL_ATTR_MCAST_GRP_NAME, "config")
        .put_u32(CTRL_ATTR_MCAST_GRP_ID, 9)
        .end_nest()
        .end_nest();
    auto f = parse_family(m.header());
    ASSERT_TRUE(f) << f.error().message();
    EXPECT_EQ(f->id, 0x1f);
    EXPECT_EQ(f->version, 1u);
    EXPECT_EQ(f->groups.at("config"), 9u);
}

// The replies of CTRL_CMD_GETPOLICY for one op, in the order and shape
// the kernel's ctrl_dumppolicy() sends them: the op's policy indexes, then
// one entry per message.
TEST(Vrnic, PolicyDumpFindsTheRangesOfASetNest) {
    PolicyDump d;
    auto entry = [&](uint32_t policy, int attr, std::function<void(Message&)> body) {
        Message m = Message::genl(GENL_ID_CTRL, CTRL_CMD_GETPOLICY, 1, NLM_F_MULTI);
        m.put_u16(CTRL_ATTR_FAMILY_ID, kFamily);
        m.begin_nest(CTRL_ATTR_POLICY).begin_nest(static_cast<int>(policy)).begin_nest(attr);
        body(m);
        m.end_nest().end_nest().end_nest();
        ASSERT_TRUE(d.add(m.header()));
    };
    auto range = [](uint64_t lo, uint64_t hi) {
        return [lo, hi](Message& m) {
            m.put_u32(NL_POLICY_TYPE_ATTR_TYPE, NL_ATTR_TYPE_U32)
                .put_u64(NL_POLICY_TYPE_ATTR_MIN_VALUE_U, lo)
                .put_u64(NL_POLICY_TYPE_ATTR_MAX_VALUE_U, hi);
        };
    };
    Message op = Message::genl(GENL_ID_CTRL, CTRL_CMD_GETPOLICY, 1, NLM_F_MULTI);
    op.put_u16(CTRL_ATTR_FAMILY_ID, kFamily)
        .begin_nest(CTRL_ATTR_OP_POLICY)
        .begin_nest(VRNIC_CMD_DCQCN_SET)
        .put_u32(CTRL_ATTR_POLICY_DO, 0)
        .end_nest()
        .end_nest();
    ASSERT_TRUE(d.add(op.header()));
    entry(0, VRNIC_ATTR_DEV_NAME,
          [](Message& m) { m.put_u32(NL_POLICY_TYPE_ATTR_TYPE, NL_ATTR_TYPE_NUL_STRING); });
    entry(0, VRNIC_ATTR_DCQCN, [](Message& m) {
        m.put_u32(NL_POLICY_TYPE_ATTR_TYPE, NL_ATTR_TYPE_NESTED)
            .put_u32(NL_POLICY_TYPE_ATTR_POLICY_IDX, 1)
            .put_u32(NL_POLICY_TYPE_ATTR_POLICY_MAXTYPE, VRNIC_DCQCN_ATTR_MAX);
    });
    entry(1, VRNIC_DCQCN_ATTR_RPG_GD, range(0, 15));
    entry(1, VRNIC_DCQCN_ATTR_RPG_AI_RATE, range(1, 1000000));
    NestRanges r = d.nest_ranges(VRNIC_ATTR_DCQCN);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[VRNIC_DCQCN_ATTR_RPG_GD].max, 15u);
    EXPECT_EQ(r[VRNIC_DCQCN_ATTR_RPG_AI_RATE].min, 1u);
    // The top level is not the nest; a nest the op lacks has no ranges.
    EXPECT_TRUE(d.nest_ranges(VRNIC_ATTR_LIMITS).empty());
}

TEST(Vrnic, PolicyDumpRequestNamesFamilyAndOp) {
    Message m = build_getpolicy(kFamily, VRNIC_CMD_LIMITS_SET);
    EXPECT_EQ(m.header()->nlmsg_type, GENL_ID_CTRL);
    EXPECT_EQ(m.header()->nlmsg_flags & NLM_F_DUMP, NLM_F_DUMP);
    auto* a = nlmsg_find_attr(m.header(), GENL_HDRLEN, CTRL_ATTR_OP);
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(nla_get_u32(a), static_cast<uint32_t>(VRNIC_CMD_LIMITS_SET));
    auto* f = nlmsg_find_attr(m.header(), GENL_HDRLEN, CTRL_ATTR_FAMILY_ID);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(nla_get_u16(f), kFamily);
}

TEST(Rtnl, ParseIfAddr) {
    auto a = parse_ifaddr("10.1.0.1/24");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->family, AF_INET);
    EXPECT_EQ(a->prefixlen, 24u);
    auto b = parse_ifaddr("fd00::1/64");
    ASSERT_TRUE(b);
    EXPECT_EQ(b->family, AF_INET6);
    for (const char* bad : {"10.1.0.1", "10.1.0.1/33", "fd00::1/129", "10.1.0/24", "x/1",
                            "10.1.0.1/", "10.1.0.1/-1", "10.1.0.1/2a"}) {
        auto r = parse_ifaddr(bad);
        EXPECT_FALSE(r) << bad;
        if (!r) {
            EXPECT_EQ(r.error().err, EINVAL) << bad;
        }
    }
}

TEST(Rtnl, AddRequestCarriesAddress) {
    auto a = parse_ifaddr("10.1.0.1/24");
    ASSERT_TRUE(a);
    auto m = build_addr_request(true, 5, *a);
    ASSERT_TRUE(m) << m.error().message();
    nlmsghdr* nlh = m->header();
    EXPECT_EQ(nlh->nlmsg_type, RTM_NEWADDR);
    EXPECT_TRUE(nlh->nlmsg_flags & NLM_F_EXCL);
    auto* ifa = static_cast<ifaddrmsg*>(nlmsg_data(nlh));
    EXPECT_EQ(ifa->ifa_index, 5u);
    EXPECT_EQ(ifa->ifa_prefixlen, 24u);
    EXPECT_EQ(ifa->ifa_family, AF_INET);
    nlattr* local = nlmsg_find_attr(nlh, sizeof(ifaddrmsg), IFA_LOCAL);
    ASSERT_NE(local, nullptr);
    char buf[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, nla_data(local), buf, sizeof(buf));
    EXPECT_STREQ(buf, "10.1.0.1");
    auto d = build_addr_request(false, 5, *a);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->header()->nlmsg_type, RTM_DELADDR);
}

TEST(Vrnic, BlamedAttributeNamesTheParameter) {
    EXPECT_EQ(attr_name({VRNIC_ATTR_DCQCN, VRNIC_DCQCN_ATTR_RPG_GD}), "rpg_gd");
    EXPECT_EQ(attr_name({VRNIC_ATTR_LIMITS, VRNIC_LIMITS_ATTR_MAX_QP}), "max_qp");
    EXPECT_EQ(attr_name({VRNIC_ATTR_QOS, VRNIC_QOS_ATTR_CNP_PRIO}), "cnp_prio");
    EXPECT_EQ(attr_name({VRNIC_ATTR_QOS, VRNIC_QOS_ATTR_TRUST}), "trust");
    EXPECT_EQ(attr_name({VRNIC_ATTR_QOS, VRNIC_QOS_ATTR_DSCP2PRIO, VRNIC_ENTRY,
                         VRNIC_DSCP_MAP_ATTR_PRIO}),
              "dscp2prio prio");
    EXPECT_EQ(attr_name({VRNIC_ATTR_DEV_NAME}), "");
    EXPECT_EQ(attr_name({VRNIC_ATTR_LIMITS, 200}), "");
}
