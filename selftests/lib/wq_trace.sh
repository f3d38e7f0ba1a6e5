# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# wq_trace.sh - which CPU ran which work item: the workqueue_execute_start
# trace event, recorded for a while (dp_loop_spread.sh, dp_hostile).
#
# Enabling or disabling a trace event at run time rewrites kernel text on
# every CPU: the event's call sites and, for the first event enabled or
# the last disabled, the sched_switch hook in __schedule() that records
# command names.  Each site gets an int3 breakpoint, then every CPU is
# sent an IPI.  Under QEMU's TCG this livelocked a guest, twice in
# dp_loop_spread.sh within a full make check: one vCPU kept trapping on
# the breakpoint in __schedule(), and the other spun for ever waiting for
# that vCPU to answer its IPI.  The backtraces were caught by vm.sh's
# hang_dump.
#
# So vm.sh enables this event at boot (trace_event=, before the second
# CPU starts), and guest.sh installs a filter that drops every record
# (wq_trace_idle).  A test only lifts the filter and turns tracing on, so
# no text changes at run time.  In a guest not booted by vm.sh,
# wq_trace_start enables the event once; it then stays enabled, filtered,
# because disabling it would rewrite the text again.
#
# Sourced by bash scripts; the C tests run "bash -c '. FILE; FUNCTION'".

WQ_TRACING=/sys/kernel/tracing
WQ_EVENT_NAME=workqueue:workqueue_execute_start
WQ_EVENT=$WQ_TRACING/events/${WQ_EVENT_NAME/://}
# No task has a negative PID: this filter drops every record.
WQ_FILTER_NONE='common_pid < 0'

# wq_trace_usable: true if this kernel has the event and we may switch it.
wq_trace_usable() {
	[[ -w $WQ_EVENT/enable ]]
}

# wq_trace_idle: record nothing, leaving tracing_on as it is.
wq_trace_idle() {
	[[ -w $WQ_EVENT/filter ]] || return 0
	echo "$WQ_FILTER_NONE" >"$WQ_EVENT/filter"
}

# wq_trace_start: empty the trace buffer, then record every work item run
# from now on (tracing_on is 1 until wq_trace_stop).
wq_trace_start() {
	wq_trace_usable || return 1
	echo 0 >"$WQ_TRACING/tracing_on" &&
		echo >"$WQ_TRACING/trace" &&
		echo 0 >"$WQ_EVENT/filter" || return 1
	if [[ $(<"$WQ_EVENT/enable") != 1* ]]; then
		echo 1 >"$WQ_EVENT/enable" || return 1
	fi
	echo 1 >"$WQ_TRACING/tracing_on"
}

# wq_trace_stop: stop recording (tracing_on 0, every record filtered out);
# the buffer keeps what was recorded.
wq_trace_stop() {
	echo 0 >"$WQ_TRACING/tracing_on"
	wq_trace_idle
}

# wq_trace_runs FUNCTION [CPU]: print how many runs of the work function
# FUNCTION the buffer holds (those on CPU only, if given).
wq_trace_runs() {
	local trace=$WQ_TRACING/trace

	[[ -z ${2:-} ]] || trace=$WQ_TRACING/per_cpu/cpu$2/trace
	grep -c -w "function $1" "$trace"
	true
}
