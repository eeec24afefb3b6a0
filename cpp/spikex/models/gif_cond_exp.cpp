// The gif_cond_exp cell group (gif_cond_exp.hpp): NEST's update with NEST's own scheme for
// (V, g_ex, g_in) (ode/rkf45_integrator.hpp, NEST's right-hand side in NEST's order of
// operations), the kernels of each cell in flat arrays, and the escape noise drawn per step
// from the cell's own stream (core/random.hpp, purpose::escape_noise).
//
// Parameters: the numbers resolve to parameter sets shared by runs of cells
// (cell_parameter_sets.hpp); the kernel lists are read per cell and cells with equal
// lists share one kernel set. A cell's set is the pair; runs of consecutive cells share it.
#include "spikex/models/gif_cond_exp.hpp"

#include <array>
#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/core/random.hpp"
#include "spikex/models/cell_parameter_sets.hpp"
#include "spikex/models/dynamics_failure.hpp"
#include "spikex/models/iaf_propagators.hpp"
#include "spikex/models/iaf_step.hpp"
#include "spikex/models/model_parameters.hpp"
#include "spikex/models/neuron_parameters.hpp"
#include "spikex/models/ode/rkf45_integrator.hpp"

namespace spikex {
namespace gif_cond_exp {
namespace {

namespace np = neuron_parameters;
using model_parameters::number;

const char* const model_name = "gif_cond_exp";

struct parameters {
    double C_m, t_ref, V_reset, E_L, g_L, I_e, Delta_V, lambda_0, V_T_star, E_ex, tau_syn_ex, E_in, tau_syn_in;
    double gsl_error_tol;
    double V_m;       // initial membrane potential
    double tau_minus; // STDP depression time constant (read by the synapses)
};

parameter_spec with_default(parameter_spec spec, double value) {
    spec.default_value = value;
    return spec;
}

// NEST 3.10's defaults and checks (g_L, C_m, Delta_V > 0; t_ref, lambda_0 >= 0; the time
// constants > 0). lambda_0 in 1/s as NEST takes it (NEST keeps lambda_0 / 1000 in 1/ms).
const std::vector<model_parameters::field<parameters>>& table() {
    static const std::vector<model_parameters::field<parameters>> fields = {
        {with_default(np::C_m(), 80.0), &parameters::C_m},
        {with_default(np::t_ref(), 4.0), &parameters::t_ref},
        {{"V_reset", "mV", -55.0, "", ranges::any(),
          "membrane potential during the refractory period after a spike (V_m is not reset in the spike's own "
          "step: NEST's model)"},
         &parameters::V_reset},
        {np::E_L("leak reversal potential"), &parameters::E_L},
        {{"g_L", "nS", 4.0, "", ranges::positive(), "leak conductance"}, &parameters::g_L},
        {np::I_e(), &parameters::I_e},
        {{"Delta_V", "mV", 0.5, "", ranges::positive(), "stochasticity level: the voltage scale of the escape rate"},
         &parameters::Delta_V},
        {{"lambda_0", "1/s", 1.0, "", ranges::non_negative(),
          "escape rate at V = V_T (0: no spikes, the noise switched off)"},
         &parameters::lambda_0},
        {{"V_T_star", "mV", -35.0, "", ranges::any(), "base threshold (V_T without the sfa kernels)"},
         &parameters::V_T_star},
        {{"E_ex", "mV", 0.0, "", ranges::any(), "reversal potential of the excitatory conductance"}, &parameters::E_ex},
        {np::tau_syn("tau_syn_ex", 2.0, "time constant of the excitatory conductance"), &parameters::tau_syn_ex},
        {{"E_in", "mV", -85.0, "", ranges::any(), "reversal potential of the inhibitory conductance"},
         &parameters::E_in},
        {np::tau_syn("tau_syn_in", 2.0, "time constant of the inhibitory conductance"), &parameters::tau_syn_in},
        {{"gsl_error_tol", "1", 1e-3, "", ranges::positive(),
          "absolute error bound of each integration sub-step (mV, nS): NEST's gsl_error_tol"},
         &parameters::gsl_error_tol},
        {np::V_m(), &parameters::V_m},
        {np::tau_minus(), &parameters::tau_minus},
    };
    return fields;
}

// The kernels: lists per cell (parameter_shape::per_cell_list), at most max_kernels long.
enum list_parameter : std::size_t { tau_stc, q_stc, tau_sfa, q_sfa };
const std::vector<parameter_spec>& list_specs() {
    static const std::vector<parameter_spec> specs = {
        {"tau_stc", "ms", 0.0, "", ranges::positive(),
         "time constants of the spike-triggered currents (one per q_stc, at most 8; default: none)",
         parameter_shape::per_cell_list},
        {"q_stc", "pA", 0.0, "", ranges::any(),
         "jumps of the spike-triggered currents at each spike (pA, as NEST computes them; PyNN's a_eta is in nA)",
         parameter_shape::per_cell_list},
        {"tau_sfa", "ms", 0.0, "", ranges::positive(),
         "time constants of the threshold's adaptation kernels (one per q_sfa, at most 8; default: none)",
         parameter_shape::per_cell_list},
        {"q_sfa", "mV", 0.0, "", ranges::any(), "jumps of the threshold's adaptation kernels at each spike",
         parameter_shape::per_cell_list},
    };
    return specs;
}

const std::vector<state_spec> state_table = {
    {"V_m", "mV", "membrane potential"},
    {"E_sfa", "mV", "firing threshold V_T: V_T_star plus the sfa kernels, as the last step used it", false},
    {"I_stc", "pA", "spike-triggered current: the sum of the stc kernels, as the last step used it", false},
    {"g_ex", "nS", "excitatory synaptic conductance"},
    {"g_in", "nS", "inhibitory synaptic conductance"},
};

parameters parse(const std::map<std::string, double>& values) {
    return model_parameters::parse(model_name, table(), values);
}

// Every parameter but the initial V_m and tau_minus (which the synapses read).
std::array<double, 14> dynamics_key(const parameters& p) {
    return {p.C_m,      p.t_ref,    p.V_reset, p.E_L,        p.g_L,  p.I_e,        p.Delta_V,
            p.lambda_0, p.V_T_star, p.E_ex,    p.tau_syn_ex, p.E_in, p.tau_syn_in, p.gsl_error_tol};
}

// The kernels of a set of cells: decay over one step (exp(-h / tau)) and jump per spike.
struct kernel_set {
    std::vector<double> stc_decay, q_stc, sfa_decay, q_sfa;
};

class gif_group final: public cell_group {
public:
    using integrator = ode::rkf45_integrator<3>;
    using ode_state = integrator::state;
    enum : std::size_t { V_M = 0, G_EX = 1, G_IN = 2 };
    static constexpr std::size_t fixed_state = 9; // checkpoint values before the kernels

