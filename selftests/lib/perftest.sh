# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Reading perftest's results (ib_*_bw, ib_*_lat), for the bench scripts.

# perftest_value LOG SIZE COLUMN: the COLUMN-th field of the result line
# for message size SIZE (the line after the "#bytes" header that starts
# with SIZE): 4 is BW average (MB/s), 5 MsgRate (Mpps) in a bandwidth
# test, t_typical (usec) in a latency test.  Fails unless it is a number
# above 0: perftest prints "inf" or "0.00" when its own timing went wrong
# (seen under TCG: rdma_rxe's ib_write_lat gave "inf" everywhere, and
# vrnic's ib_send_bw -D 8 "0.00" after 5,635 messages), and such a value
# is no sample of the driver.
perftest_value() {
	awk -v size="$2" -v col="$3" '
		/#bytes/ { hdr = 1; next }
		hdr && $1 == size { v = $col }
		END {
			if (v ~ /^[0-9]+(\.[0-9]+)?$/ && v + 0 > 0) print v
			else exit 1
		}' "$1"
}
