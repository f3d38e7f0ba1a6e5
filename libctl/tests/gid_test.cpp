// SPDX-License-Identifier: GPL-2.0
// The sysfs GID reader against a sysfs tree of our own, laid out and
// spelled as ib_core writes it.
#include <libctl/gid.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

using namespace libctl;
namespace fs = std::filesystem;

namespace {

constexpr const char* kZero = "0000:0000:0000:0000:0000:0000:0000:0000";
constexpr const char* kLinkLocal = "fe80:0000:0000:0000:5054:00ff:fe12:3456";
constexpr const char* kV4 = "0000:0000:0000:0000:0000:ffff:0a01:0001";    // 10.1.0.1
constexpr const char* kV6 = "2001:0db8:0000:0000:0000:0000:0000:0001";    // 2001:db8::1
constexpr const char* kIbGid = "fe80:0000:0000:0000:0002:c903:0001:0203"; // an IB port GUID

// A sysfs tree in a fresh temporary directory, removed with the object.
class FakeSysfs {
public:
    FakeSysfs() {
        std::string tmpl = ::testing::TempDir() + "libctl_gid_XXXXXX";
        if (!::mkdtemp(tmpl.data()))
            ADD_FAILURE() << "mkdtemp " << tmpl;
        root_ = tmpl;
    }
    ~FakeSysfs() {
        std::error_code ec;
        fs::remove_all(root_, ec);
    }
    FakeSysfs(const FakeSysfs&) = delete;
    FakeSysfs& operator=(const FakeSysfs&) = delete;

    const std::string& root() const { return root_; }

    // Writes @p text and a newline to @p rel, creating the directories.
    void write(const std::string& rel, const std::string& text) const {
        fs::path p = fs::path(root_) / rel;
        fs::create_directories(p.parent_path());
        std::ofstream(p) << text << "\n";
    }

    // A port with a table of @p len slots, all empty.
    void port(const std::string& dev, int port, int len,
              const char* link_layer = "Ethernet") const {
        const std::string dir = port_dir(dev, port);
        write(dir + "/link_layer", link_layer);
        for (int i = 0; i < len; i++)
            write(dir + "/gids/" + std::to_string(i), kZero);
    }

    // A valid entry; @p ndev empty for none.
    void entry(const std::string& dev, int port, int index, const char* gid, const char* type,
               const std::string& ndev) const {
        const std::string dir = port_dir(dev, port), i = std::to_string(index);
        write(dir + "/gids/" + i, gid);
        write(dir + "/gid_attrs/types/" + i, type);
        if (!ndev.empty())
            write(dir + "/gid_attrs/ndevs/" + i, ndev);
    }

    void netdev(const std::string& name, int ifindex) const {
        write("class/net/" + name + "/ifindex", std::to_string(ifindex));
    }

    static std::string port_dir(const std::string& dev, int port) {
        return "class/infiniband/" + dev + "/ports/" + std::to_string(port);
    }

private:
    std::string root_;
};

} // namespace

TEST(Gid, ReadsRoceEntriesAndSkipsEmptySlots) {
    FakeSysfs sys;
    sys.port("vrnic0", 1, 8);
    sys.entry("vrnic0", 1, 0, kLinkLocal, "RoCE v2", "veth0");
    sys.entry("vrnic0", 1, 1, kV4, "RoCE v2", "veth0");
    sys.entry("vrnic0", 1, 5, kV6, "RoCE v2", "veth0");
    sys.netdev("veth0", 7);

    auto gids = read_gids(std::nullopt, sys.root());
    ASSERT_TRUE(gids) << gids.error().message();
    ASSERT_EQ(gids->size(), 3u);

    const Gid& ll = (*gids)[0];
    EXPECT_EQ(ll.dev_name, "vrnic0");
    EXPECT_EQ(ll.port, 1u);
    EXPECT_EQ(ll.index, 0u);
    EXPECT_EQ(ll.gid, kLinkLocal);
    EXPECT_EQ(gid_type_name(ll.type), "RoCE v2");
    EXPECT_EQ(ll.ndev_name, "veth0");
    EXPECT_EQ(ll.ndev_ifindex, 7u);
    EXPECT_EQ(ll.ipv6, "fe80::5054:ff:fe12:3456");
    EXPECT_FALSE(ll.ipv4);

    // IPv4-mapped: the IPv4 address, not ::ffff:10.1.0.1.
    const Gid& v4 = (*gids)[1];
    EXPECT_EQ(v4.index, 1u);
    EXPECT_EQ(v4.ipv4, "10.1.0.1");
    EXPECT_FALSE(v4.ipv6);

    const Gid& v6 = (*gids)[2];
    EXPECT_EQ(v6.index, 5u);
    EXPECT_EQ(v6.ipv6, "2001:db8::1");
    EXPECT_FALSE(v6.ipv4);
}

