// iaf_cond_exp's conductances: exponential decay, an input jumps g (iaf_cond_group.hpp).
#include "spikex/models/iaf_cond_exp.hpp"

#include "spikex/models/iaf_cond_group.hpp"

namespace spikex {
namespace iaf_cond_exp {
namespace {

struct exponential_shape {
    static constexpr const char* name = "iaf_cond_exp";
    static constexpr std::size_t size = 3;
    enum : std::size_t { g_ex = 1, g_in = 2 };
    using parameters = iaf_cond::parameters;
    static const auto& table() { return iaf_cond::table(); }
    static std::vector<std::string> ode_state_names() { return {"V_m", "g_ex", "g_in"}; }
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
        return -I_L + I_stim + I_e - I_ex - I_in;
    }
    template <class State>
    static void synapses(const State& y, State& f, const iaf_cond::parameters& p) {
        f[g_ex] = -y[g_ex] / p.tau_syn_ex;
        f[g_in] = -y[g_in] / p.tau_syn_in;
    }
    template <class State>
    static void input(State& y, const iaf_cond::parameters&, double ex, double in) {
        y[g_ex] += ex;
        y[g_in] += in;
    }
};

} // namespace

std::unique_ptr<cell_group> make_group(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                       local_index first_local) {
    return std::make_unique<iaf_cond::group<exponential_shape>>(spec, local_gids, first_local);
}

} // namespace iaf_cond_exp

model_entry iaf_cond_exp_model() {
    model_entry e = iaf_cond::entry<iaf_cond_exp::exponential_shape>();
    e.description = "NEST's leaky integrate-and-fire neuron with exponentially decaying synaptic conductances, "
                    "weights in nS";
    e.pynn_types = {"IF_cond_exp"};
    return e;
}

} // namespace spikex
