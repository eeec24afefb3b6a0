// aeif_cond_exp and aeif_cond_alpha: the family's group (aeif_family.hpp) with two
// conductances, excitatory and inhibitory, the weight's sign choosing.
#include "spikex/models/aeif_cond.hpp"

#include <numbers>

#include "spikex/core/format.hpp"
#include "spikex/models/aeif_family.hpp"
#include "spikex/models/model_parameters.hpp"
#include "spikex/models/neuron_parameters.hpp"

namespace spikex {
namespace aeif_cond {
namespace {

namespace np = neuron_parameters;

const char* name_of(synapse_shape shape) { return shape == synapse_shape::exp ? "aeif_cond_exp" : "aeif_cond_alpha"; }

struct parameters: aeif::membrane_parameters {
    double E_ex, E_in, tau_syn_ex, tau_syn_in;
};

// The parameter table: NEST 3.10's names and defaults (the same for both shapes, only the
// synaptic time constants mean another thing).
std::vector<model_parameters::field<parameters>> table_of(synapse_shape shape) {
    const bool alpha = shape == synapse_shape::alpha;
    auto fields = aeif::fields_before_synapses<parameters>();
    fields.insert(
        fields.end(),
        {
            {{"E_ex", "mV", 0.0, "", ranges::any(), "reversal potential of the excitatory conductance"},
             &parameters::E_ex},
            {{"E_in", "mV", -85.0, "", ranges::any(), "reversal potential of the inhibitory conductance"},
             &parameters::E_in},
            {np::tau_syn("tau_syn_ex", 0.2,
                         alpha ? "rise time of the excitatory alpha conductance (its peak, weight nS, comes tau_syn_ex "
                                 "after the spike)"
                               : "decay time of the excitatory conductance"),
             &parameters::tau_syn_ex},
            {np::tau_syn("tau_syn_in", 2.0,
                         alpha ? "rise time of the inhibitory alpha conductance (its peak, |weight| nS, comes "
                                 "tau_syn_in after the spike)"
                               : "decay time of the inhibitory conductance"),
             &parameters::tau_syn_in},
        });
    const auto after = aeif::fields_after_synapses<parameters>();
    fields.insert(fields.end(), after.begin(), after.end());
    return fields;
}

const std::vector<model_parameters::field<parameters>>& table(synapse_shape shape) {
    static const auto exp_table = table_of(synapse_shape::exp);
    static const auto alpha_table = table_of(synapse_shape::alpha);
    return shape == synapse_shape::exp ? exp_table : alpha_table;
}

const std::vector<state_spec> state_table = {{"V_m", "mV", "membrane potential"},
                                             {"w", "pA", "adaptation current"},
                                             {"g_ex", "nS", "excitatory synaptic conductance"},
                                             {"g_in", "nS", "inhibitory synaptic conductance"}};

// The family's Model (aeif_family.hpp): y = (V_m, w, g_ex, g_in; alpha also dg_ex, dg_in);
// input 0 excitatory, 1 inhibitory.
template <synapse_shape Shape>
struct model {
    using parameters = aeif_cond::parameters;
    static constexpr bool alpha = Shape == synapse_shape::alpha;
    static constexpr const char* name = alpha ? "aeif_cond_alpha" : "aeif_cond_exp";
    static constexpr bool rise = alpha, ports = false, conductances_settable = true;
    static constexpr std::size_t inputs = 2, size = alpha ? 6 : 4, saved_size = size;
    static constexpr std::size_t g(std::size_t k) { return 2 + k; }
    static constexpr std::size_t dg(std::size_t k) { return 4 + k; }
    static constexpr std::size_t used(std::uint32_t) { return size; }

