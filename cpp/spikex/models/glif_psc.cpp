// glif_psc's cell group (glif_psc.hpp): cells with equal parameters and lists share one
// set of constants; the state of each cell in flat arrays (ports and after-spike currents
// at a stride of the group's most).
#include "spikex/models/glif_psc.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <string>
#include <vector>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/models/dynamics_failure.hpp"
#include "spikex/models/glif_common.hpp"
#include "spikex/models/iaf_propagators.hpp"
#include "spikex/models/iaf_step.hpp"

namespace spikex {
namespace {

const char* const model_name = "glif_psc";

const std::vector<model_parameters::field<glif::parameters>>& fields() {
    static const auto f = glif::table("g");
    return f;
}

std::vector<state_spec> state_table() {
    std::vector<state_spec> s = {glif::state_V_m()};
    for (const auto& t: glif::threshold_states()) s.push_back(t);
    s.push_back(
        {"I_syn", "pA", "the sum of the ports' synaptic currents as the last membrane update used them", false});
    return s;
}

std::vector<std::string> checkpoint_names() {
    std::vector<std::string> names = {"U",    "threshold", "threshold_spike", "threshold_voltage", "ASCurrents_sum",
                                      "I_syn"};
    for (std::uint32_t a = 1; a <= glif::max_asc_terms; ++a) names.push_back(spikex::format("ASCurrents_{}", a));
    for (std::uint32_t k = 1; k <= glif::max_ports; ++k) names.push_back(spikex::format("y1_{}", k));
    for (std::uint32_t k = 1; k <= glif::max_ports; ++k) names.push_back(spikex::format("y2_{}", k));
    names.insert(names.end(), {"I_stim", "r", "stim_active"});
    return names;
}

std::uint32_t ports_of(const population_spec& pop) { return glif::receptor_ports(model_name, false, pop, fields()); }

// A parameter set's constants: the mechanisms' and the membrane's propagators.
struct cell_set {
    glif::mechanisms m;
    double E_L, P33, P30;
    std::vector<double> P11, P21, P22, P31, P32, psc_initial; // per port
};

class glif_psc_group final: public cell_group {
public:
    glif_psc_group(const network_spec& spec, const std::vector<gid_type>& gids, local_index first_local):
        h_(spec.dt_ms), first_(first_local), n_(gids.size()), gids_(gids) {
        const double h = spec.dt_ms;
        std::map<std::vector<double>, std::uint32_t> known;
        set_of_.resize(n_);
        U_.resize(n_);
        th_.resize(n_);
        const population_spec* last = nullptr;
        std::uint32_t ports = 0; // of the population of the cell before
        for (std::size_t i = 0; i < n_; ++i) {
            const population_spec& pop = spec.population_of(gids[i]);
            auto [p, lists, key] = glif::read_cell(model_name, false, fields(), pop, gids[i], spec.seed, last, ports);
            auto [it, inserted] = known.emplace(std::move(key), static_cast<std::uint32_t>(sets_.size()));
            if (inserted) sets_.push_back(make_set(p, lists, h));
            set_of_[i] = it->second;
            const cell_set& s = sets_[it->second];
            port_stride_ = std::max<std::size_t>(port_stride_, s.P11.size());
            asc_stride_ = std::max<std::size_t>(asc_stride_, s.m.asc_terms());
            U_[i] = p.U_initial;
            th_[i] = {s.m.th_inf, 0.0, 0.0, 0.0};
        }
        y1_.assign(n_ * port_stride_, 0.0);
        y2_.assign(n_ * port_stride_, 0.0);
        input_.assign(n_ * port_stride_, 0.0);
        asc_.assign(n_ * asc_stride_, 0.0); // NEST 3.10 starts them at 0, whatever asc_init says
        I_syn_.assign(n_, 0.0);
        refractory_.assign(n_, 0);
    }

    void begin_step(step_type, spike_output&) override {}

    void deliver(step_type, const local_index*, const double*, std::uint32_t, std::uint32_t, spike_output&) override {
        throw internal_error(spikex::format("{} takes spikes through receptor ports only", model_name));
    }

    void deliver_port(std::uint32_t port, step_type, const local_index* targets, const double* weights,
                      std::uint32_t begin, std::uint32_t end, spike_output&) override {
        for (std::uint32_t c = begin; c < end; ++c) input_[at(targets[c]) * port_stride_ + port - 1] += weights[c];
    }

    void deliver_current(step_type, local_index cell, double current) override { stim_.add(n_, at(cell), current); }

