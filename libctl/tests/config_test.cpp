// SPDX-License-Identifier: GPL-2.0
// Validation of "rdmactl apply" files: the whole document is checked before
// anything is sent, and every rejection names the JSON path.
#include "objects.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <map>
#include <string>

#include <uapi/vrnic.h>

using namespace rdmactl;

namespace {

const char* kGood = R"({
  "version": 1,
  "devices": [
    {
      "dev_name": "vrnic0",
      "limits": {"max_qp": 16, "max_mr_size": 1099511627776},
      "qos": {"trust": "dscp", "pfc_en": [3, 4], "dscp2prio": {"46": 5}, "tclass": 106},
      "dcqcn": {"rpg_ai_rate": 40, "cnp_dscp": 48}
    }
  ]
})";

// Expects @p text to be rejected with @p path in the message.
void expect_rejected(const std::string& text, const std::string& path) {
    auto c = config_from_text(text);
    ASSERT_FALSE(c) << text;
    EXPECT_NE(c.error().message().find(path), std::string::npos)
        << "message \"" << c.error().message() << "\" lacks \"" << path << "\"";
}

} // namespace

TEST(Config, GoodFileParses) {
    auto c = config_from_text(kGood);
    ASSERT_TRUE(c) << c.error().message();
    ASSERT_EQ(c->devices.size(), 1u);
    const DeviceConfig& d = c->devices[0];
    EXPECT_EQ(d.dev_name, "vrnic0");
    EXPECT_EQ(d.limits->max_qp, 16u);
    EXPECT_EQ(d.limits->max_mr_size, 1ull << 40);
    EXPECT_EQ(d.qos->pfc_en, 0x18);
    EXPECT_EQ(d.qos->dscp2prio.at(46), 5);
    EXPECT_EQ(d.dcqcn->cnp_dscp, 48);
}

TEST(Config, DumpParsesBackIdentically) {
    auto c = config_from_text(kGood);
    ASSERT_TRUE(c);
    json j = config_to_json(*c);
    auto again = config_from_json(j);
    ASSERT_TRUE(again) << again.error().message();
    EXPECT_EQ(config_to_json(*again), j);
}

TEST(Config, LargestU64IsAccepted) {
    auto c = config_from_text(
        R"({"version": 1, "devices": [{"dev_name": "a", "limits": {"max_mr_size": 18446744073709551615}}]})");
    ASSERT_TRUE(c) << c.error().message();
    EXPECT_EQ(c->devices[0].limits->max_mr_size, ~uint64_t{0});
}

TEST(Config, FullQosMapsRoundTripAsArrays) {
    libctl::Qos q;
    for (int i = 0; i < 64; i++)
        q.dscp2prio[static_cast<uint8_t>(i)] = static_cast<uint8_t>(i >> 3);
    json j = qos_to_json(q);
    ASSERT_TRUE(j["dscp2prio"].is_array());
    EXPECT_EQ(j["dscp2prio"].size(), 64u);
    auto back = qos_from_json(j, "qos");
    ASSERT_TRUE(back);
    EXPECT_EQ(back->dscp2prio, q.dscp2prio);
}

TEST(Config, Malformed) {
    expect_rejected("{\"version\": 1, \"devices\": [", "malformed JSON");
    expect_rejected("", "malformed JSON");
    expect_rejected("{'version': 1}", "malformed JSON");
    // The position is the byte the parser stopped at: line 3, column 13.
    auto c = config_from_text("{\n\"version\": 1,\n\"devices\": [}\n", "f.json");
    ASSERT_FALSE(c);
    EXPECT_EQ(c.error().message().rfind("f.json:3:13: malformed JSON: syntax error", 0), 0u)
        << c.error().message();
    // Without a source name, just LINE:COLUMN.
    auto d = config_from_text("{\"version\": 1,");
    ASSERT_FALSE(d);
    EXPECT_EQ(d.error().message().rfind("1:15: malformed JSON", 0), 0u) << d.error().message();
}

// Every validation error starts with FILE:LINE:COLUMN of the key it names,
// so a journal line leads straight to it.
void expect_at(const std::string& text, const std::string& prefix) {
    auto c = config_from_text(text, "vrnic.json");
    ASSERT_FALSE(c) << text;
    EXPECT_EQ(c.error().message().rfind(prefix, 0), 0u)
        << "message \"" << c.error().message() << "\" does not start with \"" << prefix << "\"";
}

