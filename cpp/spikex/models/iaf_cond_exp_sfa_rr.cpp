// iaf_cond_exp_sfa_rr's conductances: iaf_cond_exp's synapses, plus the adaptation and
// relative-refractory conductances a spike opens (iaf_cond_group.hpp).
#include "spikex/models/iaf_cond_exp_sfa_rr.hpp"

#include "spikex/models/iaf_cond_group.hpp"

namespace spikex {
namespace iaf_cond_exp_sfa_rr {
namespace {

struct parameters: iaf_cond::parameters {
    double tau_sfa, tau_rr, E_sfa, E_rr, q_sfa, q_rr;
};

struct adapting_shape {
    static constexpr const char* name = "iaf_cond_exp_sfa_rr";
    static constexpr std::size_t size = 5;
    enum : std::size_t { g_ex = 1, g_in = 2, g_sfa = 3, g_rr = 4 }; // NEST's order
    using parameters = iaf_cond_exp_sfa_rr::parameters;

    // The family's parameters with NEST 3.10's defaults for this model, and its own.
    static const std::vector<model_parameters::field<parameters>>& table() {
        static const auto fields = iaf_cond::derived_table<parameters>(
            {{"V_th", -57.0},
             {"V_reset", -70.0},
             {"t_ref", 0.5},
             {"g_L", 28.95},
             {"C_m", 289.5},
             {"E_in", -75.0},
             {"tau_syn_ex", 1.5},
             {"tau_syn_in", 10.0}},
            {
                {{"tau_sfa", "ms", 110.0, "", ranges::positive(),
                  "time constant of the spike-frequency adaptation conductance g_sfa"},
                 &parameters::tau_sfa},
                {{"tau_rr", "ms", 1.97, "", ranges::positive(),
                  "time constant of the relative refractory conductance g_rr"},
                 &parameters::tau_rr},
                {{"E_sfa", "mV", -70.0, "", ranges::any(), "reversal potential of g_sfa"}, &parameters::E_sfa},
                {{"E_rr", "mV", -70.0, "", ranges::any(), "reversal potential of g_rr"}, &parameters::E_rr},
                {{"q_sfa", "nS", 14.48, "", ranges::any(), "jump of g_sfa at each spike"}, &parameters::q_sfa},
                {{"q_rr", "nS", 3214.0, "", ranges::any(), "jump of g_rr at each spike"}, &parameters::q_rr},
            });
        return fields;
    }
    static std::vector<std::string> ode_state_names() { return {"V_m", "g_ex", "g_in", "g_sfa", "g_rr"}; }
    static const std::vector<state_spec>& state_table() {
        static const std::vector<state_spec> specs = {
            {"V_m", "mV", "membrane potential"},
            {"g_ex", "nS", "excitatory synaptic conductance"},
            {"g_in", "nS", "inhibitory synaptic conductance"},
            {"g_sfa", "nS", "spike-frequency adaptation conductance"},
            {"g_rr", "nS", "relative refractory conductance"},
        };
        return specs;
    }
    static constexpr std::size_t state_index[] = {0, g_ex, g_in, g_sfa, g_rr}; // where each of state_table is in y

    template <class State>
    static void synapses(const State& y, State& f, const parameters& p) {
        f[g_ex] = -y[g_ex] / p.tau_syn_ex;
        f[g_in] = -y[g_in] / p.tau_syn_in;
        f[g_sfa] = -y[g_sfa] / p.tau_sfa;
        f[g_rr] = -y[g_rr] / p.tau_rr;
    }
    // C_m dV/dt without the adaptation currents, NEST's terms in NEST's order
    template <class T>
    SPIKEX_LANES_INLINE static T membrane_current(const T& I_L, const T& I_stim, double I_e, const T& I_ex,
                                                  const T& I_in) {
        return -I_L + I_stim + I_e - I_ex - I_in;
    }
    // The adaptation currents, subtracted last (NEST's order), with V as in the synaptic
    // currents (bounded by V_th, V_reset while refractory).
    template <class State, class T>
    static void currents(const State& y, const parameters& p, const T& V, T& I) {
        I -= y[g_sfa] * (V - p.E_sfa);
        I -= y[g_rr] * (V - p.E_rr);
    }
    template <class State>
    static void input(State& y, const parameters&, double ex, double in) {
        y[g_ex] += ex;
        y[g_in] += in;
    }
    template <class State>
    static void spike(State& y, const parameters& p) {
        y[g_sfa] += p.q_sfa;
        y[g_rr] += p.q_rr;
    }
};

} // namespace

std::unique_ptr<cell_group> make_group(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                       local_index first_local) {
    return std::make_unique<iaf_cond::group<adapting_shape>>(spec, local_gids, first_local);
}

} // namespace iaf_cond_exp_sfa_rr

model_entry iaf_cond_exp_sfa_rr_model() {
    model_entry e = iaf_cond::entry<iaf_cond_exp_sfa_rr::adapting_shape>();
    e.description = "NEST's iaf_cond_exp with a spike-frequency adaptation and a relative refractory conductance, "
                    "both opened by each spike, weights in nS";
    e.pynn_types = {"IF_cond_exp_gsfa_grr"};
    return e;
}

} // namespace spikex
