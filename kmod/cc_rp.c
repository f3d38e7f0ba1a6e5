// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: DCQCN reaction point (see cc_rp.h and docs/cc.md).
 *
 * The code follows the reference model ../shared/cc/dcqcn_oracle.py
 * (VrnicRP) step for step; the host test kmod/tests/cc_rp_test.cpp replays
 * the model's golden traces through it and requires identical output.
 *
 * Loop bounds (the callers run in softirq under a spinlock):
 *  - alpha ticks change alpha only until it reaches its floor
 *    ((alpha * g) >> 10 == 0 with no CNP seen): with g >= 1 that takes at
 *    most about 1024 * ln(2^31) + 2048 ticks; from then on the whole run
 *    of idle alpha ticks up to the current time is skipped at once;
 *  - decrease ticks act only when a CNP arrived since the last cut, which
 *    cannot happen inside one catch-up, so all but one are skipped at once;
 *  - increases (timer or byte counter) raise Rt by at least R_AI > 0 from
 *    stage F on, and Rc = ceil((Rc + Rt) / 2) reaches Max within 64 steps
 *    of Rt reaching it, at which point the limiter is released and every
 *    tick stops: at most F + Max / R_AI + 65 increases per activation.
 */
#include <linux/types.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>

#include "cc_rp.h"
#include "config.h"

#define RP_MBPS		1000000ULL	/* bit/s per Mb/s */
#define RP_USEC		1000ULL		/* ns per microsecond */

const char *const vrnic_rp_event_names[VRNIC_RP_NUM_EVENTS] = {
	[VRNIC_RP_EV_CNP_FIRST]	= "cnp_first",
	[VRNIC_RP_EV_CNP]	= "cnp",
	[VRNIC_RP_EV_DEC]	= "dec",
	[VRNIC_RP_EV_INC_FR]	= "inc:fr",
	[VRNIC_RP_EV_INC_AI]	= "inc:ai",
	[VRNIC_RP_EV_INC_HAI]	= "inc:hai",
	[VRNIC_RP_EV_BYTE_FR]	= "byte:fr",
	[VRNIC_RP_EV_BYTE_AI]	= "byte:ai",
	[VRNIC_RP_EV_BYTE_HAI]	= "byte:hai",
	[VRNIC_RP_EV_RELEASE]	= "release",
};

/**
 * vrnic_rp_params_from_dcqcn - RP parameters from the device configuration
 * @p: filled in
 * @d: the DCQCN settings (units of uapi/vrnic.h enum vrnic_dcqcn_attr)
 * @link_mbps: speed of the bound netdev in Mb/s, 0 if unknown
 *
 * Max is rpg_max_rate, else the link speed, else (speed unknown) the
 * largest rate the API accepts.  Netlink validation already keeps every
 * value in its documented range; the clamps here only make the loop bounds
 * of this file hold whatever the caller passes.  rate_to_set_on_first_cnp
 * is clamped into [min, Max] (the oracle only applies Max: a first rate
 * below the floor would otherwise leave Rc under rpg_min_rate).
 */