    gif_group(const network_spec& spec, const std::vector<gid_type>& gids, local_index first_local):
        h_(spec.dt_ms), seed_(spec.seed), first_(first_local), gids_(gids) {
        const std::size_t n = gids.size();
        y_.resize(n);
        stc_.assign(n, 0.0);
        sfa_.assign(n, 0.0);
        std::vector<std::uint32_t> scalar_set(n), kernels(n);
        std::map<std::vector<double>, std::uint32_t> kernel_index;
        auto resolved = resolve_cell_parameters<parameters>(
            spec, model_name, gids, [](const population_spec&, const auto& values) { return parse(values); },
            dynamics_key,
            [&](local_index i, const parameters& p, std::uint32_t set) {
                y_[i] = {p.V_m, 0.0, 0.0};
                sfa_[i] = p.V_T_star;
                scalar_set[i] = set;
                kernels[i] = kernel_set_of(spec.population_of(gids[i]), gids[i], kernel_index);
            });
        // A cell's set: its parameters with its kernels, in runs of consecutive cells.
        std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> set_of_pair;
        std::map<double, std::uint32_t> integrator_of_tolerance;
        stc_begin_.assign(n + 1, 0);
        sfa_begin_.assign(n + 1, 0);
        for (local_index i = 0; i < n; ++i) {
            const auto [it, added] = set_of_pair.try_emplace({scalar_set[i], kernels[i]}, std::uint32_t(sets_.size()));
            if (added) {
                const parameters& p = resolved.sets[scalar_set[i]];
                const auto [tol, new_tolerance] =
                    integrator_of_tolerance.try_emplace(p.gsl_error_tol, std::uint32_t(integrators_.size()));
                if (new_tolerance)
                    integrators_.push_back(std::make_unique<integrator>(ode::tolerances{.absolute = p.gsl_error_tol}));
                sets_.push_back({p, iaf_integration::checked_refractory_steps(model_name, p.t_ref, h_),
                                 p.lambda_0 / 1000.0, kernels[i], tol->second});
            }
            const std::uint32_t set = it->second;
            if (runs_.empty() || runs_.back().set != set) runs_.push_back({i, i, set});
            runs_.back().end = i + 1;
            const kernel_set& k = kernels_[kernels[i]];
            stc_begin_[i + 1] = stc_begin_[i] + static_cast<std::uint32_t>(k.q_stc.size());
            sfa_begin_[i + 1] = sfa_begin_[i] + static_cast<std::uint32_t>(k.q_sfa.size());
        }
        eta_.assign(stc_begin_[n], 0.0);
        gamma_.assign(sfa_begin_[n], 0.0);
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
            if (w >= 0.0)
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
            const cell_set& s = sets_[run.set];
            const kernel_set& k = kernels_[s.kernels];
            integrator& ode = *integrators_[s.integrator];
            for (local_index i = run.begin; i < run.end; ++i) {
                double* eta = eta_.data() + stc_begin_[i];
                double* gamma = gamma_.data() + sfa_begin_[i];
                double stc = 0.0;
                for (std::size_t j = 0; j < k.q_stc.size(); ++j) {
                    stc += eta[j];
                    eta[j] *= k.stc_decay[j];
                }
                double threshold = s.p.V_T_star;
                for (std::size_t j = 0; j < k.q_sfa.size(); ++j) {
                    threshold += gamma[j];
                    gamma[j] *= k.sfa_decay[j];
                }
                stc_[i] = stc;
                sfa_[i] = threshold;
            }
            integrate(s.p, ode, run, n, stim);
            for (local_index i = run.begin; i < run.end; ++i) {
                check_membrane(model_name, gids_[i], n, h_, true, y_[i][V_M]);
                double* eta = eta_.data() + stc_begin_[i];
                double* gamma = gamma_.data() + sfa_begin_[i];
                const double threshold = sfa_[i];
                y_[i][G_EX] += ex_sum_[i];
                y_[i][G_IN] += in_sum_[i];
                ex_sum_[i] = 0.0;
                in_sum_[i] = 0.0;
                if (refractory_count_[i] == 0) {
                    const double lambda = s.lambda_per_ms * std::exp((y_[i][V_M] - threshold) / s.p.Delta_V);
                    if (lambda > 0.0 &&
                        step_uniform(seed_, gids_[i], purpose::escape_noise, n) < -std::expm1(-lambda * h_)) {
                        for (std::size_t j = 0; j < k.q_stc.size(); ++j) eta[j] += k.q_stc[j];
                        for (std::size_t j = 0; j < k.q_sfa.size(); ++j) gamma[j] += k.q_sfa[j];
                        refractory_count_[i] = s.refractory_steps;
                        out.emit(first_ + i, n);
                    }
                } else {
                    --refractory_count_[i];
                    y_[i][V_M] = s.p.V_reset;
                }
            }
        }
        stim_.advance();
    }

