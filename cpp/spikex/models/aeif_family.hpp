#pragma once
// The adaptive exponential integrate-and-fire family (Brette & Gerstner 2005) as NEST 3.10
// has it: aeif_cond_exp and aeif_cond_alpha (aeif_cond.cpp), aeif_cond_alpha_multisynapse
// and aeif_cond_beta_multisynapse (aeif_cond_multisynapse.cpp). One cell group for the four
// (docs/models/aeif_cond.md, docs/models/aeif_cond_multisynapse.md): they differ only in
// their conductances, which a Model traits class describes (below) — how many (two, the
// weight's sign choosing, or one per receptor port), their shape (exponential, or with a
// rise: alpha, beta), where they are in the state, and where their reversal potentials and
// time constants come from (numbers, or lists per cell).
//
//  State per cell: y = (V_m [mV], w [pA], the conductances g_k [nS] and, with a rise, their
//  derivatives dg_k [nS/ms], where the Model puts them), the refractory counter r, I_stim
//  (the current input read at the previous step) and the integrator's sub-step size.
//   C_m dV/dt = -g_L (V - E_L) + g_L Delta_T exp((V - V_th)/Delta_T) - sum_k g_k (V - E_k)
//               - w + I_e + I_stim
//   tau_w dw/dt = a (V - E_L) - w
//   exponential:  dg_k/dt = -g_k / tau_decay_k
//   with a rise:  ddg_k/dt = -dg_k / tau_rise_k,  dg_k/dt = dg_k - g_k / tau_decay_k
//                 (alpha: tau_rise_k = tau_decay_k = tau_syn_k)
//  with V on the right-hand side bounded by V_peak, and while refractory V = V_reset in it
//  and dV/dt = 0. Delta_T = 0: no exponential term, the spike test is V >= V_th.
//  end_step(n), per cell (NEST's order):
//   1. y advanced over h by NEST's scheme (ode/rkf45_integrator.hpp: RKF45 under GSL's
//      control with gsl_error_tol absolute and relative to dt·|y'|, as NEST's
//      gsl_odeiv_control_yp_new), the right-hand side in NEST's order of operations (each
//      Model's membrane_current): the traces are NEST's bit for bit (eight cells side by
//      side, each with its own sub-steps: the same operations per cell); after each accepted
//      sub-step: NEST's instability checks (V_m < -1000 mV, |w| > 1e6 pA: the run
//      ends), then r > 0: V = V_reset; else V >= V_peak (V_th if Delta_T = 0): V = V_reset,
//      w += b, r = t_ref in steps + 1 (0 if t_ref is 0 steps), a spike at n
//   2. r > 0: --r
//   3. the step's input k (its weights summed): g_k (exponential) or dg_k (with a rise)
//      += input_k * g0_k (1; alpha e / tau_syn; beta NEST's normalisation: a weight w nS
//      peaks at w nS)
//   4. I_stim = the currents delivered for step n
//  A spike at step n is NEST's spike at time (n+1)*h. With t_ref = 0 a cell may cross
//  V_peak twice in one step: both resets and both w += b happen, as in NEST, but the cell
//  spikes once in that step (spikex cells spike at most once per step; NEST sends two).
//
// A Model gives (static members):
//   parameters                  the numbers (derived from membrane_parameters)
//   name                        the model's name
//   rise, ports                 conductances with a rise (else exponential); inputs through
//                               receptor ports (deliver_port, weights >= 0) or by the
//                               weight's sign (deliver: w > 0 into input 0, -w of the others
//                               into input 1)
//   inputs, size, saved_size    conductances at most, the length of y, y's width in
//                               checkpoints (y, then zeros)
//   g(k), dg(k), used(count)    where conductance k and its derivative are in y; the length
//                               of y a cell with `count` conductances uses (0 past it)
//   conductances_settable       whether set_state may set a conductance (NEST's SetStatus)
//   parse(values), key(p)       the numbers checked; the dynamics as a comparable array
//   lists_of(pop, gid)          a cell's list parameters, checked ({} for a model without)
//   conductances_of(p, lists)   the cell's conductances (aeif::conductances)
//   membrane_current(p, c, y, V, I_spike, I_stim)  C_m dV/dt, in NEST's order of operations
//   conductance_named(v, count) the conductance a recordable names, or -1
//   state_table()               the recordables
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/models/cell_group.hpp"
#include "spikex/models/cell_parameter_sets.hpp"
#include "spikex/models/dynamics_failure.hpp"
#include "spikex/models/iaf_propagators.hpp"
#include "spikex/models/iaf_step.hpp"
#include "spikex/models/model_parameters.hpp"
#include "spikex/models/neuron_parameters.hpp"
#include "spikex/models/ode/rkf45_integrator.hpp"

