#pragma once
// The cell group of NEST's conductance-based leaky integrate-and-fire neurons
// (iaf_cond_exp, iaf_cond_alpha, iaf_cond_exp_sfa_rr): the same membrane equation and
// update; the shape of the synaptic conductances, and any conductances a spike opens, are
// given by a Shape policy.
//
//  State per cell: y = (V_m [mV], the Shape's conductances), the refractory counter r,
//  I_stim (the current input read at the previous step) and the integrator's sub-step.
//   dV/dt = (-g_L (V - E_L) - g_ex (V - E_ex) - g_in (V - E_in) [- the Shape's currents]
//            + I_e + I_stim) / C_m
//  with V in the currents bounded by V_th, and while refractory V = V_reset, dV/dt = 0.
//  end_step(n), per cell (NEST's order):
//   1. y advanced over h by the ODE layer with NEST's own scheme (ode/rkf45_integrator.hpp),
//      the right-hand side in NEST's order of operations (Shape::membrane_current), so the
//      traces are NEST's to rounding; four cells at a time where their sub-steps allow
//      (the same operations per cell, so the same result as one at a time)
//   2. the step's inputs: w > 0 into the excitatory conductance, -w of the others into
//      the inhibitory one (nS), as the Shape says
//   3. r > 0: --r, V = V_reset;  else V >= V_th: r = t_ref in steps, V = V_reset, the
//      Shape's spike-triggered jumps, spike at n
//   4. I_stim = the currents delivered for step n
//  (NEST's iaf_cond_alpha does 3 before 2; neither touches what the other reads.)
//  A spike at step n is NEST's spike at time (n+1)*h.
//
// A Shape has: `parameters` and `table()` (the family's, or a struct derived from it with
// its own table: derived_table), `size` (the ODE state's length, V_m first), `name`,
// `state_table` with `state_index` (where each recordable is in y), `ode_state_names`,
// `input(y, p, ex, in)` adding a step's input, `synapses(y, f, p)` writing the
// conductances' derivatives and `membrane_current` (C_m dV/dt from its terms, summed in
// NEST's order for that model); `g_ex`/`g_in` index y. Optional: `currents(y, p, V, I)`
// subtracting further membrane currents from I (after NEST's others, as NEST does), and
// `spike(y, p)`, the jumps at a spike.
#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "spikex/core/format.hpp"
#include "spikex/models/cell_parameter_sets.hpp"
#include "spikex/models/dynamics_failure.hpp"
#include "spikex/models/iaf_propagators.hpp"
#include "spikex/models/iaf_step.hpp"
#include "spikex/models/model_parameters.hpp"
#include "spikex/models/model_registry.hpp"
#include "spikex/models/neuron_parameters.hpp"
#include "spikex/models/ode/rkf45_integrator.hpp"

namespace spikex::iaf_cond {

struct parameters {
    double V_th, V_reset, t_ref, g_L, C_m, E_ex, E_in, E_L, tau_syn_ex, tau_syn_in, I_e;
    double V_m;       // initial membrane potential
    double tau_minus; // STDP depression time constant (read by the synapses)
};

// The parameter table: NEST 3.10's defaults (the same for both shapes). V_m starts at
// -70 mV unless given, whatever E_L is (NEST's rule).
inline const std::vector<model_parameters::field<parameters>>& table() {
    namespace np = neuron_parameters;
    static const std::vector<model_parameters::field<parameters>> fields = {
        {np::V_th(), &parameters::V_th},
        {np::V_reset(-60.0), &parameters::V_reset},
        {np::t_ref(), &parameters::t_ref},
        {{"g_L", "nS", 16.6667, "", ranges::any(), "leak conductance"}, &parameters::g_L},
        {np::C_m(), &parameters::C_m},
        {{"E_ex", "mV", 0.0, "", ranges::any(), "reversal potential of the excitatory conductance"}, &parameters::E_ex},
        {{"E_in", "mV", -85.0, "", ranges::any(), "reversal potential of the inhibitory conductance"},
         &parameters::E_in},
        {np::E_L("leak reversal potential"), &parameters::E_L},
        {np::tau_syn("tau_syn_ex", 0.2, "time constant of the excitatory conductance"), &parameters::tau_syn_ex},
        {np::tau_syn("tau_syn_in", 2.0, "time constant of the inhibitory conductance"), &parameters::tau_syn_in},
        {np::I_e(), &parameters::I_e},
        {np::V_m(), &parameters::V_m},
        {np::tau_minus(), &parameters::tau_minus},
    };
    return fields;
}

// The family's table for a model whose parameters P extend `parameters`: the same
// parameters with the model's own defaults (NEST's per model), and the model's own fields
// `extra` before V_m and tau_minus.
template <class P>
std::vector<model_parameters::field<P>> derived_table(const std::map<std::string, double>& defaults,
                                                      const std::vector<model_parameters::field<P>>& extra) {
    std::vector<model_parameters::field<P>> fields;
    for (const auto& f: table()) {
        if (f.spec.name == "V_m") fields.insert(fields.end(), extra.begin(), extra.end());
        model_parameters::field<P> g{f.spec, f.member};
        if (auto it = defaults.find(f.spec.name); it != defaults.end()) g.spec.default_value = it->second;
        fields.push_back(g);
    }
    return fields;
}

template <class Shape>
class group final: public cell_group_of_both_widths<group<Shape>> {
public:
    using parameters = typename Shape::parameters;
    using ode_state = typename ode::rkf45_integrator<Shape::size>::state;
    static constexpr std::size_t V_M = 0;