TEST(Config, ErrorsNameLineColumnAndKey) {
    const std::string head = "{\n  \"version\": 1,\n  \"devices\": [\n    {\n";
    // Unknown key: at the key.
    expect_at(head +
                  "      \"dev_name\": \"v0\",\n      \"limits\": {\"max_qp\": 1, \"max_x\": 2}\n"
                  "    }\n  ]\n}\n",
              "vrnic.json:6:31: devices[0].limits.max_x: unknown key");
    // Out of the kernel's range: at the key of the value.
    const std::string text = head + "      \"dev_name\": \"v0\",\n      \"dcqcn\": {\n"
                                    "        \"rpg_gd\": 99\n      }\n    }\n  ]\n}\n";
    auto c = config_from_text(text, "vrnic.json");
    ASSERT_TRUE(c) << c.error().message();
    ConfigRanges r;
    r.dcqcn[VRNIC_DCQCN_ATTR_RPG_GD] = {0, 15};
    auto st = check_config_ranges(*c, r);
    ASSERT_FALSE(st);
    EXPECT_EQ(locate_error(text, "vrnic.json", st.error())
                  .message()
                  .rfind("vrnic.json:7:9: devices[0].dcqcn.rpg_gd: value 99 out of range 0..15", 0),
              0u)
        << locate_error(text, "vrnic.json", st.error()).message();
    // Wrong type.
    expect_at(head + "      \"dev_name\": \"v0\",\n      \"netdev\": 7\n    }\n  ]\n}\n",
              "vrnic.json:6:7: devices[0].netdev: expected a network interface name");
    // A map entry and an array element.
    expect_at(head + "      \"dev_name\": \"v0\", \"qos\": {\"pfc_en\": [1, 9]}\n    }\n  ]\n}\n",
              "vrnic.json:5:47: devices[0].qos.pfc_en[1]: value 9 out of range 0..7");
    // Second device: the array element index is found, not the first one.
    expect_at(head + "      \"dev_name\": \"v0\"\n    },\n    {\"dev_name\": \"v1\", \"bad\": 1}\n"
                     "  ]\n}\n",
              "vrnic.json:7:24: devices[1].bad: unknown key");
    // A missing key is reported at the object that lacks it.
    expect_at("{\"devices\": []}", "vrnic.json:1:1: version: missing");
    expect_at("{\"version\": 1,\n \"devices\": [\n  {\"limits\": {}}]}",
              "vrnic.json:3:3: devices[0].dev_name: missing");
    // Keys with escapes are found by their decoded name.
    expect_at("{\"version\": 1, \"devices\": [{\"dev_name\": \"a\", \"q\\u006fs\": {\"x\": 1}}]}",
              "vrnic.json:1:59: devices[0].qos.x: unknown key");
}

// prio2tc was in every "config dump" before it was removed: such a file
// is refused at the key, saying the key was removed rather than unknown.
TEST(Config, RemovedPrio2tcIsRefusedAtItsKey) {
    expect_at(
        "{\"version\": 1,\n \"devices\": [{\"dev_name\": \"v0\",\n  \"qos\": {\"trust\": \"pcp\", "
        "\"prio2tc\": [0, 1, 2, 3, 4, 5, 6, 7]}}]}",
        "vrnic.json:3:27: devices[0].qos.prio2tc: removed (vrnic has no traffic classes");
    expect_rejected(
        R"({"version": 1, "devices": [{"dev_name": "a", "qos": {"prio2tc": {"3": 1}}}]})",
        "delete the key");
}

TEST(Config, Netdev) {
    auto c = config_from_text(
        R"({"version": 1, "devices": [{"dev_name": "vrnic0", "netdev": "eth0.100"}]})");
    ASSERT_TRUE(c) << c.error().message();
    EXPECT_EQ(*c->devices[0].netdev, "eth0.100");
    EXPECT_EQ(config_to_json(*c)["devices"][0]["netdev"], "eth0.100");
    auto nd = [](const std::string& v) {
        return R"({"version": 1, "devices": [{"dev_name": "a", "netdev": )" + v + "}]}";
    };
    expect_rejected(nd("\"\""), "devices[0].netdev");
    expect_rejected(nd("\"0123456789abcdef\""), "devices[0].netdev"); // 16 bytes
    expect_rejected(nd("\"a/b\""), "devices[0].netdev");
    expect_rejected(nd("\"a b\""), "devices[0].netdev");
    expect_rejected(nd("\"eth0:1\""), "devices[0].netdev");
    expect_rejected(nd("\"..\""), "devices[0].netdev");
    expect_rejected(nd("[\"eth0\"]"), "devices[0].netdev");
    expect_rejected(nd("null"), "devices[0].netdev");
    EXPECT_TRUE(valid_netdev_name("0123456789abcde")); // 15 bytes
}