void vrnic_rp_params_from_dcqcn(struct vrnic_rp_params *p,
				const struct vrnic_dcqcn *d, u32 link_mbps)
{
	u64 max_mbps = d->rpg_max_rate ?: link_mbps ?: VRNIC_DCQCN_RATE_MAX;

	p->max_rate = max_mbps * RP_MBPS;
	p->min_rate = min_t(u64, (u64)d->rpg_min_rate * RP_MBPS, p->max_rate);
	p->first_rate = 0;
	if (d->rate_to_set_on_first_cnp)
		p->first_rate = clamp_t(u64,
					(u64)d->rate_to_set_on_first_cnp *
					RP_MBPS, p->min_rate, p->max_rate);
	p->ai_rate = (u64)max_t(u32, d->rpg_ai_rate, 1) * RP_MBPS;
	p->hai_rate = (u64)d->rpg_hai_rate * RP_MBPS;
	p->time_reset = (u64)max_t(u32, d->rpg_time_reset, 1) * RP_USEC;
	p->alpha_period = (u64)max_t(u32, d->dce_tcp_rtt, 1) * RP_USEC;
	p->dec_period = (u64)max_t(u32, d->rate_reduce_monitor_period, 1) *
			RP_USEC;
	p->byte_reset = d->rpg_byte_reset;
	p->threshold = d->rpg_threshold;
	p->g = min_t(u32, d->dce_tcp_g, VRNIC_DCQCN_ONE);
	p->gd = d->rpg_gd;
	p->min_dec_fac = min_t(u32, d->rpg_min_dec_fac, 100);
	p->initial_alpha = min_t(u32, d->initial_alpha_value, VRNIC_DCQCN_ONE);
	p->clamp_tgt_rate = d->clamp_tgt_rate;
	p->clamp_tgt_rate_after_time_inc = d->clamp_tgt_rate_after_time_inc;
}

/**
 * vrnic_rp_init - a QP's RP at creation: released, Rc = Rt = Max
 * @rp: the state
 * @p: parameters
 */
void vrnic_rp_init(struct vrnic_rp *rp, const struct vrnic_rp_params *p)
{
	*rp = (struct vrnic_rp){ .rc = p->max_rate, .rt = p->max_rate };
}

static void rp_trace(const struct vrnic_rp *rp, u64 t, u32 event,
		     const struct vrnic_rp_tracer *tr)
{
	struct vrnic_rp_trace ev = {
		.t = t, .event = event, .rc = rp->rc, .rt = rp->rt,
		.alpha = rp->alpha, .ts = rp->ts, .bs = rp->bs,
	};

	if (tr && tr->emit)
		tr->emit(tr->ctx, &ev);
}

/* The first tick of the series @next + n * @period that lies after @t. */
static u64 rp_skip_past(u64 next, u64 period, u64 t)
{
	return next + (div64_u64(t - next, period) + 1) * period;
}

/*
 * One increase (timer or byte counter, @kind is its FR event).  The stages
 * are those before this event; with the byte counter off the byte stage
 * follows the timer stage, which makes the paper's min/max rule HPCC's
 * "stage < F: FR, = F: AI, > F: HAI".
 */
static void rp_increase(struct vrnic_rp *rp, const struct vrnic_rp_params *p,
			u64 x, u32 kind, const struct vrnic_rp_tracer *tr)
{
	u32 bs = p->byte_reset ? rp->bs : rp->ts;
	u32 phase = VRNIC_RP_PHASE_FR;

	if (min(rp->ts, bs) > p->threshold) {
		rp->rt += p->hai_rate;
		phase = VRNIC_RP_PHASE_HAI;
	} else if (max(rp->ts, bs) >= p->threshold) {
		rp->rt += p->ai_rate;
		phase = VRNIC_RP_PHASE_AI;
	}
	rp->rt = min(rp->rt, p->max_rate);
	rp->rc = (rp->rc + rp->rt + 1) >> 1;	/* ceil((Rc + Rt) / 2) */
	rp->increases++;
	rp_trace(rp, x, kind + phase, tr);
}

/*
 * Once Rc reaches Max the flow is no longer rate limited (ConnectX:
 * "once this limit is reached ... the flow is not rate limited any more"),
 * even when Max is below the line rate; the next CNP starts afresh.
 */
static void rp_maybe_release(struct vrnic_rp *rp,
			     const struct vrnic_rp_params *p, u64 x,
			     const struct vrnic_rp_tracer *tr)
{
	if (rp->rc < p->max_rate)
		return;
	rp->rc = p->max_rate;
	rp->rt = p->max_rate;
	rp->active = false;
	rp->releases++;
	rp_trace(rp, x, VRNIC_RP_EV_RELEASE, tr);
}

