// glif_cond's cell group (glif_cond.hpp). The ODE state has room for as many ports as the
// group's cells have at most (2, 4, 8 or 16: one instantiation each); a cell with fewer
// keeps the rest at 0, which changes nothing in its integration (their derivatives and
// error estimates are 0), so a cell's trajectory is the same in any group.
#include "spikex/models/glif_cond.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numbers>
#include <string>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/models/cell_parameter_sets.hpp"
#include "spikex/models/dynamics_failure.hpp"
#include "spikex/models/glif_common.hpp"
#include "spikex/models/iaf_step.hpp"
#include "spikex/models/ode/rkf45_integrator.hpp"

namespace spikex {
namespace {

const char* const model_name = "glif_cond";

const std::vector<model_parameters::field<glif::parameters>>& fields() {
    static const auto f = glif::table("g_m");
    return f;
}

std::vector<state_spec> state_table() {
    std::vector<state_spec> s = {glif::state_V_m()};
    for (const auto& t: glif::threshold_states()) s.push_back(t);
    s.push_back({"g", "nS", "conductance of each receptor port: g_1, g_2, ... (NEST's names)", false, true});
    return s;
}

std::vector<std::string> checkpoint_names() {
    std::vector<std::string> names = {"U"};
    for (std::uint32_t k = 1; k <= glif::max_ports; ++k) {
        names.push_back(spikex::format("dg_{}", k));
        names.push_back(spikex::format("g_{}", k));
    }
    names.insert(names.end(), {"threshold", "threshold_spike", "threshold_voltage", "ASCurrents_sum"});
    for (std::uint32_t a = 1; a <= glif::max_asc_terms; ++a) names.push_back(spikex::format("ASCurrents_{}", a));
    names.insert(names.end(), {"I_stim", "r", "stim_active", "substep"});
    return names;
}

std::uint32_t ports_of(const population_spec& pop) { return glif::receptor_ports(model_name, true, pop, fields()); }

// A parameter set's constants.
struct cell_set {
    glif::mechanisms m;
    double E_L, C_m, g_m;
    std::vector<double> tau_syn, E_rev, cond_initial; // per port
};

template <std::size_t Ports>
class glif_cond_group final: public cell_group {
public:
    static constexpr std::size_t size = 1 + 2 * Ports;
    using integrator = ode::rkf45_integrator<size>;
    using ode_state = typename integrator::state;
    static constexpr std::size_t dg(std::size_t k) { return 1 + 2 * k; }
    static constexpr std::size_t g(std::size_t k) { return 2 + 2 * k; }
    static constexpr std::size_t saved_ode = 1 + 2 * glif::max_ports;

    glif_cond_group(const network_spec& spec, const std::vector<gid_type>& gids, local_index first_local):
        h_(spec.dt_ms), first_(first_local), n_(gids.size()), gids_(gids) {
        std::map<std::vector<double>, std::uint32_t> known;
        set_of_.resize(n_);
        y_.resize(n_);
        th_.resize(n_);
        const population_spec* last = nullptr;
        std::uint32_t ports = 0; // of the population of the cell before
        for (std::size_t i = 0; i < n_; ++i) {
            const population_spec& pop = spec.population_of(gids[i]);
            auto [p, lists, key] = glif::read_cell(model_name, true, fields(), pop, gids[i], spec.seed, last, ports);
            auto [it, inserted] = known.emplace(std::move(key), static_cast<std::uint32_t>(sets_.size()));
            if (inserted) sets_.push_back(make_set(p, lists));
            set_of_[i] = it->second;
            const cell_set& s = sets_[it->second];
            asc_stride_ = std::max<std::size_t>(asc_stride_, s.m.asc_terms());
            y_[i].fill(0.0);
            y_[i][0] = p.U_initial;
            th_[i] = {s.m.th_inf, 0.0, 0.0, 0.0};
        }
        for (std::size_t i = 0; i < n_; ++i) {
            if (runs_.empty() || runs_.back().set != set_of_[i])
                runs_.push_back({local_index(i), local_index(i), set_of_[i]});
            runs_.back().end = local_index(i + 1);
        }
        v_old_.assign(n_, 0.0);
        asc_.assign(n_ * asc_stride_, 0.0); // NEST 3.10 starts them at 0, whatever asc_init says
        input_.assign(n_ * Ports, 0.0);
        substep_.assign(n_, h_);
        refractory_.assign(n_, 0);
    }

    void begin_step(step_type, spike_output&) override {}