    double state(local_index cell, const std::string& variable) const override {
        const std::size_t i = cell - first_;
        if (variable == "V_m") return y_[i][V_M];
        if (variable == "E_sfa") return sfa_[i];
        if (variable == "I_stc") return stc_[i];
        if (variable == "g_ex") return y_[i][G_EX];
        if (variable == "g_in") return y_[i][G_IN];
        model_parameters::unknown_state(model_name, state_table, variable);
    }

    // What NEST's SetStatus sets: V_m, g_ex, g_in (E_sfa and I_stc follow the kernels).
    void set_state(local_index cell, const std::string& variable, double value) override {
        const std::size_t i = cell - first_;
        if (variable == "V_m")
            y_[i][V_M] = value;
        else if (variable == "g_ex")
            y_[i][G_EX] = value;
        else if (variable == "g_in")
            y_[i][G_IN] = value;
        else if (variable == "E_sfa" || variable == "I_stc")
            throw user_error(spikex::format("{}: state variable \"{}\" cannot be set: it follows the {} kernels, as "
                                            "in NEST",
                                            model_name, variable, variable == "E_sfa" ? "sfa" : "stc"));
        else
            cell_group::set_state(cell, variable, value);
    }

    std::size_t bytes() const override {
        return y_.capacity() * sizeof(y_[0]) +
               (substep_.capacity() + ex_sum_.capacity() + in_sum_.capacity() + stc_.capacity() + sfa_.capacity() +
                eta_.capacity() + gamma_.capacity()) *
                   sizeof(double) +
               (stc_begin_.capacity() + sfa_begin_.capacity()) * sizeof(std::uint32_t) +
               refractory_count_.capacity() * sizeof(std::int32_t) + runs_.capacity() * sizeof(cell_run) +
               sets_.capacity() * sizeof(cell_set) + stim_.bytes() + gids_.capacity() * sizeof(gid_type);
    }

