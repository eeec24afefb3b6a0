// The hh_psc_alpha cell group: per-cell state and sub-step size, parameter sets shared
// by runs of cells (cell_parameter_sets.hpp), the ODE layer for the dynamics.
#include "spikex/models/hh_psc_alpha.hpp"

#include <array>
#include <cmath>
#include <numbers>

#include "spikex/core/errors.hpp"
#include "spikex/models/cell_parameter_sets.hpp"
#include "spikex/models/dynamics_failure.hpp"
#include "spikex/models/hh_step.hpp"
#include "spikex/models/iaf_propagators.hpp"
#include "spikex/models/iaf_step.hpp"
#include "spikex/models/model_parameters.hpp"
#include "spikex/models/neuron_parameters.hpp"
#include "spikex/models/ode/rkf45_integrator.hpp"

namespace spikex {
namespace hh_psc_alpha {
namespace {

namespace np = neuron_parameters;

const char* const model_name = "hh_psc_alpha";

struct parameters {
    double t_ref, g_Na, g_K, g_L, E_Na, E_K, E_L, C_m, tau_syn_ex, tau_syn_in, I_e;
    double V_m, Act_m, Inact_h, Act_n; // initial state
    double tau_minus;                  // STDP depression time constant (read by the synapses)
};

// NEST's rate functions [1/ms] of V [mV] (Hodgkin and Huxley's forms, rest near -65 mV).
template <class T>
struct rates {
    T alpha_m, beta_m, alpha_h, beta_h, alpha_n, beta_n;
};
template <class T>
SPIKEX_LANES_INLINE rates<T> rates_at(const T& V) {
    using hh_step::rate;
    return {rate(0.1, -(V + 40.0), 10.0), // 0.1 (V + 40) / (1 - exp(-(V + 40) / 10))
            4.0 * ode::exp(-(V + 65.0) / 18.0),
            0.07 * ode::exp(-(V + 65.0) / 20.0),
            1.0 / (1.0 + ode::exp(-(V + 35.0) / 10.0)),
            rate(0.01, -(V + 55.0), 10.0), // 0.01 (V + 55) / (1 - exp(-(V + 55) / 10))
            0.125 * ode::exp(-(V + 65.0) / 80.0)};
}

// NEST's initial state: V_m = -65 mV and the gating variables at their steady state there,
// alpha / (alpha + beta), whatever the parameters (E_L included) and a given V_m are.
constexpr double default_V_m = -65.0;
double nest_initial_gating(int which) {
    const rates<double> r = rates_at(default_V_m);
    if (which == 0) return r.alpha_m / (r.alpha_m + r.beta_m);
    if (which == 1) return r.alpha_h / (r.alpha_h + r.beta_h);
    return r.alpha_n / (r.alpha_n + r.beta_n);
}

parameter_spec gating(const char* name, int which, const char* meaning) {
    return {name, "1", nest_initial_gating(which), "", ranges::non_negative(), meaning};
}

// The parameter table: NEST 3.10's names and defaults, and its checks (C_m > 0, time
// constants > 0, t_ref >= 0, conductances >= 0, gating variables >= 0).
const std::vector<model_parameters::field<parameters>> table = {
    {{"t_ref", "ms", 2.0, "", ranges::non_negative(),
      "refractory period: no spike is detected for t_ref after one (rounded up to whole steps); the dynamics go on"},
     &parameters::t_ref},
    {{"g_Na", "nS", 12000.0, "", ranges::non_negative(), "peak sodium conductance"}, &parameters::g_Na},
    {{"g_K", "nS", 3600.0, "", ranges::non_negative(), "peak potassium conductance"}, &parameters::g_K},
    {{"g_L", "nS", 30.0, "", ranges::non_negative(), "leak conductance"}, &parameters::g_L},
    {{"E_Na", "mV", 50.0, "", ranges::any(), "sodium reversal potential"}, &parameters::E_Na},
    {{"E_K", "mV", -77.0, "", ranges::any(), "potassium reversal potential"}, &parameters::E_K},
    {{"E_L", "mV", -54.402, "", ranges::any(), "leak reversal potential"}, &parameters::E_L},
    {{"C_m", "pF", 100.0, "", ranges::positive(), "membrane capacitance"}, &parameters::C_m},
    {np::tau_syn("tau_syn_ex", 0.2, "rise time of the excitatory alpha current (its peak)"), &parameters::tau_syn_ex},
    {np::tau_syn("tau_syn_in", 2.0, "rise time of the inhibitory alpha current (its peak)"), &parameters::tau_syn_in},
    {np::I_e(), &parameters::I_e},
    {np::V_m(default_V_m), &parameters::V_m},
    {gating("Act_m", 0, "initial sodium activation m (NEST's start value; it does not follow V_m)"),
     &parameters::Act_m},
    {gating("Inact_h", 1, "initial sodium inactivation h (NEST's start value; it does not follow V_m)"),
     &parameters::Inact_h},
    {gating("Act_n", 2, "initial potassium activation n (NEST's start value; it does not follow V_m)"),
     &parameters::Act_n},
    {np::tau_minus(), &parameters::tau_minus},
};

const std::vector<state_spec> state_table = {{"V_m", "mV", "membrane potential"},
                                             {"Act_m", "1", "sodium activation m"},
                                             {"Inact_h", "1", "sodium inactivation h"},
                                             {"Act_n", "1", "potassium activation n"},
                                             {"I_syn_ex", "pA", "excitatory synaptic current"},
                                             {"I_syn_in", "pA", "inhibitory synaptic current (negative)"}};

enum : std::size_t { V_M, HH_M, HH_H, HH_N, DI_EX, I_EX, DI_IN, I_IN, STATE_SIZE };
// Where each recordable of state_table is in y.
constexpr std::array<std::size_t, 6> recorded = {V_M, HH_M, HH_H, HH_N, I_EX, I_IN};
using integrator = ode::rkf45_integrator<STATE_SIZE>;
using ode_state = integrator::state;

parameters parse_parameters(const std::map<std::string, double>& values) {
    return model_parameters::parse(model_name, table, values);
}

std::array<double, 11> dynamics_key(const parameters& p) {
    return {p.t_ref, p.g_Na, p.g_K, p.g_L, p.E_Na, p.E_K, p.E_L, p.C_m, p.tau_syn_ex, p.tau_syn_in, p.I_e};
}

struct parameter_set {
    parameters p;
    std::int32_t refractory_steps;
    double psc_ex, psc_in; // e / tau_syn: the dI jump per pA of weight (peak current w)
};

class hh_psc_alpha_group final: public cell_group {
public:
    hh_psc_alpha_group(const network_spec& spec, const std::vector<gid_type>& gids, local_index first_local):
        h_(spec.dt_ms), first_(first_local), gids_(gids) {
        const std::size_t n = gids.size();
        y_.resize(n);
        auto resolved = resolve_cell_parameters<parameters>(
            spec, model_name, gids, [](const population_spec&, const auto& values) { return parse_parameters(values); },
            dynamics_key,
            [&](local_index i, const parameters& p, std::uint32_t) {
                y_[i] = {p.V_m, p.Act_m, p.Inact_h, p.Act_n, 0.0, 0.0, 0.0, 0.0};
            });
        runs_ = std::move(resolved.runs);
        for (const auto& p: resolved.sets) {
            sets_.push_back({p, iaf_integration::checked_refractory_steps(model_name, p.t_ref, h_),
                             1.0 * std::numbers::e / p.tau_syn_ex, 1.0 * std::numbers::e / p.tau_syn_in});
        }
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
                in_sum_[i] += w; // NEST: with its sign (an inhibitory current is negative)
        }
    }