    void deliver(step_type, const local_index*, const double*, std::uint32_t, std::uint32_t, spike_output&) override {
        throw internal_error(spikex::format("{} takes spikes through receptor ports only", model_name));
    }

    void deliver_port(std::uint32_t port, step_type, const local_index* targets, const double* weights,
                      std::uint32_t begin, std::uint32_t end, spike_output&) override {
        for (std::uint32_t c = begin; c < end; ++c) input_[at(targets[c]) * Ports + port - 1] += weights[c];
    }

    void deliver_current(step_type, local_index cell, double current) override { stim_.add(n_, at(cell), current); }

    void end_step(step_type n, spike_output& out) override {
        const double* stim = stim_.now();
        for (const cell_run& run: runs_) {
            const cell_set& s = sets_[run.set];
            for (local_index i = run.begin; i < run.end; ++i) v_old_[i] = y_[i][0];
            ode::with_lanes([&](auto width) {
                constexpr std::size_t L = decltype(width)::value;
                run_cells<L> cells{*this, s, stim, n};
                integrator_.template advance_cells<L>(cells, run.begin, run.end, h_);
            });
            for (local_index i = run.begin; i < run.end; ++i) {
                ode_state& y = y_[i];
                glif::threshold_state& th = th_[i];
                double* asc = asc_.data() + std::size_t(i) * asc_stride_;
                check_membrane(model_name, gids_[i], n, h_, true, y[0] + s.E_L);
                if (refractory_[i] == 0) {
                    glif::decay(s.m, th, asc);
                    if (glif::threshold_and_reset(s.m, th, asc, v_old_[i], stim ? stim[i] : 0.0, y[0], refractory_[i]))
                        out.emit(first_ + i, n);
                } else {
                    glif::refractory_step(s.m, th, v_old_[i], y[0], refractory_[i]);
                }
                double* input = &input_[std::size_t(i) * Ports];
                for (std::size_t k = 0; k < s.tau_syn.size(); ++k) {
                    y[dg(k)] += input[k] * s.cond_initial[k];
                    input[k] = 0.0;
                }
            }
        }
        stim_.advance();
    }

    double state(local_index cell, const std::string& variable) const override {
        const std::size_t i = at(cell);
        const cell_set& s = sets_[set_of_[i]];
        if (variable == "V_m") return y_[i][0] + s.E_L;
        if (variable == "threshold") return th_[i].threshold + s.E_L;
        if (variable == "threshold_spike") return th_[i].threshold_spike;
        if (variable == "threshold_voltage") return th_[i].threshold_voltage;
        if (variable == "ASCurrents_sum") return th_[i].asc_sum;
        if (variable == "I") return stim_.stim(i);
        const int k = port_named(variable, s.tau_syn.size());
        if (k < 0) model_parameters::unknown_state(model_name, state_table(), variable);
        return y_[i][g(std::size_t(k))];
    }

    void set_state(local_index cell, const std::string& variable, double value) override {
        const std::size_t i = at(cell);
        const cell_set& s = sets_[set_of_[i]];
        if (variable == "V_m") {
            y_[i][0] = value - s.E_L;
        } else if (variable == "threshold_spike") {
            if (!s.m.spike)
                glif::refuse_state(model_name, variable, "the cell has no spike_dependent_threshold (NEST's rule)");
            th_[i].threshold_spike = value;
        } else if (variable == "threshold_voltage") {
            if (!s.m.voltage)
                glif::refuse_state(model_name, variable, "the cell has no adapting_threshold (NEST's rule)");
            th_[i].threshold_voltage = value;
        } else if (variable == "threshold" || variable == "ASCurrents_sum" || variable == "I" ||
                   port_named(variable, s.tau_syn.size()) >= 0) {
            glif::refuse_state(model_name, variable, "it follows the cell's state and inputs, as in NEST");
        } else {
            cell_group::set_state(cell, variable, value);
        }
    }

    std::size_t bytes() const override {
        std::size_t sets = 0;
        for (const auto& s: sets_)
            sets += sizeof(s) + 3 * s.tau_syn.capacity() * sizeof(double) + 4 * s.m.asc_terms() * sizeof(double);
        return y_.capacity() * sizeof(ode_state) +
               (asc_.capacity() + input_.capacity() + substep_.capacity()) * sizeof(double) +
               th_.capacity() * sizeof(glif::threshold_state) +
               (refractory_.capacity() + set_of_.capacity()) * sizeof(std::int32_t) + sets + stim_.bytes() +
               gids_.capacity() * sizeof(gid_type);
    }

