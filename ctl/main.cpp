// SPDX-License-Identifier: GPL-2.0
#include "cli.h"

#include <iostream>

int main(int argc, char** argv) {
    return rdmactl::run(argc, argv, std::cout, std::cerr);
}
