// The iaf_psc_exp cell group: state as arrays (structure of arrays), propagators per
// parameter set, runs of consecutive cells sharing a set (cell_parameter_sets), and
// end_step in two passes: the exact-integration update (branch-free, vectorisable) and
// the threshold test with reset and spike report (rare, scalar).
#include <algorithm>
#include <limits>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/core/lane_isa.hpp"
#include "spikex/models/cell_parameter_sets.hpp"
#include "spikex/models/iaf_psc_exp.hpp"
#include "spikex/models/iaf_step.hpp"
#include "spikex/models/model_parameters.hpp"
#include "spikex/models/neuron_parameters.hpp"

namespace spikex {
namespace iaf_psc_exp {
namespace {

namespace np = neuron_parameters;

const char* const model_name = "iaf_psc_exp";

// The parameter table: NEST 3.10's defaults.
const std::vector<model_parameters::field<parameters>> table = {
    {np::E_L(), &parameters::E_L},
    {np::C_m(), &parameters::C_m},
    {np::tau_m(), &parameters::tau_m},
    {np::t_ref(), &parameters::t_ref},
    {np::V_th(), &parameters::V_th},
    {np::V_reset(), &parameters::V_reset},
    {np::tau_syn("tau_syn_ex", 2.0, "decay time of the excitatory synaptic current"), &parameters::tau_syn_ex},
    {np::tau_syn("tau_syn_in", 2.0, "decay time of the inhibitory synaptic current"), &parameters::tau_syn_in},
    {np::I_e(), &parameters::I_e},
    {np::V_m(), &parameters::V_m},
    {np::tau_minus(), &parameters::tau_minus},
};

const std::vector<state_spec> state_table = {{"V_m", "mV", "membrane potential"},
                                             {"I_syn_ex", "pA", "excitatory synaptic current", false},
                                             {"I_syn_in", "pA", "inhibitory synaptic current", false}};
const std::vector<std::string> checkpoint_names = {"V", "I_ex", "I_in", "I_stim", "r", "stim_active"};

// Everything end_step needs of one parameter set.
struct parameter_set {
    propagators q;
    double I_e;
    double E_L;
    double theta;   // V_th - E_L
    double V_reset; // V_reset - E_L
};

// Steps 1 and 2 of the update (header comment) for cells [begin, end): a free function, so
// that GCC honours __restrict and vectorises the loop. Without current input I_stim is 0
// and not read (NEST's I_e + 0.0 is I_e). Compiled once per instruction set (below).
template <bool with_stim>
[[gnu::always_inline]] inline void
integrate_cells(const parameter_set& set, std::size_t begin, std::size_t end, double* __restrict V,
                double* __restrict I_ex, double* __restrict I_in, const double* __restrict I_stim,
                double* __restrict ex_sum, double* __restrict in_sum, std::int32_t* __restrict r) {
    const propagators q = set.q;
    const double I_e = set.I_e;
    const double I_e_term = (I_e + 0.0) * q.P20;
    for (std::size_t i = begin; i < end; ++i) {
        const double v = V[i];
        const double drive = with_stim ? (I_e + I_stim[i]) * q.P20 : I_e_term;
        const double v_new = v * q.P22 + I_ex[i] * q.P21_ex + I_in[i] * q.P21_in + drive;
        const std::int32_t ri = r[i];
        V[i] = iaf_integration::if_not_refractory(ri, v_new, v);
        r[i] = ri - std::int32_t(ri != 0);
        I_ex[i] = I_ex[i] * q.P11_ex + ex_sum[i];
        I_in[i] = I_in[i] * q.P11_in + in_sum[i];
        ex_sum[i] = 0.0;
        in_sum[i] = 0.0;
    }
}

// integrate_cells in the vector widths of core/lane_isa.hpp: the same bits in each.
#define SPIKEX_INTEGRATE_CLONE(name, ...)                                                                     \
    template <bool with_stim>                                                                                 \
    __VA_ARGS__ void name(const parameter_set& set, std::size_t begin, std::size_t end, double* __restrict V, \
                          double* __restrict I_ex, double* __restrict I_in, const double* __restrict I_stim,  \
                          double* __restrict ex_sum, double* __restrict in_sum, std::int32_t* __restrict r) { \
        integrate_cells<with_stim>(set, begin, end, V, I_ex, I_in, I_stim, ex_sum, in_sum, r);                \
    }
SPIKEX_INTEGRATE_CLONE(integrate_baseline, [[gnu::noinline]])
SPIKEX_INTEGRATE_CLONE(integrate_avx2, [[gnu::noinline, gnu::target("avx2")]])
SPIKEX_INTEGRATE_CLONE(integrate_avx512, [[gnu::noinline, gnu::target("avx512f")]])
#undef SPIKEX_INTEGRATE_CLONE

template <bool with_stim>
void integrate(const parameter_set& set, std::size_t begin, std::size_t end, double* V, double* I_ex, double* I_in,
               const double* I_stim, double* ex_sum, double* in_sum, std::int32_t* r) {
    static const lane_isa isa = best_lane_isa();
    if (isa == lane_isa::avx512)
        integrate_avx512<with_stim>(set, begin, end, V, I_ex, I_in, I_stim, ex_sum, in_sum, r);
    else if (isa == lane_isa::avx2)
        integrate_avx2<with_stim>(set, begin, end, V, I_ex, I_in, I_stim, ex_sum, in_sum, r);
    else
        integrate_baseline<with_stim>(set, begin, end, V, I_ex, I_in, I_stim, ex_sum, in_sum, r);
}

class iaf_psc_exp_group final: public cell_group_of_both_widths<iaf_psc_exp_group, group> {
public:
    iaf_psc_exp_group(const network_spec& spec, const std::vector<gid_type>& gids, local_index first_local):
        first_(first_local) {
        const double h = spec.dt_ms;
        const std::size_t n = gids.size();
        V_.resize(n);
        auto resolved = resolve_cell_parameters<parameters>(
            spec, model_name, gids, [](const population_spec&, const auto& values) { return parse_parameters(values); },
            dynamics_key, [&](local_index i, const parameters& p, std::uint32_t) { V_[i] = p.V_m - p.E_L; });
        runs_ = std::move(resolved.runs);
        for (const auto& p: resolved.sets) sets_.push_back(make_set(p, h));
        I_ex_.assign(n, 0.0);
        I_in_.assign(n, 0.0);
        ex_sum_.assign(n, 0.0);
        in_sum_.assign(n, 0.0);
        refractory_count_.assign(n, 0);
    }