    // checkpoint_names(): U, max_ports (dg, g) pairs (0 past the group's room), the
    // threshold state, max_asc_terms currents, I_stim, r, stim_active, substep.
    void save_cell(local_index cell, double* v) const override {
        const std::size_t i = at(cell);
        std::fill(v, v + saved_ode, 0.0);
        std::copy(y_[i].begin(), y_[i].end(), v);
        double* x = v + saved_ode;
        const glif::threshold_state& th = th_[i];
        for (double value: {th.threshold, th.threshold_spike, th.threshold_voltage, th.asc_sum}) *x++ = value;
        std::fill(x, x + glif::max_asc_terms, 0.0);
        std::copy_n(asc_.begin() + std::ptrdiff_t(i * asc_stride_), asc_stride_, x);
        x += glif::max_asc_terms;
        x[0] = stim_.stim(i);
        x[1] = refractory_[i];
        x[2] = stim_.active() ? 1.0 : 0.0;
        x[3] = substep_[i];
    }
    void load_cell(local_index cell, const double* v) override {
        const std::size_t i = at(cell);
        const cell_set& s = sets_[set_of_[i]];
        y_[i][0] = v[0];
        // a port or current the cell no longer has (its lists shortened between runs) keeps nothing
        for (std::size_t k = 0; k < Ports; ++k) {
            y_[i][dg(k)] = k < s.tau_syn.size() ? v[dg(k)] : 0.0;
            y_[i][g(k)] = k < s.tau_syn.size() ? v[g(k)] : 0.0;
        }
        const double* x = v + saved_ode;
        th_[i] = {x[0], x[1], x[2], x[3]};
        x += 4;
        for (std::size_t a = 0; a < asc_stride_; ++a) asc_[i * asc_stride_ + a] = a < s.m.asc_terms() ? x[a] : 0.0;
        x += glif::max_asc_terms;
        refractory_[i] = static_cast<std::int32_t>(x[1]);
        if (x[2] != 0) stim_.restore(n_, i, x[0]);
        substep_[i] = x[3];
    }

private:
    cell_set make_set(const glif::parameters& p, const std::vector<std::vector<double>>& lists) const {
        cell_set s;
        s.m = glif::mechanisms(model_name, p, lists, h_);
        s.E_L = p.E_L;
        s.C_m = p.C_m;
        s.g_m = p.g;
        s.tau_syn = lists[glif::tau_syn];
        s.E_rev = lists[glif::E_rev];
        for (double tau: s.tau_syn) s.cond_initial.push_back(1.0 * std::numbers::e / tau);
        return s;
    }

    // NEST's right-hand side, its operations in its order, for one cell (T = double, R =
    // bool) or `batch` cells side by side (ode::lanes, ode::lane_mask): I and
    // ASCurrents_sum constant over the step; while refractory U = V_reset in the currents
    // and dU/dt = 0.
    template <class T, class R>
    [[gnu::always_inline]] static void derivative(const cell_set& s, const R& refractory, const T& I, const T& asc_sum,
                                                  const std::array<T, size>& x, std::array<T, size>& f) {
        const std::size_t ports = s.tau_syn.size();
        const T V = ode::select(refractory, s.m.V_reset, x[0]);
        T I_syn = ode::splat<T>(0.0);
        for (std::size_t k = 0; k < ports; ++k) I_syn += x[g(k)] * (V + s.E_L - s.E_rev[k]);
        const T I_leak = s.g_m * V;
        f[0] = ode::select(refractory, 0.0, (-I_leak - I_syn + I + asc_sum) / s.C_m);
        for (std::size_t k = 0; k < ports; ++k) {
            f[dg(k)] = -x[dg(k)] / s.tau_syn[k];
            f[g(k)] = x[dg(k)] - (x[g(k)] / s.tau_syn[k]);
        }
        for (std::size_t k = ports; k < Ports; ++k) f[dg(k)] = f[g(k)] = ode::splat<T>(0.0);
    }

    // The cells of a run as rkf45_integrator::advance_cells sees them: each cell's own
    // sub-steps, the same operations as advance() one cell at a time.
    template <std::size_t batch>
    struct run_cells {
        glif_cond_group& group;
        const cell_set& s;
        const double* stim;
        step_type n;
        ode::lanes<batch> I{}, asc_sum{};
        ode::lane_mask<batch> refractory{};