namespace spikex::aeif {

// The numbers every model of the family has (NEST's names and defaults).
struct membrane_parameters {
    double C_m, g_L, E_L, V_th, Delta_T, V_peak, V_reset, t_ref, a, b, tau_w, I_e;
    double gsl_error_tol; // the integrator's error bound per sub-step
    double V_m, w;        // initial membrane potential and adaptation current
    double tau_minus;     // STDP depression time constant (read by the synapses)
};

// The table's fields before the synaptic parameters (NEST's order), for P derived from
// membrane_parameters. V_m starts at -70.6 mV unless given, whatever E_L is (NEST's rule:
// the state is made from the default parameters), w at 0.
template <class P>
std::vector<model_parameters::field<P>> fields_before_synapses() {
    namespace np = neuron_parameters;
    using M = membrane_parameters;
    return {
        {np::C_m(281.0), &M::C_m},
        {{"g_L", "nS", 30.0, "", ranges::any(), "leak conductance"}, &M::g_L},
        {np::E_L("leak reversal potential", -70.6), &M::E_L},
        {{"V_th", "mV", -50.4, "", ranges::any(),
          "spike initiation threshold, where the exponential term takes over (the spike threshold if "
          "Delta_T = 0; <= V_peak)"},
         &M::V_th},
        {{"Delta_T", "mV", 2.0, "", ranges::non_negative(),
          "slope factor of the exponential term (0: none, the cell fires at V_th as an iaf neuron)"},
         &M::Delta_T},
        {{"V_peak", "mV", 0.0, "", ranges::any(),
          "spike detection: V_m reaching it after a sub-step is a spike (>= V_th; bounds V in the "
          "currents; V_th detects if Delta_T = 0)"},
         &M::V_peak},
        {{"V_reset", "mV", -60.0, "", ranges::any(), "membrane potential after a spike (< V_peak)"}, &M::V_reset},
        {np::t_ref(0.0), &M::t_ref},
        {{"a", "nS", 4.0, "", ranges::any(), "subthreshold adaptation: a (V - E_L) drives w"}, &M::a},
        {{"b", "pA", 80.5, "", ranges::any(), "spike-triggered adaptation: w += b at each spike"}, &M::b},
        {{"tau_w", "ms", 144.0, "", ranges::positive(), "time constant of the adaptation current"}, &M::tau_w},
    };
}

// The table's fields after the synaptic parameters.
template <class P>
std::vector<model_parameters::field<P>> fields_after_synapses() {
    namespace np = neuron_parameters;
    using M = membrane_parameters;
    return {
        {np::I_e(), &M::I_e},
        {{"gsl_error_tol", "1", 1e-6, "", ranges::positive(),
          "error bound per integration sub-step, absolute and relative to the sub-step's change dt·dy/dt "
          "(NEST's GSL setting, with NEST's RKF45)"},
         &M::gsl_error_tol},
        {np::V_m(-70.6), &M::V_m},
        {{"w", "pA", 0.0, "", ranges::any(), "initial adaptation current"}, &M::w},
        {np::tau_minus(), &M::tau_minus},
    };
}

// NEST's checks between the numbers (the ranges check each alone): V_peak >= V_th,
// V_reset < V_peak, and exp((V_peak - V_th)/Delta_T) 1e20 below the largest double.
inline void check_relations(const char* model, const membrane_parameters& p) {
    using model_parameters::number;
    static const double largest_exponent = std::log(std::numeric_limits<double>::max() / 1e20);
    model_parameters::require(p.V_peak >= p.V_th, model, "V_peak", p.V_peak,
                              spikex::format("must be >= V_th = {} mV", number(p.V_th)));
    model_parameters::require(
        p.Delta_T == 0.0 || (p.V_peak - p.V_th) / p.Delta_T < largest_exponent, model, "Delta_T", p.Delta_T,
        spikex::format("must be 0 or > {} mV: with V_peak - V_th = {} mV, a smaller one "
                       "overflows exp((V - V_th)/Delta_T) at V_peak",
                       number((p.V_peak - p.V_th) / largest_exponent), number(p.V_peak - p.V_th)));
    model_parameters::require(p.V_reset < p.V_peak, model, "V_reset", p.V_reset,
                              spikex::format("must be < V_peak = {} mV", number(p.V_peak)));
}

// The membrane's dynamics as a comparable value (all but the initial values and tau_minus).
inline std::array<double, 13> membrane_key(const membrane_parameters& p) {
    return {p.C_m,   p.g_L, p.E_L, p.V_th,  p.Delta_T, p.V_peak,       p.V_reset,
            p.t_ref, p.a,   p.b,   p.tau_w, p.I_e,     p.gsl_error_tol};
}

// A cell's list parameters (E_rev, tau_syn, ...), as the Model reads them.
using lists = std::vector<std::vector<double>>;

// A cell's conductances: their number, reversal potentials, time constants and what an
// input of 1 nS adds to g_k (exponential) or dg_k (with a rise). Past `count`: zeros.
template <std::size_t K>
struct conductances {
    std::uint32_t count = 0;
    std::array<double, K> E_rev{}, tau_rise{}, tau_decay{}, g0{};
};

template <class Model>
class group final: public cell_group {
public:
    using parameters = typename Model::parameters;
    static constexpr std::size_t inputs = Model::inputs, size = Model::size;
    using integrator = ode::rkf45_integrator<size>;
    using ode_state = typename integrator::state;
    enum : std::size_t { V_M = 0, W = 1 };

