// The iaf_cond_exp cell group: per-cell state and sub-step size, parameter sets shared by
// runs of cells (cell_parameter_sets.hpp), the ODE layer for the dynamics.
#include "spikex/models/iaf_cond_exp.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/models/cell_parameter_sets.hpp"
#include "spikex/models/dynamics_failure.hpp"
#include "spikex/models/iaf_propagators.hpp"
#include "spikex/models/iaf_step.hpp"
#include "spikex/models/model_parameters.hpp"
#include "spikex/models/neuron_parameters.hpp"
#include "spikex/models/ode/adaptive_integrator.hpp"

namespace spikex {
namespace iaf_cond_exp {
namespace {

namespace np = neuron_parameters;

const char* const model_name = "iaf_cond_exp";

struct parameters {
    double V_th, V_reset, t_ref, g_L, C_m, E_ex, E_in, E_L, tau_syn_ex, tau_syn_in, I_e;
    double V_m;       // initial membrane potential
    double tau_minus; // STDP depression time constant (read by the synapses)
};

// The parameter table: NEST 3.10's defaults. V_m starts at -70 mV unless given, whatever
// E_L is (NEST's rule).
const std::vector<model_parameters::field<parameters>> table = {
    {np::V_th(), &parameters::V_th},
    {np::V_reset(-60.0), &parameters::V_reset},
    {np::t_ref(), &parameters::t_ref},
    {{"g_L", "nS", 16.6667, "", ranges::any(), "leak conductance"}, &parameters::g_L},
    {np::C_m(), &parameters::C_m},
    {{"E_ex", "mV", 0.0, "", ranges::any(), "reversal potential of the excitatory conductance"}, &parameters::E_ex},
    {{"E_in", "mV", -85.0, "", ranges::any(), "reversal potential of the inhibitory conductance"}, &parameters::E_in},
    {np::E_L("leak reversal potential"), &parameters::E_L},
    {np::tau_syn("tau_syn_ex", 0.2, "decay time of the excitatory conductance"), &parameters::tau_syn_ex},
    {np::tau_syn("tau_syn_in", 2.0, "decay time of the inhibitory conductance"), &parameters::tau_syn_in},
    {np::I_e(), &parameters::I_e},
    {np::V_m(), &parameters::V_m},
    {np::tau_minus(), &parameters::tau_minus},
};

const std::vector<state_spec> state_table = {{"V_m", "mV", "membrane potential"},
                                             {"g_ex", "nS", "excitatory synaptic conductance"},
                                             {"g_in", "nS", "inhibitory synaptic conductance"}};

enum : std::size_t { V_M, G_EX, G_IN };
using ode_state = ode::adaptive_integrator<3>::state;

parameters parse_parameters(const std::map<std::string, double>& values) {
    const parameters p = model_parameters::parse(model_name, table, values);
    model_parameters::require(p.V_reset < p.V_th, model_name, "V_reset", p.V_reset,
                              spikex::format("must be < V_th = {} mV", model_parameters::number(p.V_th)));
    return p;
}

std::array<double, 11> dynamics_key(const parameters& p) {
    return {p.V_th, p.V_reset, p.t_ref, p.g_L, p.C_m, p.E_ex, p.E_in, p.E_L, p.tau_syn_ex, p.tau_syn_in, p.I_e};
}

struct parameter_set {
    parameters p;
    std::int32_t refractory_steps;
};

class iaf_cond_exp_group final: public cell_group {
public:
    iaf_cond_exp_group(const network_spec& spec, const std::vector<gid_type>& gids, local_index first_local):
        h_(spec.dt_ms), first_(first_local), gids_(gids) {
        const std::size_t n = gids.size();
        y_.resize(n);
        auto resolved = resolve_cell_parameters<parameters>(
            spec, model_name, gids, [](const population_spec&, const auto& values) { return parse_parameters(values); },
            dynamics_key,
            [&](local_index i, const parameters& p, std::uint32_t) {
                y_[i] = {p.V_m, 0.0, 0.0};
            });
        runs_ = std::move(resolved.runs);
        for (const auto& p: resolved.sets) sets_.push_back(make_set(p, h_));
        substep_.assign(n, h_);
        ex_sum_.assign(n, 0.0);
        in_sum_.assign(n, 0.0);
        refractory_count_.assign(n, 0);
    }

    void begin_step(step_type, spike_output&) override {}

    void deliver(step_type, const local_index* targets, const double* weights, std::uint32_t begin, std::uint32_t end,
                 spike_output&) override {
        for (std::uint32_t c = begin; c < end; ++c) {
            const local_index i = targets[c] - first_;
            const double w = weights[c];
            if (w > 0.0)
                ex_sum_[i] += w;
            else
                in_sum_[i] -= w; // NEST: the inhibitory conductance grows by -w
        }
    }

    void deliver_current(step_type, local_index cell, double current) override {
        stim_.add(y_.size(), cell - first_, current);
    }

    void end_step(step_type n, spike_output& out) override {
        const double* stim = stim_.now();
        for (const auto& run: runs_) {
            const parameter_set& s = sets_[run.set];
            for (local_index i = run.begin; i < run.end; ++i) {
                update(s, i, n, stim ? stim[i] : 0.0);
                if (refractory_count_[i] > 0) {
                    --refractory_count_[i];
                    y_[i][V_M] = s.p.V_reset;
                } else if (y_[i][V_M] >= s.p.V_th) {
                    refractory_count_[i] = s.refractory_steps;
                    y_[i][V_M] = s.p.V_reset;
                    out.emit(first_ + i, n);
                }
            }
        }
        stim_.advance();
    }

