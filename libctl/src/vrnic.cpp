// SPDX-License-Identifier: GPL-2.0
#include <libctl/vrnic.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <limits>

#include <linux/genetlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <uapi/vrnic.h>

namespace libctl {

namespace {

template <size_t N>
const nla_policy* make_policy(std::initializer_list<std::pair<int, int>> types) {
    static std::array<nla_policy, N> p{};
    for (auto [attr, type] : types)
        p[static_cast<size_t>(attr)].type = static_cast<uint16_t>(type);
    return p.data();
}

const nla_policy* top_policy() {
    static const nla_policy* p = make_policy<VRNIC_ATTR_MAX + 1>({
        {VRNIC_ATTR_DEV_NAME, NLA_STRING},
        {VRNIC_ATTR_DEV_INDEX, NLA_U32},
        {VRNIC_ATTR_LIMITS, NLA_NESTED},
        {VRNIC_ATTR_QOS, NLA_NESTED},
        {VRNIC_ATTR_DCQCN, NLA_NESTED},
        {VRNIC_ATTR_COUNTERS, NLA_NESTED},
        {VRNIC_ATTR_QPN, NLA_U32},
    });
    return p;
}

int nla_type_of(const std::optional<uint8_t>*) {
    return NLA_U8;
}
int nla_type_of(const std::optional<uint32_t>*) {
    return NLA_U32;
}
int nla_type_of(const std::optional<uint64_t>*) {
    return NLA_U64;
}

// A policy for a nest described by a parameter table.
template <typename S, size_t N> const nla_policy* params_policy(const std::vector<Param<S>>& ps) {
    static std::array<nla_policy, N> p{};
    for (const auto& prm : ps)
        std::visit(
            [&](auto m) {
                using Opt = std::remove_reference_t<decltype(std::declval<S&>().*m)>;
                p[static_cast<size_t>(prm.attr)].type =
                    static_cast<uint16_t>(nla_type_of(static_cast<const Opt*>(nullptr)));
            },
            prm.member);
    return p.data();
}

Error protocol_error(const std::string& what) {
    Error e = make_error(EPROTO, "parse vrnic reply");
    e.extack = what;
    return e;
}

// Writes every set parameter of @p s into a nest @p nest_attr.
template <typename S>
void put_params(Message& m, int nest_attr, const std::vector<Param<S>>& ps, const S& s) {
    m.begin_nest(nest_attr);
    for (const auto& p : ps) {
        std::optional<uint64_t> v = p.get(s);
        if (!v)
            continue;
        std::visit(
            [&](auto mem) {
                using Opt = std::remove_reference_t<decltype(std::declval<S&>().*mem)>;
                switch (nla_type_of(static_cast<const Opt*>(nullptr))) {
                case NLA_U8:
                    m.put_u8(p.attr, static_cast<uint8_t>(*v));
                    break;
                case NLA_U32:
                    m.put_u32(p.attr, static_cast<uint32_t>(*v));
                    break;
                default:
                    m.put_u64(p.attr, *v);
                }
            },
            p.member);
    }
    m.end_nest();
}

template <typename S> Status get_params(const Attrs& a, const std::vector<Param<S>>& ps, S& s) {
    for (const auto& p : ps) {
        std::optional<uint64_t> v;
        std::visit(
            [&](auto mem) {
                using Opt = std::remove_reference_t<decltype(std::declval<S&>().*mem)>;
                switch (nla_type_of(static_cast<const Opt*>(nullptr))) {
                case NLA_U8:
                    if (auto x = a.u8(p.attr))
                        v = *x;
                    break;
                case NLA_U32:
                    if (auto x = a.u32(p.attr))
                        v = *x;
                    break;
                default:
                    v = a.u64(p.attr);
                }
            },
            p.member);
        if (v)
            p.set(s, *v);
    }
    return ok_status();
}

// Parses the top-level attributes of a vrnic reply.
Result<Attrs> parse_top(const nlmsghdr* nlh, std::string* dev) {
    auto a = Attrs::parse(nlh, GENL_HDRLEN, VRNIC_ATTR_MAX, top_policy());
    if (!a)
        return a.error();
    if (dev)
        *dev = a->str(VRNIC_ATTR_DEV_NAME).value_or("");
    return a;
}

Result<Limits> parse_limits_nest(const nlattr* nest) {
    static const nla_policy* pol =
        params_policy<Limits, VRNIC_LIMITS_ATTR_MAX + 1>(limits_params());
    auto a = Attrs::parse_nested(nest, VRNIC_LIMITS_ATTR_MAX, pol);
    if (!a)
        return a.error();
    Limits l;
    get_params(*a, limits_params(), l);
    return l;
}

Result<Dcqcn> parse_dcqcn_nest(const nlattr* nest) {
    static const nla_policy* pol = params_policy<Dcqcn, VRNIC_DCQCN_ATTR_MAX + 1>(dcqcn_params());
    auto a = Attrs::parse_nested(nest, VRNIC_DCQCN_ATTR_MAX, pol);
    if (!a)
        return a.error();
    Dcqcn d;
    get_params(*a, dcqcn_params(), d);
    return d;
}

Result<std::map<uint8_t, uint8_t>> parse_map(const Attrs& a, int attr, int maxtype, int key_attr,
                                             int val_attr) {
    std::map<uint8_t, uint8_t> out;
    std::array<nla_policy, 8> pol{};
    pol[static_cast<size_t>(key_attr)].type = NLA_U8;
    pol[static_cast<size_t>(val_attr)].type = NLA_U8;
    for (const nlattr* e : a.nested_list(attr)) {
        auto ea = Attrs::parse_nested(e, maxtype, pol.data());
        if (!ea)
            return ea.error();
        auto k = ea->u8(key_attr);
        auto v = ea->u8(val_attr);
        if (!k || !v)
            return protocol_error("map entry without key or value");
        out[*k] = *v;
    }
    return out;
}

Result<Qos> parse_qos_nest(const nlattr* nest) {
    static const nla_policy* pol = [] {
        static std::array<nla_policy, VRNIC_QOS_ATTR_MAX + 1> p{};
        p[VRNIC_QOS_ATTR_TRUST].type = NLA_U8;
        p[VRNIC_QOS_ATTR_DSCP2PRIO].type = NLA_NESTED;
        // PRIO2TC, which a module older than this library still reports,
        // has no entry: it is skipped.
        for (const auto& prm : qos_params())
            p[static_cast<size_t>(prm.attr)].type = NLA_U8;
        return p.data();
    }();
    auto a = Attrs::parse_nested(nest, VRNIC_QOS_ATTR_MAX, pol);
    if (!a)
        return a.error();
    Qos q;
    q.trust = a->u8(VRNIC_QOS_ATTR_TRUST);
    get_params(*a, qos_params(), q);
    auto d2p = parse_map(*a, VRNIC_QOS_ATTR_DSCP2PRIO, VRNIC_DSCP_MAP_ATTR_MAX,
                         VRNIC_DSCP_MAP_ATTR_DSCP, VRNIC_DSCP_MAP_ATTR_PRIO);
    if (!d2p)
        return d2p.error();
    q.dscp2prio = std::move(d2p).value();
    return q;
}

// A limits, dcqcn or qos reply: the device's top-level attributes around
// the one nest @p nest_attr, which is required and read by @p parse_nest.
template <typename T>
Result<T> parse_object_reply(const nlmsghdr* nlh, std::string* dev, int nest_attr,
                             const char* object, Result<T> (*parse_nest)(const nlattr*)) {
    auto a = parse_top(nlh, dev);
    if (!a)
        return a.error();
    const nlattr* nest = a->raw(nest_attr);
    if (!nest)
        return protocol_error(std::string("reply without ") + object);
    return parse_nest(nest);
}

} // namespace

// ---- parameter tables ------------------------------------------------------

template <typename S> std::optional<uint64_t> Param<S>::get(const S& s) const {
    return std::visit(
        [&](auto m) -> std::optional<uint64_t> {
            const auto& v = s.*m;
            if (!v)
                return std::nullopt;
            return static_cast<uint64_t>(*v);
        },
        member);
}

template <typename S> void Param<S>::set(S& s, uint64_t v) const {
    std::visit(
        [&](auto m) {
            using T = typename std::remove_reference_t<decltype(s.*m)>::value_type;
            s.*m = static_cast<T>(v);
        },
        member);
}

template struct Param<Limits>;
template struct Param<Dcqcn>;
template struct Param<Qos>;

template <typename S>
const Param<S>* find_param(const std::vector<Param<S>>& params, const std::string& name) {
    for (const auto& p : params)
        if (name == p.name)
            return &p;
    return nullptr;
}
template const Param<Limits>* find_param(const std::vector<Param<Limits>>&, const std::string&);
template const Param<Dcqcn>* find_param(const std::vector<Param<Dcqcn>>&, const std::string&);
template const Param<Qos>* find_param(const std::vector<Param<Qos>>&, const std::string&);

// Name, attribute and struct member of each parameter.  Their ranges live
// in the kernel's policy only (Vrnic::set_ranges() reads them).
const std::vector<Param<Limits>>& limits_params() {
    static const std::vector<Param<Limits>> ps = {
        {"max_qp", VRNIC_LIMITS_ATTR_MAX_QP, &Limits::max_qp},
        {"max_cq", VRNIC_LIMITS_ATTR_MAX_CQ, &Limits::max_cq},
        {"max_mr", VRNIC_LIMITS_ATTR_MAX_MR, &Limits::max_mr},
        {"max_pd", VRNIC_LIMITS_ATTR_MAX_PD, &Limits::max_pd},
        {"max_srq", VRNIC_LIMITS_ATTR_MAX_SRQ, &Limits::max_srq},
        {"max_ah", VRNIC_LIMITS_ATTR_MAX_AH, &Limits::max_ah},
        {"max_qp_wr", VRNIC_LIMITS_ATTR_MAX_QP_WR, &Limits::max_qp_wr},
        {"max_cqe", VRNIC_LIMITS_ATTR_MAX_CQE, &Limits::max_cqe},
        {"max_sge", VRNIC_LIMITS_ATTR_MAX_SGE, &Limits::max_sge},
        {"max_inline_data", VRNIC_LIMITS_ATTR_MAX_INLINE_DATA, &Limits::max_inline_data},
        {"max_mr_size", VRNIC_LIMITS_ATTR_MAX_MR_SIZE, &Limits::max_mr_size},
        {"max_qp_rd_atom", VRNIC_LIMITS_ATTR_MAX_QP_RD_ATOM, &Limits::max_qp_rd_atom},
    };
    return ps;
}

const std::vector<Param<Dcqcn>>& dcqcn_params() {
    static const std::vector<Param<Dcqcn>> ps = {
        {"rpg_time_reset", VRNIC_DCQCN_ATTR_RPG_TIME_RESET, &Dcqcn::rpg_time_reset},
        {"rpg_byte_reset", VRNIC_DCQCN_ATTR_RPG_BYTE_RESET, &Dcqcn::rpg_byte_reset},
        {"rpg_threshold", VRNIC_DCQCN_ATTR_RPG_THRESHOLD, &Dcqcn::rpg_threshold},
        {"rpg_max_rate", VRNIC_DCQCN_ATTR_RPG_MAX_RATE, &Dcqcn::rpg_max_rate},
        {"rpg_ai_rate", VRNIC_DCQCN_ATTR_RPG_AI_RATE, &Dcqcn::rpg_ai_rate},
        {"rpg_hai_rate", VRNIC_DCQCN_ATTR_RPG_HAI_RATE, &Dcqcn::rpg_hai_rate},
        {"rpg_gd", VRNIC_DCQCN_ATTR_RPG_GD, &Dcqcn::rpg_gd},
        {"rpg_min_dec_fac", VRNIC_DCQCN_ATTR_RPG_MIN_DEC_FAC, &Dcqcn::rpg_min_dec_fac},
        {"rpg_min_rate", VRNIC_DCQCN_ATTR_RPG_MIN_RATE, &Dcqcn::rpg_min_rate},
        {"rate_to_set_on_first_cnp", VRNIC_DCQCN_ATTR_RATE_TO_SET_ON_FIRST_CNP,
         &Dcqcn::rate_to_set_on_first_cnp},
        {"dce_tcp_g", VRNIC_DCQCN_ATTR_DCE_TCP_G, &Dcqcn::dce_tcp_g},
        {"dce_tcp_rtt", VRNIC_DCQCN_ATTR_DCE_TCP_RTT, &Dcqcn::dce_tcp_rtt},
        {"rate_reduce_monitor_period", VRNIC_DCQCN_ATTR_RATE_REDUCE_MONITOR_PERIOD,
         &Dcqcn::rate_reduce_monitor_period},
        {"initial_alpha_value", VRNIC_DCQCN_ATTR_INITIAL_ALPHA_VALUE, &Dcqcn::initial_alpha_value},
        {"min_time_between_cnps", VRNIC_DCQCN_ATTR_MIN_TIME_BETWEEN_CNPS,
         &Dcqcn::min_time_between_cnps},
        {"cnp_dscp", VRNIC_DCQCN_ATTR_CNP_DSCP, &Dcqcn::cnp_dscp},
        {"cnp_802p_prio", VRNIC_DCQCN_ATTR_CNP_802P_PRIO, &Dcqcn::cnp_802p_prio},
        {"clamp_tgt_rate", VRNIC_DCQCN_ATTR_CLAMP_TGT_RATE, &Dcqcn::clamp_tgt_rate},
        {"clamp_tgt_rate_after_time_inc", VRNIC_DCQCN_ATTR_CLAMP_TGT_RATE_AFTER_TIME_INC,
         &Dcqcn::clamp_tgt_rate_after_time_inc},
    };
    return ps;
}

const std::vector<Param<Qos>>& qos_params() {
    static const std::vector<Param<Qos>> ps = {
        {"pfc_en", VRNIC_QOS_ATTR_PFC_EN, &Qos::pfc_en},
        {"ecn_en", VRNIC_QOS_ATTR_ECN_EN, &Qos::ecn_en},
        {"tclass", VRNIC_QOS_ATTR_TCLASS, &Qos::tclass},
        {"cnp_dscp", VRNIC_QOS_ATTR_CNP_DSCP, &Qos::cnp_dscp},
        {"cnp_prio", VRNIC_QOS_ATTR_CNP_PRIO, &Qos::cnp_prio},
    };
    return ps;
}

template <typename S>
static bool params_equal(const std::vector<Param<S>>& ps, const S& a, const S& b) {
    for (const auto& p : ps)
        if (p.get(a) != p.get(b))
            return false;
    return true;
}

bool Limits::operator==(const Limits& o) const {
    return params_equal(limits_params(), *this, o);
}
bool Dcqcn::operator==(const Dcqcn& o) const {
    return params_equal(dcqcn_params(), *this, o);
}
bool Qos::operator==(const Qos& o) const {
    return trust == o.trust && dscp2prio == o.dscp2prio && params_equal(qos_params(), *this, o);
}

template <typename S> static std::string param_name(const std::vector<Param<S>>& ps, int attr) {
    for (const auto& p : ps)
        if (p.attr == attr)
            return p.name;
    return "";
}

std::string attr_name(const std::vector<int>& path) {
    if (path.size() < 2)
        return "";
    switch (path[0]) {
    case VRNIC_ATTR_LIMITS:
        return param_name(limits_params(), path[1]);
    case VRNIC_ATTR_DCQCN:
        return param_name(dcqcn_params(), path[1]);
    case VRNIC_ATTR_QOS:
        break;
    default:
        return "";
    }
    switch (path[1]) {
    case VRNIC_QOS_ATTR_TRUST:
        return "trust";
    case VRNIC_QOS_ATTR_PRIO2TC:
        return "prio2tc";
    case VRNIC_QOS_ATTR_DSCP2PRIO:
        // {DSCP2PRIO, entry, member}
        if (path.size() >= 4 && path[3] == VRNIC_DSCP_MAP_ATTR_DSCP)
            return "dscp2prio dscp";
        if (path.size() >= 4 && path[3] == VRNIC_DSCP_MAP_ATTR_PRIO)
            return "dscp2prio prio";
        return "dscp2prio";
    default:
        return param_name(qos_params(), path[1]);
    }
}

std::string trust_name(uint8_t trust) {
    switch (trust) {
    case VRNIC_TRUST_PCP:
        return "pcp";
    case VRNIC_TRUST_DSCP:
        return "dscp";
    default:
        return std::to_string(trust);
    }
}

std::optional<uint8_t> trust_from_name(const std::string& name) {
    if (name == "pcp")
        return VRNIC_TRUST_PCP;
    if (name == "dscp")
        return VRNIC_TRUST_DSCP;
    return std::nullopt;
}

// ---- building ----------------------------------------------------------------

Message build_getfamily(const std::string& name) {
    Message m = Message::genl(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, 0);
    m.put_string(CTRL_ATTR_FAMILY_NAME, name);
    return m;
}

Message build_getpolicy(uint16_t family, uint8_t cmd) {
    Message m = Message::genl(GENL_ID_CTRL, CTRL_CMD_GETPOLICY, 1, NLM_F_DUMP);
    m.put_u16(CTRL_ATTR_FAMILY_ID, family);
    m.put_u32(CTRL_ATTR_OP, cmd);
    return m;
}

// A dump reply carries either the policies of the command
// (CTRL_ATTR_OP_POLICY: op -> CTRL_ATTR_POLICY_DO index) or one entry of
// one policy (CTRL_ATTR_POLICY: policy index -> attribute -> the entry's
// NL_POLICY_TYPE_ATTR_*), as net/netlink/genetlink.c's ctrl_dumppolicy()
// writes them.
Status PolicyDump::add(const nlmsghdr* nlh) {
    static const nla_policy* pol = make_policy<CTRL_ATTR_MAX + 1>({
        {CTRL_ATTR_FAMILY_ID, NLA_U16},
        {CTRL_ATTR_OP_POLICY, NLA_NESTED},
        {CTRL_ATTR_POLICY, NLA_NESTED},
    });
    auto a = Attrs::parse(nlh, GENL_HDRLEN, CTRL_ATTR_MAX, pol);
    if (!a)
        return a.error();
    for (const nlattr* op : a->nested_list(CTRL_ATTR_OP_POLICY)) {
        static const nla_policy* op_pol = make_policy<CTRL_ATTR_POLICY_DUMP_MAX + 1>({
            {CTRL_ATTR_POLICY_DO, NLA_U32},
            {CTRL_ATTR_POLICY_DUMP, NLA_U32},
        });
        auto oa = Attrs::parse_nested(op, CTRL_ATTR_POLICY_DUMP_MAX, op_pol);
        if (!oa)
            return oa.error();
        if (auto idx = oa->u32(CTRL_ATTR_POLICY_DO))
            do_policy_ = *idx;
    }
    for (const nlattr* policy : a->nested_list(CTRL_ATTR_POLICY)) {
        auto& entries = policies_[nla_type(policy) & NLA_TYPE_MASK];
        int rem = 0;
        const nlattr* attr = nullptr;
        nla_for_each_nested(attr, policy, rem) {
            static const nla_policy* entry_pol = make_policy<NL_POLICY_TYPE_ATTR_MAX + 1>({
                {NL_POLICY_TYPE_ATTR_MIN_VALUE_U, NLA_U64},
                {NL_POLICY_TYPE_ATTR_MAX_VALUE_U, NLA_U64},
                {NL_POLICY_TYPE_ATTR_POLICY_IDX, NLA_U32},
            });
            auto ea = Attrs::parse_nested(attr, NL_POLICY_TYPE_ATTR_MAX, entry_pol);
            if (!ea)
                return ea.error();
            Entry& e = entries[nla_type(attr) & NLA_TYPE_MASK];
            auto lo = ea->u64(NL_POLICY_TYPE_ATTR_MIN_VALUE_U);
            auto hi = ea->u64(NL_POLICY_TYPE_ATTR_MAX_VALUE_U);
            if (lo && hi)
                e.range = Range{*lo, *hi};
            e.nested_policy = ea->u32(NL_POLICY_TYPE_ATTR_POLICY_IDX);
        }
    }
    return ok_status();
}

NestRanges PolicyDump::nest_ranges(int nest_attr) const {
    NestRanges out;
    if (!do_policy_)
        return out;
    auto top = policies_.find(*do_policy_);
    if (top == policies_.end())
        return out;
    auto nest = top->second.find(nest_attr);
    if (nest == top->second.end() || !nest->second.nested_policy)
        return out;
    auto inner = policies_.find(*nest->second.nested_policy);
    if (inner == policies_.end())
        return out;
    for (const auto& [attr, e] : inner->second)
        if (e.range)
            out[attr] = *e.range;
    return out;
}

Result<Family> parse_family(const nlmsghdr* nlh) {
    static const nla_policy* pol = make_policy<CTRL_ATTR_MAX + 1>({
        {CTRL_ATTR_FAMILY_ID, NLA_U16},
        {CTRL_ATTR_FAMILY_NAME, NLA_STRING},
        {CTRL_ATTR_VERSION, NLA_U32},
        {CTRL_ATTR_MCAST_GROUPS, NLA_NESTED},
    });
    static const nla_policy* grp_pol = make_policy<CTRL_ATTR_MCAST_GRP_MAX + 1>({
        {CTRL_ATTR_MCAST_GRP_NAME, NLA_STRING},
        {CTRL_ATTR_MCAST_GRP_ID, NLA_U32},
    });
    auto a = Attrs::parse(nlh, GENL_HDRLEN, CTRL_ATTR_MAX, pol);
    if (!a)
        return a.error();
    auto id = a->u16(CTRL_ATTR_FAMILY_ID);
    if (!id)
        return protocol_error("family reply without id");
    Family f;
    f.id = *id;
    f.version = a->u32(CTRL_ATTR_VERSION).value_or(0);
    for (const nlattr* g : a->nested_list(CTRL_ATTR_MCAST_GROUPS)) {
        auto ga = Attrs::parse_nested(g, CTRL_ATTR_MCAST_GRP_MAX, grp_pol);
        if (!ga)
            return ga.error();
        auto name = ga->str(CTRL_ATTR_MCAST_GRP_NAME);
        auto gid = ga->u32(CTRL_ATTR_MCAST_GRP_ID);
        if (name && gid)
            f.groups[*name] = *gid;
    }
    return f;
}

Message build_get(uint16_t family, uint8_t cmd, const std::optional<std::string>& dev, bool dump) {
    Message m = Message::genl(family, cmd, VRNIC_GENL_VERSION, dump ? NLM_F_DUMP : 0);
    if (dev)
        m.put_string(VRNIC_ATTR_DEV_NAME, *dev);
    return m;
}

Message build_limits_set(uint16_t family, const std::string& dev, const Limits& l) {
    Message m = Message::genl(family, VRNIC_CMD_LIMITS_SET, VRNIC_GENL_VERSION, 0);
    m.put_string(VRNIC_ATTR_DEV_NAME, dev);
    put_params(m, VRNIC_ATTR_LIMITS, limits_params(), l);
    return m;
}

Message build_dcqcn_set(uint16_t family, const std::string& dev, const Dcqcn& d) {
    Message m = Message::genl(family, VRNIC_CMD_DCQCN_SET, VRNIC_GENL_VERSION, 0);
    m.put_string(VRNIC_ATTR_DEV_NAME, dev);
    put_params(m, VRNIC_ATTR_DCQCN, dcqcn_params(), d);
    return m;
}

Message build_qos_set(uint16_t family, const std::string& dev, const Qos& q) {
    Message m = Message::genl(family, VRNIC_CMD_QOS_SET, VRNIC_GENL_VERSION, 0);
    m.put_string(VRNIC_ATTR_DEV_NAME, dev);
    m.begin_nest(VRNIC_ATTR_QOS);
    if (q.trust)
        m.put_u8(VRNIC_QOS_ATTR_TRUST, *q.trust);
    for (const auto& p : qos_params())
        if (auto v = p.get(q))
            m.put_u8(p.attr, static_cast<uint8_t>(*v));
    if (!q.dscp2prio.empty()) {
        m.begin_nest(VRNIC_QOS_ATTR_DSCP2PRIO);
        for (auto [dscp, prio] : q.dscp2prio)
            m.begin_nest(VRNIC_ENTRY)
                .put_u8(VRNIC_DSCP_MAP_ATTR_DSCP, dscp)
                .put_u8(VRNIC_DSCP_MAP_ATTR_PRIO, prio)
                .end_nest();
        m.end_nest();
    }
    m.end_nest();
    return m;
}

// ---- parsing -----------------------------------------------------------------

Result<Limits> parse_limits(const nlmsghdr* nlh, std::string* dev) {
    return parse_object_reply(nlh, dev, VRNIC_ATTR_LIMITS, "limits", parse_limits_nest);
}

Result<Dcqcn> parse_dcqcn(const nlmsghdr* nlh, std::string* dev) {
    return parse_object_reply(nlh, dev, VRNIC_ATTR_DCQCN, "dcqcn", parse_dcqcn_nest);
}

Result<Qos> parse_qos(const nlmsghdr* nlh, std::string* dev) {
    return parse_object_reply(nlh, dev, VRNIC_ATTR_QOS, "qos", parse_qos_nest);
}

Result<Stats> parse_stats(const nlmsghdr* nlh) {
    static const nla_policy* pol = make_policy<VRNIC_COUNTER_ATTR_MAX + 1>({
        {VRNIC_COUNTER_ATTR_NAME, NLA_STRING},
        {VRNIC_COUNTER_ATTR_VALUE, NLA_U64},
    });
    std::string dev;
    auto a = parse_top(nlh, &dev);
    if (!a)
        return a.error();
    Stats s;
    s.dev_name = dev;
    s.dev_index = a->u32(VRNIC_ATTR_DEV_INDEX).value_or(0);
    s.qpn = a->u32(VRNIC_ATTR_QPN);
    for (const nlattr* e : a->nested_list(VRNIC_ATTR_COUNTERS)) {
        auto ea = Attrs::parse_nested(e, VRNIC_COUNTER_ATTR_MAX, pol);
        if (!ea)
            return ea.error();
        auto name = ea->str(VRNIC_COUNTER_ATTR_NAME);
        auto value = ea->u64(VRNIC_COUNTER_ATTR_VALUE);
        if (!name || !value)
            return protocol_error("counter without name or value");
        s.counters.push_back({*name, *value});
    }
    return s;
}

Result<ConfigEvent> parse_config_event(const nlmsghdr* nlh) {
    std::string dev;
    auto a = parse_top(nlh, &dev);
    if (!a)
        return a.error();
    ConfigEvent ev;
    ev.dev_name = dev;
    ev.dev_index = a->u32(VRNIC_ATTR_DEV_INDEX).value_or(0);
    if (const nlattr* n = a->raw(VRNIC_ATTR_LIMITS)) {
        auto l = parse_limits_nest(n);
        if (!l)
            return l.error();
        ev.limits = *l;
    }
    if (const nlattr* n = a->raw(VRNIC_ATTR_QOS)) {
        auto q = parse_qos_nest(n);
        if (!q)
            return q.error();
        ev.qos = *q;
    }
    if (const nlattr* n = a->raw(VRNIC_ATTR_DCQCN)) {
        auto d = parse_dcqcn_nest(n);
        if (!d)
            return d.error();
        ev.dcqcn = *d;
    }
    return ev;
}

// ---- the client --------------------------------------------------------------

Result<Vrnic> Vrnic::open() {
    auto sk = Socket::open(NETLINK_GENERIC);
    if (!sk)
        return sk.error();
    Message m = build_getfamily(VRNIC_GENL_NAME);
    std::optional<Result<Family>> fam;
    Status st = sk->transact(m, "resolve generic netlink family " VRNIC_GENL_NAME,
                             [&](const nlmsghdr* nlh) -> Status {
                                 fam = parse_family(nlh);
                                 return fam->ok() ? ok_status() : Status(fam->error());
                             });
    if (!st) {
        Error e = st.error();
        if (e.err == ENOENT) {
            e.context = "generic netlink family " VRNIC_GENL_NAME " not found";
            e.extack = "is the vrnic module loaded?";
        }
        return e;
    }
    if (!fam)
        return protocol_error("no family reply");
    if (!*fam)
        return fam->error();
    return Vrnic(std::move(sk).value(), std::move(*fam).value());
}

template <typename T>
Result<T> Vrnic::get_one(uint8_t cmd, const std::string& dev, const char* what,
                         Result<T> (*parse)(const nlmsghdr*, std::string*)) {
    std::optional<Result<T>> out;
    Message m = build_get(family_.id, cmd, dev, false);
    Status st = sk_.transact(m, std::string("get ") + what + " of " + dev,
                             [&](const nlmsghdr* nlh) -> Status {
                                 out = parse(nlh, nullptr);
                                 return out->ok() ? ok_status() : Status(out->error());
                             });
    if (!st)
        return st.error();
    if (!out)
        return protocol_error(std::string("no ") + what + " in reply");
    return std::move(*out);
}

Result<std::vector<std::string>> Vrnic::devices() {
    std::vector<std::string> out;
    Message m = build_get(family_.id, VRNIC_CMD_LIMITS_GET, std::nullopt, true);
    Status st = sk_.transact(m, "list vrnic devices", [&](const nlmsghdr* nlh) -> Status {
        auto a = parse_top(nlh, nullptr);
        if (!a)
            return a.error();
        if (auto name = a->str(VRNIC_ATTR_DEV_NAME))
            out.push_back(*name);
        return ok_status();
    });
    if (!st)
        return st.error();
    return out;
}

Result<Limits> Vrnic::limits(const std::string& dev) {
    return get_one<Limits>(VRNIC_CMD_LIMITS_GET, dev, "limits", parse_limits);
}
Result<Qos> Vrnic::qos(const std::string& dev) {
    return get_one<Qos>(VRNIC_CMD_QOS_GET, dev, "qos", parse_qos);
}
Result<Dcqcn> Vrnic::dcqcn(const std::string& dev) {
    return get_one<Dcqcn>(VRNIC_CMD_DCQCN_GET, dev, "dcqcn", parse_dcqcn);
}

// Sends a SET; a rejection names the parameter the kernel blamed.
static Status transact_set(Socket& sk, Message& m, const std::string& context) {
    Status st = sk.transact(m, context);
    if (st || !st.error().bad_attr_offset)
        return st;
    Error e = st.error();
    e.attr_name = attr_name(attr_path(m.header(), GENL_HDRLEN, e.bad_attr_offset));
    return e;
}

Status Vrnic::set_limits(const std::string& dev, const Limits& l) {
    Message m = build_limits_set(family_.id, dev, l);
    return transact_set(sk_, m, "set limits of " + dev);
}
Status Vrnic::set_qos(const std::string& dev, const Qos& q) {
    Message m = build_qos_set(family_.id, dev, q);
    return transact_set(sk_, m, "set qos of " + dev);
}
Status Vrnic::set_dcqcn(const std::string& dev, const Dcqcn& d) {
    Message m = build_dcqcn_set(family_.id, dev, d);
    return transact_set(sk_, m, "set dcqcn of " + dev);
}

Result<NestRanges> Vrnic::set_ranges(uint8_t cmd, int nest_attr) {
    PolicyDump dump;
    Message m = build_getpolicy(family_.id, cmd);
    Status st = sk_.transact(m, "read the policy of vrnic command " + std::to_string(cmd),
                             [&](const nlmsghdr* nlh) { return dump.add(nlh); });
    if (!st)
        return st.error();
    return dump.nest_ranges(nest_attr);
}

Result<std::vector<Stats>> Vrnic::qp_stats(const std::optional<std::string>& dev,
                                           const std::optional<uint32_t>& qpn) {
    bool one = dev && qpn;
    Message m = build_get(family_.id, VRNIC_CMD_QP_STATS_GET, dev, !one);
    if (one)
        m.put_u32(VRNIC_ATTR_QPN, *qpn);
    std::string ctx = "read QP counters";
    if (dev)
        ctx += " of " + *dev;
    if (qpn)
        ctx += " qp " + std::to_string(*qpn);
    return sk_.collect_replies(m, ctx, parse_stats);
}

Status Vrnic::monitor(const std::function<Status(const ConfigEvent&)>& on_event) {
    auto it = family_.groups.find(VRNIC_GENL_MCGRP_CONFIG);
    if (it == family_.groups.end())
        return make_error(ENOENT, "multicast group " VRNIC_GENL_MCGRP_CONFIG " not found");
    auto sk = Socket::open(NETLINK_GENERIC);
    if (!sk)
        return sk.error();
    uint16_t id = family_.id;
    return sk->listen(static_cast<int>(it->second), [&](const nlmsghdr* nlh) -> Status {
        if (nlh->nlmsg_type != id)
            return ok_status();
        const auto* gh = static_cast<const genlmsghdr*>(NLMSG_DATA(nlh));
        if (gh->cmd != VRNIC_CMD_CONFIG_NTF)
            return ok_status();
        auto ev = parse_config_event(nlh);
        if (!ev)
            return ev.error();
        return on_event(*ev);
    });
}

} // namespace libctl