    group(const network_spec& spec, const std::vector<gid_type>& gids, local_index first_local):
        h_(spec.dt_ms), first_(first_local), gids_(gids) {
        model_parameters::require_positive_dt(Shape::name, spec.dt_ms);
        const std::size_t n = gids.size();
        y_.resize(n);
        auto resolved = resolve_cell_parameters<parameters>(
            spec, Shape::name, gids, [](const population_spec&, const auto& values) { return parse(values); },
            dynamics_key,
            [&](local_index i, const parameters& p, std::uint32_t) {
                y_[i].fill(0.0);
                y_[i][V_M] = p.V_m;
            });
        runs_ = std::move(resolved.runs);
        for (const auto& p: resolved.sets)
            sets_.push_back({p, iaf_integration::checked_refractory_steps(Shape::name, p.t_ref, h_)});
        substep_.assign(n, h_);
        ex_sum_.assign(n, 0.0);
        in_sum_.assign(n, 0.0);
        refractory_count_.assign(n, 0);
    }

    static parameters parse(const std::map<std::string, double>& values) {
        const parameters p = model_parameters::parse(Shape::name, Shape::table(), values);
        model_parameters::require(p.V_reset < p.V_th, Shape::name, "V_reset", p.V_reset,
                                  spikex::format("must be < V_th = {} mV", model_parameters::number(p.V_th)));
        return p;
    }

    void begin_step(step_type, spike_output&) override {}

    template <class Target>
    void deliver_to(step_type, Target targets, const double* weights, std::uint32_t begin, std::uint32_t end,
                    spike_output&) {
        for (std::uint32_t c = begin; c < end; ++c) {
            const local_index i = targets[c] - first_;
            const double w = weights[c];
            if (w > 0.0)
                ex_sum_[i] += w;
            else
                in_sum_[i] -= w; // NEST: the inhibitory conductance grows by -w
        }
    }
    // One weight for every connection (a group keeping one weight): the same additions.
    template <class Target>
    void deliver_uniform_to(step_type, Target targets, std::uint32_t count, double weight, spike_output&) {
        if (weight > 0.0)
            for (std::uint32_t c = 0; c < count; ++c) ex_sum_[targets[c] - first_] += weight;
        else
            for (std::uint32_t c = 0; c < count; ++c) in_sum_[targets[c] - first_] -= weight;
    }

    void deliver_current(step_type, local_index cell, double current) override {
        stim_.add(y_.size(), cell - first_, current);
    }

