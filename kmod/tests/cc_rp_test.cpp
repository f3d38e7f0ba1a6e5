// SPDX-License-Identifier: GPL-2.0
// Host tests of the DCQCN reaction point, kmod/cc_rp.c, built from the very
// source that goes into vrnic.ko (with the shims in kmod/tests/host/).
//
// Golden: the reference model ../shared/cc/dcqcn_oracle.py ("golden SEED")
// produces random parameter sets and input sequences with the state after
// every event; the C code must reproduce each trace exactly, step by step.
// The oracle lives outside this repository: where it is absent (a clone
// without ../shared) the test skips and says so; where it is present any
// difference fails.  VRNIC_CC_ORACLE in the environment overrides the path
// CMake found.
//
// Properties: Rc within [min, Max] while the limiter is engaged, alpha
// within [0, 1], release at Max and a fresh start on the next CNP, at most
// one cut per monitor period, bounded work for huge time gaps.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" {
#include "../cc_rp.h"
#include "../config.h"
}

namespace {

constexpr int kFirstSeed = 1;
constexpr int kNumSeeds = 128;
constexpr uint64_t kMbps = 1000000;
constexpr uint64_t kUs = 1000;

struct Golden {
    int seed = 0;
    std::vector<std::string> lines;
};

struct GoldenSet {
    std::vector<Golden> traces;
    std::string error;
};

std::string oracle_path() {
    const char* env = std::getenv("VRNIC_CC_ORACLE");
    return env && *env ? env : VRNIC_CC_ORACLE;
}

// Runs the oracle once for all seeds (see cc_golden.py).
const GoldenSet& golden_set() {
    static GoldenSet set = [] {
        GoldenSet s;
        std::string cmd = std::string("'") + VRNIC_PYTHON3 + "' '" + VRNIC_CC_GOLDEN + "' '" +
                          oracle_path() + "' " + std::to_string(kFirstSeed) + " " +
                          std::to_string(kNumSeeds) + " 2>&1";
        FILE* f = popen(cmd.c_str(), "r");
        if (!f) {
            s.error = "cannot run: " + cmd;
            return s;
        }
        std::string out;
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
            out.append(buf, n);
        int rc = pclose(f);
        if (rc != 0) {
            s.error = "oracle failed (status " + std::to_string(rc) + "): " + cmd + "\n" +
                      out.substr(0, 2000);
            return s;
        }
        std::istringstream in(out);
        std::string line;
        while (std::getline(in, line)) {
            if (line.rfind("# seed ", 0) == 0) {
                s.traces.push_back(Golden{std::stoi(line.substr(7)), {}});
            } else if (!line.empty() && !s.traces.empty()) {
                s.traces.back().lines.push_back(line);
            }
        }
        return s;
    }();
    return set;
}

// Collects the trace events (or, with keep = false, only counts them and
// checks their order and bounds against params: long runs stay cheap).
struct Recorder {
    std::vector<vrnic_rp_trace> ev;
    bool keep = true;
    const vrnic_rp_params* params = nullptr;
    uint64_t count = 0, last_t = 0, bad = 0;
    vrnic_rp_tracer tracer() { return vrnic_rp_tracer{&Recorder::emit, this}; }
    static void emit(void* ctx, const vrnic_rp_trace* tr) {
        auto* r = static_cast<Recorder*>(ctx);
        if (r->keep)
            r->ev.push_back(*tr);
        if (r->params &&
            (tr->t < r->last_t || tr->alpha > VRNIC_RP_ALPHA_ONE || tr->rc < r->params->min_rate ||
             tr->rc > r->params->max_rate || tr->rt > r->params->max_rate))
            r->bad++;
        r->last_t = tr->t;
        r->count++;
    }
};

std::string format(const vrnic_rp_trace& e) {
    std::ostringstream o;
    o << e.t << " out " << vrnic_rp_event_names[e.event] << " " << e.rc << " " << e.rt << " "
      << e.alpha << " " << e.ts << " " << e.bs;
    return o.str();
}

// The oracle's "params" line: vrnic's netlink names plus line_mbps.  The
// oracle's rpg_gd is the paper's shift of the real alpha (1 = alpha / 2);
// vrnic's is ConnectX's shift of the 10-bit alpha (11 = alpha / 2).
constexpr uint32_t kOracleGdToConnectX = 10;

::testing::AssertionResult parse_params(const std::string& line, vrnic_rp_params* p) {
    vrnic_dcqcn d{};
    std::map<std::string, uint32_t*> field = {
        {"rpg_time_reset", &d.rpg_time_reset},
        {"rpg_byte_reset", &d.rpg_byte_reset},
        {"rpg_threshold", &d.rpg_threshold},
        {"rpg_max_rate", &d.rpg_max_rate},
        {"rpg_ai_rate", &d.rpg_ai_rate},
        {"rpg_hai_rate", &d.rpg_hai_rate},
        {"rpg_gd", &d.rpg_gd},
        {"rpg_min_dec_fac", &d.rpg_min_dec_fac},
        {"rpg_min_rate", &d.rpg_min_rate},
        {"rate_to_set_on_first_cnp", &d.rate_to_set_on_first_cnp},
        {"dce_tcp_g", &d.dce_tcp_g},
        {"dce_tcp_rtt", &d.dce_tcp_rtt},
        {"rate_reduce_monitor_period", &d.rate_reduce_monitor_period},
        {"initial_alpha_value", &d.initial_alpha_value},
        {"min_time_between_cnps", &d.min_time_between_cnps},
    };
    uint32_t link = 0, clamp = 0, clamp_ati = 1;
    std::istringstream in(line);
    std::string w;
    in >> w >> w; // time, "params"
    // The oracle's defaults for what a line leaves out (Params.__init__)
    d.rpg_min_rate = 1;
    d.rpg_time_reset = 55;
    d.rpg_threshold = 5;
    d.rpg_ai_rate = 40;
    d.rpg_hai_rate = 400;
    d.rpg_gd = 1 + kOracleGdToConnectX;
    d.rpg_min_dec_fac = 50;
    d.dce_tcp_g = 4;
    d.dce_tcp_rtt = 55;
    d.rate_reduce_monitor_period = 50;
    d.initial_alpha_value = 1024;
    link = 10000;
    while (in >> w) {
        auto eq = w.find('=');
        if (eq == std::string::npos)
            return ::testing::AssertionFailure() << "bad params word " << w;
        std::string k = w.substr(0, eq);
        uint32_t v = static_cast<uint32_t>(std::stoul(w.substr(eq + 1)));
        if (k == "line_mbps")
            link = v;
        else if (k == "rpg_gd")
            d.rpg_gd = v + kOracleGdToConnectX;
        else if (k == "clamp_tgt_rate")
            clamp = v;
        else if (k == "clamp_tgt_rate_after_time_inc")
            clamp_ati = v;
        else if (field.count(k))
            *field[k] = v;
        else
            return ::testing::AssertionFailure() << "oracle parameter unknown to the test: " << k;
    }
    d.clamp_tgt_rate = clamp != 0;
    d.clamp_tgt_rate_after_time_inc = clamp_ati != 0;
    vrnic_rp_params_from_dcqcn(p, &d, link);
    return ::testing::AssertionSuccess();
}

// Replays one golden trace; success only if every output step is identical.
::testing::AssertionResult replay(const Golden& g) {
    vrnic_rp_params p{};
    vrnic_rp rp{};
    Recorder rec;
    vrnic_rp_tracer tr = rec.tracer();
    std::vector<std::string> expect;
    bool have_params = false;

    for (const std::string& line : g.lines) {
        std::istringstream in(line);
        uint64_t t;
        std::string ev;
        in >> t >> ev;
        if (ev == "params") {
            auto r = parse_params(line, &p);
            if (!r)
                return r;
            vrnic_rp_init(&rp, &p);
            have_params = true;
        } else if (!have_params) {
            return ::testing::AssertionFailure() << "input before params: " << line;
        } else if (ev == "cnp") {
            vrnic_rp_cnp(&rp, &p, t, &tr);
        } else if (ev == "sent") {
            uint64_t n;
            in >> n;
            vrnic_rp_sent(&rp, &p, t, static_cast<uint32_t>(n), &tr);
        } else if (ev == "end") {
            vrnic_rp_advance(&rp, &p, t, &tr);
        } else if (ev == "out") {
            expect.push_back(line);
        } else {
            return ::testing::AssertionFailure() << "unknown line: " << line;
        }
    }
    if (expect.empty())
        return ::testing::AssertionFailure() << "no expected output";
    for (size_t k = 0; k < expect.size() && k < rec.ev.size(); k++) {
        std::string got = format(rec.ev[k]);
        if (got != expect[k])
            return ::testing::AssertionFailure()
                   << "seed " << g.seed << " step " << k << ":\n  oracle: " << expect[k]
                   << "\n  cc_rp:  " << got;
    }
    if (rec.ev.size() != expect.size())
        return ::testing::AssertionFailure() << "seed " << g.seed << ": oracle " << expect.size()
                                             << " steps, cc_rp " << rec.ev.size();
    return ::testing::AssertionSuccess();
}

TEST(CcRpGolden, ReplaysOracleTracesExactly) {
    if (!*VRNIC_PYTHON3)
        GTEST_SKIP() << "built with VRNIC_CC_GOLDEN=OFF (source package): no oracle";
    if (access(oracle_path().c_str(), R_OK))
        GTEST_SKIP() << "no DCQCN oracle at " << oracle_path() << " (../shared/cc)";
    const GoldenSet& s = golden_set();
    ASSERT_TRUE(s.error.empty()) << s.error;
    ASSERT_EQ(s.traces.size(), static_cast<size_t>(kNumSeeds))
        << "the oracle at " << oracle_path() << " printed too few traces";
    size_t steps = 0, matched = 0;
    for (const Golden& g : s.traces) {
        auto r = replay(g);
        EXPECT_TRUE(r) << r.message();
        if (r)
            matched++;
        for (const std::string& l : g.lines)
            steps += l.find(" out ") != std::string::npos;
    }
    EXPECT_EQ(matched, s.traces.size());
    std::printf("golden: %zu of %zu traces identical, %zu expected steps\n", matched,
                s.traces.size(), steps);
}

// ---- properties ----

vrnic_dcqcn default_dcqcn() {
    vrnic_dcqcn d{};
    d.rpg_time_reset = VRNIC_DEF_RPG_TIME_RESET;
    d.rpg_byte_reset = VRNIC_DEF_RPG_BYTE_RESET;
    d.rpg_threshold = VRNIC_DEF_RPG_THRESHOLD;
    d.rpg_max_rate = VRNIC_DEF_RPG_MAX_RATE;
    d.rpg_ai_rate = VRNIC_DEF_RPG_AI_RATE;
    d.rpg_hai_rate = VRNIC_DEF_RPG_HAI_RATE;
    d.rpg_gd = VRNIC_DEF_RPG_GD;
    d.rpg_min_dec_fac = VRNIC_DEF_RPG_MIN_DEC_FAC;
    d.rpg_min_rate = VRNIC_DEF_RPG_MIN_RATE;
    d.rate_to_set_on_first_cnp = VRNIC_DEF_RATE_TO_SET_ON_FIRST_CNP;
    d.dce_tcp_g = VRNIC_DEF_DCE_TCP_G;
    d.dce_tcp_rtt = VRNIC_DEF_DCE_TCP_RTT;
    d.rate_reduce_monitor_period = VRNIC_DEF_RATE_REDUCE_MONITOR_PERIOD;
    d.initial_alpha_value = VRNIC_DEF_INITIAL_ALPHA_VALUE;
    d.min_time_between_cnps = VRNIC_DEF_MIN_TIME_BETWEEN_CNPS;
    d.clamp_tgt_rate = VRNIC_DEF_CLAMP_TGT_RATE;
    d.clamp_tgt_rate_after_time_inc = VRNIC_DEF_CLAMP_TGT_RATE_AFTER_TIME_INC;
    return d;
}

void check_invariants(const vrnic_rp& rp, const vrnic_rp_params& p) {
    ASSERT_LE(rp.alpha, VRNIC_RP_ALPHA_ONE);
    ASSERT_LE(rp.rt, p.max_rate);
    if (rp.active) {
        ASSERT_GE(rp.rc, p.min_rate);
        ASSERT_LE(rp.rc, p.max_rate);
    } else {
        ASSERT_EQ(rp.rc, p.max_rate);
    }
}

TEST(CcRpParams, UnitsAndClamps) {
    vrnic_dcqcn d = default_dcqcn();
    vrnic_rp_params p{};
    vrnic_rp_params_from_dcqcn(&p, &d, 25000);
    EXPECT_EQ(p.max_rate, 25000 * kMbps);
    EXPECT_EQ(p.min_rate, 1 * kMbps);
    EXPECT_EQ(p.ai_rate, 40 * kMbps);
    EXPECT_EQ(p.hai_rate, 400 * kMbps);
    EXPECT_EQ(p.time_reset, 55 * kUs);
    EXPECT_EQ(p.alpha_period, 55 * kUs);
    EXPECT_EQ(p.dec_period, 50 * kUs);
    EXPECT_EQ(p.g, 4u);
    EXPECT_EQ(p.initial_alpha, 1023u);
    EXPECT_EQ(p.gd, 11u);
    EXPECT_EQ(p.first_rate, 0u);
    EXPECT_FALSE(p.clamp_tgt_rate);
    EXPECT_TRUE(p.clamp_tgt_rate_after_time_inc);
    // unknown link speed: the largest rate the API accepts
    vrnic_rp_params_from_dcqcn(&p, &d, 0);
    EXPECT_EQ(p.max_rate, uint64_t{VRNIC_DCQCN_RATE_MAX} * kMbps);
    // rpg_max_rate wins over the link; min and the first rate stay inside
    d.rpg_max_rate = 100;
    d.rpg_min_rate = 500;
    d.rate_to_set_on_first_cnp = 50;
    vrnic_rp_params_from_dcqcn(&p, &d, 25000);
    EXPECT_EQ(p.max_rate, 100 * kMbps);
    EXPECT_EQ(p.min_rate, 100 * kMbps);
    EXPECT_EQ(p.first_rate, 100 * kMbps);
    d.rpg_max_rate = 0;
    d.rpg_min_rate = 100;
    vrnic_rp_params_from_dcqcn(&p, &d, 25000);
    EXPECT_EQ(p.first_rate, 100 * kMbps);
}

// One RP under the DCQCN settings d (the defaults unless a test changes
// them before start()), with a recorder of its trace.
// The defaults, with alpha starting at exactly 1.0 (the model allows 1024;
// netlink stops at ConnectX's 1023) so that the expected rates are round.
vrnic_dcqcn property_dcqcn() {
    vrnic_dcqcn d = default_dcqcn();
    d.initial_alpha_value = VRNIC_DCQCN_ONE;
    return d;
}

class CcRpProperty : public ::testing::Test {
protected:
    vrnic_dcqcn d = property_dcqcn();
    vrnic_rp_params p{};
    vrnic_rp rp{};
    Recorder rec;
    vrnic_rp_tracer tr = rec.tracer();
    void start(uint32_t link_mbps) {
        vrnic_rp_params_from_dcqcn(&p, &d, link_mbps);
        vrnic_rp_init(&rp, &p);
    }
};

TEST_F(CcRpProperty, ReleaseAtMaxAndRestartOnNextCnp) {
    start(40000);

    EXPECT_FALSE(rp.active);
    EXPECT_EQ(vrnic_rp_next_deadline(&rp), UINT64_MAX);
    vrnic_rp_cnp(&rp, &p, 1000, &tr);
    ASSERT_TRUE(rp.active);
    EXPECT_EQ(rec.ev.back().event, VRNIC_RP_EV_CNP_FIRST);
    EXPECT_EQ(rp.alpha, VRNIC_RP_ALPHA_ONE);
    // the first cut waits for the first decrease tick, P after the CNP
    EXPECT_EQ(vrnic_rp_next_deadline(&rp), 1000 + p.dec_period);
    vrnic_rp_advance(&rp, &p, 1000 + p.dec_period - 1, &tr);
    EXPECT_EQ(rp.rc, p.max_rate);
    vrnic_rp_advance(&rp, &p, 1000 + p.dec_period, &tr);
    EXPECT_EQ(rec.ev.back().event, VRNIC_RP_EV_DEC);
    EXPECT_LT(rp.rc, p.max_rate);
    EXPECT_EQ(vrnic_rp_next_deadline(&rp), 1000 + p.dec_period + p.time_reset);
    // no more CNPs: increases run until Rc reaches Max, then release
    vrnic_rp_advance(&rp, &p, 10000000000ULL, &tr);
    EXPECT_FALSE(rp.active);
    EXPECT_EQ(rp.rc, p.max_rate);
    EXPECT_EQ(rp.releases, 1u);
    EXPECT_EQ(rec.ev.back().event, VRNIC_RP_EV_RELEASE);
    EXPECT_EQ(vrnic_rp_next_deadline(&rp), UINT64_MAX);
    // DESIGN.md 1.5: 40 -> 20 Gb/s at +50 us, released at 1.98 ms
    EXPECT_EQ(rec.ev[1].rc, 20000 * kMbps);
    EXPECT_GT(rec.ev.back().t, 1000 + 1970 * kUs);
    EXPECT_LT(rec.ev.back().t, 1000 + 1990 * kUs);
    size_t released = rec.ev.size();
    // a released QP ignores time passing, and the next CNP starts afresh
    vrnic_rp_sent(&rp, &p, 20000000000ULL, 1 << 20, &tr);
    EXPECT_EQ(rec.ev.size(), released);
    rp.alpha = 12345; // whatever alpha was, the restart resets it
    vrnic_rp_cnp(&rp, &p, 20000000001ULL, &tr);
    EXPECT_TRUE(rp.active);
    EXPECT_EQ(rec.ev.back().event, VRNIC_RP_EV_CNP_FIRST);
    EXPECT_EQ(rp.alpha, VRNIC_RP_ALPHA_ONE);
    EXPECT_EQ(rp.ts, 0u);
    EXPECT_EQ(rp.bs, 0u);
    EXPECT_FALSE(rp.inc_armed);
    EXPECT_EQ(rp.cnp_handled, 2u);
}

TEST_F(CcRpProperty, AtMostOneCutPerMonitorPeriod) {
    start(10000);
    uint64_t t = 5000, end = t + 20000 * kUs;
    unsigned cnps = 0;
    for (; t < end; t += 700) { // a CNP every 0.7 us, P = 50 us
        vrnic_rp_cnp(&rp, &p, t, &tr);
        cnps++;
        ASSERT_NO_FATAL_FAILURE(check_invariants(rp, p));
    }
    uint64_t last = 0;
    unsigned cuts = 0;
    for (const auto& e : rec.ev) {
        if (e.event != VRNIC_RP_EV_DEC)
            continue;
        if (cuts) {
            EXPECT_GE(e.t - last, p.dec_period);
        }
        last = e.t;
        cuts++;
    }
    EXPECT_EQ(cuts, rp.decreases);
    EXPECT_LE(cuts, (end - 5000) / p.dec_period + 1);
    EXPECT_GE(cuts, (end - 5000) / p.dec_period - 1);
    EXPECT_EQ(rp.cnp_handled, cnps);
    EXPECT_EQ(rp.rc, p.min_rate); // cut every period, nothing recovers
}

TEST_F(CcRpProperty, HugeTimeGapsAreBounded) {
    // the slowest recovery the API allows: 1 Mb/s steps up to 1 Tb/s
    d.rpg_max_rate = VRNIC_DCQCN_RATE_MAX;
    d.rpg_min_rate = 0;
    d.rpg_ai_rate = 1;
    d.rpg_hai_rate = 1;
    d.rpg_threshold = 31;
    d.rpg_time_reset = VRNIC_DCQCN_TIME_MAX; // no increase between the cuts
    d.dce_tcp_rtt = 1;
    d.rate_reduce_monitor_period = 1;
    d.dce_tcp_g = 1;
    d.rpg_gd = 0;
    d.rpg_min_dec_fac = 1;
    start(0);
    rec.keep = false;
    rec.params = &p;
    // Rt follows Rc down (clamp), so the recovery starts from the bottom:
    // one CNP per monitor period cuts 1 Tb/s to 1 bit/s (1 % left each time)
    p.clamp_tgt_rate = true;
    uint64_t t = 1000;
    vrnic_rp_cnp(&rp, &p, t, &tr);
    vrnic_rp_advance(&rp, &p, t + p.dec_period, &tr);
    ASSERT_EQ(rp.decreases, 1u);
    EXPECT_EQ(rp.rc, p.max_rate / 100); // alpha = 1, gd 0: the 1 % floor
    for (int k = 0; k < 20 && rp.rc > 1; k++) {
        t += p.dec_period;
        vrnic_rp_cnp(&rp, &p, t, &tr);
        vrnic_rp_advance(&rp, &p, t + p.dec_period, &tr);
    }
    ASSERT_LE(rp.rc, 1u);
    EXPECT_LE(rp.rt, 100u);
    vrnic_rp_advance(&rp, &p, uint64_t{1} << 62, &tr);
    EXPECT_FALSE(rp.active);
    uint64_t bound = d.rpg_threshold + p.max_rate / p.ai_rate + 65;
    EXPECT_LE(rp.increases, bound);
    EXPECT_GE(rp.increases, p.max_rate / p.ai_rate); // the worst case ran
    // and a gap after an idle alpha decay: one skip, no per-tick work
    vrnic_rp_cnp(&rp, &p, (uint64_t{1} << 62) + 1, &tr);
    vrnic_rp_advance(&rp, &p, (uint64_t{1} << 62) + 100, &tr);
    uint64_t n = rec.count;
    rp.cnp_d = false;     // no cut pending
    rp.inc_armed = false; // no increases: only alpha and idle decrease ticks
    vrnic_rp_advance(&rp, &p, uint64_t{1} << 63, &tr);
    EXPECT_EQ(rec.count, n);
    EXPECT_EQ(rec.bad, 0u);
    EXPECT_LT(rp.alpha, 1024u); // at its floor
    EXPECT_GT(rp.t_alpha, uint64_t{1} << 63);
    EXPECT_GT(rp.t_dec, uint64_t{1} << 63);
}

TEST_F(CcRpProperty, TimeNeverGoesBackwards) {
    start(10000);
    vrnic_rp_cnp(&rp, &p, 100000, &tr);
    vrnic_rp_cnp(&rp, &p, 50000, &tr); // an older timestamp counts as now
    ASSERT_EQ(rec.ev.size(), 2u);
    EXPECT_EQ(rec.ev[1].t, 100000u);
    EXPECT_EQ(rec.ev[1].event, VRNIC_RP_EV_CNP);
}

TEST_F(CcRpProperty, NewParametersApplyToRunningState) {
    start(10000);
    vrnic_rp_cnp(&rp, &p, 1000, &tr);
    vrnic_rp_advance(&rp, &p, 1000 + p.dec_period, &tr);
    ASSERT_EQ(rp.rc, 5000 * kMbps);
    d.rpg_min_rate = 6000;
    vrnic_rp_params_from_dcqcn(&p, &d, 10000);
    vrnic_rp_params_changed(&rp, &p, &tr);
    EXPECT_TRUE(rp.active);
    EXPECT_EQ(rp.rc, 6000 * kMbps);
    d.rpg_max_rate = 4000;
    vrnic_rp_params_from_dcqcn(&p, &d, 10000);
    vrnic_rp_params_changed(&rp, &p, &tr);
    EXPECT_FALSE(rp.active);
    EXPECT_EQ(rp.rc, 4000 * kMbps);
    EXPECT_EQ(rec.ev.back().event, VRNIC_RP_EV_RELEASE);
}

// Random parameters over the whole netlink ranges and random inputs,
// including long idle gaps: the invariants hold after every call.
TEST(CcRpRandom, RandomInputsKeepInvariants) {
    std::mt19937_64 rnd(12);
    auto pick = [&](std::vector<uint32_t> v) { return v[rnd() % v.size()]; };
    for (int trial = 0; trial < 300; trial++) {
        vrnic_dcqcn d = default_dcqcn();
        d.rpg_time_reset = pick({1, 55, 300, 5000, VRNIC_DCQCN_TIME_MAX});
        d.rpg_byte_reset = pick({0, 1, 4096, 65536, 10485760});
        d.rpg_threshold = pick({1, 5, 31});
        d.rpg_max_rate = pick({0, 0, 1, 100, 5000});
        d.rpg_ai_rate = pick({1, 5, 40, 1000});
        d.rpg_hai_rate = d.rpg_ai_rate * pick({1, 10});
        d.rpg_gd = pick({0, 1, 2, 11, 15});
        d.rpg_min_dec_fac = pick({1, 50, 99, 100});
        d.rpg_min_rate = pick({0, 1, 100, 20000});
        d.rate_to_set_on_first_cnp = pick({0, 0, 1, 2000, 1000000});
        d.dce_tcp_g = pick({1, 4, 64, 1024});
        d.dce_tcp_rtt = pick({1, 55, 5000});
        d.rate_reduce_monitor_period = pick({1, 4, 50, 2500});
        d.initial_alpha_value = pick({0, 1, 1023, 1024});
        d.clamp_tgt_rate = static_cast<uint8_t>(pick({0, 1}));
        d.clamp_tgt_rate_after_time_inc = static_cast<uint8_t>(pick({0, 1}));
        uint32_t link = pick({0, 10000, 100000});
        vrnic_rp_params p{};
        vrnic_rp_params_from_dcqcn(&p, &d, link);
        vrnic_rp rp;
        vrnic_rp_init(&rp, &p);
        Recorder rec;
        rec.keep = false;
        rec.params = &p;
        vrnic_rp_tracer tr = rec.tracer();
        uint64_t t = 1000;
        for (int k = 0; k < 200; k++) {
            uint64_t gap = rnd() % 4 == 0 ? rnd() % 1000000000ULL : rnd() % 200000;
            t += gap;
            switch (rnd() % 3) {
            case 0:
                vrnic_rp_cnp(&rp, &p, t, &tr);
                break;
            case 1:
                vrnic_rp_sent(&rp, &p, t, static_cast<uint32_t>(rnd() % 65536), &tr);
                break;
            default:
                vrnic_rp_advance(&rp, &p, t, &tr);
                break;
            }
            ASSERT_NO_FATAL_FAILURE(check_invariants(rp, p)) << "trial " << trial;
        }
        ASSERT_EQ(rec.bad, 0u) << "trial " << trial;
        ASSERT_LE(rec.last_t, t);
        // inputs stop: the limiter is released in bounded work
        vrnic_rp_advance(&rp, &p, t + (uint64_t{1} << 50), &tr);
        EXPECT_FALSE(rp.active) << "trial " << trial;
        EXPECT_EQ(rec.bad, 0u) << "trial " << trial;
    }
}

} // namespace
