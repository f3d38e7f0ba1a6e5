// SPDX-License-Identifier: GPL-2.0
// Value-or-error results for libctl: every call returns either its value
// (which may legitimately be empty) or an Error; libctl never prints and
// never exits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace libctl {

/// Why an operation failed: a positive errno plus a human-readable reason.
/// When the kernel attached an extended ACK, its message is kept separately
/// so callers can show it verbatim, and its machine-readable parts (the
/// attribute blamed, the policy it broke, a missing attribute) beside it.
struct Error {
    int err = 0;                  ///< positive errno value (EINVAL, ENODEV, ...)
    std::string context;          ///< what we were doing ("get device vrnic0")
    std::string extack;           ///< kernel extack text, empty when none was sent
    int bad_attr = -1;            ///< attribute type the kernel blamed, -1 if unknown
    uint32_t bad_attr_offset = 0; ///< its offset in the request (NLMSGERR_ATTR_OFFS), 0 if none
    int miss_type = -1;           ///< NLMSGERR_ATTR_MISS_TYPE: a required attribute absent
    /// The range of the policy the blamed attribute broke
    /// (NLMSGERR_ATTR_POLICY: NL_POLICY_TYPE_ATTR_MIN/MAX_VALUE_U).
    std::optional<uint64_t> range_min, range_max;
    /// The blamed attribute as the user names it ("rpg_gd"); set by the
    /// client that built the request, empty when unknown.
    std::string attr_name;

    /// "context: [attr_name: ]reason" (attr_name unless the reason starts
    /// with it), the reason being "value out of
    /// range MIN..MAX" for a policy range, otherwise the kernel's message,
    /// otherwise the missing attribute or strerror(err).
    std::string message() const;
};

/// Makes an Error from a positive errno and a context string.
Error make_error(int err, std::string context);

/// Either a T or an Error.  "Empty" (a T that is an empty container or an
/// unset optional) is a success and is distinct from failure.
template <typename T> class Result {
public:
    Result(T value) : v_(std::move(value)) {}
    Result(Error error) : v_(std::move(error)) {}

    bool ok() const { return v_.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value() & { return std::get<0>(v_); }
    const T& value() const& { return std::get<0>(v_); }
    T&& value() && { return std::get<0>(std::move(v_)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

    const Error& error() const { return std::get<1>(v_); }

private:
    std::variant<T, Error> v_;
};

/// Result of an operation that yields nothing but success.
using Status = Result<std::monostate>;
inline Status ok_status() {
    return Status(std::monostate{});
}

} // namespace libctl
