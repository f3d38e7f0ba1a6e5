/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vrnic tracepoints.
 *
 * vrnic:vrnic_cc_rate - every event of a QP's DCQCN reaction point
 * (cc_rp.c): a CNP, a rate cut, an increase, the release of the limiter.
 * The fields are those of the oracle's "out" lines (struct
 * vrnic_rp_trace), so a trace replays through
 * ../shared/cc/dcqcn_oracle.py; selftests/lib/cc_trace.py turns one into
 * replay files and a rate-versus-time plot per QP.  Enable with
 *   echo 1 > /sys/kernel/tracing/events/vrnic/vrnic_cc_rate/enable
 *
 * Every event of the three carries seq, the QP's event counter: a QP's
 * events can come from two CPUs (the requester, the responder, a CNP's
 * softirq), whose trace buffers are merged by clocks that need not agree;
 * seq gives the order in which the QP's state saw them.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM vrnic

#if !defined(VRNIC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define VRNIC_TRACE_H

#include <linux/tracepoint.h>

#include "cc_rp.h"
#include "config.h"

TRACE_EVENT(vrnic_cc_rate,
	    TP_PROTO(const char *dev, u32 qpn, u64 seq,
		     const struct vrnic_rp_trace *tr),
	    TP_ARGS(dev, qpn, seq, tr),
	    TP_STRUCT__entry(__string(dev, dev)
			     __field(u32, qpn)
			     __field(u64, seq)
			     __field(u64, t)
			     __field(u32, event)
			     __field(u64, rc)
			     __field(u64, rt)
			     __field(u32, alpha)
			     __field(u32, ts)
			     __field(u32, bs)),
	    TP_fast_assign(__assign_str(dev, dev);
			   __entry->qpn = qpn;
			   __entry->seq = seq;
			   __entry->t = tr->t;
			   __entry->event = tr->event;
			   __entry->rc = tr->rc;
			   __entry->rt = tr->rt;
			   __entry->alpha = tr->alpha;
			   __entry->ts = tr->ts;
			   __entry->bs = tr->bs;),
	    TP_printk("dev=%s qpn=%u seq=%llu t=%llu event=%s rc=%llu rt=%llu alpha=%u ts=%u bs=%u",
		      __get_str(dev), __entry->qpn, __entry->seq, __entry->t,
		      __entry->event < VRNIC_RP_NUM_EVENTS ?
		      vrnic_rp_event_names[__entry->event] : "?",
		      __entry->rc, __entry->rt, __entry->alpha, __entry->ts,
		      __entry->bs)
);

/*
 * vrnic:vrnic_cc_input - an input of a QP's reaction point: a CNP, or
 * NBYTES sent while the byte counter runs, at the time the RP used (after
 * its monotonic clamp).  With vrnic_cc_params and vrnic_cc_rate it makes
 * the oracle's replay format (selftests/lib/cc_trace.py).
 */
TRACE_EVENT(vrnic_cc_input,
	    TP_PROTO(const char *dev, u32 qpn, u64 seq, u64 t, bool cnp,
		     u32 nbytes),
	    TP_ARGS(dev, qpn, seq, t, cnp, nbytes),
	    TP_STRUCT__entry(__string(dev, dev)
			     __field(u32, qpn)
			     __field(u64, seq)
			     __field(u64, t)
			     __field(bool, cnp)
			     __field(u32, nbytes)),
	    TP_fast_assign(__assign_str(dev, dev);
			   __entry->qpn = qpn;
			   __entry->seq = seq;
			   __entry->t = t;
			   __entry->cnp = cnp;
			   __entry->nbytes = nbytes;),
	    TP_printk("dev=%s qpn=%u seq=%llu t=%llu input=%s bytes=%u",
		      __get_str(dev), __entry->qpn, __entry->seq, __entry->t,
		      __entry->cnp ? "cnp" : "sent", __entry->nbytes)
);

/*
 * vrnic:vrnic_cc_params - the DCQCN settings a QP's reaction point starts
 * from (QP creation, RESET) or changes to, in netlink units, with the
 * speed it takes for Max when rpg_max_rate is 0.
 */
