// SPDX-License-Identifier: GPL-2.0
// RDMA netlink (nldev): devices, ports, links and port counters of any RDMA
// device (vrnic, rdma_rxe, hardware).
#pragma once

#include <libctl/netlink.h>
#include <libctl/result.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace libctl {

/// One port as RDMA_NLDEV_CMD_PORT_GET reports it.
struct Port {
    uint32_t port_index = 0;
    std::optional<uint8_t> port_state;      ///< enum ib_port_state
    std::optional<uint8_t> port_phys_state; ///< IBA physical port state
    std::optional<uint32_t> ndev_index;     ///< bound netdev, same netns only
    std::optional<std::string> ndev_name;
};

/// One RDMA device as RDMA_NLDEV_CMD_GET reports it, plus its ports.
struct Device {
    uint32_t dev_index = 0;
    std::string dev_name;
    std::optional<uint8_t> dev_node_type; ///< enum rdma_node_type
    std::optional<std::string> dev_protocol;
    std::optional<std::string> fw_version;
    std::optional<uint64_t> node_guid;
    std::optional<uint64_t> sys_image_guid;
    uint32_t num_ports = 0; ///< RDMA_NLDEV_ATTR_PORT_INDEX of the GET reply
    std::vector<Port> ports;
    /// enum rdma_driver_id from the uverbs chardev (GET_CHARDEV "uverbs");
    /// absent when ib_uverbs is not loaded or the device has no uverbs.
    std::optional<uint32_t> uverbs_driver_id;
};

/// A named counter value.
struct Counter {
    std::string name;
    uint64_t value = 0;
};

/// Names for the enums nldev reports as numbers.
std::string node_type_name(uint8_t type);
std::string port_state_name(uint8_t state);
std::string port_phys_state_name(uint8_t state);
/// Short driver name for an enum rdma_driver_id ("rxe", "mlx5", ...).
std::string driver_id_name(uint32_t id);

/// Parses one RDMA_NLDEV_CMD_GET reply (without ports).
Result<Device> parse_device(const nlmsghdr* nlh);
/// Parses one RDMA_NLDEV_CMD_PORT_GET reply.
Result<Port> parse_port(const nlmsghdr* nlh);
/// Parses the hw counter table of an RDMA_NLDEV_CMD_STAT_GET reply.
Result<std::vector<Counter>> parse_hwcounters(const nlmsghdr* nlh);

/// A client of the nldev interface over its own socket.
class Nldev {
public:
    static Result<Nldev> open();

    /// Every RDMA device with its ports.  An empty list is not an error.
    Result<std::vector<Device>> devices();
    /// One device by name; ENODEV ("device X not found") when absent.
    Result<Device> device(const std::string& name);
    /// Creates a soft RDMA device NAME of link type TYPE over NETDEV.
    Status link_add(const std::string& name, const std::string& type, const std::string& netdev);
    /// Removes a soft RDMA device.
    Status link_del(const std::string& name);
    /// Port counters (the driver's hw stats) of DEV port PORT.
    Result<std::vector<Counter>> port_counters(const Device& dev, uint32_t port);

private:
    explicit Nldev(Socket sk) : sk_(std::move(sk)) {}
    Result<std::vector<Port>> ports(uint32_t dev_index);
    std::optional<uint32_t> uverbs_driver_id(uint32_t dev_index);
    Socket sk_;
};

} // namespace libctl
