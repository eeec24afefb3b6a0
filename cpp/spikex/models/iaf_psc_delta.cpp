// The iaf_psc_delta cell group: state as arrays (structure of arrays), propagators per
// parameter set, runs of consecutive cells sharing a set (cell_parameter_sets), and
// end_step in two passes: the update (branch-free and vectorisable without
// refractory_input; scalar with it, as the held-back input needs an exp per input while
// refractory) and the threshold test with reset and spike report (rare, scalar).
#include <algorithm>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/models/cell_parameter_sets.hpp"
#include "spikex/models/iaf_psc_delta.hpp"
#include "spikex/models/iaf_step.hpp"
#include "spikex/models/model_parameters.hpp"
#include "spikex/models/neuron_parameters.hpp"

namespace spikex {
namespace iaf_psc_delta {
namespace {

namespace np = neuron_parameters;

const char* const model_name = "iaf_psc_delta";

// The parameter table: NEST 3.10's defaults.
const std::vector<model_parameters::field<parameters>> table = {
    {np::E_L(), &parameters::E_L},
    {np::C_m(), &parameters::C_m},
    {np::tau_m(), &parameters::tau_m},
    {np::t_ref(), &parameters::t_ref},
    {np::V_th(), &parameters::V_th},
    {np::V_reset(), &parameters::V_reset},
    {{"V_min", "mV", std::numeric_limits<double>::lowest(), "", ranges::any(),
      "lower bound of the membrane potential (NEST's default: the lowest double, no bound)"},
     &parameters::V_min},
    {np::I_e(), &parameters::I_e},
    {{"refractory_input", "1", 0.0, "", ranges::flag(),
      "1: input arriving while refractory is held and added when the period ends (NEST's refractory_input)"},
     &parameters::refractory_input},
    {np::V_m(), &parameters::V_m},
    {np::tau_minus(), &parameters::tau_minus},
};

const std::vector<state_spec> state_table = {{"V_m", "mV", "membrane potential"}};
// held: input held back while refractory (refractory_input; 0 without it).
const std::vector<std::string> checkpoint_names = {"V", "held", "I_stim", "r", "stim_active"};

// Everything end_step needs of one parameter set.
struct parameter_set {
    propagators q;
    double I_e;
    double E_L;
    double tau_m;
    double theta;   // V_th - E_L
    double V_reset; // V_reset - E_L
    double V_min;   // V_min - E_L
    bool refractory_input;
};

// Step 1 of the update (header comment) without refractory_input, for cells
// [begin, end): a free function, so that GCC honours __restrict and vectorises the loop.
// Without current input I_stim is 0 and not read (NEST's 0.0 + I_e is I_e).
template <bool with_stim>
[[gnu::noinline]] void integrate(const parameter_set& set, std::size_t begin, std::size_t end, double* __restrict V,
                                 const double* __restrict I_stim, double* __restrict sum, std::int32_t* __restrict r) {
    const propagators q = set.q;
    const double I_e = set.I_e, V_min = set.V_min;
    const double I_e_term = q.P30 * (0.0 + I_e);
    for (std::size_t i = begin; i < end; ++i) {
        const double v = V[i];
        const double drive = with_stim ? q.P30 * (I_stim[i] + I_e) : I_e_term;
        double v_new = drive + q.P33 * v + sum[i];
        v_new = v_new < V_min ? V_min : v_new;
        const std::int32_t ri = r[i];
        V[i] = iaf_integration::if_not_refractory(ri, v_new, v);
        r[i] = ri - std::int32_t(ri != 0);
        sum[i] = 0.0;
    }
}

// Step 1 with refractory_input, NEST's branches as they are.
void integrate_holding_input(const parameter_set& set, double h, std::size_t begin, std::size_t end, double* V,
                             const double* I_stim, double* sum, std::int32_t* r, double* held) {
    const propagators q = set.q;
    for (std::size_t i = begin; i < end; ++i) {
        const double stim = I_stim ? I_stim[i] : 0.0;
        if (r[i] == 0) {
            double v = q.P30 * (stim + set.I_e) + q.P33 * V[i] + sum[i];
            if (held[i] != 0.0) {
                v += held[i];
                held[i] = 0.0;
            }
            V[i] = v < set.V_min ? set.V_min : v;
        } else {
            held[i] += sum[i] * refractory_input_decay(r[i], h, set.tau_m);
            --r[i];
        }
        sum[i] = 0.0;
    }
}

class iaf_psc_delta_group final: public cell_group_of_both_widths<iaf_psc_delta_group, group> {
public:
    iaf_psc_delta_group(const network_spec& spec, const std::vector<gid_type>& gids, local_index first_local):
        h_(spec.dt_ms), first_(first_local) {
        const std::size_t n = gids.size();
        V_.resize(n);
        auto resolved = resolve_cell_parameters<parameters>(
            spec, model_name, gids, [](const population_spec&, const auto& values) { return parse_parameters(values); },
            dynamics_key, [&](local_index i, const parameters& p, std::uint32_t) { V_[i] = p.V_m - p.E_L; });
        runs_ = std::move(resolved.runs);
        for (const auto& p: resolved.sets) sets_.push_back(make_set(p, h_));
        sum_.assign(n, 0.0);
        refractory_count_.assign(n, 0);
        for (const auto& run: runs_)
            if (sets_[run.set].refractory_input) held_.assign(n, 0.0);
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
        stim_.add(V_.size(), at(cell), current);
    }