/* A decrease tick at @x that found a CNP since the last cut. */
static void rp_decrease(struct vrnic_rp *rp, const struct vrnic_rp_params *p,
			u64 x, const struct vrnic_rp_tracer *tr)
{
	u64 cut, keep;

	rp->cnp_d = false;
	if (p->clamp_tgt_rate || rp->bs > 0 ||
	    (p->clamp_tgt_rate_after_time_inc && rp->ts > 0))
		rp->rt = rp->rc;
	/*
	 * Rc * alpha_10bit / 2^gd = Rc * alpha / 2^(21 + gd) for the Q31
	 * alpha, floored, in two exact steps: the generic mul_u64_u32_shr()
	 * handles shifts up to 32 only.  Rc < 2^40 keeps the first step
	 * below 2^51.
	 */
	cut = mul_u64_u32_shr(rp->rc, rp->alpha, 21);
	cut = p->gd < 64 ? cut >> p->gd : 0;
	keep = div_u64(rp->rc * p->min_dec_fac, 100);
	cut = min(cut, rp->rc - keep);
	rp->rc = max(rp->rc - cut, p->min_rate);
	rp->ts = 0;
	rp->bs = 0;
	rp->bytes = 0;
	rp->t_inc = x + p->time_reset;
	rp->inc_armed = true;
	rp->decreases++;
	rp_trace(rp, x, VRNIC_RP_EV_DEC, tr);
}

/* An alpha tick at @x; @t is the time the catch-up runs to. */
static void rp_alpha_tick(struct vrnic_rp *rp, const struct vrnic_rp_params *p,
			  u64 x, u64 t)
{
	u64 a = rp->alpha;

	if (!rp->cnp_a && ((a * p->g) >> 10) == 0) {
		/*
		 * alpha is at its floor and only a CNP (never a tick) can
		 * move it: every alpha tick up to @t is a no-op.
		 */
		rp->t_alpha = rp_skip_past(x, p->alpha_period, t);
		return;
	}
	if (rp->cnp_a)
		a += ((VRNIC_RP_ALPHA_ONE - a) * p->g) >> 10;
	else
		a -= (a * p->g) >> 10;
	rp->alpha = a;
	rp->cnp_a = false;
	rp->t_alpha = x + p->alpha_period;
}

/**
 * vrnic_rp_advance - run every logical tick up to @t
 * @rp: the state
 * @p: parameters
 * @t: now, ns
 * @tr: tracer or NULL
 *
 * Ticks run in time order; ticks at the same time run alpha, increase,
 * decrease (the ns-3 order of HPCC: alpha and increase timers were
 * scheduled before the decrease check that shares their time).
 */
void vrnic_rp_advance(struct vrnic_rp *rp, const struct vrnic_rp_params *p,
		      u64 t, const struct vrnic_rp_tracer *tr)
{
	if (t < rp->now)
		t = rp->now;
	rp->now = t;

	while (rp->active) {
		u64 x = rp->t_alpha;

		if (rp->inc_armed && rp->t_inc < x)
			x = rp->t_inc;
		if (rp->t_dec < x)
			x = rp->t_dec;
		if (x > t)
			return;

		if (x == rp->t_alpha) {
			rp_alpha_tick(rp, p, x, t);
		} else if (rp->inc_armed && x == rp->t_inc) {
			rp->t_inc = x + p->time_reset;
			rp_increase(rp, p, x, VRNIC_RP_EV_INC_FR, tr);
			rp->ts++;
			rp_maybe_release(rp, p, x, tr);
		} else if (rp->cnp_d) {
			rp->t_dec = x + p->dec_period;
			rp_decrease(rp, p, x, tr);
		} else {
			/* no CNP can arrive during a catch-up */
			rp->t_dec = rp_skip_past(x, p->dec_period, t);
		}
	}
}

/**
 * vrnic_rp_cnp - a CNP for this QP arrived at @t
 * @rp: the state
 * @p: parameters
 * @t: arrival time, ns
 * @tr: tracer or NULL
 *
 * Runs after every tick <= @t.  A released limiter starts afresh: alpha
 * from initial_alpha_value, a cut at the first decrease tick (P after the
 * CNP), no increase before that cut.
 */