    static parameters parse(const std::map<std::string, double>& values) {
        const parameters p = model_parameters::parse(name, table(Shape), values);
        aeif::check_relations(name, p);
        return p;
    }
    static std::array<double, 17> key(const parameters& p) {
        const auto m = aeif::membrane_key(p);
        std::array<double, 17> k{};
        std::copy(m.begin(), m.end(), k.begin());
        k[13] = p.E_ex;
        k[14] = p.E_in;
        k[15] = p.tau_syn_ex;
        k[16] = p.tau_syn_in;
        return k;
    }
    static aeif::lists lists_of(const population_spec&, gid_type) { return {}; }
    static aeif::conductances<2> conductances_of(const parameters& p, const aeif::lists&) {
        aeif::conductances<2> c;
        c.count = 2;
        c.E_rev = {p.E_ex, p.E_in};
        c.tau_rise = c.tau_decay = {p.tau_syn_ex, p.tau_syn_in};
        // alpha: an input of 1 nS peaks at 1 nS, tau_syn after it
        c.g0 =
            alpha ? std::array{std::numbers::e / p.tau_syn_ex, std::numbers::e / p.tau_syn_in} : std::array{1.0, 1.0};
        return c;
    }
    // C_m dV/dt as NEST's right-hand side computes it, in its order of operations.
    template <class State, class T>
    SPIKEX_LANES_INLINE static T membrane_current(const parameters& p, const aeif::conductances<2>&, const State& y,
                                                  const T& V, const T& I_spike, const T& I_stim) {
        const T I_syn_ex = y[g(0)] * (V - p.E_ex);
        const T I_syn_in = y[g(1)] * (V - p.E_in);
        return -p.g_L * (V - p.E_L) + I_spike - I_syn_ex - I_syn_in - y[1] + p.I_e + I_stim;
    }
    static int conductance_named(const std::string& variable, std::uint32_t) {
        return variable == "g_ex" ? 0 : variable == "g_in" ? 1 : -1;
    }
    static const std::vector<state_spec>& state_table() { return aeif_cond::state_table; }
};

model_entry entry(synapse_shape shape) {
    const bool alpha = shape == synapse_shape::alpha;
    model_entry e;
    e.name = name_of(shape);
    e.kind = model_kind::neuron;
    e.description = spikex::format("NEST's adaptive exponential integrate-and-fire neuron (Brette & Gerstner 2005) "
                                   "with {} synaptic conductances, weights in nS",
                                   alpha ? "alpha-shaped" : "exponentially decaying");
    e.parameters = model_parameters::specs_of(table(shape));
    e.state = state_table;
    e.accepts_current = true;
    e.checkpoint_state = {"V_m", "w", "g_ex", "g_in"};
    if (alpha) e.checkpoint_state.insert(e.checkpoint_state.end(), {"dg_ex", "dg_in"});
    e.checkpoint_state.insert(e.checkpoint_state.end(), {"I_stim", "r", "stim_active", "substep"});
    e.receptors = alpha ? "spikes: weight > 0 excitatory alpha conductance (peak weight nS), <= 0 inhibitory (the "
                          "magnitude); currents (pA)"
                        : "spikes: weight > 0 excitatory conductance, <= 0 inhibitory (nS, the magnitude); currents "
                          "(pA)";
    e.integration = "NEST's Runge-Kutta-Fehlberg 4(5) with GSL's step control (error bound gsl_error_tol per sub-step, "
                    "absolute and relative to dt·|dy/dt|), spikes detected between sub-steps";
    e.nest_model = e.name;
    e.pynn_types = {alpha ? "EIF_cond_alpha_isfa_ista" : "EIF_cond_exp_isfa_ista"};
    e.docs_page = "docs/models/aeif_cond.md";
    e.make = [shape](const network_spec& spec, const std::vector<gid_type>& local_gids, local_index first_local) {
        return make_group(shape, spec, local_gids, first_local);
    };
    return e;
}

} // namespace

std::unique_ptr<cell_group> make_group(synapse_shape shape, const network_spec& spec,
                                       const std::vector<gid_type>& local_gids, local_index first_local) {
    if (shape == synapse_shape::alpha)
        return aeif::make_group<model<synapse_shape::alpha>>(spec, local_gids, first_local);
    return aeif::make_group<model<synapse_shape::exp>>(spec, local_gids, first_local);
}

} // namespace aeif_cond

model_entry aeif_cond_exp_model() { return aeif_cond::entry(aeif_cond::synapse_shape::exp); }
model_entry aeif_cond_alpha_model() { return aeif_cond::entry(aeif_cond::synapse_shape::alpha); }

} // namespace spikex