    void end_step(step_type n, spike_output& out) override {
        const double* stim = stim_.now();
        for (std::size_t i = 0; i < n_; ++i) {
            const cell_set& s = sets_[set_of_[i]];
            double* y1 = &y1_[i * port_stride_];
            double* y2 = &y2_[i * port_stride_];
            double* input = &input_[i * port_stride_];
            double* asc = asc_.data() + i * asc_stride_;
            const std::size_t ports = s.P11.size();
            const double I = stim ? stim[i] : 0.0;
            const double v_old = U_[i];
            glif::threshold_state& th = th_[i];
            if (refractory_[i] == 0) {
                glif::decay(s.m, th, asc);
                double U = v_old * s.P33 + (I + th.asc_sum) * s.P30;
                double I_syn = 0.0;
                for (std::size_t k = 0; k < ports; ++k) {
                    U += s.P31[k] * y1[k] + s.P32[k] * y2[k];
                    I_syn += y2[k];
                }
                I_syn_[i] = I_syn;
                if (!std::isfinite(U)) {
                    dynamics_failed(model_name, gids_[i], n, h_,
                                    spikex::format("V_m = {} mV: the inputs make the membrane potential diverge",
                                                   model_parameters::number(U + s.E_L)));
                }
                if (glif::threshold_and_reset(s.m, th, asc, v_old, I, U, refractory_[i]))
                    out.emit(first_ + static_cast<local_index>(i), n);
                U_[i] = U;
            } else {
                glif::refractory_step(s.m, th, v_old, U_[i], refractory_[i]);
            }
            for (std::size_t k = 0; k < ports; ++k) {
                y2[k] = s.P21[k] * y1[k] + s.P22[k] * y2[k];
                y1[k] *= s.P11[k];
                y1[k] += s.psc_initial[k] * input[k];
                input[k] = 0.0;
            }
        }
        stim_.advance();
    }

    double state(local_index cell, const std::string& variable) const override {
        const std::size_t i = at(cell);
        const cell_set& s = sets_[set_of_[i]];
        if (variable == "V_m") return U_[i] + s.E_L;
        if (variable == "threshold") return th_[i].threshold + s.E_L;
        if (variable == "threshold_spike") return th_[i].threshold_spike;
        if (variable == "threshold_voltage") return th_[i].threshold_voltage;
        if (variable == "ASCurrents_sum") return th_[i].asc_sum;
        if (variable == "I") return stim_.stim(i);
        if (variable == "I_syn") return I_syn_[i];
        model_parameters::unknown_state(model_name, state_table(), variable);
    }

    void set_state(local_index cell, const std::string& variable, double value) override {
        const std::size_t i = at(cell);
        const cell_set& s = sets_[set_of_[i]];
        if (variable == "V_m") {
            U_[i] = value - s.E_L;
        } else if (variable == "threshold_spike") {
            if (!s.m.spike)
                glif::refuse_state(model_name, variable, "the cell has no spike_dependent_threshold (NEST's rule)");
            th_[i].threshold_spike = value;
        } else if (variable == "threshold_voltage") {
            if (!s.m.voltage)
                glif::refuse_state(model_name, variable, "the cell has no adapting_threshold (NEST's rule)");
            th_[i].threshold_voltage = value;
        } else if (variable == "threshold" || variable == "ASCurrents_sum" || variable == "I" || variable == "I_syn") {
            glif::refuse_state(model_name, variable, "it follows the cell's state, as in NEST");
        } else {
            cell_group::set_state(cell, variable, value);
        }
    }

    std::size_t bytes() const override {
        std::size_t sets = 0;
        for (const auto& s: sets_)
            sets += sizeof(s) + 6 * s.P11.capacity() * sizeof(double) + 4 * s.m.asc_terms() * sizeof(double);
        return (U_.capacity() + I_syn_.capacity() + y1_.capacity() + y2_.capacity() + input_.capacity() +
                asc_.capacity()) *
                   sizeof(double) +
               th_.capacity() * sizeof(glif::threshold_state) +
               (refractory_.capacity() + set_of_.capacity()) * sizeof(std::int32_t) + sets + stim_.bytes() +
               gids_.capacity() * sizeof(gid_type);
    }