TEST(Gid, DevicesByNamePortsAndIndexesByNumber) {
    FakeSysfs sys;
    sys.port("vrnic0", 1, 12);
    sys.entry("vrnic0", 1, 10, kV6, "RoCE v2", "d0");
    sys.entry("vrnic0", 1, 2, kV4, "RoCE v2", "d0");
    sys.port("mlx5_0", 2, 1);
    sys.port("mlx5_0", 10, 1);
    sys.entry("mlx5_0", 10, 0, kV4, "RoCE v2", "d1");
    sys.entry("mlx5_0", 2, 0, kV6, "RoCE v2", "d1");

    auto gids = read_gids(std::nullopt, sys.root());
    ASSERT_TRUE(gids) << gids.error().message();
    ASSERT_EQ(gids->size(), 4u);
    EXPECT_EQ((*gids)[0].dev_name, "mlx5_0");
    EXPECT_EQ((*gids)[0].port, 2u);
    EXPECT_EQ((*gids)[1].port, 10u);
    EXPECT_EQ((*gids)[2].dev_name, "vrnic0");
    EXPECT_EQ((*gids)[2].index, 2u);
    EXPECT_EQ((*gids)[3].index, 10u);
}

TEST(Gid, OneDeviceOnly) {
    FakeSysfs sys;
    sys.port("rxe0", 1, 2);
    sys.entry("rxe0", 1, 0, kLinkLocal, "RoCE v2", "r0");
    sys.port("vrnic0", 1, 2);
    sys.entry("vrnic0", 1, 0, kLinkLocal, "RoCE v2", "d0");

    auto gids = read_gids(std::string("rxe0"), sys.root());
    ASSERT_TRUE(gids) << gids.error().message();
    ASSERT_EQ(gids->size(), 1u);
    EXPECT_EQ((*gids)[0].dev_name, "rxe0");
}

TEST(Gid, RoceV1AndIbTellApartByLinkLayer) {
    FakeSysfs sys;
    sys.port("rxe0", 1, 2);
    sys.entry("rxe0", 1, 0, kV4, "IB/RoCE v1", "r0");
    sys.entry("rxe0", 1, 1, kV4, "RoCE v2", "r0");
    sys.port("ib0dev", 1, 1, "InfiniBand");
    sys.entry("ib0dev", 1, 0, kIbGid, "IB/RoCE v1", "");

    auto rxe = read_gids(std::string("rxe0"), sys.root());
    ASSERT_TRUE(rxe) << rxe.error().message();
    ASSERT_EQ(rxe->size(), 2u);
    EXPECT_EQ((*rxe)[0].type, GidType::roce_v1);
    EXPECT_EQ(gid_type_name((*rxe)[0].type), "RoCE v1");
    EXPECT_EQ((*rxe)[0].ipv4, "10.1.0.1");
    EXPECT_EQ((*rxe)[1].type, GidType::roce_v2);

    // An IB GID is no address, and an IB port has no netdev.
    auto ib = read_gids(std::string("ib0dev"), sys.root());
    ASSERT_TRUE(ib) << ib.error().message();
    ASSERT_EQ(ib->size(), 1u);
    EXPECT_EQ((*ib)[0].type, GidType::ib);
    EXPECT_EQ(gid_type_name((*ib)[0].type), "IB");
    EXPECT_FALSE((*ib)[0].ipv4);
    EXPECT_FALSE((*ib)[0].ipv6);
    EXPECT_FALSE((*ib)[0].ndev_name);
    EXPECT_FALSE((*ib)[0].ndev_ifindex);
}

