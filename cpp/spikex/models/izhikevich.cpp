// The izhikevich cell group: per-cell V, U and input sums, parameter sets shared by runs of
// cells (cell_parameter_sets.hpp). Forward Euler as NEST, so spikes equal NEST's.
#include "spikex/models/izhikevich.hpp"

#include <array>
#include <limits>

#include "spikex/models/cell_parameter_sets.hpp"
#include "spikex/models/dynamics_failure.hpp"
#include "spikex/models/iaf_step.hpp"
#include "spikex/models/model_parameters.hpp"
#include "spikex/models/neuron_parameters.hpp"

namespace spikex {
namespace izhikevich {
namespace {

namespace np = neuron_parameters;

const char* const model_name = "izhikevich";

struct parameters {
    double a, b, c, d, I_e, V_th, V_min, consistent_integration;
    double V_m, U_m;  // initial state
    double tau_minus; // STDP depression time constant (read by the synapses)
};

// NEST 3.10's defaults. NEST checks none of the parameters; neither do we beyond finiteness.
const std::vector<model_parameters::field<parameters>> table = {
    {{"a", "1/ms", 0.02, "", ranges::any(), "time scale of the recovery variable U"}, &parameters::a},
    {{"b", "1", 0.2, "", ranges::any(), "sensitivity of U to V"}, &parameters::b},
    {{"c", "mV", -65.0, "", ranges::any(), "V after a spike"}, &parameters::c},
    {{"d", "mV/ms", 8.0, "", ranges::any(), "increment of U at a spike"}, &parameters::d},
    {np::I_e(), &parameters::I_e},
    {{"V_th", "mV", 30.0, "", ranges::any(), "spike cut-off: V >= V_th emits a spike and resets"}, &parameters::V_th},
    {{"V_min", "mV", std::numeric_limits<double>::lowest(), "", ranges::any(), "lower bound of V"}, &parameters::V_min},
    {{"consistent_integration", "1", 1.0, "", ranges::flag(),
      "1: forward Euler on (V, U) of the step's start (NEST's default); 0: Izhikevich's published scheme "
      "(for dt = 1 ms)"},
     &parameters::consistent_integration},
    {{"V_m", "mV", -65.0, "", ranges::any(), "initial membrane potential"}, &parameters::V_m},
    {{"U_m", "mV/ms", -13.0, "", ranges::any(), "initial recovery variable (NEST: b * -65 with the default b)"},
     &parameters::U_m},
    {np::tau_minus(), &parameters::tau_minus},
};

const std::vector<state_spec> state_table = {{"V_m", "mV", "membrane potential"},
                                             {"U_m", "mV/ms", "recovery variable"}};

std::array<double, 8> dynamics_key(const parameters& p) {
    return {p.a, p.b, p.c, p.d, p.I_e, p.V_th, p.V_min, p.consistent_integration};
}

class izhikevich_group final: public cell_group_of_both_widths<izhikevich_group> {
public:
    izhikevich_group(const network_spec& spec, const std::vector<gid_type>& gids, local_index first_local):
        h_(spec.dt_ms), first_(first_local), gids_(gids) {
        const std::size_t n = gids.size();
        V_.resize(n);
        U_.resize(n);
        auto resolved = resolve_cell_parameters<parameters>(
            spec, model_name, gids,
            [](const population_spec&, const auto& values) {
                return model_parameters::parse(model_name, table, values);
            },
            dynamics_key,
            [&](local_index i, const parameters& p, std::uint32_t) {
                V_[i] = p.V_m;
                U_[i] = p.U_m;
            });
        runs_ = std::move(resolved.runs);
        sets_ = std::move(resolved.sets);
        sum_.assign(n, 0.0);
    }

    void begin_step(step_type, spike_output&) override {}

    template <class Target>
    void deliver_to(step_type, Target targets, const double* weights, std::uint32_t begin, std::uint32_t end,
                    spike_output&) {
        for (std::uint32_t c = begin; c < end; ++c) sum_[targets[c] - first_] += weights[c];
    }
    // One weight for every connection (a group keeping one weight): the same additions.
    template <class Target>
    void deliver_uniform_to(step_type, Target targets, std::uint32_t count, double weight, spike_output&) {
        for (std::uint32_t c = 0; c < count; ++c) sum_[targets[c] - first_] += weight;
    }

    void deliver_current(step_type, local_index cell, double current) override {
        stim_.add(V_.size(), cell - first_, current);
    }