TEST(Config, PlanLinks) {
    auto c = config_from_text(R"({"version": 1, "devices": [
        {"dev_name": "vrnic0", "netdev": "eth0"},
        {"dev_name": "vrnic1", "netdev": "eth1"},
        {"dev_name": "vrnic2", "netdev": "late"},
        {"dev_name": "vrnic3"}]})");
    ASSERT_TRUE(c) << c.error().message();
    auto exists = [](const std::string& n) { return n != "late"; };
    // vrnic0 runs already over eth0, vrnic3 (no netdev) runs: create
    // vrnic1, vrnic2 waits for its netdev.
    std::map<std::string, std::string> running{{"vrnic0", "eth0"}, {"vrnic3", "eth3"}};
    auto p = plan_links(*c, running, exists);
    ASSERT_TRUE(p) << p.error().message();
    ASSERT_EQ(p->create.size(), 1u);
    EXPECT_EQ(p->create[0], std::make_pair(std::string("vrnic1"), std::string("eth1")));
    ASSERT_EQ(p->waiting.size(), 1u);
    EXPECT_EQ(p->waiting[0].first, "vrnic2");
    // Once everything runs, nothing is left to create (idempotent).
    running = {{"vrnic0", "eth0"}, {"vrnic1", "eth1"}, {"vrnic2", "late"}, {"vrnic3", ""}};
    p = plan_links(*c, running, exists);
    ASSERT_TRUE(p);
    EXPECT_TRUE(p->create.empty());
    EXPECT_TRUE(p->waiting.empty());
    // A device over another netdev is a conflict, named by path.
    running["vrnic1"] = "eth9";
    p = plan_links(*c, running, exists);
    ASSERT_FALSE(p);
    EXPECT_EQ(p.error().err, EEXIST);
    EXPECT_EQ(p.error().context, "devices[1].netdev");
    // A missing device without a netdev cannot be created.
    running.erase("vrnic3");
    running["vrnic1"] = "eth1";
    p = plan_links(*c, running, exists);
    ASSERT_FALSE(p);
    EXPECT_EQ(p.error().err, ENODEV);
    EXPECT_EQ(p.error().context, "devices[3].dev_name");
    // locate_error() turns that path into a file position.
    std::string text = "{\"version\": 1,\n\"devices\": [{\"dev_name\": \"v\", \"netdev\": \"e\"}]}";
    libctl::Error e = libctl::make_error(EEXIST, "devices[0].netdev");
    EXPECT_EQ(locate_error(text, "f", e).context, "f:2:31: devices[0].netdev");
}

TEST(Config, PartialOrWrongStructure) {
    expect_rejected("[]", "configuration");
    expect_rejected(R"({"devices": []})", "version");
    expect_rejected(R"({"version": 2, "devices": []})", "version");
    expect_rejected(R"({"version": 1})", "devices");
    expect_rejected(R"({"version": 1, "devices": {}})", "devices");
    expect_rejected(R"({"version": 1, "devices": [{"limits": {}}]})", "devices[0].dev_name");
    expect_rejected(R"({"version": 1, "devices": [{"dev_name": ""}]})", "devices[0].dev_name");
    expect_rejected(R"({"version": 1, "devices": [{"dev_name": "a"}, {"dev_name": "a"}]})",
                    "devices[1].dev_name");
    expect_rejected(R"({"version": 1, "devices": [{"dev_name": "a", "limits": []}]})",
                    "devices[0].limits");
}

TEST(Config, UnknownKeys) {
    expect_rejected(R"({"version": 1, "devices": [], "extra": 1})", "extra");
    expect_rejected(R"({"version": 1, "devices": [{"dev_name": "a", "bogus": {}}]})",
                    "devices[0].bogus");
    expect_rejected(R"({"version": 1, "devices": [{"dev_name": "a", "limits": {"max_foo": 1}}]})",
                    "devices[0].limits.max_foo");
    expect_rejected(R"({"version": 1, "devices": [{"dev_name": "a", "qos": {"pfc": [1]}}]})",
                    "devices[0].qos.pfc");
    expect_rejected(R"({"version": 1, "devices": [{"dev_name": "a", "dcqcn": {"rpg_x": 1}}]})",
                    "devices[0].dcqcn.rpg_x");
}