        ode_state& state(std::size_t c) { return group.y_[c]; }
        double& substep(std::size_t c) { return group.substep_[c]; }
        void load(std::size_t l, std::size_t c) {
            I[l] = stim ? stim[c] : 0.0;
            asc_sum[l] = group.th_[c].asc_sum;
            refractory.set(l, group.refractory_[c] > 0);
        }
        SPIKEX_LANES_INLINE void derivative(const typename integrator::template state_lanes<batch>& y,
                                            typename integrator::template state_lanes<batch>& f) const {
            const auto current = I; // copies: f's writes cannot alias them
            const auto sum = asc_sum;
            const auto r = refractory;
            glif_cond_group::derivative(s, r, current, sum, y, f);
        }
        void collapsed(std::size_t c) const {
            check_membrane(model_name, group.gids_[c], n, group.h_, false, group.y_[c][0] + s.E_L);
        }
    };

    // "g_<k>" -> k - 1 when the cell has port k, else -1.
    static int port_named(const std::string& variable, std::size_t ports) {
        if (variable.size() < 3 || variable.compare(0, 2, "g_") != 0) return -1;
        for (std::size_t k = 1; k <= ports; ++k)
            if (variable == spikex::format("g_{}", k)) return int(k - 1);
        return -1;
    }

    std::size_t at(local_index cell) const { return cell - first_; }

    double h_;
    local_index first_;
    std::size_t n_;
    std::vector<gid_type> gids_; // for error messages
    std::vector<cell_set> sets_;
    std::vector<std::uint32_t> set_of_;
    std::vector<cell_run> runs_; // consecutive cells of one set
    std::size_t asc_stride_ = 0;
    std::vector<double> v_old_;             // U before the step's integration
    std::vector<ode_state> y_;              // U, (dg_k, g_k) per port
    std::vector<glif::threshold_state> th_; // threshold, its components, ASCurrents_sum
    std::vector<double> asc_;               // the after-spike currents (asc_stride_ per cell)
    std::vector<double> input_;             // this step's weights per port (Ports per cell)
    std::vector<double> substep_;           // the integrator's sub-step per cell [ms]
    std::vector<std::int32_t> refractory_;  // r: refractory steps left
    iaf_step::current_buffer stim_;         // current inputs (NEST's I) [pA]
    integrator integrator_;                 // NEST's scheme, absolute error 1e-3 (gsl_odeiv_control_y_new)
};

std::unique_ptr<cell_group> make_group(const network_spec& spec, const std::vector<gid_type>& gids,
                                       local_index first_local) {
    model_parameters::require_positive_dt(model_name, spec.dt_ms);
    // Room for the most ports of the group's cells.
    std::uint32_t most = 1;
    const population_spec* last = nullptr;
    for (gid_type gid: gids) {
        const population_spec* pop = &spec.population_of(gid);
        if (pop != last) most = std::max(most, ports_of(*pop));
        last = pop;
    }
    if (most <= 2) return std::make_unique<glif_cond_group<2>>(spec, gids, first_local);
    if (most <= 4) return std::make_unique<glif_cond_group<4>>(spec, gids, first_local);
    if (most <= 8) return std::make_unique<glif_cond_group<8>>(spec, gids, first_local);
    static_assert(glif::max_ports == 16);
    return std::make_unique<glif_cond_group<16>>(spec, gids, first_local);
}

} // namespace

model_entry glif_cond_model() {
    model_entry e;
    e.name = model_name;
    e.kind = model_kind::neuron;
    e.description = "NEST's generalized leaky integrate-and-fire neuron (the Allen Institute's GLIF levels 1-5, "
                    "Teeter et al. 2018) with one alpha-shaped conductance per receptor port, weights in nS";
    e.parameters = glif::all_specs("g_m", true);
    e.state = state_table();
    e.accepts_current = true;
    e.checkpoint_state = checkpoint_names();
    e.receptors = "spikes through receptor ports 1, 2, ... (one per tau_syn value), a weight w (nS, either sign, as "
                  "NEST) the peak of that port's alpha conductance, its E_rev making it excitatory or inhibitory; "
                  "currents (pA)";
    e.receptor_ports = ports_of;
    e.integration = "NEST's Runge-Kutta-Fehlberg 4(5) with GSL's standard step control (absolute error 1e-3); the "
                    "threshold components and after-spike currents NEST's exact solutions";
    e.nest_model = model_name;
    e.docs_page = "docs/models/glif_cond.md";
    e.make = make_group;
    return e;
}

} // namespace spikex