    void end_step(step_type n, spike_output& out) override {
        const double* stim = stim_.now();
        const double h = h_;
        for (const auto& run: runs_) {
            const parameters& p = sets_[run.set];
            for (local_index i = run.begin; i < run.end; ++i) {
                const double I = stim ? stim[i] : 0.0;
                double v = V_[i];
                double u = U_[i];
                if (p.consistent_integration != 0.0) {
                    const double v_old = v, u_old = u;
                    v += h * (0.04 * v_old * v_old + 5.0 * v_old + 140.0 - u_old + I + p.I_e) + sum_[i];
                    u += h * p.a * (p.b * v_old - u_old);
                } else {
                    const double I_syn = sum_[i];
                    v += h * 0.5 * (0.04 * v * v + 5.0 * v + 140.0 - u + I + p.I_e + I_syn);
                    v += h * 0.5 * (0.04 * v * v + 5.0 * v + 140.0 - u + I + p.I_e + I_syn);
                    u += h * p.a * (p.b * v - u);
                }
                sum_[i] = 0.0;
                v = v < p.V_min ? p.V_min : v;
                if (!std::isfinite(v) || !std::isfinite(u))
                    dynamics_failed(model_name, gids_[i], n, h,
                                    spikex::format("V_m = {} mV, U_m = {}: the forward-Euler step diverged; a smaller "
                                                   "dt or a lower V_th may help",
                                                   model_parameters::number(v), model_parameters::number(u)));
                if (v >= p.V_th) {
                    v = p.c;
                    u += p.d;
                    out.emit(first_ + i, n);
                }
                V_[i] = v;
                U_[i] = u;
            }
        }
        stim_.advance();
    }

    double state(local_index cell, const std::string& variable) const override {
        const std::size_t i = cell - first_;
        if (variable == "V_m") return V_[i];
        if (variable == "U_m") return U_[i];
        model_parameters::unknown_state(model_name, state_table, variable);
    }

    void set_state(local_index cell, const std::string& variable, double value) override {
        const std::size_t i = cell - first_;
        if (variable == "V_m")
            V_[i] = value;
        else if (variable == "U_m")
            U_[i] = value;
        else
            cell_group::set_state(cell, variable, value);
    }

    std::size_t bytes() const override {
        return (V_.capacity() + U_.capacity() + sum_.capacity()) * sizeof(double) +
               runs_.capacity() * sizeof(cell_run) + sets_.capacity() * sizeof(parameters) + stim_.bytes() +
               gids_.capacity() * sizeof(gid_type);
    }

    void save_cell(local_index cell, double* v) const override {
        const std::size_t i = cell - first_;
        v[0] = V_[i];
        v[1] = U_[i];
        v[2] = stim_.stim(i);
        v[3] = stim_.active() ? 1.0 : 0.0;
    }
    void load_cell(local_index cell, const double* v) override {
        const std::size_t i = cell - first_;
        V_[i] = v[0];
        U_[i] = v[1];
        if (v[3] != 0) stim_.restore(V_.size(), i, v[2]);
    }

private:
    double h_;
    local_index first_;
    std::vector<gid_type> gids_; // for error messages
    std::vector<parameters> sets_;
    std::vector<cell_run> runs_;
    std::vector<double> V_, U_;
    std::vector<double> sum_;       // spike input of the current step [mV]
    iaf_step::current_buffer stim_; // current inputs (I_stim) [pA]
};

} // namespace

std::unique_ptr<cell_group> make_group(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                       local_index first_local) {
    model_parameters::require_positive_dt(model_name, spec.dt_ms);
    return std::make_unique<izhikevich_group>(spec, local_gids, first_local);
}

} // namespace izhikevich

model_entry izhikevich_model() {
    model_entry e;
    e.name = "izhikevich";
    e.kind = model_kind::neuron;
    e.description = "Izhikevich's two-variable neuron (NEST's model): quadratic V, linear recovery U, reset at "
                    "V_th, weights in mV";
    e.parameters = model_parameters::specs_of(izhikevich::table);
    e.state = izhikevich::state_table;
    e.accepts_current = true;
    e.checkpoint_state = {"V_m", "U_m", "I_stim", "stim_active"};
    e.receptors = "spikes: V jumps by the weight (mV, either sign); currents (pA)";
    e.integration = "forward Euler at dt, as NEST (consistent_integration), so spikes equal NEST's";
    e.nest_model = "izhikevich";
    e.pynn_types = {"Izhikevich"};
    e.docs_page = "docs/models/izhikevich.md";
    e.make = [](const network_spec& spec, const std::vector<gid_type>& local_gids, local_index first_local) {
        return izhikevich::make_group(spec, local_gids, first_local);
    };
    return e;
}

} // namespace spikex