    // checkpoint_state(): V_m, g_ex, g_in, I_stim, r, stim_active, substep, I_stc, E_sfa,
    // then max_kernels stc kernels and max_kernels sfa kernels (0 past the cell's own).
    void save_cell(local_index cell, double* v) const override {
        const std::size_t i = cell - first_;
        std::copy(y_[i].begin(), y_[i].end(), v);
        v[3] = stim_.stim(i);
        v[4] = refractory_count_[i];
        v[5] = stim_.active() ? 1.0 : 0.0;
        v[6] = substep_[i];
        v[7] = stc_[i];
        v[8] = sfa_[i];
        std::fill(v + fixed_state, v + fixed_state + 2 * max_kernels, 0.0);
        std::copy(eta_.begin() + stc_begin_[i], eta_.begin() + stc_begin_[i + 1], v + fixed_state);
        std::copy(gamma_.begin() + sfa_begin_[i], gamma_.begin() + sfa_begin_[i + 1], v + fixed_state + max_kernels);
    }
    void load_cell(local_index cell, const double* v) override {
        const std::size_t i = cell - first_;
        std::copy(v, v + 3, y_[i].begin());
        if (v[5] != 0) stim_.restore(y_.size(), i, v[3]);
        refractory_count_[i] = static_cast<std::int32_t>(v[4]);
        substep_[i] = v[6];
        stc_[i] = v[7];
        sfa_[i] = v[8];
        std::copy(v + fixed_state, v + fixed_state + (stc_begin_[i + 1] - stc_begin_[i]), eta_.begin() + stc_begin_[i]);
        std::copy(v + fixed_state + max_kernels, v + fixed_state + max_kernels + (sfa_begin_[i + 1] - sfa_begin_[i]),
                  gamma_.begin() + sfa_begin_[i]);
    }

    static std::vector<std::string> checkpoint_state() {
        std::vector<std::string> names = {"V_m",         "g_ex",    "g_in",  "I_stim", "r",
                                          "stim_active", "substep", "I_stc", "E_sfa"};
        for (const char* kind: {"stc_", "sfa_"})
            for (std::size_t j = 1; j <= max_kernels; ++j) names.push_back(kind + std::to_string(j));
        return names;
    }

private:
    struct cell_set {
        parameters p;
        std::int32_t refractory_steps;
        double lambda_per_ms;     // lambda_0 / 1000, as NEST keeps it
        std::uint32_t kernels;    // index into kernels_
        std::uint32_t integrator; // index into integrators_ (one per gsl_error_tol)
    };