    group(const network_spec& spec, const std::vector<gid_type>& gids, local_index first_local):
        h_(spec.dt_ms), first_(first_local), gids_(gids) {
        const std::size_t n = gids.size();
        y_.resize(n);
        // A cell's set: its numbers' set with its lists (equal lists share one), in runs of
        // consecutive cells.
        std::vector<std::uint32_t> number_set(n), list_set(n);
        std::map<lists, std::uint32_t> list_index;
        std::vector<lists> distinct_lists;
        auto resolved = resolve_cell_parameters<parameters>(
            spec, Model::name, gids, [](const population_spec&, const auto& values) { return Model::parse(values); },
            [](const parameters& p) { return Model::key(p); },
            [&](local_index i, const parameters& p, std::uint32_t set) {
                y_[i] = {};
                y_[i][V_M] = p.V_m;
                y_[i][W] = p.w;
                number_set[i] = set;
                auto cell_lists = Model::lists_of(spec.population_of(gids[i]), gids[i]);
                const auto [it, added] = list_index.try_emplace(cell_lists, std::uint32_t(distinct_lists.size()));
                if (added) distinct_lists.push_back(std::move(cell_lists));
                list_set[i] = it->second;
            });
        std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> set_of_pair;
        for (local_index i = 0; i < n; ++i) {
            const auto [it, added] = set_of_pair.try_emplace({number_set[i], list_set[i]}, std::uint32_t(sets_.size()));
            if (added) sets_.push_back(make_set(resolved.sets[number_set[i]], distinct_lists[list_set[i]]));
            if (runs_.empty() || runs_.back().set != it->second) runs_.push_back({i, i, it->second});
            runs_.back().end = i + 1;
            ports_.push_back(sets_[it->second].syn.count);
        }
        substep_.assign(n, h_);
        input_.assign(n * inputs, 0.0);
        refractory_count_.assign(n, 0);
    }