    void begin_step(step_type, spike_output&) override {}

    template <class Target>
    void deliver_to(step_type, Target targets, const double* weights, std::uint32_t begin, std::uint32_t end,
                    spike_output&) {
        for (std::uint32_t c = begin; c < end; ++c) {
            const local_index i = targets[c] - first_;
            const double w = weights[c];
            // NEST: w > 0 into the excitatory buffer, everything else into the inhibitory one.
            if (w > 0)
                ex_sum_[i] += w;
            else
                in_sum_[i] += w;
        }
    }

    // One weight for every connection (a group keeping one weight): the same additions,
    // into the one buffer its sign chooses.
    template <class Target>
    void deliver_uniform_to(step_type, Target targets, std::uint32_t count, double weight, spike_output&) {
        std::vector<double>& sum = weight > 0 ? ex_sum_ : in_sum_;
        for (std::uint32_t c = 0; c < count; ++c) sum[targets[c] - first_] += weight;
    }

    void deliver_current(step_type, local_index cell, double current) override {
        stim_.add(V_.size(), at(cell), current);
    }

    void end_step(step_type n, spike_output& out) override {
        for (const auto& run: runs_) {
            const parameter_set& s = sets_[run.set];
            if (!stim_.active())
                integrate<false>(s, run.begin, run.end, V_.data(), I_ex_.data(), I_in_.data(), nullptr, ex_sum_.data(),
                                 in_sum_.data(), refractory_count_.data());
            else
                integrate<true>(s, run.begin, run.end, V_.data(), I_ex_.data(), I_in_.data(), stim_.now(),
                                ex_sum_.data(), in_sum_.data(), refractory_count_.data());
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
        if (variable == "I_syn_ex") return I_syn_ex(cell);
        if (variable == "I_syn_in") return I_syn_in(cell);
        model_parameters::unknown_state(model_name, state_table, variable);
    }

    std::size_t bytes() const override {
        return (V_.capacity() + I_ex_.capacity() + I_in_.capacity() + ex_sum_.capacity() + in_sum_.capacity()) *
                   sizeof(double) +
               refractory_count_.capacity() * sizeof(std::int32_t) + runs_.capacity() * sizeof(cell_run) +
               sets_.capacity() * sizeof(parameter_set) + stim_.bytes();
    }

    void save_cell(local_index cell, double* v) const override {
        const local_index i = at(cell);
        v[0] = V_[i];
        v[1] = I_ex_[i];
        v[2] = I_in_[i];
        v[3] = stim_.stim(i);
        v[4] = refractory_count_[i];
        v[5] = stim_.active() ? 1.0 : 0.0;
    }
    void load_cell(local_index cell, const double* v) override {
        const local_index i = at(cell);
        V_[i] = v[0];
        I_ex_[i] = v[1];
        I_in_[i] = v[2];
        refractory_count_[i] = static_cast<std::int32_t>(v[4]);
        if (v[5] != 0) stim_.restore(V_.size(), i, v[3]);
    }

    double V_m(local_index cell) const override { return V_[at(cell)] + set_of(at(cell)).E_L; }
    double I_syn_ex(local_index cell) const override { return I_ex_[at(cell)]; }
    double I_syn_in(local_index cell) const override { return I_in_[at(cell)]; }
    std::int32_t refractory_count(local_index cell) const override { return refractory_count_[at(cell)]; }
    std::size_t parameter_sets() const override { return sets_.size(); }

private:
    static parameter_set make_set(const parameters& p, double h) {
        iaf_integration::checked_refractory_steps(model_name, p.t_ref, h);
        return {compute_propagators(p, h), p.I_e, p.E_L, p.V_th - p.E_L, p.V_reset - p.E_L};
    }

    local_index at(local_index cell) const { return cell - first_; }
    const parameter_set& set_of(local_index i) const { return sets_[set_index_of(runs_, i, model_name)]; }

    local_index first_; // rank-local index of cell 0 of this group
    std::vector<parameter_set> sets_;
    std::vector<cell_run> runs_;
    std::vector<double> V_, I_ex_, I_in_;        // V relative to E_L
    iaf_step::current_buffer stim_;              // current inputs (I_stim) [pA]
    std::vector<double> ex_sum_, in_sum_;        // synaptic input of the current step [pA]
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
    return std::make_unique<iaf_psc_exp_group>(spec, local_gids, first_local);
}

} // namespace iaf_psc_exp

model_entry iaf_psc_exp_model() {
    model_entry e;
    e.name = "iaf_psc_exp";
    e.kind = model_kind::neuron;
    e.description = "NEST's leaky integrate-and-fire neuron with exponentially decaying synaptic currents "
                    "(exact integration, also for tau_syn == tau_m), weights in pA";
    e.parameters = model_parameters::specs_of(iaf_psc_exp::table);
    e.state = iaf_psc_exp::state_table;
    e.receptors = "spikes: weight > 0 excitatory, <= 0 inhibitory (pA); currents (pA)";
    e.integration = "exact (NEST's propagators)";
    e.nest_model = "iaf_psc_exp";
    e.pynn_types = {"IF_curr_exp"};
    e.accepts_current = true;
    e.checkpoint_state = iaf_psc_exp::checkpoint_names;
    e.docs_page = "docs/models/iaf_psc_exp.md";
    e.make = [](const network_spec& spec, const std::vector<gid_type>& local_gids,
                local_index first_local) -> std::unique_ptr<cell_group> {
        return iaf_psc_exp::make_group(spec, local_gids, first_local);
    };
    return e;
}

} // namespace spikex