    void end_step(step_type n, spike_output& out) override {
        const double* stim = stim_.now();
        for (const auto& run: runs_) {
            const parameter_set& s = sets_[run.set];
            if (s.refractory_input)
                integrate_holding_input(s, h_, run.begin, run.end, V_.data(), stim, sum_.data(),
                                        refractory_count_.data(), held_.data());
            else if (stim)
                integrate<true>(s, run.begin, run.end, V_.data(), stim, sum_.data(), refractory_count_.data());
            else
                integrate<false>(s, run.begin, run.end, V_.data(), nullptr, sum_.data(), refractory_count_.data());
        }
        iaf_step::fire_crossings(runs_, sets_, V_.data(), refractory_count_.data(), first_, n, out);
        stim_.advance();
    }

    void set_state(local_index cell, const std::string& variable, double value) override {
        if (variable != "V_m") cell_group::set_state(cell, variable, value);
        V_[at(cell)] = value - set_of(at(cell)).E_L;
    }

    double state(local_index cell, const std::string& variable) const override {
        if (variable == "V_m") return V_m(cell);
        model_parameters::unknown_state(model_name, state_table, variable);
    }

    std::size_t bytes() const override {
        return (V_.capacity() + sum_.capacity() + held_.capacity()) * sizeof(double) +
               refractory_count_.capacity() * sizeof(std::int32_t) + runs_.capacity() * sizeof(cell_run) +
               sets_.capacity() * sizeof(parameter_set) + stim_.bytes();
    }

    void save_cell(local_index cell, double* v) const override {
        const local_index i = at(cell);
        v[0] = V_[i];
        v[1] = held_.empty() ? 0.0 : held_[i];
        v[2] = stim_.stim(i);
        v[3] = refractory_count_[i];
        v[4] = stim_.active() ? 1.0 : 0.0;
    }
    void load_cell(local_index cell, const double* v) override {
        const local_index i = at(cell);
        V_[i] = v[0];
        if (!held_.empty()) held_[i] = v[1];
        refractory_count_[i] = static_cast<std::int32_t>(v[3]);
        if (v[4] != 0) stim_.restore(V_.size(), i, v[2]);
    }

    double V_m(local_index cell) const override { return V_[at(cell)] + set_of(at(cell)).E_L; }
    std::int32_t refractory_count(local_index cell) const override { return refractory_count_[at(cell)]; }
    std::size_t parameter_sets() const override { return sets_.size(); }

private:
    static parameter_set make_set(const parameters& p, double h) {
        iaf_integration::checked_refractory_steps(model_name, p.t_ref, h);
        return {compute_propagators(p, h), p.I_e, p.E_L, p.tau_m, p.V_th - p.E_L, p.V_reset - p.E_L, p.V_min - p.E_L,
                p.refractory_input != 0.0};
    }

    local_index at(local_index cell) const { return cell - first_; }
    const parameter_set& set_of(local_index i) const { return sets_[set_index_of(runs_, i, model_name)]; }

    double h_;
    local_index first_; // rank-local index of cell 0 of this group
    std::vector<parameter_set> sets_;
    std::vector<cell_run> runs_;
    std::vector<double> V_;                      // relative to E_L
    iaf_step::current_buffer stim_;              // current inputs (I_stim) [pA]
    std::vector<double> sum_;                    // input of the current step [mV]
    std::vector<double> held_;                   // input held while refractory (refractory_input)
    std::vector<std::int32_t> refractory_count_; // r: refractory steps left
};

} // namespace

parameters parse_parameters(const std::map<std::string, double>& values) {
    const parameters p = model_parameters::parse(model_name, table, values);
    model_parameters::require(p.V_reset < p.V_th, model_name, "V_reset", p.V_reset,
                              spikex::format("must be < V_th = {} mV", model_parameters::number(p.V_th)));
    return p;
}

std::unique_ptr<group> make_group(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                  local_index first_local) {
    model_parameters::require_positive_dt(model_name, spec.dt_ms);
    return std::make_unique<iaf_psc_delta_group>(spec, local_gids, first_local);
}

} // namespace iaf_psc_delta

model_entry iaf_psc_delta_model() {
    model_entry e;
    e.name = "iaf_psc_delta";
    e.kind = model_kind::neuron;
    e.description = "NEST's leaky integrate-and-fire neuron whose inputs make the membrane potential jump "
                    "(exact integration), weights in mV";
    e.parameters = model_parameters::specs_of(iaf_psc_delta::table);
    e.state = iaf_psc_delta::state_table;
    e.receptors = "spikes: a jump of the membrane potential by the weight (mV); currents (pA)";
    e.integration = "exact (NEST's propagators)";
    e.nest_model = "iaf_psc_delta";
    e.pynn_types = {"IF_curr_delta"};
    e.accepts_current = true;
    e.checkpoint_state = iaf_psc_delta::checkpoint_names;
    e.docs_page = "docs/models/iaf_psc_delta.md";
    e.make = [](const network_spec& spec, const std::vector<gid_type>& local_gids,
                local_index first_local) -> std::unique_ptr<cell_group> {
        return iaf_psc_delta::make_group(spec, local_gids, first_local);
    };
    return e;
}

} // namespace spikex
