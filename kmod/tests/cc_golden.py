#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print the golden traces of dcqcn_oracle.py for seeds FIRST..FIRST+N-1,
each preceded by a line "# seed S", in one process (starting Python once
per seed is slow on a loaded machine).  Usage: cc_golden.py ORACLE FIRST N"""
import importlib.util
import sys


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__ + "\n")
        return 2
    spec = importlib.util.spec_from_file_location("dcqcn_oracle", argv[1])
    oracle = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(oracle)
    first, count = int(argv[2]), int(argv[3])
    for seed in range(first, first + count):
        print("# seed %d" % seed)
        oracle.golden(seed)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
