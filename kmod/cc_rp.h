/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vrnic: DCQCN reaction point (RP) of one QP, as pure integer code.
 *
 * The ConnectX flavour of DCQCN (Zhu et al., SIGCOMM 2015) as HPCC's ns-3
 * port codes it (UpdateAlphaMlx, CheckRateDecreaseMlx,
 * RateIncEventTimerMlx), plus the ConnectX knobs vrnic has: byte counter,
 * both target-rate clamp flags, rpg_gd, rpg_min_dec_fac, minimum and
 * maximum rate, rate on the first CNP and release of the limiter at the
 * maximum rate.  The reference model is ../shared/cc/dcqcn_oracle.py
 * (class VrnicRP); docs/cc.md describes the state machine and its units.
 *
 * There are no timers: the alpha (every K), decrease (every P) and
 * increase (every T after a cut) ticks form logical series that are
 * evaluated lazily whenever an event arrives (a CNP, a transmit, a query),
 * so the state is a pure function of the inputs (CNP times, bytes sent)
 * and a trace of it can be replayed through the oracle exactly.
 *
 * This file and cc_rp.c build into vrnic.ko and, unchanged, into a host
 * unit test (kmod/tests/), so they use only linux/types.h, linux/math64.h,
 * linux/minmax.h and linux/limits.h, for which the test has a host shim.
 *
 * Locking: none inside.  The caller serialises all calls on one struct
 * vrnic_rp (the QP's sq_lock, kmod/cc.c) and passes times that it read
 * under that lock; a time older than the last one seen is treated as that
 * time.
 * Nothing here sleeps or allocates.
 */
#ifndef VRNIC_CC_RP_H
#define VRNIC_CC_RP_H

#include <linux/types.h>

struct vrnic_dcqcn;

/* 1.0 in the Q31 fixed point of alpha: 2^31. */
#define VRNIC_RP_ALPHA_ONE		0x80000000U

/**
 * struct vrnic_rp_params - RP parameters in the units the code uses
 * @max_rate: Max, bit/s: rpg_max_rate, or the link speed; > 0
 * @min_rate: rpg_min_rate, bit/s, <= @max_rate
 * @first_rate: rate_to_set_on_first_cnp, bit/s, 0 = keep the current rate;
 *	else within [@min_rate, @max_rate]
 * @ai_rate: additive increase R_AI, bit/s, > 0
 * @hai_rate: hyper increase R_HAI, bit/s
 * @time_reset: increase timer T, ns, > 0
 * @alpha_period: alpha update period K, ns, > 0
 * @dec_period: rate_reduce_monitor_period P, ns, > 0
 * @byte_reset: byte counter B, bytes, 0 = off
 * @threshold: fast-recovery steps F
 * @g: dce_tcp_g, weight of the new sample in 1/1024, <= 1024
 * @gd: rpg_gd in ConnectX's encoding: a cut is at most
 *	Rc * alpha / 2^(@gd - 10) (alpha real, 11 = alpha / 2)
 * @min_dec_fac: rpg_min_dec_fac, percent of Rc one cut leaves, <= 100
 * @initial_alpha: initial_alpha_value, 1/1024, <= 1024
 * @clamp_tgt_rate: a cut always sets Rt = Rc first
 * @clamp_tgt_rate_after_time_inc: a cut sets Rt = Rc if the increase timer
 *	fired since the previous cut
 *
 * vrnic_rp_params_from_dcqcn() establishes the constraints given; the
 * loop bounds of cc_rp.c rely on them.
 */
struct vrnic_rp_params {
	u64 max_rate;
	u64 min_rate;
	u64 first_rate;
	u64 ai_rate;
	u64 hai_rate;
	u64 time_reset;
	u64 alpha_period;
	u64 dec_period;
	u32 byte_reset;
	u32 threshold;
	u32 g;
	u32 gd;
	u32 min_dec_fac;
	u32 initial_alpha;
	bool clamp_tgt_rate;
	bool clamp_tgt_rate_after_time_inc;
};

/**
 * struct vrnic_rp - DCQCN reaction-point state of one QP
 * @rc: current rate Rc, bit/s (the pacing rate while @active)
 * @rt: target rate Rt, bit/s
 * @t_alpha: time of the next alpha tick, ns
 * @t_dec: time of the next decrease tick, ns
 * @t_inc: time of the next increase-timer tick, ns (if @inc_armed)
 * @now: latest time seen, ns; earlier times are clamped to it
 * @bytes: bytes sent since the last byte-counter increase or cut
 * @alpha: alpha, Q31 (VRNIC_RP_ALPHA_ONE = 1.0)
 * @ts: timer stage: increase-timer ticks since the last cut
 * @bs: byte stage: byte-counter increases since the last cut
 * @active: the limiter is engaged; false: unpaced, no ticks
 * @cnp_a: a CNP arrived since the last alpha tick
 * @cnp_d: a CNP arrived since the last cut
 * @inc_armed: a cut happened since activation: increases run
 * @cnp_handled: CNPs handled (rp_cnp_handled)
 * @decreases: rate cuts
 * @increases: rate increases (timer and byte counter)
 * @releases: times the limiter was released at the maximum rate
 */
struct vrnic_rp {
	u64 rc;
	u64 rt;
	u64 t_alpha;
	u64 t_dec;
	u64 t_inc;
	u64 now;
	u64 bytes;
	u32 alpha;
	u32 ts;
	u32 bs;
	bool active;
	bool cnp_a;
	bool cnp_d;
	bool inc_armed;
	u64 cnp_handled;
	u64 decreases;
	u64 increases;
	u64 releases;
};

/*
 * Events of the state trace, with the oracle's names
 * (vrnic_rp_event_names[]).  An increase event is its kind plus its phase:
 * VRNIC_RP_EV_INC_FR + VRNIC_RP_PHASE_AI is VRNIC_RP_EV_INC_AI.
 */
enum vrnic_rp_event {
	VRNIC_RP_EV_CNP_FIRST,
	VRNIC_RP_EV_CNP,
	VRNIC_RP_EV_DEC,
	VRNIC_RP_EV_INC_FR,
	VRNIC_RP_EV_INC_AI,
	VRNIC_RP_EV_INC_HAI,
	VRNIC_RP_EV_BYTE_FR,
	VRNIC_RP_EV_BYTE_AI,
	VRNIC_RP_EV_BYTE_HAI,
	VRNIC_RP_EV_RELEASE,
	VRNIC_RP_NUM_EVENTS
};

/* Increase phases: fast recovery, additive, hyper. */
enum vrnic_rp_phase {
	VRNIC_RP_PHASE_FR,
	VRNIC_RP_PHASE_AI,
	VRNIC_RP_PHASE_HAI,
};

extern const char *const vrnic_rp_event_names[VRNIC_RP_NUM_EVENTS];

/**
 * struct vrnic_rp_trace - the state after one RP event
 * @t: logical time of the event, ns (a tick's own time, not the caller's)
 * @event: enum vrnic_rp_event
 * @rc: Rc after the event, bit/s
 * @rt: Rt after the event, bit/s
 * @alpha: alpha, Q31
 * @ts: timer stage
 * @bs: byte stage
 *
 * The fields and their order are those of the oracle's "out" lines.
 */
struct vrnic_rp_trace {
	u64 t;
	u32 event;
	u64 rc;
	u64 rt;
	u32 alpha;
	u32 ts;
	u32 bs;
};

/**
 * struct vrnic_rp_tracer - receives every RP event (a tracepoint later)
 * @emit: called with the state after each event, under the caller's lock
 * @ctx: passed to @emit
 */
struct vrnic_rp_tracer {
	void (*emit)(void *ctx, const struct vrnic_rp_trace *tr);
	void *ctx;
};

void vrnic_rp_params_from_dcqcn(struct vrnic_rp_params *p,
				const struct vrnic_dcqcn *d, u32 link_mbps);
void vrnic_rp_init(struct vrnic_rp *rp, const struct vrnic_rp_params *p);
void vrnic_rp_advance(struct vrnic_rp *rp, const struct vrnic_rp_params *p,
		      u64 t, const struct vrnic_rp_tracer *tr);
void vrnic_rp_cnp(struct vrnic_rp *rp, const struct vrnic_rp_params *p,
		  u64 t, const struct vrnic_rp_tracer *tr);
void vrnic_rp_sent(struct vrnic_rp *rp, const struct vrnic_rp_params *p,
		   u64 t, u32 nbytes, const struct vrnic_rp_tracer *tr);
void vrnic_rp_params_changed(struct vrnic_rp *rp,
			     const struct vrnic_rp_params *p,
			     const struct vrnic_rp_tracer *tr);
u64 vrnic_rp_next_deadline(const struct vrnic_rp *rp);

#endif /* VRNIC_CC_RP_H */