    void end_step(step_type n, spike_output& out) override {
        const double* stim = stim_.now();
        for (const auto& run: runs_) {
            const parameter_set& s = sets_[run.set];
            integrate(s.p, run, n, stim);
            for (local_index i = run.begin; i < run.end; ++i) {
                Shape::input(y_[i], s.p, ex_sum_[i], in_sum_[i]);
                ex_sum_[i] = 0.0;
                in_sum_[i] = 0.0;
                if (refractory_count_[i] > 0) {
                    --refractory_count_[i];
                    y_[i][V_M] = s.p.V_reset;
                } else if (y_[i][V_M] >= s.p.V_th) {
                    refractory_count_[i] = s.refractory_steps;
                    y_[i][V_M] = s.p.V_reset;
                    if constexpr (requires(ode_state & y) { Shape::spike(y, s.p); }) Shape::spike(y_[i], s.p);
                    out.emit(first_ + i, n);
                }
            }
        }
        stim_.advance();
    }

    double state(local_index cell, const std::string& variable) const override {
        const std::size_t i = cell - first_;
        const auto& names = Shape::state_table();
        for (std::size_t k = 0; k < names.size(); ++k)
            if (variable == names[k].name) return y_[i][Shape::state_index[k]];
        model_parameters::unknown_state(Shape::name, Shape::state_table(), variable);
    }