    double state(local_index cell, const std::string& variable) const override {
        const std::size_t i = cell - first_;
        if (variable == "V_m") return y_[i][V_M];
        if (variable == "g_ex") return y_[i][G_EX];
        if (variable == "g_in") return y_[i][G_IN];
        model_parameters::unknown_state(model_name, state_table, variable);
    }

    std::size_t bytes() const override {
        return y_.capacity() * sizeof(y_[0]) +
               (substep_.capacity() + ex_sum_.capacity() + in_sum_.capacity()) * sizeof(double) +
               refractory_count_.capacity() * sizeof(std::int32_t) + runs_.capacity() * sizeof(cell_run) +
               sets_.capacity() * sizeof(parameter_set) + stim_.bytes() + gids_.capacity() * sizeof(gid_type);
    }

    void save_cell(local_index cell, double* v) const override {
        const std::size_t i = cell - first_;
        v[0] = y_[i][V_M];
        v[1] = y_[i][G_EX];
        v[2] = y_[i][G_IN];
        v[3] = stim_.stim(i);
        v[4] = refractory_count_[i];
        v[5] = stim_.active() ? 1.0 : 0.0;
        v[6] = substep_[i];
    }
    void load_cell(local_index cell, const double* v) override {
        const std::size_t i = cell - first_;
        y_[i] = {v[0], v[1], v[2]};
        refractory_count_[i] = static_cast<std::int32_t>(v[4]);
        if (v[5] != 0) stim_.restore(y_.size(), i, v[3]);
        substep_[i] = v[6];
    }

private:
    static parameter_set make_set(const parameters& p, double h) {
        return {p, iaf_integration::checked_refractory_steps(model_name, p.t_ref, h)};
    }

    // Steps 1 and 2 of the header's update for cell i.
    void update(const parameter_set& s, std::size_t i, step_type n, double I_stim) {
        const parameters& p = s.p;
        const bool refractory = refractory_count_[i] > 0;
        const double drive = p.I_e + I_stim;
        auto derivative = [&](const ode_state& y, ode_state& f) {
            const double V = refractory ? p.V_reset : std::min(y[V_M], p.V_th);
            const double I_syn_ex = y[G_EX] * (V - p.E_ex);
            const double I_syn_in = y[G_IN] * (V - p.E_in);
            const double I_L = p.g_L * (V - p.E_L);
            f[V_M] = refractory ? 0.0 : (-I_L + drive - I_syn_ex - I_syn_in) / p.C_m;
            f[G_EX] = -y[G_EX] / p.tau_syn_ex;
            f[G_IN] = -y[G_IN] / p.tau_syn_in;
        };
        const bool integrated = integrator_.advance(derivative, y_[i], h_, substep_[i]);
        check_membrane(model_name, gids_[i], n, h_, integrated, y_[i][V_M]);
        y_[i][G_EX] += ex_sum_[i];
        y_[i][G_IN] += in_sum_[i];
        ex_sum_[i] = 0.0;
        in_sum_[i] = 0.0;
    }

    double h_;
    local_index first_;
    std::vector<gid_type> gids_; // for error messages
    std::vector<parameter_set> sets_;
    std::vector<cell_run> runs_;
    std::vector<ode_state> y_;
    std::vector<double> substep_;                // the integrator's sub-step per cell [ms]
    iaf_step::current_buffer stim_;              // current inputs (I_stim) [pA]
    std::vector<double> ex_sum_, in_sum_;        // conductance input of the current step [nS]
    std::vector<std::int32_t> refractory_count_; // r: refractory steps left
    ode::adaptive_integrator<3> integrator_;
};

} // namespace

std::unique_ptr<cell_group> make_group(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                       local_index first_local) {
    model_parameters::require_positive_dt(model_name, spec.dt_ms);
    return std::make_unique<iaf_cond_exp_group>(spec, local_gids, first_local);
}

} // namespace iaf_cond_exp

model_entry iaf_cond_exp_model() {
    model_entry e;
    e.name = "iaf_cond_exp";
    e.kind = model_kind::neuron;
    e.description = "NEST's leaky integrate-and-fire neuron with exponentially decaying synaptic conductances, "
                    "weights in nS";
    e.parameters = model_parameters::specs_of(iaf_cond_exp::table);
    e.state = iaf_cond_exp::state_table;
    e.accepts_current = true;
    e.checkpoint_state = {"V_m", "g_ex", "g_in", "I_stim", "r", "stim_active", "substep"};
    e.receptors = "spikes: weight > 0 excitatory conductance, <= 0 inhibitory (nS, the magnitude); currents (pA)";
    e.integration = "adaptive Runge-Kutta (Cash-Karp 5(4), absolute error 1e-3 per sub-step)";
    e.nest_model = "iaf_cond_exp";
    e.pynn_types = {"IF_cond_exp"};
    e.docs_page = "docs/models/iaf_cond_exp.md";
    e.make = [](const network_spec& spec, const std::vector<gid_type>& local_gids, local_index first_local) {
        return iaf_cond_exp::make_group(spec, local_gids, first_local);
    };
    return e;
}

} // namespace spikex