    // checkpoint_names(): the state, max_asc_terms currents and max_ports of y1 and y2
    // (0 past the cell's own), I_stim, r, stim_active.
    void save_cell(local_index cell, double* v) const override {
        const std::size_t i = at(cell);
        const glif::threshold_state& th = th_[i];
        double* x = v;
        for (double value: {U_[i], th.threshold, th.threshold_spike, th.threshold_voltage, th.asc_sum, I_syn_[i]})
            *x++ = value;
        std::fill(x, x + glif::max_asc_terms + 2 * glif::max_ports, 0.0);
        std::copy_n(asc_.begin() + std::ptrdiff_t(i * asc_stride_), asc_stride_, x);
        x += glif::max_asc_terms;
        std::copy_n(&y1_[i * port_stride_], port_stride_, x);
        std::copy_n(&y2_[i * port_stride_], port_stride_, x + glif::max_ports);
        x += 2 * glif::max_ports;
        x[0] = stim_.stim(i);
        x[1] = refractory_[i];
        x[2] = stim_.active() ? 1.0 : 0.0;
    }
    void load_cell(local_index cell, const double* v) override {
        const std::size_t i = at(cell);
        const cell_set& s = sets_[set_of_[i]];
        U_[i] = v[0];
        th_[i] = {v[1], v[2], v[3], v[4]};
        I_syn_[i] = v[5];
        const double* x = v + 6;
        // what the cell no longer has (its lists shortened between runs) keeps nothing
        for (std::size_t a = 0; a < asc_stride_; ++a) asc_[i * asc_stride_ + a] = a < s.m.asc_terms() ? x[a] : 0.0;
        x += glif::max_asc_terms;
        for (std::size_t k = 0; k < port_stride_; ++k) {
            y1_[i * port_stride_ + k] = k < s.P11.size() ? x[k] : 0.0;
            y2_[i * port_stride_ + k] = k < s.P11.size() ? x[glif::max_ports + k] : 0.0;
        }
        x += 2 * glif::max_ports;
        refractory_[i] = static_cast<std::int32_t>(x[1]);
        if (x[2] != 0) stim_.restore(n_, i, x[0]);
    }

private:
    static cell_set make_set(const glif::parameters& p, const std::vector<std::vector<double>>& lists, double h) {
        cell_set s;
        s.m = glif::mechanisms(model_name, p, lists, h);
        s.E_L = p.E_L;
        const double tau = p.C_m / p.g;
        s.P33 = std::exp(-h / tau);
        s.P30 = 1 / p.C_m * (1 - s.P33) * tau; // NEST's expression
        for (double tau_syn: lists[glif::tau_syn]) {
            s.P11.push_back(std::exp(-h / tau_syn));
            s.P22.push_back(s.P11.back());
            s.P21.push_back(h * s.P11.back());
            const auto [P31, P32] = iaf_integration::alpha_current_propagators(tau_syn, tau, p.C_m, h);
            s.P31.push_back(P31);
            s.P32.push_back(P32);
            s.psc_initial.push_back(1.0 * std::numbers::e / tau_syn);
        }
        return s;
    }

    std::size_t at(local_index cell) const { return cell - first_; }

    double h_;
    local_index first_;
    std::size_t n_;
    std::vector<gid_type> gids_; // for error messages
    std::vector<cell_set> sets_;
    std::vector<std::uint32_t> set_of_;
    std::size_t port_stride_ = 1, asc_stride_ = 0;
    std::vector<double> U_;                 // V_m - E_L
    std::vector<glif::threshold_state> th_; // threshold, its components, ASCurrents_sum
    std::vector<double> asc_;               // the after-spike currents (asc_stride_ per cell)
    std::vector<double> y1_, y2_, input_;   // per port (port_stride_ per cell): dI, I, this step's weights
    std::vector<double> I_syn_;             // the ports' current as the last update used it
    std::vector<std::int32_t> refractory_;  // r: refractory steps left
    iaf_step::current_buffer stim_;         // current inputs (NEST's I) [pA]
};

} // namespace

model_entry glif_psc_model() {
    model_entry e;
    e.name = model_name;
    e.kind = model_kind::neuron;
    e.description = "NEST's generalized leaky integrate-and-fire neuron (the Allen Institute's GLIF levels 1-5, "
                    "Teeter et al. 2018) with one alpha-shaped current per receptor port, weights in pA";
    e.parameters = glif::all_specs("g", false);
    e.state = state_table();
    e.accepts_current = true;
    e.checkpoint_state = checkpoint_names();
    e.receptors = "spikes through receptor ports 1, 2, ... (one per tau_syn value), a weight of either sign the peak "
                  "of that port's alpha current (pA); currents (pA)";
    e.receptor_ports = ports_of;
    e.integration = "exact (NEST's propagators), the threshold components and after-spike currents NEST's exact "
                    "solutions";
    e.nest_model = model_name;
    e.docs_page = "docs/models/glif_psc.md";
    e.make = [](const network_spec& spec, const std::vector<gid_type>& local_gids,
                local_index first_local) -> std::unique_ptr<cell_group> {
        model_parameters::require_positive_dt(model_name, spec.dt_ms);
        return std::make_unique<glif_psc_group>(spec, local_gids, first_local);
    };
    return e;
}

} // namespace spikex