    // Every recordable is a variable of y that NEST lets SetStatus set.
    void set_state(local_index cell, const std::string& variable, double value) override {
        const std::size_t i = cell - first_;
        const auto& names = Shape::state_table();
        for (std::size_t k = 0; k < names.size(); ++k) {
            if (variable == names[k].name) {
                y_[i][Shape::state_index[k]] = value;
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

    // The ODE state, then I_stim, r, stim_active, substep (checkpoint_state()).
    void save_cell(local_index cell, double* v) const override {
        const std::size_t i = cell - first_;
        std::copy(y_[i].begin(), y_[i].end(), v);
        v[Shape::size] = stim_.stim(i);
        v[Shape::size + 1] = refractory_count_[i];
        v[Shape::size + 2] = stim_.active() ? 1.0 : 0.0;
        v[Shape::size + 3] = substep_[i];
    }
    void load_cell(local_index cell, const double* v) override {
        const std::size_t i = cell - first_;
        std::copy(v, v + Shape::size, y_[i].begin());
        refractory_count_[i] = static_cast<std::int32_t>(v[Shape::size + 1]);
        if (v[Shape::size + 2] != 0) stim_.restore(y_.size(), i, v[Shape::size]);
        substep_[i] = v[Shape::size + 3];
    }

    static std::vector<std::string> checkpoint_state() {
        std::vector<std::string> names = Shape::ode_state_names();
        for (const char* name: {"I_stim", "r", "stim_active", "substep"}) names.push_back(name);
        return names;
    }

private:
    struct parameter_set {
        parameters p;
        std::int32_t refractory_steps;
    };

    // Every parameter but the initial V_m and tau_minus (which the synapses read).
    static std::vector<double> dynamics_key(const parameters& p) {
        std::vector<double> key;
        for (const auto& f: Shape::table())
            if (f.spec.name != "V_m" && f.spec.name != "tau_minus") key.push_back(p.*(f.member));
        return key;
    }

    // The right-hand side for one cell (T = double, R = bool) or `batch` cells side by
    // side (ode::lanes, ode::lane_mask), in NEST's order of operations either way.
    template <class T, class R>
    [[gnu::always_inline]] static void derivative(const parameters& p, const R& refractory, const T& I_stim,
                                                  const std::array<T, Shape::size>& y, std::array<T, Shape::size>& f) {
        const T V = ode::select(refractory, p.V_reset, ode::min(y[V_M], p.V_th));
        const T I_syn_ex = y[Shape::g_ex] * (V - p.E_ex);
        const T I_syn_in = y[Shape::g_in] * (V - p.E_in);
        const T I_L = p.g_L * (V - p.E_L);
        T I = Shape::membrane_current(I_L, I_stim, p.I_e, I_syn_ex, I_syn_in);
        if constexpr (requires { Shape::currents(y, p, V, I); }) Shape::currents(y, p, V, I);
        f[V_M] = ode::select(refractory, 0.0, I / p.C_m);
        Shape::synapses(y, f, p);
    }

    // Step 1 of the header's update for the cells of a run: `batch` cells at a time try
    // the whole step together; a cell that cannot take it so goes through advance() alone.
    void integrate(const parameters& p, const cell_run& run, step_type n, const double* stim) {
        ode::with_lanes([&](auto width) {
            constexpr std::size_t L = decltype(width)::value;
            integrate_batches<L>(p, run, n, stim);
        });
    }
    template <std::size_t batch>
    void integrate_batches(const parameters& p, const cell_run& run, step_type n, const double* stim) {
        using integrator = ode::rkf45_integrator<Shape::size>;
        for (local_index i = run.begin; i < run.end; i += batch) {
            // m cells in lanes 0 .. m - 1; a last, partial batch fills the rest with the
            // first one's copies, whose results are not used.
            const std::size_t m = std::min<std::size_t>(batch, run.end - i);
            typename integrator::template state_lanes<batch> y;
            ode::lane_mask<batch> refractory;
            ode::lanes<batch> I_stim;
            bool any_whole = false;
            for (std::size_t l = 0; l < batch; ++l) {
                const local_index c = i + (l < m ? l : 0);
                for (std::size_t k = 0; k < Shape::size; ++k) y[k][l] = y_[c][k];
                refractory.set(l, refractory_count_[c] > 0);
                I_stim[l] = stim ? stim[c] : 0.0;
                any_whole = any_whole || integrator::starts_whole(substep_[c], h_);
            }
            if (!any_whole) {
                for (std::size_t l = 0; l < m; ++l) integrate(p, i + l, n, stim);
                continue;
            }
            // (the lambda copies the lanes: f's writes cannot alias a copy, so it stays in registers)
            const auto E = integrator_.whole_step(
                [&, refractory, I_stim ](const auto& x, auto& dxdt)
                    __attribute__((always_inline)) { derivative(p, refractory, I_stim, x, dxdt); },
                y, h_);
            for (std::size_t l = 0; l < m; ++l) {
                const local_index c = i + l;
                if (integrator::starts_whole(substep_[c], h_) && integrator::accept_whole_step(E[l], h_, substep_[c])) {
                    for (std::size_t k = 0; k < Shape::size; ++k) y_[c][k] = y[k][l];
                    check_membrane(Shape::name, gids_[c], n, h_, true, y_[c][V_M]);
                } else {
                    integrate(p, c, n, stim);
                }
            }
        }
    }

    // Step 1 for cell i alone.
    void integrate(const parameters& p, std::size_t i, step_type n, const double* stim) {
        const bool refractory = refractory_count_[i] > 0;
        const double I_stim = stim ? stim[i] : 0.0;
        const bool integrated = integrator_.advance(
            [&](const ode_state& y, ode_state& f) { derivative(p, refractory, I_stim, y, f); }, y_[i], h_, substep_[i]);
        check_membrane(Shape::name, gids_[i], n, h_, integrated, y_[i][V_M]);
    }

    double h_;
    local_index first_;
    std::vector<gid_type> gids_; // for error messages
    std::vector<parameter_set> sets_;
    std::vector<cell_run> runs_;
    std::vector<ode_state> y_;
    std::vector<double> substep_;                   // the integrator's sub-step per cell [ms]
    iaf_step::current_buffer stim_;                 // current inputs (I_stim) [pA]
    std::vector<double> ex_sum_, in_sum_;           // conductance input of the current step [nS]
    std::vector<std::int32_t> refractory_count_;    // r: refractory steps left
    ode::rkf45_integrator<Shape::size> integrator_; // NEST's scheme: NEST's sub-steps, NEST's spikes
};

// The registry entry's fields both shapes share.
template <class Shape>
model_entry entry() {
    model_entry e;
    e.name = Shape::name;
    e.kind = model_kind::neuron;
    e.parameters = model_parameters::specs_of(Shape::table());
    e.state = Shape::state_table();
    e.accepts_current = true;
    e.checkpoint_state = group<Shape>::checkpoint_state();
    e.receptors = "spikes: weight > 0 excitatory conductance, <= 0 inhibitory (nS, the magnitude); currents (pA)";
    e.integration = "NEST's Runge-Kutta-Fehlberg 4(5) with GSL's standard step control (absolute error 1e-3)";
    e.nest_model = Shape::name;
    e.docs_page = std::string("docs/models/") + Shape::name + ".md";
    e.make = [](const network_spec& spec, const std::vector<gid_type>& local_gids, local_index first_local) {
        return std::unique_ptr<cell_group>(std::make_unique<group<Shape>>(spec, local_gids, first_local));
    };
    return e;
}

} // namespace spikex::iaf_cond
