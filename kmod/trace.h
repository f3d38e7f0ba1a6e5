/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vrnic tracepoints.
 *
 * vrnic:vrnic_cc_rate - every event of a QP's DCQCN reaction point
 * (cc_rp.c): a CNP, a rate cut, an increase, the release of the limiter.
 * The fields are those of the oracle's "out" lines (struct
 * vrnic_rp_trace), so a trace replays through
 * ../shared/cc/dcqcn_oracle.py; selftests/lib/cc_plot.py turns one into a
 * rate-versus-time plot per QP.  Enable with
 *   echo 1 > /sys/kernel/tracing/events/vrnic/vrnic_cc_rate/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM vrnic

#if !defined(VRNIC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define VRNIC_TRACE_H

#include <linux/tracepoint.h>

#include "cc_rp.h"

TRACE_EVENT(vrnic_cc_rate,
	    TP_PROTO(const char *dev, u32 qpn, const struct vrnic_rp_trace *tr),
	    TP_ARGS(dev, qpn, tr),
	    TP_STRUCT__entry(__string(dev, dev)
			     __field(u32, qpn)
			     __field(u64, t)
			     __field(u32, event)
			     __field(u64, rc)
			     __field(u64, rt)
			     __field(u32, alpha)
			     __field(u32, ts)
			     __field(u32, bs)),
	    TP_fast_assign(__assign_str(dev, dev);
			   __entry->qpn = qpn;
			   __entry->t = tr->t;
			   __entry->event = tr->event;
			   __entry->rc = tr->rc;
			   __entry->rt = tr->rt;
			   __entry->alpha = tr->alpha;
			   __entry->ts = tr->ts;
			   __entry->bs = tr->bs;),
	    TP_printk("dev=%s qpn=%u t=%llu event=%s rc=%llu rt=%llu alpha=%u ts=%u bs=%u",
		      __get_str(dev), __entry->qpn, __entry->t,
		      __entry->event < VRNIC_RP_NUM_EVENTS ?
		      vrnic_rp_event_names[__entry->event] : "?",
		      __entry->rc, __entry->rt, __entry->alpha, __entry->ts,
		      __entry->bs)
);

#endif /* VRNIC_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