    void deliver_current(step_type, local_index cell, double current) override {
        stim_.add(y_.size(), cell - first_, current);
    }

    void end_step(step_type n, spike_output& out) override {
        const double* stim = stim_.now();
        for (const auto& run: runs_) {
            const parameter_set& s = sets_[run.set];
            V_old_.resize(run.end - run.begin);
            for (local_index i = run.begin; i < run.end; ++i) V_old_[i - run.begin] = y_[i][V_M];
            integrate(s.p, run, n, stim);
            for (local_index i = run.begin; i < run.end; ++i) {
                add_input(s, i);
                if (hh_step::spike_test(refractory_count_[i], V_old_[i - run.begin], y_[i][V_M], 0.0,
                                        s.refractory_steps))
                    out.emit(first_ + i, n);
            }
        }
        stim_.advance();
    }

    double state(local_index cell, const std::string& variable) const override {
        const std::size_t i = cell - first_;
        for (std::size_t k = 0; k < state_table.size(); ++k)
            if (variable == state_table[k].name) return y_[i][recorded[k]];
        model_parameters::unknown_state(model_name, state_table, variable);
    }

    void set_state(local_index cell, const std::string& variable, double value) override {
        const std::size_t i = cell - first_;
        for (std::size_t k = 0; k < state_table.size(); ++k) {
            if (variable == state_table[k].name) {
                y_[i][recorded[k]] = value;
                return;
            }
        }
        cell_group::set_state(cell, variable, value);
    }

    std::size_t bytes() const override {
        return y_.capacity() * sizeof(y_[0]) +
               (substep_.capacity() + ex_sum_.capacity() + in_sum_.capacity()) * sizeof(double) +
               refractory_count_.capacity() * sizeof(std::int32_t) + runs_.capacity() * sizeof(cell_run) +
               sets_.capacity() * sizeof(parameter_set) + stim_.bytes() + gids_.capacity() * sizeof(gid_type);
    }

