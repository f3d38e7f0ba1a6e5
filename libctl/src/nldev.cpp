// SPDX-License-Identifier: GPL-2.0
#include <libctl/nldev.h>

#include <array>
#include <cerrno>

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <rdma/rdma_netlink.h>

namespace libctl {

namespace {

constexpr int kMaxAttr = RDMA_NLDEV_ATTR_MAX - 1;

// What we read from nldev replies, with the types the kernel puts them as.
const nla_policy* nldev_policy() {
    static const auto policy = [] {
        std::array<nla_policy, kMaxAttr + 1> p{};
        p[RDMA_NLDEV_ATTR_DEV_INDEX].type = NLA_U32;
        p[RDMA_NLDEV_ATTR_DEV_NAME].type = NLA_STRING;
        p[RDMA_NLDEV_ATTR_PORT_INDEX].type = NLA_U32;
        p[RDMA_NLDEV_ATTR_CAP_FLAGS].type = NLA_U64;
        p[RDMA_NLDEV_ATTR_FW_VERSION].type = NLA_STRING;
        p[RDMA_NLDEV_ATTR_NODE_GUID].type = NLA_U64;
        p[RDMA_NLDEV_ATTR_SYS_IMAGE_GUID].type = NLA_U64;
        p[RDMA_NLDEV_ATTR_DEV_NODE_TYPE].type = NLA_U8;
        p[RDMA_NLDEV_ATTR_DEV_PROTOCOL].type = NLA_STRING;
        p[RDMA_NLDEV_ATTR_PORT_STATE].type = NLA_U8;
        p[RDMA_NLDEV_ATTR_PORT_PHYS_STATE].type = NLA_U8;
        p[RDMA_NLDEV_ATTR_NDEV_INDEX].type = NLA_U32;
        p[RDMA_NLDEV_ATTR_NDEV_NAME].type = NLA_STRING;
        p[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS].type = NLA_NESTED;
        p[RDMA_NLDEV_ATTR_CHARDEV_NAME].type = NLA_STRING;
        p[RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID].type = NLA_U32;
        return p;
    }();
    return policy.data();
}

const nla_policy* hwcounter_policy() {
    static const auto policy = [] {
        std::array<nla_policy, kMaxAttr + 1> p{};
        p[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME].type = NLA_STRING;
        p[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE].type = NLA_U64;
        return p;
    }();
    return policy.data();
}

Error missing(const char* what, const char* attr) {
    Error e = make_error(EPROTO, what);
    e.extack = std::string("kernel reply lacks ") + attr;
    return e;
}

} // namespace

std::string node_type_name(uint8_t type) {
    static const char* const names[] = {"unknown", "ca",    "switch",    "router",
                                        "rnic",    "usnic", "usnic_udp", "unspecified"};
    if (type < sizeof(names) / sizeof(names[0]))
        return names[type];
    return std::to_string(type);
}

std::string port_state_name(uint8_t state) {
    static const char* const names[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};
    if (state < sizeof(names) / sizeof(names[0]))
        return names[state];
    return std::to_string(state);
}

std::string port_phys_state_name(uint8_t state) {
    static const char* const names[] = {
        "NOP",     "SLEEP", "POLLING", "DISABLED", "TRAINING", "LINK_UP", "LINK_ERROR_RECOVERY",
        "PHY_TEST"};
    if (state < sizeof(names) / sizeof(names[0]))
        return names[state];
    return std::to_string(state);
}

std::string driver_id_name(uint32_t id) {
    static const char* const names[] = {"unknown",    "mlx5",    "mlx4",   "cxgb3", "cxgb4",
                                        "mthca",      "bnxt_re", "ocrdma", "nes",   "irdma",
                                        "vmw_pvrdma", "qedr",    "hns",    "usnic", "rxe",
                                        "hfi1",       "qib",     "efa",    "siw",   "erdma"};
    if (id < sizeof(names) / sizeof(names[0]))
        return names[id];
    return std::to_string(id);
}

Result<Device> parse_device(const nlmsghdr* nlh) {
    auto attrs = Attrs::parse(nlh, 0, kMaxAttr, nldev_policy());
    if (!attrs)
        return attrs.error();
    const Attrs& a = *attrs;
    auto index = a.u32(RDMA_NLDEV_ATTR_DEV_INDEX);
    auto name = a.str(RDMA_NLDEV_ATTR_DEV_NAME);
    if (!index || !name)
        return missing("parse device", "dev_index or dev_name");
    Device d;
    d.dev_index = *index;
    d.dev_name = *name;
    d.dev_node_type = a.u8(RDMA_NLDEV_ATTR_DEV_NODE_TYPE);
    d.dev_protocol = a.str(RDMA_NLDEV_ATTR_DEV_PROTOCOL);
    d.fw_version = a.str(RDMA_NLDEV_ATTR_FW_VERSION);
    d.node_guid = a.u64(RDMA_NLDEV_ATTR_NODE_GUID);
    d.sys_image_guid = a.u64(RDMA_NLDEV_ATTR_SYS_IMAGE_GUID);
    d.num_ports = a.u32(RDMA_NLDEV_ATTR_PORT_INDEX).value_or(0);
    return d;
}

Result<Port> parse_port(const nlmsghdr* nlh) {
    auto attrs = Attrs::parse(nlh, 0, kMaxAttr, nldev_policy());
    if (!attrs)
        return attrs.error();
    const Attrs& a = *attrs;
    auto index = a.u32(RDMA_NLDEV_ATTR_PORT_INDEX);
    if (!index)
        return missing("parse port", "port_index");
    Port p;
    p.port_index = *index;
    p.port_state = a.u8(RDMA_NLDEV_ATTR_PORT_STATE);
    p.port_phys_state = a.u8(RDMA_NLDEV_ATTR_PORT_PHYS_STATE);
    p.ndev_index = a.u32(RDMA_NLDEV_ATTR_NDEV_INDEX);
    p.ndev_name = a.str(RDMA_NLDEV_ATTR_NDEV_NAME);
    return p;
}

Result<std::vector<Counter>> parse_hwcounters(const nlmsghdr* nlh) {
    auto attrs = Attrs::parse(nlh, 0, kMaxAttr, nldev_policy());
    if (!attrs)
        return attrs.error();
    std::vector<Counter> out;
    for (const nlattr* entry : attrs->nested_list(RDMA_NLDEV_ATTR_STAT_HWCOUNTERS)) {
        auto e = Attrs::parse_nested(entry, kMaxAttr, hwcounter_policy());
        if (!e)
            return e.error();
        auto name = e->str(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME);
        auto value = e->u64(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE);
        if (!name || !value)
            return missing("parse counters", "hwcounter entry name or value");
        out.push_back({*name, *value});
    }
    return out;
}

Result<Nldev> Nldev::open() {
    auto sk = Socket::open(NETLINK_RDMA);
    if (!sk)
        return sk.error();
    return Nldev(std::move(sk).value());
}

Result<std::vector<Port>> Nldev::ports(uint32_t dev_index) {
    Message msg = Message::nldev(RDMA_NLDEV_CMD_PORT_GET, NLM_F_DUMP);
    msg.put_u32(RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
    return sk_.collect_replies(msg, "list ports", parse_port);
}

// Best effort: the driver id is only known through the uverbs client.
std::optional<uint32_t> Nldev::uverbs_driver_id(uint32_t dev_index) {
    std::optional<uint32_t> id;
    Message msg = Message::nldev(RDMA_NLDEV_CMD_GET_CHARDEV, 0);
    msg.put_u32(RDMA_NLDEV_ATTR_DEV_INDEX, dev_index)
        .put_string(RDMA_NLDEV_ATTR_CHARDEV_TYPE, "uverbs");
    Status st = sk_.transact(msg, "get uverbs chardev", [&](const nlmsghdr* nlh) -> Status {
        auto a = Attrs::parse(nlh, 0, kMaxAttr, nldev_policy());
        if (!a)
            return a.error();
        id = a->u32(RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID);
        return ok_status();
    });
    if (!st)
        return std::nullopt;
    return id;
}

Result<std::vector<Device>> Nldev::devices() {
    Message msg = Message::nldev(RDMA_NLDEV_CMD_GET, NLM_F_DUMP);
    auto out = sk_.collect_replies(msg, "list RDMA devices", parse_device);
    if (!out)
        return out.error();
    for (Device& d : *out) {
        auto p = ports(d.dev_index);
        // A device unregistered between the two dumps simply has no ports.
        if (!p && p.error().err != ENODEV && p.error().err != EINVAL) {
            Error e = p.error();
            e.context = "list ports of " + d.dev_name;
            return e;
        }
        if (p)
            d.ports = std::move(p).value();
        d.uverbs_driver_id = uverbs_driver_id(d.dev_index);
    }
    return out;
}

Result<Device> Nldev::device(const std::string& name) {
    auto all = devices();
    if (!all)
        return all.error();
    for (Device& d : *all)
        if (d.dev_name == name)
            return std::move(d);
    return make_error(ENODEV, "RDMA device " + name + " not found");
}

Status Nldev::link_add(const std::string& name, const std::string& type,
                       const std::string& netdev) {
    Message msg = Message::nldev(RDMA_NLDEV_CMD_NEWLINK, 0);
    msg.put_string(RDMA_NLDEV_ATTR_DEV_NAME, name)
        .put_string(RDMA_NLDEV_ATTR_LINK_TYPE, type)
        .put_string(RDMA_NLDEV_ATTR_NDEV_NAME, netdev);
    return sk_.transact(msg, "add link " + name + " type " + type + " netdev " + netdev);
}

Status Nldev::link_del(const std::string& name) {
    auto d = device(name);
    if (!d)
        return d.error();
    Message msg = Message::nldev(RDMA_NLDEV_CMD_DELLINK, 0);
    msg.put_u32(RDMA_NLDEV_ATTR_DEV_INDEX, d->dev_index);
    return sk_.transact(msg, "delete link " + name);
}

Result<std::vector<Counter>> Nldev::port_counters(const Device& dev, uint32_t port) {
    Result<std::vector<Counter>> out = std::vector<Counter>{};
    Message msg = Message::nldev(RDMA_NLDEV_CMD_STAT_GET, 0);
    msg.put_u32(RDMA_NLDEV_ATTR_DEV_INDEX, dev.dev_index).put_u32(RDMA_NLDEV_ATTR_PORT_INDEX, port);
    Status st =
        sk_.transact(msg, "read counters of " + dev.dev_name + " port " + std::to_string(port),
                     [&](const nlmsghdr* nlh) -> Status {
                         out = parse_hwcounters(nlh);
                         if (!out)
                             return out.error();
                         return ok_status();
                     });
    if (!st)
        return st.error();
    return out;
}

} // namespace libctl