TEST(Gid, NetdevOfAnotherNamespaceHasNoIfindex) {
    FakeSysfs sys;
    sys.port("vrnic0", 1, 1);
    sys.entry("vrnic0", 1, 0, kV4, "RoCE v2", "elsewhere");
    auto gids = read_gids(std::nullopt, sys.root());
    ASSERT_TRUE(gids) << gids.error().message();
    ASSERT_EQ(gids->size(), 1u);
    EXPECT_EQ((*gids)[0].ndev_name, "elsewhere");
    EXPECT_FALSE((*gids)[0].ndev_ifindex);
}

// A slot emptied between reading its GID and its type: its attributes
// fail to read (here: are missing), and the entry is left out.
TEST(Gid, EntryGoneMeanwhileIsSkipped) {
    FakeSysfs sys;
    sys.port("vrnic0", 1, 2);
    sys.write(FakeSysfs::port_dir("vrnic0", 1) + "/gids/0", kV4);
    sys.entry("vrnic0", 1, 1, kV6, "RoCE v2", "d0");
    auto gids = read_gids(std::nullopt, sys.root());
    ASSERT_TRUE(gids) << gids.error().message();
    ASSERT_EQ(gids->size(), 1u);
    EXPECT_EQ((*gids)[0].index, 1u);
}

TEST(Gid, UnknownDeviceIsEnodev) {
    FakeSysfs sys;
    sys.port("vrnic0", 1, 1);
    for (const char* dev : {"nosuch0", "..", "vrnic0/ports", ""}) {
        auto gids = read_gids(std::string(dev), sys.root());
        ASSERT_FALSE(gids) << dev;
        EXPECT_EQ(gids.error().err, ENODEV);
        EXPECT_EQ(gids.error().context, std::string("RDMA device ") + dev + " not found");
    }
}

TEST(Gid, NoRdmaClassIsNoDevice) {
    FakeSysfs sys;
    auto all = read_gids(std::nullopt, sys.root());
    ASSERT_TRUE(all) << all.error().message();
    EXPECT_TRUE(all->empty());
    auto one = read_gids(std::string("vrnic0"), sys.root());
    ASSERT_FALSE(one);
    EXPECT_EQ(one.error().err, ENODEV);
}

TEST(Gid, DeviceWithOnlyEmptySlotsIsEmptyNotAnError) {
    FakeSysfs sys;
    sys.port("vrnic0", 1, 4);
    auto gids = read_gids(std::string("vrnic0"), sys.root());
    ASSERT_TRUE(gids) << gids.error().message();
    EXPECT_TRUE(gids->empty());
}

TEST(Gid, UnreadableEntryFailsWithItsErrno) {
    FakeSysfs sys;
    sys.port("vrnic0", 1, 1);
    // A directory where the GID should be: read() fails with EISDIR.
    fs::create_directories(sys.root() + "/" + FakeSysfs::port_dir("vrnic0", 1) + "/gids/1");
    auto gids = read_gids(std::nullopt, sys.root());
    ASSERT_FALSE(gids);
    EXPECT_EQ(gids.error().err, EISDIR);
    EXPECT_NE(gids.error().message().find("/gids/1"), std::string::npos) << gids.error().message();
}

TEST(Gid, MalformedGidOrTypeIsEproto) {
    FakeSysfs a;
    a.port("vrnic0", 1, 1);
    a.write(FakeSysfs::port_dir("vrnic0", 1) + "/gids/0", "fe80::1");
    auto bad_gid = read_gids(std::nullopt, a.root());
    ASSERT_FALSE(bad_gid);
    EXPECT_EQ(bad_gid.error().err, EPROTO);
    EXPECT_EQ(bad_gid.error().extack, "not a GID: \"fe80::1\"");

    FakeSysfs b;
    b.port("vrnic0", 1, 1);
    b.entry("vrnic0", 1, 0, kV4, "RoCE v3", "d0");
    auto bad_type = read_gids(std::nullopt, b.root());
    ASSERT_FALSE(bad_type);
    EXPECT_EQ(bad_type.error().err, EPROTO);
    EXPECT_EQ(bad_type.error().extack, "unknown GID type \"RoCE v3\"");
}