    // Checkpoints: y (8 values), I_stim, r, stim_active, substep.
    void save_cell(local_index cell, double* v) const override {
        const std::size_t i = cell - first_;
        for (std::size_t k = 0; k < STATE_SIZE; ++k) v[k] = y_[i][k];
        v[STATE_SIZE] = stim_.stim(i);
        v[STATE_SIZE + 1] = refractory_count_[i];
        v[STATE_SIZE + 2] = stim_.active() ? 1.0 : 0.0;
        v[STATE_SIZE + 3] = substep_[i];
    }
    void load_cell(local_index cell, const double* v) override {
        const std::size_t i = cell - first_;
        for (std::size_t k = 0; k < STATE_SIZE; ++k) y_[i][k] = v[k];
        refractory_count_[i] = static_cast<std::int32_t>(v[STATE_SIZE + 1]);
        if (v[STATE_SIZE + 2] != 0) stim_.restore(y_.size(), i, v[STATE_SIZE]);
        substep_[i] = v[STATE_SIZE + 3];
    }

private:
    // The right-hand side for one cell (T = double) or cells side by side (ode::lanes).
    template <class T>
    [[gnu::always_inline]] static void derivative(const parameters& p, const T& I_stim,
                                                  const std::array<T, STATE_SIZE>& y, std::array<T, STATE_SIZE>& f) {
        const T V = y[V_M], m = y[HH_M], h = y[HH_H], nk = y[HH_N];
        const rates<T> r = rates_at(V);
        const T I_Na = p.g_Na * m * m * m * h * (V - p.E_Na);
        const T I_K = p.g_K * nk * nk * nk * nk * (V - p.E_K);
        const T I_L = p.g_L * (V - p.E_L);
        f[V_M] = (-(I_Na + I_K + I_L) + I_stim + p.I_e + y[I_EX] + y[I_IN]) / p.C_m;
        f[HH_M] = r.alpha_m * (1.0 - m) - r.beta_m * m;
        f[HH_H] = r.alpha_h * (1.0 - h) - r.beta_h * h;
        f[HH_N] = r.alpha_n * (1.0 - nk) - r.beta_n * nk;
        f[DI_EX] = -y[DI_EX] / p.tau_syn_ex;
        f[I_EX] = y[DI_EX] - y[I_EX] / p.tau_syn_ex;
        f[DI_IN] = -y[DI_IN] / p.tau_syn_in;
        f[I_IN] = y[DI_IN] - y[I_IN] / p.tau_syn_in;
    }

    // Step 1 of the header's update for the cells of a run (hh_step::integrate_run).
    void integrate(const parameters& p, const cell_run& run, step_type n, const double* stim) {
        const auto rhs = [&p](const auto& I_stim, const auto& y, auto& f) __attribute__((always_inline)) {
            derivative(p, I_stim, y, f);
        };
        hh_step::integrate_run(integrator_, rhs, y_, substep_, stim, model_name, gids_, n, h_, run.begin, run.end);
    }

    // Step 2: the step's synaptic input into the currents' derivatives.
    void add_input(const parameter_set& s, std::size_t i) {
        y_[i][DI_EX] += ex_sum_[i] * s.psc_ex;
        y_[i][DI_IN] += in_sum_[i] * s.psc_in;
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
    std::vector<double> ex_sum_, in_sum_;        // spike input of the current step [pA]
    std::vector<std::int32_t> refractory_count_; // r: steps left without a spike test
    integrator integrator_;
    std::vector<double> V_old_; // scratch of end_step: V_m at the step's start, per cell of a run
};

} // namespace

std::unique_ptr<cell_group> make_group(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                       local_index first_local) {
    model_parameters::require_positive_dt(model_name, spec.dt_ms);
    return std::make_unique<hh_psc_alpha_group>(spec, local_gids, first_local);
}

} // namespace hh_psc_alpha

model_entry hh_psc_alpha_model() {
    model_entry e;
    e.name = "hh_psc_alpha";
    e.kind = model_kind::neuron;
    e.description = "NEST's Hodgkin-Huxley neuron (Hodgkin and Huxley's 1952 rates) with alpha-shaped synaptic "
                    "currents, weights in pA";
    e.parameters = model_parameters::specs_of(hh_psc_alpha::table);
    e.state = hh_psc_alpha::state_table;
    e.accepts_current = true;
    e.checkpoint_state = {"V_m",   "Act_m",    "Inact_h", "Act_n", "dI_ex",       "I_syn_ex",
                          "dI_in", "I_syn_in", "I_stim",  "r",     "stim_active", "substep"};
    e.receptors = "spikes: weight > 0 excitatory alpha current, <= 0 inhibitory (peak current w pA); currents (pA)";
    e.integration =
        "adaptive Runge-Kutta (Fehlberg 4(5) with GSL's standard control, as NEST; absolute error 1e-3 per sub-step)";
    e.nest_model = "hh_psc_alpha";
    e.pynn_types = {};
    e.docs_page = "docs/models/hh_psc_alpha.md";
    e.make = [](const network_spec& spec, const std::vector<gid_type>& local_gids, local_index first_local) {
        return hh_psc_alpha::make_group(spec, local_gids, first_local);
    };
    return e;
}

} // namespace spikex