    void begin_step(step_type, spike_output&) override {}

    // Without ports: w > 0 into input 0, -w of the others into input 1 (NEST: the
    // inhibitory conductance grows by -w).
    void deliver(step_type, const local_index* targets, const double* weights, std::uint32_t begin, std::uint32_t end,
                 spike_output&) override {
        if constexpr (Model::ports) {
            throw internal_error(spikex::format("{}: an input without a receptor port", Model::name));
        } else {
            for (std::uint32_t c = begin; c < end; ++c) {
                const std::size_t i = targets[c] - first_;
                const double w = weights[c];
                if (w > 0.0)
                    input_[i * inputs] += w;
                else
                    input_[i * inputs + 1] -= w;
            }
        }
    }

    // With ports: port k's input is its weights' sum; NEST refuses a negative weight (at
    // the spike's delivery, as here).
    void deliver_port(std::uint32_t port, step_type n, const local_index* targets, const double* weights,
                      std::uint32_t begin, std::uint32_t end, spike_output& out) override {
        if constexpr (!Model::ports) {
            cell_group::deliver_port(port, n, targets, weights, begin, end, out);
        } else {
            for (std::uint32_t c = begin; c < end; ++c) add_port_input(port, n, targets[c] - first_, weights[c]);
        }
    }
    void deliver_uniform_port(std::uint32_t port, step_type n, const local_index* targets, std::uint32_t count,
                              double weight, spike_output& out) override {
        if constexpr (!Model::ports) {
            cell_group::deliver_uniform_port(port, n, targets, count, weight, out);
        } else {
            for (std::uint32_t c = 0; c < count; ++c) add_port_input(port, n, targets[c] - first_, weight);
        }
    }

    void deliver_current(step_type, local_index cell, double current) override {
        stim_.add(y_.size(), cell - first_, current);
    }

    void end_step(step_type n, spike_output& out) override {
        const double* stim = stim_.now();
        for (const auto& run: runs_) {
            const parameter_set& s = sets_[run.set];
            const integrator& ode = integrators_[s.integrator];
            update_run(s, ode, run, n, stim, out);
        }
        stim_.advance();
    }

    double state(local_index cell, const std::string& variable) const override {
        const std::size_t i = cell - first_;
        if (variable == "V_m") return y_[i][V_M];
        if (variable == "w") return y_[i][W];
        const int k = conductance_of(i, variable);
        if (k >= 0) return y_[i][Model::g(std::size_t(k))];
        model_parameters::unknown_state(Model::name, recordables(i), variable);
    }

    void set_state(local_index cell, const std::string& variable, double value) override {
        const std::size_t i = cell - first_;
        const int k = conductance_of(i, variable);
        if (variable == "V_m") {
            y_[i][V_M] = value;
        } else if (variable == "w") {
            y_[i][W] = value;
        } else if (k >= 0 && Model::conductances_settable) {
            y_[i][Model::g(std::size_t(k))] = value;
        } else if (k >= 0) {
            throw user_error(spikex::format("{}: state variable \"{}\" cannot be set: NEST sets V_m and w of this "
                                            "model, its conductances follow the inputs",
                                            Model::name, variable));
        } else {
            cell_group::set_state(cell, variable, value);
        }
    }

    std::size_t bytes() const override {
        return y_.capacity() * sizeof(y_[0]) + (substep_.capacity() + input_.capacity()) * sizeof(double) +
               (refractory_count_.capacity() + ports_.capacity()) * sizeof(std::int32_t) +
               runs_.capacity() * sizeof(cell_run) + sets_.capacity() * sizeof(parameter_set) +
               integrators_.capacity() * sizeof(integrator) + stim_.bytes() + gids_.capacity() * sizeof(gid_type);
    }