    // The kernel set of cell gid's lists (checked as NEST does, named by the cell), new
    // unless an earlier cell had the same lists.
    std::uint32_t kernel_set_of(const population_spec& pop, gid_type gid,
                                std::map<std::vector<double>, std::uint32_t>& index) {
        const auto& specs = list_specs();
        std::array<std::vector<double>, 4> lists;
        for (std::size_t l = 0; l < 4; ++l) {
            lists[l] = pop.list_of(specs[l].name, gid);
            for (double x: lists[l]) {
                try {
                    model_parameters::check(model_name, specs[l], x);
                } catch (const user_error& e) {
                    throw user_error(spikex::format("{} (cell {})", e.what(), gid));
                }
            }
        }
        for (auto [tau, q]: {std::pair{tau_stc, q_stc}, std::pair{tau_sfa, q_sfa}}) {
            if (lists[tau].size() != lists[q].size()) {
                throw user_error(spikex::format("{} parameters {} and {} (cell {}): {} and {} values: must be lists of "
                                                "the same length",
                                                model_name, specs[tau].name, specs[q].name, gid, lists[tau].size(),
                                                lists[q].size()));
            }
            if (lists[tau].size() > max_kernels) {
                throw user_error(spikex::format("{} parameter {} (cell {}): {} values: must be at most {}", model_name,
                                                specs[tau].name, gid, lists[tau].size(), max_kernels));
            }
        }
        std::vector<double> key;
        for (const auto& list: lists) {
            key.push_back(double(list.size()));
            key.insert(key.end(), list.begin(), list.end());
        }
        const auto [it, added] = index.try_emplace(key, std::uint32_t(kernels_.size()));
        if (added) {
            kernel_set k;
            for (double tau: lists[tau_stc]) k.stc_decay.push_back(std::exp(-h_ / tau));
            for (double tau: lists[tau_sfa]) k.sfa_decay.push_back(std::exp(-h_ / tau));
            k.q_stc = lists[q_stc];
            k.q_sfa = lists[q_sfa];
            kernels_.push_back(std::move(k));
        }
        return it->second;
    }

    // The right-hand side for one cell (T = double, R = bool) or cells side by side
    // (ode::lanes, ode::lane_mask), I_stc constant over the step.
    template <class T, class R>
    [[gnu::always_inline]] static void derivative(const parameters& p, const R& refractory, const T& I_stim,
                                                  const T& stc, const std::array<T, 3>& y, std::array<T, 3>& f) {
        const T V = ode::select(refractory, p.V_reset, y[V_M]);
        const T I_syn_ex = y[G_EX] * (V - p.E_ex);
        const T I_syn_in = y[G_IN] * (V - p.E_in);
        const T I_L = p.g_L * (V - p.E_L);
        f[V_M] = ode::select(refractory, 0.0, (-I_L + I_stim + p.I_e - I_syn_ex - I_syn_in - stc) / p.C_m);
        f[G_EX] = -y[G_EX] / p.tau_syn_ex;
        f[G_IN] = -y[G_IN] / p.tau_syn_in;
    }

    // The cells of a run as rkf45_integrator::advance_cells sees them, `batch` side by side.
    template <std::size_t batch>
    struct run_cells {
        gif_group& g;
        const parameters& p;
        const double* stim;
        step_type n;
        ode::lanes<batch> I_stim{}, stc{};
        ode::lane_mask<batch> refractory{};