void vrnic_rp_cnp(struct vrnic_rp *rp, const struct vrnic_rp_params *p,
		  u64 t, const struct vrnic_rp_tracer *tr)
{
	vrnic_rp_advance(rp, p, t, tr);
	t = rp->now;
	rp->cnp_handled++;
	if (rp->active) {
		rp->cnp_a = true;
		rp->cnp_d = true;
		rp_trace(rp, t, VRNIC_RP_EV_CNP, tr);
		return;
	}
	rp->active = true;
	rp->alpha = p->initial_alpha << 21;	/* 1/1024 to Q31 */
	rp->cnp_a = false;
	rp->cnp_d = true;
	if (p->first_rate)
		rp->rc = min(p->first_rate, p->max_rate);
	rp->rt = rp->rc;
	rp->t_alpha = t + p->alpha_period;
	rp->t_dec = t + p->dec_period;
	rp->inc_armed = false;
	rp->ts = 0;
	rp->bs = 0;
	rp->bytes = 0;
	rp_trace(rp, t, VRNIC_RP_EV_CNP_FIRST, tr);
}

/**
 * vrnic_rp_sent - @nbytes were transmitted at @t
 * @rp: the state
 * @p: parameters
 * @t: transmit time, ns
 * @nbytes: bytes sent (the byte counter counts what the caller counts)
 * @tr: tracer or NULL
 *
 * The byte counter runs only between a cut and the release.
 */
void vrnic_rp_sent(struct vrnic_rp *rp, const struct vrnic_rp_params *p,
		   u64 t, u32 nbytes, const struct vrnic_rp_tracer *tr)
{
	vrnic_rp_advance(rp, p, t, tr);
	if (!rp->active || !rp->inc_armed || !p->byte_reset)
		return;
	t = rp->now;
	rp->bytes += nbytes;
	while (rp->active && rp->bytes >= p->byte_reset) {
		rp->bytes -= p->byte_reset;
		rp_increase(rp, p, t, VRNIC_RP_EV_BYTE_FR, tr);
		rp->bs++;
		rp_maybe_release(rp, p, t, tr);
	}
}

/**
 * vrnic_rp_params_changed - keep the state valid under new parameters
 * @rp: the state
 * @p: the new parameters
 * @tr: tracer or NULL
 *
 * Called after the caller caught up with the old parameters.  Rc and Rt
 * are brought into the new [min, Max]; a limiter whose Rc now reaches Max
 * is released.  The tick series keep their phase: the new periods apply
 * from each series' next tick on.
 */
void vrnic_rp_params_changed(struct vrnic_rp *rp,
			     const struct vrnic_rp_params *p,
			     const struct vrnic_rp_tracer *tr)
{
	if (!rp->active) {
		rp->rc = p->max_rate;
		rp->rt = p->max_rate;
		return;
	}
	rp->rc = clamp(rp->rc, p->min_rate, p->max_rate);
	rp->rt = min(rp->rt, p->max_rate);
	rp_maybe_release(rp, p, rp->now, tr);
}

/**
 * vrnic_rp_next_deadline - when Rc may change next without a new input
 * @rp: the state
 *
 * The pacer arms its timer no later than this to pick up a rate increase
 * (or a pending cut) of an idle, paced QP; alpha ticks alone never change
 * the rate and are not reported.
 *
 * Return: the time in ns of the next increase tick or the next decrease
 * tick with a CNP pending, or U64_MAX when the limiter is released.
 */
u64 vrnic_rp_next_deadline(const struct vrnic_rp *rp)
{
	u64 t = U64_MAX;

	if (!rp->active)
		return t;
	if (rp->inc_armed)
		t = rp->t_inc;
	if (rp->cnp_d)
		t = min(t, rp->t_dec);
	return t;
}