TRACE_EVENT(vrnic_cc_params,
	    TP_PROTO(const char *dev, u32 qpn, u64 seq, u64 t,
		     const struct vrnic_dcqcn *d, u32 line_mbps,
		     const struct vrnic_rp_params *p),
	    TP_ARGS(dev, qpn, seq, t, d, line_mbps, p),
	    TP_STRUCT__entry(__string(dev, dev)
			     __field(u32, qpn)
			     __field(u64, seq)
			     __field(u64, t)
			     __field(u32, line_mbps)
			     __field(u32, time_reset)
			     __field(u32, byte_reset)
			     __field(u32, threshold)
			     __field(u32, max_rate)
			     __field(u32, ai_rate)
			     __field(u32, hai_rate)
			     __field(u32, gd)
			     __field(u32, min_dec_fac)
			     __field(u32, min_rate)
			     __field(u32, first_rate)
			     __field(u32, g)
			     __field(u32, rtt)
			     __field(u32, monitor)
			     __field(u32, alpha)
			     __field(bool, clamp)
			     __field(bool, clamp_after)),
	    TP_fast_assign(__assign_str(dev, dev);
			   __entry->qpn = qpn;
			   __entry->seq = seq;
			   __entry->t = t;
			   __entry->line_mbps = line_mbps;
			   __entry->time_reset = d->rpg_time_reset;
			   __entry->byte_reset = d->rpg_byte_reset;
			   __entry->threshold = d->rpg_threshold;
			   __entry->max_rate = d->rpg_max_rate;
			   __entry->ai_rate = d->rpg_ai_rate;
			   __entry->hai_rate = d->rpg_hai_rate;
			   __entry->gd = d->rpg_gd;
			   __entry->min_dec_fac = d->rpg_min_dec_fac;
			   __entry->min_rate = d->rpg_min_rate;
			   __entry->first_rate = d->rate_to_set_on_first_cnp;
			   __entry->g = d->dce_tcp_g;
			   __entry->rtt = d->dce_tcp_rtt;
			   __entry->monitor = d->rate_reduce_monitor_period;
			   __entry->alpha = d->initial_alpha_value;
			   __entry->clamp = p->clamp_tgt_rate;
			   __entry->clamp_after =
				p->clamp_tgt_rate_after_time_inc;),
	    TP_printk("dev=%s qpn=%u seq=%llu t=%llu line_mbps=%u rpg_time_reset=%u rpg_byte_reset=%u rpg_threshold=%u rpg_max_rate=%u rpg_ai_rate=%u rpg_hai_rate=%u rpg_gd=%u rpg_min_dec_fac=%u rpg_min_rate=%u rate_to_set_on_first_cnp=%u dce_tcp_g=%u dce_tcp_rtt=%u rate_reduce_monitor_period=%u initial_alpha_value=%u clamp_tgt_rate=%d clamp_tgt_rate_after_time_inc=%d",
		      __get_str(dev), __entry->qpn, __entry->seq, __entry->t,
		      __entry->line_mbps, __entry->time_reset,
		      __entry->byte_reset, __entry->threshold,
		      __entry->max_rate, __entry->ai_rate, __entry->hai_rate,
		      __entry->gd, __entry->min_dec_fac, __entry->min_rate,
		      __entry->first_rate, __entry->g, __entry->rtt,
		      __entry->monitor, __entry->alpha, __entry->clamp,
		      __entry->clamp_after)
);

/*
 * vrnic:vrnic_pfc_frame - what a received PFC or PAUSE frame did to one
 * priority of a device (pfc.c): paused it for PAUSE_NS (the quanta at the
 * link's speed, cut short by the storm guard when STORM is set), resumed
 * it (XON: pause_ns 0), or nothing, because the storm guard ignores the
 * priority's frames for now (IGNORED).
 */
TRACE_EVENT(vrnic_pfc_frame,
	    TP_PROTO(const char *dev, u8 prio, u16 quanta, u64 pause_ns,
		     bool storm, bool ignored),
	    TP_ARGS(dev, prio, quanta, pause_ns, storm, ignored),
	    TP_STRUCT__entry(__string(dev, dev)
			     __field(u8, prio)
			     __field(u16, quanta)
			     __field(u64, pause_ns)
			     __field(bool, storm)
			     __field(bool, ignored)),
	    TP_fast_assign(__assign_str(dev, dev);
			   __entry->prio = prio;
			   __entry->quanta = quanta;
			   __entry->pause_ns = pause_ns;
			   __entry->storm = storm;
			   __entry->ignored = ignored;),
	    TP_printk("dev=%s prio=%u quanta=%u pause_ns=%llu storm=%d ignored=%d",
		      __get_str(dev), __entry->prio, __entry->quanta,
		      __entry->pause_ns, __entry->storm, __entry->ignored)
);

/*
 * vrnic:vrnic_pfc_hold - a QP's sender found its priority paused (HELD)
 * or, after that, not paused any more: the stall a pause caused, as the
 * QP saw it, is the time between the two events.
 */
TRACE_EVENT(vrnic_pfc_hold,
	    TP_PROTO(const char *dev, u32 qpn, u8 prio, bool held),
	    TP_ARGS(dev, qpn, prio, held),
	    TP_STRUCT__entry(__string(dev, dev)
			     __field(u32, qpn)
			     __field(u8, prio)
			     __field(bool, held)),
	    TP_fast_assign(__assign_str(dev, dev);
			   __entry->qpn = qpn;
			   __entry->prio = prio;
			   __entry->held = held;),
	    TP_printk("dev=%s qpn=%u prio=%u held=%d", __get_str(dev),
		      __entry->qpn, __entry->prio, __entry->held)
);

#endif /* VRNIC_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
