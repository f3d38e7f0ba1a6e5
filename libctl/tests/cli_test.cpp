// SPDX-License-Identifier: GPL-2.0
// Command-line errors: every usage error exits 2 with one "Error: ...".
// line on stderr and nothing on stdout.  None of these reach the kernel.
#include "cli.h"

#include <sstream>
#include <vector>

#include <gtest/gtest.h>

namespace {

struct Outcome {
    int rc;
    std::string out, err;
};

Outcome run(std::vector<const char*> args) {
    args.insert(args.begin(), "rdmactl");
    std::ostringstream out, err;
    int rc = rdmactl::run(static_cast<int>(args.size()), args.data(), out, err);
    return {rc, out.str(), err.str()};
}

void expect_usage(std::vector<const char*> args, const std::string& needle) {
    std::string cmd;
    for (const char* a : args)
        cmd += std::string(a) + " ";
    Outcome o = run(args);
    EXPECT_EQ(o.rc, rdmactl::kExitUsage) << cmd << "\n" << o.err;
    EXPECT_TRUE(o.out.empty()) << cmd;
    EXPECT_EQ(o.err.rfind("Error: ", 0), 0u) << cmd << ": " << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << cmd << ": " << o.err;
    EXPECT_NE(o.err.find(needle), std::string::npos) << cmd << ": " << o.err;
}

} // namespace

TEST(Cli, VersionAndHelpSucceed) {
    Outcome v = run({"--version"});
    EXPECT_EQ(v.rc, 0);
    EXPECT_NE(v.out.find("rdmactl"), std::string::npos);
    Outcome h = run({"--help"});
    EXPECT_EQ(h.rc, 0);
    EXPECT_NE(h.out.find("limits"), std::string::npos);
    Outcome oh = run({"limits", "help"});
    EXPECT_EQ(oh.rc, 0);
    EXPECT_NE(oh.out.find("set"), std::string::npos);
}

TEST(Cli, NoObjectOrUnknownObject) {
    expect_usage({}, "subcommand");
    expect_usage({"frobnicate"}, "unknown object \"frobnicate\"");
    expect_usage({"-x", "dev"}, "-x");
}

TEST(Cli, UnknownCommand) {
    expect_usage({"dev", "frob"}, "frob");
    expect_usage({"limits", "delete", "vrnic0"}, "delete");
}

TEST(Cli, MissingArguments) {
    expect_usage({"limits", "set"}, "DEV");
    expect_usage({"limits", "set", "vrnic0"}, "PAIRS");
    expect_usage({"link", "add", "x"}, "missing \"netdev IFNAME\"");
    expect_usage({"link", "del"}, "NAME");
    expect_usage({"gid", "add", "vrnic0"}, "ADDR");
    expect_usage({"apply"}, "--file");
    expect_usage({"dev", "show", "a", "b"}, "b");
}

TEST(Cli, BadKeyValuePairs) {
    expect_usage({"limits", "set", "vrnic0", "max_qp"}, "needs a value");
    expect_usage({"limits", "set", "vrnic0", "max_foo", "1"}, "unknown key \"max_foo\"");
    expect_usage({"limits", "set", "vrnic0", "max_qp", "1", "max_qp", "2"}, "twice");
    expect_usage({"limits", "set", "vrnic0", "max_qp", "ten"}, "invalid value \"ten\"");
    expect_usage({"limits", "set", "vrnic0", "max_qp", "-1"}, "invalid value \"-1\"");
    expect_usage({"limits", "set", "vrnic0", "max_qp", "4294967296"}, "invalid value");
    expect_usage({"dcqcn", "set", "vrnic0", "cnp_dscp", "256"}, "invalid value");
    expect_usage({"dcqcn", "set", "vrnic0", "max_qp", "1"}, "unknown key");
}

TEST(Cli, BadQosArguments) {
    expect_usage({"qos", "set", "vrnic0", "trust", "vlan"}, "invalid trust");
    expect_usage({"qos", "set", "vrnic0", "pfc", "8"}, "invalid pfc");
    expect_usage({"qos", "set", "vrnic0", "pfc", "1,x"}, "invalid pfc");
    expect_usage({"qos", "set", "vrnic0", "dscp2prio"}, "needs a value");
    expect_usage({"qos", "set", "vrnic0", "dscp2prio", "46"}, "KEY:VALUE");
    expect_usage({"qos", "set", "vrnic0", "dscp2prio", "46:5", "46:4"}, "46:4");
    expect_usage({"qos", "set", "vrnic0", "colour", "blue"}, "unknown key");
    expect_usage({"qos", "set", "vrnic0", "prio2tc", "3:1"}, "unknown key \"prio2tc\"");
}

TEST(Cli, BadGidAndStatsArguments) {
    expect_usage({"gid", "add", "vrnic0", "10.0.0.1"}, "ADDR/PLEN");
    expect_usage({"gid", "del", "vrnic0", "10.0.0.1/40"}, "prefix length");
    expect_usage({"stats", "show", "vrnic0", "qp", "x"}, "invalid QPN");
    expect_usage({"stats", "show", "vrnic0", "qp", "16777216"}, "invalid QPN");
    expect_usage({"stats", "show", "vrnic0", "bogus"}, "bogus");
}