    // y (then zeros up to saved_size: checkpoint_state's order), then I_stim, r, whether
    // currents are read, the sub-step.
    void save_cell(local_index cell, double* v) const override {
        const std::size_t i = cell - first_;
        std::copy(y_[i].begin(), y_[i].end(), v);
        std::fill(v + size, v + Model::saved_size, 0.0);
        double* tail = v + Model::saved_size;
        tail[0] = stim_.stim(i);
        tail[1] = refractory_count_[i];
        tail[2] = stim_.active() ? 1.0 : 0.0;
        tail[3] = substep_[i];
    }
    void load_cell(local_index cell, const double* v) override {
        const std::size_t i = cell - first_;
        std::copy(v, v + size, y_[i].begin());
        const double* tail = v + Model::saved_size;
        refractory_count_[i] = static_cast<std::int32_t>(tail[1]);
        if (tail[2] != 0) stim_.restore(y_.size(), i, tail[0]);
        substep_[i] = tail[3];
    }

private:
    struct parameter_set {
        parameters p;
        std::int32_t refractory_steps;
        double V_spike; // the spike test: V_peak, or V_th when Delta_T = 0 (NEST's V_.V_peak)
        conductances<inputs> syn;
        std::uint32_t integrator;
    };

    parameter_set make_set(const parameters& p, const lists& cell_lists) {
        parameter_set s{};
        s.p = p;
        s.refractory_steps = iaf_integration::checked_refractory_steps(Model::name, p.t_ref, h_);
        s.V_spike = p.Delta_T > 0.0 ? p.V_peak : p.V_th;
        s.syn = Model::conductances_of(p, cell_lists);
        // One integrator per error bound (usually one): NEST's GSL control, absolute and
        // relative to dt·|y'| at the sub-step's end (gsl_odeiv_control_yp_new(tol, tol)). Near V_peak the
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

    int conductance_of(std::size_t i, const std::string& variable) const {
        return Model::conductance_named(variable, ports_[i]);
    }

    // The recordables of cell i (per-port ones numbered), for the error message.
    std::vector<state_spec> recordables(std::size_t i) const {
        std::vector<state_spec> out;
        for (const auto& v: Model::state_table()) {
            if (!v.per_port) {
                out.push_back(v);
                continue;
            }
            for (std::uint32_t k = 1; k <= ports_[i]; ++k) {
                out.push_back(v);
                out.back().name += spikex::format("_{}", k);
            }
        }
        return out;
    }

    void add_port_input(std::uint32_t port, step_type n, std::size_t i, double w) {
        if (port < 1 || port > ports_[i]) {
            throw internal_error(spikex::format("{} cell {}: receptor port {} reached a cell with {} ports",
                                                Model::name, gids_[i], port, ports_[i]));
        }
        if (!(w >= 0.0)) {
            throw user_error(spikex::format(
                "{} cell {}: a spike of weight {} nS through receptor port {} at t = {:g} ms: weights must be "
                ">= 0 (NEST's rule for conductance-based multisynapse models; the port's reversal potential makes "
                "it excitatory or inhibitory)",
                Model::name, gids_[i], model_parameters::number(w), port, double(n + 1) * h_));
        }
        input_[i * inputs + port - 1] += w;
    }

    // The right-hand side for one cell (T = double, R = bool) or `batch` cells side by
    // side (ode::lanes, ode::lane_mask), in NEST's order of operations either way.
    template <class T, class R>
    [[gnu::always_inline]] static void derivative(const parameter_set& s, const R& refractory, const T& I_stim,
                                                  const std::array<T, size>& y, std::array<T, size>& f) {
        const parameters& p = s.p;
        const conductances<inputs>& c = s.syn;
        const T V = ode::select(refractory, p.V_reset, ode::min(y[V_M], p.V_peak));
        const T I_spike =
            p.Delta_T == 0.0 ? ode::splat<T>(0.0) : p.g_L * p.Delta_T * ode::exp((V - p.V_th) / p.Delta_T);
        f[V_M] = ode::select(refractory, 0.0, Model::membrane_current(p, c, y, V, I_spike, I_stim) / p.C_m);
        f[W] = (p.a * (V - p.E_L) - y[W]) / p.tau_w;
        for (std::uint32_t k = 0; k < c.count; ++k) {
            if constexpr (Model::rise) {
                f[Model::dg(k)] = -y[Model::dg(k)] / c.tau_rise[k];
                f[Model::g(k)] = y[Model::dg(k)] - y[Model::g(k)] / c.tau_decay[k];
            } else {
                f[Model::g(k)] = -y[Model::g(k)] / c.tau_decay[k];
            }
        }
        for (std::size_t j = Model::used(c.count); j < size; ++j) f[j] = ode::splat<T>(0.0); // ports the cell lacks
    }

    // After each accepted sub-step of cell i: NEST's checks, then the reset at a spike.
    void after_substep(const parameter_set& s, std::size_t i, step_type n, ode_state& y, bool& spiked) {
        const parameters& p = s.p;
        std::int32_t& r = refractory_count_[i];
        check_membrane(Model::name, gids_[i], n, h_, true, y[V_M]);
        check_adaptation(Model::name, gids_[i], n, h_, y[W]);
        if (r > 0) {
            y[V_M] = p.V_reset;
        } else if (y[V_M] >= s.V_spike) {
            y[V_M] = p.V_reset;
            y[W] += p.b;
            // + 1: the count-down after the step; 0 steps: no refractory rest of this step
            r = s.refractory_steps > 0 ? s.refractory_steps + 1 : 0;
            spiked = true;
        }
    }

    // Steps 1 to 3 of the header's update for cell i.
    void update(const parameter_set& s, const integrator& ode, std::size_t i, step_type n, double I_stim,
                spike_output& out) {
        const std::int32_t& r = refractory_count_[i]; // changes within the step at a spike
        bool spiked = false;
        const bool integrated =
            ode.advance([&](const ode_state& y, ode_state& f) { derivative(s, r > 0, I_stim, y, f); }, y_[i], h_,
                        substep_[i], [&](ode_state& y) { after_substep(s, i, n, y, spiked); });
        if (!integrated) check_membrane(Model::name, gids_[i], n, h_, false, y_[i][V_M]);
        finish(s, i, n, spiked, out);
    }

    // Steps 2 and 3 (and the spike of step 1) for cell i.
    void finish(const parameter_set& s, std::size_t i, step_type n, bool spiked, spike_output& out) {
        if (spiked) out.emit(first_ + i, n);
        if (refractory_count_[i] > 0) --refractory_count_[i];
        double* input = input_.data() + i * inputs;
        for (std::uint32_t k = 0; k < s.syn.count; ++k) {
            y_[i][Model::rise ? Model::dg(k) : Model::g(k)] += input[k] * s.syn.g0[k];
            input[k] = 0.0;
        }
    }

    // update() for the cells of a run, side by side (rkf45_integrator's
    // advance_cells: every cell gets update()'s operations); steps 2 and 3 then follow in
    // the cells' order.
    void update_run(const parameter_set& s, const integrator& ode, const cell_run& run, step_type n, const double* stim,
                    spike_output& out) {
        spiked_.assign(run.end - run.begin, 0);
        ode::with_lanes([&](auto width) {
            constexpr std::size_t L = decltype(width)::value;
            run_cells<L> cells{*this, s, run, n, stim};
            ode.template advance_cells<L>(cells, run.begin, run.end, h_);
        });
        for (local_index c = run.begin; c < run.end; ++c) finish(s, c, n, spiked_[c - run.begin] != 0, out);
    }

    // The cells of a run as advance_cells sees them, `batch` side by side.
    template <std::size_t batch>
    struct run_cells {
        group& g;
        const parameter_set& s;
        const cell_run& run;
        step_type n;
        const double* stim;
        ode::lanes<batch> I_stim{};
        ode::lane_mask<batch> refractory{};

        ode_state& state(std::size_t c) { return g.y_[c]; }
        double& substep(std::size_t c) { return g.substep_[c]; }
        void load(std::size_t l, std::size_t c) {
            I_stim[l] = stim ? stim[c] : 0.0;
            refractory.set(l, g.refractory_count_[c] > 0);
        }
        [[gnu::always_inline]] void derivative(const typename integrator::template state_lanes<batch>& y,
                                               typename integrator::template state_lanes<batch>& f) const {
            // copies: f's writes cannot alias them, so they stay in registers
            const auto I = I_stim;
            const auto r = refractory;
            group::derivative(s, r, I, y, f);
        }
        // after_substep() on the accepted lanes: the checks and the refractory clamp on all
        // lanes at once; a failing check (it ends the run) and a spike (rare) lane by lane.
        [[gnu::always_inline]] void after_substeps(typename integrator::template state_lanes<batch>& y,
                                                   const ode::lane_mask<batch>& accepted,
                                                   const std::array<std::size_t, batch>& cell) {
            const parameters& p = s.p;
            bool failing = false, firing = false;
            for (std::size_t l = 0; l < batch; ++l) {
                const double V = y[V_M][l];
                failing |= accepted.v[l] &&
                           !(V >= -1e3 && V < std::numeric_limits<double>::infinity() && std::abs(y[W][l]) <= 1e6);
            }
            if (failing) {
                for (std::size_t l = 0; l < batch; ++l) {
                    if (!accepted.v[l]) continue;
                    check_membrane(Model::name, g.gids_[cell[l]], n, g.h_, true, y[V_M][l]);
                    check_adaptation(Model::name, g.gids_[cell[l]], n, g.h_, y[W][l]);
                }
            }
            for (std::size_t l = 0; l < batch; ++l) {
                const bool on = accepted.v[l] != 0, clamped = on && refractory.v[l] != 0;
                firing |= on && !clamped && y[V_M][l] >= s.V_spike;
                y[V_M][l] = clamped ? p.V_reset : y[V_M][l];
            }
            if (!firing) return;
            for (std::size_t l = 0; l < batch; ++l) {
                if (!accepted.v[l] || refractory.v[l]) continue;
                ode_state y_l;
                for (std::size_t k = 0; k < size; ++k) y_l[k] = y[k][l];
                bool spiked = false;
                g.after_substep(s, cell[l], n, y_l, spiked); // the spike test and reset
                if (!spiked) continue;
                for (std::size_t k = 0; k < size; ++k) y[k][l] = y_l[k];
                g.spiked_[cell[l] - run.begin] = 1;
                refractory.set(l, g.refractory_count_[cell[l]] > 0);
            }
        }
        void collapsed(std::size_t c) const { check_membrane(Model::name, g.gids_[c], n, g.h_, false, g.y_[c][V_M]); }
    };

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
    std::vector<double> input_;                  // conductance input of the current step, `inputs` per cell [nS]
    std::vector<std::int32_t> refractory_count_; // r: refractory steps left
    std::vector<std::uint32_t> ports_;           // conductances (receptor ports) per cell
    std::vector<char> spiked_;                   // scratch of update_run: which cells of a run spiked
};

// The group of Model's cells `gids`.
template <class Model>
std::unique_ptr<cell_group> make_group(const network_spec& spec, const std::vector<gid_type>& gids,
                                       local_index first_local) {
    model_parameters::require_positive_dt(Model::name, spec.dt_ms);
    return std::make_unique<group<Model>>(spec, gids, first_local);
}

} // namespace spikex::aeif
