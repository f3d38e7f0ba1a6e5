/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vrnic_harness.h - kselftest_harness.h with timeouts that suit the test VM.
 *
 * The harness kills a test case after TEST_TIMEOUT_DEFAULT (30 s) seconds.
 * Under TCG on a busy build machine a data-path case can take longer, so
 * include this file instead of kselftest_harness.h: cases then get
 * VRNIC_TEST_TIMEOUT seconds (120 unless defined before the include).
 * TEST_F_TIMEOUT() still sets a per-case value.
 */
#ifndef VRNIC_HARNESS_H
#define VRNIC_HARNESS_H

#include "kselftest_harness.h"

#ifndef VRNIC_TEST_TIMEOUT
#define VRNIC_TEST_TIMEOUT 120
#endif

/* The harness expands this at each TEST()/TEST_F(), after this point. */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT VRNIC_TEST_TIMEOUT

#endif /* VRNIC_HARNESS_H */
