// The aeif_cond_exp and aeif_cond_alpha cell groups: one class over the synaptic shape,
// per-cell state and sub-step size, parameter sets shared by runs of cells
// (cell_parameter_sets.hpp), the ODE layer with spike detection between sub-steps.
#include "spikex/models/aeif_cond.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>

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
namespace aeif_cond {
namespace {

namespace np = neuron_parameters;

const char* name_of(synapse_shape shape) { return shape == synapse_shape::exp ? "aeif_cond_exp" : "aeif_cond_alpha"; }

struct parameters {
    double C_m, g_L, E_L, V_th, Delta_T, V_peak, V_reset, t_ref, a, b, tau_w, E_ex, E_in, tau_syn_ex, tau_syn_in, I_e;
    double gsl_error_tol; // the integrator's error bound per sub-step
    double V_m, w;        // initial membrane potential and adaptation current
    double tau_minus;     // STDP depression time constant (read by the synapses)
};

// The parameter table: NEST 3.10's names and defaults (the same for both shapes, only the
// synaptic time constants mean another thing). V_m starts at -70.6 mV unless given,
// whatever E_L is (NEST's rule), w at 0.
std::vector<model_parameters::field<parameters>> table_of(synapse_shape shape) {
    const bool alpha = shape == synapse_shape::alpha;
    return {
        {np::C_m(281.0), &parameters::C_m},
        {{"g_L", "nS", 30.0, "", ranges::any(), "leak conductance"}, &parameters::g_L},
        {np::E_L("leak reversal potential", -70.6), &parameters::E_L},
        {{"V_th", "mV", -50.4, "", ranges::any(),
          "spike initiation threshold, where the exponential term takes over (the spike threshold if "
          "Delta_T = 0; <= V_peak)"},
         &parameters::V_th},
        {{"Delta_T", "mV", 2.0, "", ranges::non_negative(),
          "slope factor of the exponential term (0: none, the cell fires at V_th as an iaf neuron)"},
         &parameters::Delta_T},
        {{"V_peak", "mV", 0.0, "", ranges::any(),
          "spike detection: V_m reaching it after a sub-step is a spike (>= V_th; bounds V in the "
          "currents; V_th detects if Delta_T = 0)"},
         &parameters::V_peak},
        {{"V_reset", "mV", -60.0, "", ranges::any(), "membrane potential after a spike (< V_peak)"},
         &parameters::V_reset},
        {np::t_ref(0.0), &parameters::t_ref},
        {{"a", "nS", 4.0, "", ranges::any(), "subthreshold adaptation: a (V - E_L) drives w"}, &parameters::a},
        {{"b", "pA", 80.5, "", ranges::any(), "spike-triggered adaptation: w += b at each spike"}, &parameters::b},
        {{"tau_w", "ms", 144.0, "", ranges::positive(), "time constant of the adaptation current"}, &parameters::tau_w},
        {{"E_ex", "mV", 0.0, "", ranges::any(), "reversal potential of the excitatory conductance"}, &parameters::E_ex},
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
        {np::I_e(), &parameters::I_e},
        {{"gsl_error_tol", "1", 1e-6, "", ranges::positive(),
          "error bound per integration sub-step, absolute and relative to the sub-step's change dt·dy/dt "
          "(NEST's GSL setting, applied to the Cash-Karp 5(4) pair)"},
         &parameters::gsl_error_tol},
        {np::V_m(-70.6), &parameters::V_m},
        {{"w", "pA", 0.0, "", ranges::any(), "initial adaptation current"}, &parameters::w},
        {np::tau_minus(), &parameters::tau_minus},
    };
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

// NEST's bound: exp((V_peak - V_th)/Delta_T) must stay 1e20 below the largest double.
const double largest_exponent = std::log(std::numeric_limits<double>::max() / 1e20);

parameters parse_parameters(synapse_shape shape, const std::map<std::string, double>& values) {
    const char* model = name_of(shape);
    const parameters p = model_parameters::parse(model, table(shape), values);
    using model_parameters::number;
    model_parameters::require(p.V_peak >= p.V_th, model, "V_peak", p.V_peak,
                              spikex::format("must be >= V_th = {} mV", number(p.V_th)));
    model_parameters::require(
        p.Delta_T == 0.0 || (p.V_peak - p.V_th) / p.Delta_T < largest_exponent, model, "Delta_T", p.Delta_T,
        spikex::format("must be 0 or > {} mV: with V_peak - V_th = {} mV, a smaller one "
                       "overflows exp((V - V_th)/Delta_T) at V_peak",
                       number((p.V_peak - p.V_th) / largest_exponent), number(p.V_peak - p.V_th)));
    model_parameters::require(p.V_reset < p.V_peak, model, "V_reset", p.V_reset,
                              spikex::format("must be < V_peak = {} mV", number(p.V_peak)));
    return p;
}

std::array<double, 17> dynamics_key(const parameters& p) {
    return {p.C_m, p.g_L,   p.E_L,  p.V_th, p.Delta_T,    p.V_peak,     p.V_reset, p.t_ref,        p.a,
            p.b,   p.tau_w, p.E_ex, p.E_in, p.tau_syn_ex, p.tau_syn_in, p.I_e,     p.gsl_error_tol};
}

// Positions in y: the same for both shapes, alpha appends the conductances' derivatives.
enum : std::size_t { V_M, W, G_EX, G_IN, DG_EX, DG_IN };

template <synapse_shape Shape>
class aeif_cond_group final: public cell_group {
public:
    static constexpr bool alpha = Shape == synapse_shape::alpha;
    static constexpr std::size_t size = alpha ? 6 : 4;
    using integrator = ode::adaptive_integrator<size>;
    using ode_state = typename integrator::state;
    // Where the step's inputs go: the conductance (exp) or its derivative (alpha).
    static constexpr std::size_t input_ex = alpha ? DG_EX : G_EX, input_in = alpha ? DG_IN : G_IN;

    aeif_cond_group(const network_spec& spec, const std::vector<gid_type>& gids, local_index first_local):
        h_(spec.dt_ms), first_(first_local), gids_(gids) {
        const std::size_t n = gids.size();
        y_.resize(n);
        auto resolved = resolve_cell_parameters<parameters>(
            spec, model_name, gids,
            [](const population_spec&, const auto& values) { return parse_parameters(Shape, values); }, dynamics_key,
            [&](local_index i, const parameters& p, std::uint32_t) {
                y_[i] = {};
                y_[i][V_M] = p.V_m;
                y_[i][W] = p.w;
            });
        runs_ = std::move(resolved.runs);
        for (const auto& p: resolved.sets) sets_.push_back(make_set(p));
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
            integrator& ode = integrators_[s.integrator];
            for (local_index i = run.begin; i < run.end; ++i) update(s, ode, i, n, stim ? stim[i] : 0.0, out);
        }
        stim_.advance();
    }

    double state(local_index cell, const std::string& variable) const override {
        const std::size_t i = cell - first_;
        if (variable == "V_m") return y_[i][V_M];
        if (variable == "w") return y_[i][W];
        if (variable == "g_ex") return y_[i][G_EX];
        if (variable == "g_in") return y_[i][G_IN];
        model_parameters::unknown_state(model_name, state_table, variable);
    }

    void set_state(local_index cell, const std::string& variable, double value) override {
        const std::size_t i = cell - first_;
        if (variable == "V_m")
            y_[i][V_M] = value;
        else if (variable == "w")
            y_[i][W] = value;
        else if (variable == "g_ex")
            y_[i][G_EX] = value;
        else if (variable == "g_in")
            y_[i][G_IN] = value;
        else
            cell_group::set_state(cell, variable, value);
    }

    std::size_t bytes() const override {
        return y_.capacity() * sizeof(y_[0]) +
               (substep_.capacity() + ex_sum_.capacity() + in_sum_.capacity()) * sizeof(double) +
               refractory_count_.capacity() * sizeof(std::int32_t) + runs_.capacity() * sizeof(cell_run) +
               sets_.capacity() * sizeof(parameter_set) + integrators_.capacity() * sizeof(integrator) + stim_.bytes() +
               gids_.capacity() * sizeof(gid_type);
    }

    // y (checkpoint_state's order), then I_stim, r, whether currents are read, the sub-step.
    void save_cell(local_index cell, double* v) const override {
        const std::size_t i = cell - first_;
        std::copy(y_[i].begin(), y_[i].end(), v);
        v[size] = stim_.stim(i);
        v[size + 1] = refractory_count_[i];
        v[size + 2] = stim_.active() ? 1.0 : 0.0;
        v[size + 3] = substep_[i];
    }
    void load_cell(local_index cell, const double* v) override {
        const std::size_t i = cell - first_;
        std::copy(v, v + size, y_[i].begin());
        refractory_count_[i] = static_cast<std::int32_t>(v[size + 1]);
        if (v[size + 2] != 0) stim_.restore(y_.size(), i, v[size]);
        substep_[i] = v[size + 3];
    }

private:
    static constexpr const char* model_name = alpha ? "aeif_cond_alpha" : "aeif_cond_exp";

    struct parameter_set {
        parameters p;
        std::int32_t refractory_steps;
        double V_spike;      // the spike test: V_peak, or V_th when Delta_T = 0 (NEST's V_.V_peak)
        double g0_ex, g0_in; // an input of 1 nS adds this to input_ex / input_in (alpha: e / tau_syn)
        std::uint32_t integrator;
    };

    parameter_set make_set(const parameters& p) {
        parameter_set s{};
        s.p = p;
        s.refractory_steps = iaf_integration::checked_refractory_steps(model_name, p.t_ref, h_);
        s.V_spike = p.Delta_T > 0.0 ? p.V_peak : p.V_th;
        s.g0_ex = alpha ? std::numbers::e / p.tau_syn_ex : 1.0;
        s.g0_in = alpha ? std::numbers::e / p.tau_syn_in : 1.0;
        // One integrator per error bound (usually one): NEST's GSL control, absolute and
        // relative to dt·|y'| (gsl_odeiv_control_yp_new(tol, tol)). Near V_peak the
        // exponential term needs sub-steps of about Delta_T/|dV/dt| (1e-11 ms for the
        // defaults, less for a larger (V_peak - V_th)/Delta_T): as NEST's GSL loop, no
        // smallest sub-step but a vanished one.
        auto same = std::find(tolerance_of_.begin(), tolerance_of_.end(), p.gsl_error_tol);
        s.integrator = static_cast<std::uint32_t>(same - tolerance_of_.begin());
        if (same == tolerance_of_.end()) {
            tolerance_of_.push_back(p.gsl_error_tol);
            integrators_.emplace_back(ode::tolerances{.absolute = p.gsl_error_tol,
                                                      .relative = p.gsl_error_tol,
                                                      .state_weight = 0.0,
                                                      .derivative_weight = 1.0,
                                                      .smallest_substep = 0.0});
        }
        return s;
    }

    // Steps 1 to 3 of the header's update for cell i.
    void update(const parameter_set& s, integrator& ode, std::size_t i, step_type n, double I_stim, spike_output& out) {
        const parameters& p = s.p;
        std::int32_t& r = refractory_count_[i];
        const double drive = p.I_e + I_stim;
        auto derivative = [&](const ode_state& y, ode_state& f) {
            const bool refractory = r > 0; // changes within the step at a spike
            const double V = refractory ? p.V_reset : std::min(y[V_M], p.V_peak);
            const double I_syn_ex = y[G_EX] * (V - p.E_ex);
            const double I_syn_in = y[G_IN] * (V - p.E_in);
            const double I_spike = p.Delta_T == 0.0 ? 0.0 : p.g_L * p.Delta_T * std::exp((V - p.V_th) / p.Delta_T);
            f[V_M] = refractory ? 0.0 : (-p.g_L * (V - p.E_L) + I_spike - I_syn_ex - I_syn_in - y[W] + drive) / p.C_m;
            f[W] = (p.a * (V - p.E_L) - y[W]) / p.tau_w;
            if constexpr (alpha) {
                f[DG_EX] = -y[DG_EX] / p.tau_syn_ex;
                f[G_EX] = y[DG_EX] - y[G_EX] / p.tau_syn_ex;
                f[DG_IN] = -y[DG_IN] / p.tau_syn_in;
                f[G_IN] = y[DG_IN] - y[G_IN] / p.tau_syn_in;
            } else {
                f[G_EX] = -y[G_EX] / p.tau_syn_ex;
                f[G_IN] = -y[G_IN] / p.tau_syn_in;
            }
        };
        bool spiked = false;
        auto after_substep = [&](ode_state& y) {
            check_membrane(model_name, gids_[i], n, h_, true, y[V_M]);
            check_adaptation(model_name, gids_[i], n, h_, y[W]);
            if (r > 0) {
                y[V_M] = p.V_reset;
            } else if (y[V_M] >= s.V_spike) {
                y[V_M] = p.V_reset;
                y[W] += p.b;
                // + 1: the count-down after the step; 0 steps: no refractory rest of this step
                r = s.refractory_steps > 0 ? s.refractory_steps + 1 : 0;
                spiked = true;
            }
        };
        const bool integrated = ode.advance(derivative, y_[i], h_, substep_[i], after_substep);
        if (!integrated) check_membrane(model_name, gids_[i], n, h_, false, y_[i][V_M]);
        if (spiked) out.emit(first_ + i, n);
        if (r > 0) --r;
        y_[i][input_ex] += ex_sum_[i] * s.g0_ex;
        y_[i][input_in] += in_sum_[i] * s.g0_in;
        ex_sum_[i] = 0.0;
        in_sum_[i] = 0.0;
    }

    double h_;
    local_index first_;
    std::vector<gid_type> gids_; // for error messages
    std::vector<parameter_set> sets_;
    std::vector<cell_run> runs_;
    std::vector<double> tolerance_of_; // gsl_error_tol of each integrator
    std::vector<integrator> integrators_;
    std::vector<ode_state> y_;
    std::vector<double> substep_;                // the integrator's sub-step per cell [ms]
    iaf_step::current_buffer stim_;              // current inputs (I_stim) [pA]
    std::vector<double> ex_sum_, in_sum_;        // conductance input of the current step [nS]
    std::vector<std::int32_t> refractory_count_; // r: refractory steps left
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
    e.integration = "adaptive Runge-Kutta (Cash-Karp 5(4), error bound gsl_error_tol per sub-step), spikes detected "
                    "between sub-steps";
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
    model_parameters::require_positive_dt(name_of(shape), spec.dt_ms);
    if (shape == synapse_shape::alpha)
        return std::make_unique<aeif_cond_group<synapse_shape::alpha>>(spec, local_gids, first_local);
    return std::make_unique<aeif_cond_group<synapse_shape::exp>>(spec, local_gids, first_local);
}

} // namespace aeif_cond

model_entry aeif_cond_exp_model() { return aeif_cond::entry(aeif_cond::synapse_shape::exp); }
model_entry aeif_cond_alpha_model() { return aeif_cond::entry(aeif_cond::synapse_shape::alpha); }

} // namespace spikex
