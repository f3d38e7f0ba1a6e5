// SPDX-License-Identifier: GPL-2.0
// An owned file descriptor for libctl and rdmactl: closed when it goes out
// of scope, never copied.
#pragma once

#include <unistd.h>

namespace libctl {

class Fd {
public:
    explicit Fd(int fd) : fd_(fd) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() {
        if (fd_ >= 0)
            ::close(fd_);
    }
    /// The descriptor, or a negative value if the open failed.
    int get() const { return fd_; }

private:
    int fd_;
};

} // namespace libctl
