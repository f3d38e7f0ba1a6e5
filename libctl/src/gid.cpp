// SPDX-License-Identifier: GPL-2.0
#include <libctl/gid.h>

#include <libctl/fd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <memory>
#include <utility>

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace libctl {

namespace {

using RawGid = std::array<uint8_t, 16>;

struct DirCloser {
    void operator()(DIR* d) const { ::closedir(d); }
};
using DirPtr = std::unique_ptr<DIR, DirCloser>;

// An entry, port or device removed while we read it: sysfs files of a GID
// slot emptied meanwhile fail with EINVAL, those of a device gone with
// ENOENT.
bool vanished(const Error& e) {
    return e.err == ENOENT || e.err == EINVAL;
}

// One sysfs attribute, without its trailing newline.
Result<std::string> read_attr(const std::string& path) {
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0)
        return make_error(errno, "read " + path);
    std::string text;
    char buf[256];
    for (;;) {
        ssize_t n = ::read(fd.get(), buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return make_error(errno, "read " + path);
        if (n == 0)
            break;
        text.append(buf, static_cast<size_t>(n));
    }
    while (!text.empty() && text.back() == '\n')
        text.pop_back();
    return text;
}

Result<std::vector<std::string>> list_dir(const std::string& path) {
    DirPtr d(::opendir(path.c_str()));
    if (!d)
        return make_error(errno, "list " + path);
    std::vector<std::string> names;
    for (;;) {
        errno = 0;
        const dirent* e = ::readdir(d.get());
        if (!e)
            break;
        std::string name = e->d_name;
        if (name != "." && name != "..")
            names.push_back(std::move(name));
    }
    if (errno)
        return make_error(errno, "list " + path);
    return names;
}

// A decimal number, as sysfs names ports and GID indexes and prints an
// ifindex.
std::optional<uint32_t> parse_u32(const std::string& text) {
    if (text.empty() || text.size() > 10)
        return std::nullopt;
    uint64_t v = 0;
    for (char c : text) {
        if (c < '0' || c > '9')
            return std::nullopt;
        v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    if (v > UINT32_MAX)
        return std::nullopt;
    return static_cast<uint32_t>(v);
}

// The entries of a directory whose names are numbers, in numeric order.
std::vector<uint32_t> numbered(const std::vector<std::string>& names) {
    std::vector<uint32_t> out;
    for (const auto& n : names)
        if (auto v = parse_u32(n))
            out.push_back(*v);
    std::sort(out.begin(), out.end());
    return out;
}

// A name usable as one path component (a device or netdev name).
bool plain_name(const std::string& name) {
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos;
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// sysfs prints a GID as eight colon-separated groups of four hex digits.
std::optional<RawGid> parse_gid_text(const std::string& text) {
    if (text.size() != 8 * 5 - 1)
        return std::nullopt;
    RawGid raw{};
    for (size_t g = 0; g < 8; g++) {
        unsigned v = 0;
        for (size_t k = 0; k < 4; k++) {
            int d = hex_digit(text[g * 5 + k]);
            if (d < 0)
                return std::nullopt;
            v = v << 4 | static_cast<unsigned>(d);
        }
        if (g < 7 && text[g * 5 + 4] != ':')
            return std::nullopt;
        raw[2 * g] = static_cast<uint8_t>(v >> 8);
        raw[2 * g + 1] = static_cast<uint8_t>(v & 0xff);
    }
    return raw;
}

Error bad_content(const std::string& path, const std::string& what) {
    Error e = make_error(EPROTO, "read " + path);
    e.extack = what;
    return e;
}

// The address a RoCE GID stands for (ib_core builds RoCE GIDs from the
// netdev's addresses, IPv4 ones mapped into ::ffff:0:0/96).
void set_address(Gid& g, const RawGid& raw) {
    static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    char buf[INET6_ADDRSTRLEN];
    if (std::equal(std::begin(v4mapped), std::end(v4mapped), raw.begin())) {
        if (inet_ntop(AF_INET, raw.data() + 12, buf, sizeof(buf)))
            g.ipv4 = buf;
    } else if (inet_ntop(AF_INET6, raw.data(), buf, sizeof(buf))) {
        g.ipv6 = buf;
    }
}

// No entry when @p e says it vanished, else the error.
Result<std::optional<Gid>> unless_vanished(const Error& e) {
    if (vanished(e))
        return std::optional<Gid>();
    return e;
}

class PortReader {
public:
    PortReader(std::string sysfs, std::string dev, uint32_t port)
        : sysfs_(std::move(sysfs)), dev_(std::move(dev)), port_(port),
          dir_(sysfs_ + "/class/infiniband/" + dev_ + "/ports/" + std::to_string(port)) {}

    // Appends the port's valid entries to @p out.
    Status read(std::vector<Gid>& out) {
        auto names = list_dir(dir_ + "/gids");
        if (!names) {
            if (vanished(names.error()))
                return ok_status();
            return names.error();
        }
        for (uint32_t index : numbered(*names)) {
            auto g = entry(index);
            if (!g)
                return g.error();
            if (*g)
                out.push_back(std::move(**g));
        }
        return ok_status();
    }

private:
    // The entry at @p index; unset for an empty or vanished slot.
    Result<std::optional<Gid>> entry(uint32_t index) {
        const std::string i = std::to_string(index);
        const std::string gid_path = dir_ + "/gids/" + i;
        auto text = read_attr(gid_path);
        if (!text)
            return unless_vanished(text.error());
        auto raw = parse_gid_text(*text);
        if (!raw)
            return bad_content(gid_path, "not a GID: \"" + *text + "\"");
        if (std::all_of(raw->begin(), raw->end(), [](uint8_t b) { return b == 0; }))
            return std::optional<Gid>();

        Gid g;
        g.dev_name = dev_;
        g.port = port_;
        g.index = index;
        g.gid = *text;
        // An emptied slot's attributes fail to read: the entry is gone.
        auto type = read_attr(dir_ + "/gid_attrs/types/" + i);
        if (!type)
            return unless_vanished(type.error());
        if (*type == "RoCE v2") {
            g.type = GidType::roce_v2;
        } else if (*type == "IB/RoCE v1") {
            auto ll = link_layer();
            if (!ll)
                return ll.error();
            g.type = *ll == "Ethernet" ? GidType::roce_v1 : GidType::ib;
        } else {
            return bad_content(dir_ + "/gid_attrs/types/" + i,
                               "unknown GID type \"" + *type + "\"");
        }
        // No netdev (an IB port) reads as EINVAL.
        auto ndev = read_attr(dir_ + "/gid_attrs/ndevs/" + i);
        if (ndev) {
            g.ndev_name = *ndev;
            auto ifindex = netdev_ifindex(*ndev);
            if (!ifindex)
                return ifindex.error();
            g.ndev_ifindex = *ifindex;
        } else if (!vanished(ndev.error())) {
            return ndev.error();
        }
        if (g.type != GidType::ib)
            set_address(g, *raw);
        return std::optional<Gid>(std::move(g));
    }

    Result<std::string> link_layer() {
        if (!link_layer_)
            link_layer_ = read_attr(dir_ + "/link_layer");
        return *link_layer_;
    }

    // The ifindex of netdev @p name when this sysfs shows it.
    Result<std::optional<uint32_t>> netdev_ifindex(const std::string& name) {
        if (!plain_name(name))
            return std::optional<uint32_t>();
        const std::string path = sysfs_ + "/class/net/" + name + "/ifindex";
        auto text = read_attr(path);
        if (!text) {
            if (text.error().err == ENOENT) // in another network namespace
                return std::optional<uint32_t>();
            return text.error();
        }
        auto ifindex = parse_u32(*text);
        if (!ifindex)
            return bad_content(path, "not an ifindex: \"" + *text + "\"");
        return ifindex;
    }

    const std::string sysfs_;
    const std::string dev_;
    const uint32_t port_;
    const std::string dir_;
    std::optional<Result<std::string>> link_layer_;
};

Error no_device(const std::string& dev) {
    return make_error(ENODEV, "RDMA device " + dev + " not found");
}

} // namespace

std::string gid_type_name(GidType type) {
    switch (type) {
    case GidType::ib:
        return "IB";
    case GidType::roce_v1:
        return "RoCE v1";
    case GidType::roce_v2:
        return "RoCE v2";
    }
    return "unknown";
}

Result<std::vector<Gid>> read_gids(const std::optional<std::string>& dev,
                                   const std::string& sysfs) {
    const std::string cls = sysfs + "/class/infiniband";
    std::vector<std::string> devs;
    if (dev) {
        struct stat st;
        if (!plain_name(*dev) || ::stat((cls + "/" + *dev).c_str(), &st) != 0)
            return no_device(*dev);
        devs.push_back(*dev);
    } else {
        auto names = list_dir(cls);
        // Without ib_core there is no class, and no device: not an error.
        if (!names) {
            if (names.error().err == ENOENT)
                return std::vector<Gid>();
            return names.error();
        }
        devs = std::move(names).value();
        std::sort(devs.begin(), devs.end());
    }

    std::vector<Gid> out;
    for (const auto& d : devs) {
        auto ports = list_dir(cls + "/" + d + "/ports");
        if (!ports) {
            if (!vanished(ports.error()))
                return ports.error();
            if (dev)
                return no_device(*dev);
            continue; // unregistered while we listed the others
        }
        for (uint32_t p : numbered(*ports)) {
            Status st = PortReader(sysfs, d, p).read(out);
            if (!st)
                return st.error();
        }
    }
    return out;
}

} // namespace libctl