TEST(Config, NegativeWrongTypeAndTooWide) {
    auto dev = [](const std::string& obj) {
        return R"({"version": 1, "devices": [{"dev_name": "a", )" + obj + "}]}";
    };
    expect_rejected(dev(R"("limits": {"max_qp": -1})"), "negative");
    // Wider than the attribute (u32).
    expect_rejected(dev(R"("limits": {"max_qp": 4294967296})"),
                    "limits.max_qp: value 4294967296 out of range 0..4294967295");
    expect_rejected(dev(R"("limits": {"max_qp": "16"})"), "unsigned integer");
    expect_rejected(dev(R"("limits": {"max_qp": 1.5})"), "unsigned integer");
    expect_rejected(dev(R"("limits": {"max_mr_size": 18446744073709551616})"), "max_mr_size");
    expect_rejected(dev(R"("dcqcn": {"cnp_dscp": 256})"), "dcqcn.cnp_dscp");
    expect_rejected(dev(R"("qos": {"trust": "vlan"})"), "qos.trust");
    expect_rejected(dev(R"("qos": {"pfc_en": [8]})"), "qos.pfc_en[0]");
    expect_rejected(dev(R"("qos": {"pfc_en": [1, 1]})"), "listed twice");
    expect_rejected(dev(R"("qos": {"dscp2prio": [1, 2, 3]})"), "64 entries");
    expect_rejected(dev(R"("qos": {"dscp2prio": {"64": 1}})"), "qos.dscp2prio.64");
    expect_rejected(dev(R"("qos": {"dscp2prio": {"10": 8}})"), "qos.dscp2prio.10");
    expect_rejected(dev(R"("qos": {"cnp_dscp": 1}, "dcqcn": {"cnp_dscp": 2})"), "disagree");
}

// Ranges are the kernel's (read from its policy in the VM tests); here a
// stand-in set checks that every object is looked at, bounds included.
TEST(Config, ValuesOutsideTheKernelsRanges) {
    ConfigRanges r;
    r.limits[VRNIC_LIMITS_ATTR_MAX_QP] = {1, 100};
    r.limits[VRNIC_LIMITS_ATTR_MAX_MR_SIZE] = {4096, ~uint64_t{0}};
    r.qos[VRNIC_QOS_ATTR_CNP_DSCP] = {0, 63};
    r.dcqcn[VRNIC_DCQCN_ATTR_DCE_TCP_G] = {1, 1024};
    auto check = [&r](const std::string& obj) {
        auto c = config_from_text(R"({"version": 1, "devices": [{"dev_name": "a"},
                                     {"dev_name": "b", )" +
                                  obj + "}]}");
        EXPECT_TRUE(c) << c.error().message();
        return c ? check_config_ranges(*c, r) : libctl::Status(c.error());
    };
    EXPECT_TRUE(check(R"("limits": {"max_qp": 1, "max_mr_size": 4096})"));
    EXPECT_TRUE(check(R"("limits": {"max_qp": 100}, "dcqcn": {"dce_tcp_g": 1024})"));
    auto expect_out = [&](const std::string& obj, const std::string& msg) {
        auto st = check(obj);
        ASSERT_FALSE(st) << obj;
        EXPECT_NE(st.error().message().find(msg), std::string::npos) << st.error().message();
    };
    expect_out(R"("limits": {"max_qp": 0})",
               "devices[1].limits.max_qp: value 0 out of range 1..100");
    expect_out(R"("limits": {"max_qp": 101})", "value 101 out of range 1..100");
    expect_out(R"("limits": {"max_mr_size": 4095})", "devices[1].limits.max_mr_size");
    expect_out(R"("qos": {"cnp_dscp": 64})", "devices[1].qos.cnp_dscp");
    expect_out(R"("dcqcn": {"dce_tcp_g": 0})", "devices[1].dcqcn.dce_tcp_g");
}

TEST(Config, DiffListsOnlyChanges) {
    DeviceConfig cur;
    cur.dev_name = "vrnic0";
    cur.limits = libctl::Limits{};
    cur.limits->max_qp = 1024;
    cur.limits->max_cq = 2048;
    cur.qos = libctl::Qos{};
    cur.qos->trust = 0;
    cur.qos->dscp2prio = {{46, 5}, {0, 0}};
    DeviceConfig want;
    want.dev_name = "vrnic0";
    want.limits = libctl::Limits{};
    want.limits->max_qp = 16;
    want.limits->max_cq = 2048; // unchanged
    want.qos = libctl::Qos{};
    want.qos->dscp2prio = {{46, 5}, {0, 1}};
    DeviceConfig delta;
    auto ch = diff_config(cur, want, &delta);
    ASSERT_EQ(ch.size(), 2u);
    EXPECT_EQ(ch[0].key, "max_qp");
    EXPECT_EQ(ch[0].from, 1024);
    EXPECT_EQ(ch[0].to, 16);
    EXPECT_EQ(ch[1].key, "dscp2prio[0]");
    ASSERT_TRUE(delta.limits);
    EXPECT_EQ(delta.limits->max_qp, 16u);
    EXPECT_FALSE(delta.limits->max_cq);
    ASSERT_TRUE(delta.qos);
    EXPECT_EQ(delta.qos->dscp2prio.size(), 1u);
    EXPECT_FALSE(delta.dcqcn);
    // Applying the same configuration again changes nothing.
    DeviceConfig none;
    EXPECT_TRUE(diff_config(cur, cur, &none).empty());
    EXPECT_FALSE(none.limits || none.qos || none.dcqcn);
}