        ode_state& state(std::size_t c) { return g.y_[c]; }
        double& substep(std::size_t c) { return g.substep_[c]; }
        void load(std::size_t l, std::size_t c) {
            I_stim[l] = stim ? stim[c] : 0.0;
            stc[l] = g.stc_[c];
            refractory.set(l, g.refractory_count_[c] > 0);
        }
        SPIKEX_LANES_INLINE void derivative(const integrator::template state_lanes<batch>& y,
                                            integrator::template state_lanes<batch>& f) const {
            const auto I = I_stim; // copies: f's writes cannot alias them
            const auto q = stc;
            const auto r = refractory;
            gif_group::derivative(p, r, I, q, y, f);
        }
        void collapsed(std::size_t c) const { check_membrane(model_name, g.gids_[c], n, g.h_, false, g.y_[c][V_M]); }
    };

    // Step 2 of the header's update for the cells of a run, side by side (each with its
    // own sub-steps: the same operations as one at a time).
    void integrate(const parameters& p, const integrator& ode, const cell_run& run, step_type n, const double* stim) {
        ode::with_lanes([&](auto width) {
            constexpr std::size_t L = decltype(width)::value;
            run_cells<L> cells{*this, p, stim, n};
            ode.advance_cells<L>(cells, run.begin, run.end, h_);
        });
    }

    double h_;
    std::uint32_t seed_;
    local_index first_;
    std::vector<gid_type> gids_; // for the noise's streams and error messages
    std::vector<cell_set> sets_;
    std::vector<kernel_set> kernels_;
    std::vector<std::unique_ptr<integrator>> integrators_;
    std::vector<cell_run> runs_;
    std::vector<ode_state> y_;        // V_m, g_ex, g_in
    std::vector<double> substep_;     // the integrator's sub-step per cell [ms]
    std::vector<double> stc_, sfa_;   // I_stc [pA] and V_T [mV] of the last step
    std::vector<double> eta_, gamma_; // the kernels: cell i's at [x_begin_[i], x_begin_[i + 1])
    std::vector<std::uint32_t> stc_begin_, sfa_begin_;
    iaf_step::current_buffer stim_;              // current inputs (I_stim) [pA]
    std::vector<double> ex_sum_, in_sum_;        // conductance input of the current step [nS]
    std::vector<std::int32_t> refractory_count_; // r: refractory steps left
};

// The entry's parameters: the numbers, with the kernel lists after I_e (NEST's order).
std::vector<parameter_spec> all_specs() {
    std::vector<parameter_spec> specs;
    for (const auto& f: table()) {
        specs.push_back(f.spec);
        if (f.spec.name == "I_e") specs.insert(specs.end(), list_specs().begin(), list_specs().end());
    }
    return specs;
}

} // namespace

std::unique_ptr<cell_group> make_group(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                       local_index first_local) {
    model_parameters::require_positive_dt(model_name, spec.dt_ms);
    return std::make_unique<gif_group>(spec, local_gids, first_local);
}

} // namespace gif_cond_exp

model_entry gif_cond_exp_model() {
    model_entry e;
    e.name = "gif_cond_exp";
    e.kind = model_kind::neuron;
    e.description = "NEST's generalized integrate-and-fire neuron (Mensi et al. 2012, Pozzorini et al. 2015): "
                    "spike-triggered currents, a moving threshold and escape noise, exponential conductances in nS";
    e.parameters = gif_cond_exp::all_specs();
    e.state = gif_cond_exp::state_table;
    e.accepts_current = true;
    e.checkpoint_state = gif_cond_exp::gif_group::checkpoint_state();
    e.receptors = "spikes: weight >= 0 excitatory conductance, < 0 inhibitory (nS, the magnitude); currents (pA)";
    e.integration = "NEST's Runge-Kutta-Fehlberg 4(5) with GSL's standard step control (absolute error "
                    "gsl_error_tol); escape noise from the cell's own counter-based stream per step";
    e.nest_model = "gif_cond_exp";
    e.pynn_types = {"GIF_cond_exp"};
    e.docs_page = "docs/models/gif_cond_exp.md";
    e.make = [](const network_spec& spec, const std::vector<gid_type>& local_gids, local_index first_local) {
        return gif_cond_exp::make_group(spec, local_gids, first_local);
    };
    return e;
}

} // namespace spikex
