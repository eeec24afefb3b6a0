// iaf_cond_alpha's conductances: alpha functions, an input jumps dg (iaf_cond_group.hpp).
#include "spikex/models/iaf_cond_alpha.hpp"

#include <numbers>

#include "spikex/models/iaf_cond_group.hpp"

namespace spikex {
namespace iaf_cond_alpha {
namespace {

struct alpha_shape {
    static constexpr const char* name = "iaf_cond_alpha";
    static constexpr std::size_t size = 5;
    enum : std::size_t { dg_ex = 1, g_ex = 2, dg_in = 3, g_in = 4 }; // NEST's order
    using parameters = iaf_cond::parameters;
    static const auto& table() { return iaf_cond::table(); }
    static std::vector<std::string> ode_state_names() { return {"V_m", "dg_ex", "g_ex", "dg_in", "g_in"}; }
    static const std::vector<state_spec>& state_table() {
        static const std::vector<state_spec> specs = {{"V_m", "mV", "membrane potential"},
                                                      {"g_ex", "nS", "excitatory synaptic conductance"},
                                                      {"g_in", "nS", "inhibitory synaptic conductance"}};
        return specs;
    }
    static constexpr std::size_t state_index[] = {0, g_ex, g_in}; // where each of state_table is in y
    // C_m dV/dt, NEST's terms in NEST's order
    template <class T>
    SPIKEX_LANES_INLINE static T membrane_current(const T& I_L, const T& I_stim, double I_e, const T& I_ex,
                                                  const T& I_in) {
        return -I_L - I_ex - I_in + I_stim + I_e;
    }
    template <class State>
    static void synapses(const State& y, State& f, const iaf_cond::parameters& p) {
        f[dg_ex] = -y[dg_ex] / p.tau_syn_ex;
        f[g_ex] = y[dg_ex] - (y[g_ex] / p.tau_syn_ex);
        f[dg_in] = -y[dg_in] / p.tau_syn_in;
        f[g_in] = y[dg_in] - (y[g_in] / p.tau_syn_in);
    }
    template <class State>
    static void input(State& y, const iaf_cond::parameters& p, double ex, double in) {
        y[dg_ex] += ex * (1.0 * std::numbers::e / p.tau_syn_ex);
        y[dg_in] += in * (1.0 * std::numbers::e / p.tau_syn_in);
    }
};

} // namespace

std::unique_ptr<cell_group> make_group(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                       local_index first_local) {
    return std::make_unique<iaf_cond::group<alpha_shape>>(spec, local_gids, first_local);
}

} // namespace iaf_cond_alpha

model_entry iaf_cond_alpha_model() {
    model_entry e = iaf_cond::entry<iaf_cond_alpha::alpha_shape>();
    e.description = "NEST's leaky integrate-and-fire neuron with alpha-shaped synaptic conductances, weights in nS "
                    "(the conductance's peak)";
    e.pynn_types = {"IF_cond_alpha"};
    return e;
}

} // namespace spikex
