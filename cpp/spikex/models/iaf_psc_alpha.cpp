// The iaf_psc_alpha cell group: state as arrays (structure of arrays), propagators per
// parameter set, the update of end_step in three passes over the cells:
//   1. own Poisson input of the step into the input sums (only if some cell has one);
//   2. the exact-integration update (branch-free, vectorisable);
//   3. threshold test, reset and spike report (rare, scalar).
// Cells are grouped into runs of consecutive local indices sharing one parameter set
// (cells with equal dynamics share a set, cell_parameter_sets.hpp, so the two
// hpc_benchmark populations form one run whatever the cell distribution).
#include <bit>
#include <cmath>
#include <limits>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/models/cell_parameter_sets.hpp"
#include "spikex/models/iaf_psc_alpha.hpp"
#include "spikex/models/iaf_step.hpp"
#include "spikex/models/model_parameters.hpp"
#include "spikex/models/neuron_parameters.hpp"

namespace spikex {
namespace iaf_psc_alpha {
namespace {

namespace np = neuron_parameters;

const char* const model_name = "iaf_psc_alpha";

// The parameter table: NEST 3.10's defaults; the last three are spikex's.
const std::vector<model_parameters::field<parameters>> table = {
    {np::E_L(), &parameters::E_L},
    {np::C_m(), &parameters::C_m},
    {np::tau_m(), &parameters::tau_m},
    {np::t_ref(), &parameters::t_ref},
    {np::V_th(), &parameters::V_th},
    {np::V_reset(), &parameters::V_reset},
    {np::tau_syn("tau_syn_ex", 2.0, "rise time of the excitatory alpha-shaped current"), &parameters::tau_syn_ex},
    {np::tau_syn("tau_syn_in", 2.0, "rise time of the inhibitory alpha-shaped current"), &parameters::tau_syn_in},
    {np::I_e(), &parameters::I_e},
    {np::V_m(), &parameters::V_m},
    {{"V_m_sd", "mV", 0.0, "", ranges::non_negative(),
      "if > 0, each cell's initial potential is normal(V_m, V_m_sd) from its own random stream"},
     &parameters::V_m_sd},
    {np::tau_minus(), &parameters::tau_minus},
    {{"poisson_rate_hz", "Hz", 0.0, "", ranges::non_negative(),
      "rate of each cell's own independent Poisson input (0: none; at most 500 events per step on average)"},
     &parameters::poisson_rate_hz},
    {{"poisson_weight", "pA", 0.0, "", ranges::any(),
      "weight of each event of the cell's own Poisson input (> 0 excitatory, else inhibitory)"},
     &parameters::poisson_weight},
};

const std::vector<state_spec> state_table = {{"V_m", "mV", "membrane potential"},
                                             {"I_syn_ex", "pA", "excitatory synaptic current", false},
                                             {"I_syn_in", "pA", "inhibitory synaptic current", false}};
// Checkpoint values per cell (V relative to E_L, as held; stim_active: the group reads I_stim).
const std::vector<std::string> checkpoint_names = {"V", "I_ex", "dI_ex", "I_in", "dI_in", "I_stim", "r", "stim_active"};

using model_parameters::number;

// Everything end_step needs of one parameter set.
struct parameter_set {
    parameters p;
    propagators q;
    double theta;   // V_th - E_L
    double V_reset; // V_reset - E_L
    bool poisson;   // own Poisson input with a non-zero weight
    poisson_table table;
};

// The exact-integration update of cells [begin, end): NEST's expressions in NEST's
// order, written without branches so that the compiler vectorises the loop (a free
// function: GCC honours __restrict on parameters). Without current input I_stim is 0 and
// not read.
template <bool with_stim>
[[gnu::noinline]] void integrate(const propagators& propagators_of_set, double I_e, std::size_t begin, std::size_t end,
                                 double* __restrict V, double* __restrict I_ex, double* __restrict dI_ex,
                                 double* __restrict I_in, double* __restrict dI_in, const double* __restrict I_stim,
                                 double* __restrict ex_sum, double* __restrict in_sum, double* __restrict w_ex,
                                 double* __restrict w_in, std::int32_t* __restrict r) {
    const propagators q = propagators_of_set;
    const double I_e_term = q.P30 * I_e; // NEST: P30 * (I0 + I_e), I0 = 0
    for (std::size_t i = begin; i < end; ++i) {
        const double v = V[i];
        const double drive = with_stim ? q.P30 * (I_stim[i] + I_e) : I_e_term;
        const double v_new = drive + q.P31_ex * dI_ex[i] + q.P32_ex * I_ex[i] + q.P31_in * dI_in[i] +
                             q.P32_in * I_in[i] + q.expm1_tau_m * v + v;
        const std::int32_t ri = r[i];
        V[i] = iaf_integration::if_not_refractory(ri, v_new, v);
        r[i] = ri - std::int32_t(ri != 0);

        const double ex = ex_sum[i];
        I_ex[i] = q.P21_ex * dI_ex[i] + q.P22_ex * I_ex[i];
        dI_ex[i] = dI_ex[i] * q.P11_ex + q.psc_ex * ex;
        const double in = in_sum[i];
        I_in[i] = q.P21_in * dI_in[i] + q.P22_in * I_in[i];
        dI_in[i] = dI_in[i] * q.P11_in + q.psc_in * in;

        w_ex[i] = ex;
        w_in[i] = in;
        ex_sum[i] = 0.0;
        in_sum[i] = 0.0;
    }
}

class iaf_psc_alpha_group final: public cell_group_of_both_widths<iaf_psc_alpha_group, group> {
public:
    iaf_psc_alpha_group(const network_spec& spec, const std::vector<gid_type>& gids, local_index first_local):
        seed_(spec.seed), first_(first_local), gid_(gids) {
        const double h = spec.dt_ms;
        const std::size_t n = gids.size();
        V_.resize(n);
        auto resolved = resolve_cell_parameters<parameters>(
            spec, model_name, gids, [](const population_spec&, const auto& values) { return parse_parameters(values); },
            dynamics_key,
            [&](local_index i, const parameters& p, std::uint32_t) {
                V_[i] = initial_membrane_potential(p, seed_, gids[i]) - p.E_L;
            });
        runs_ = std::move(resolved.runs);
        for (const auto& p: resolved.sets) sets_.push_back(make_set(p, h));
        I_ex_.assign(n, 0.0);
        dI_ex_.assign(n, 0.0);
        I_in_.assign(n, 0.0);
        dI_in_.assign(n, 0.0);
        refractory_count_.assign(n, 0);
        ex_sum_.assign(n, 0.0);
        in_sum_.assign(n, 0.0);
        weighted_ex_.assign(n, 0.0);
        weighted_in_.assign(n, 0.0);
        for (const auto& run: runs_)
            if (sets_[run.set].poisson) any_poisson_ = true;
        if (any_poisson_) poisson_cache_.assign(n, 0);
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
        if (any_poisson_) add_poisson_input(n);
        for (const auto& run: runs_) update(sets_[run.set], run.begin, run.end);
        iaf_step::fire_crossings(runs_, sets_, V_.data(), refractory_count_.data(), first_, n, out);
        stim_.advance();
    }

    void set_state(local_index cell, const std::string& variable, double value) override {
        if (variable != "V_m") cell_group::set_state(cell, variable, value);
        V_[at(cell)] = value - set_of(at(cell)).p.E_L;
    }

    double state(local_index cell, const std::string& variable) const override {
        if (variable == "V_m") return V_m(cell);
        if (variable == "I_syn_ex") return I_syn_ex(cell);
        if (variable == "I_syn_in") return I_syn_in(cell);
        model_parameters::unknown_state(model_name, state_table, variable);
    }

    std::size_t bytes() const override {
        std::size_t b = (V_.capacity() + I_ex_.capacity() + dI_ex_.capacity() + I_in_.capacity() + dI_in_.capacity() +
                         ex_sum_.capacity() + in_sum_.capacity() + weighted_ex_.capacity() + weighted_in_.capacity()) *
                            sizeof(double) +
                        refractory_count_.capacity() * sizeof(std::int32_t) + gid_.capacity() * sizeof(gid_type) +
                        poisson_cache_.capacity() * sizeof(std::uint64_t) + runs_.capacity() * sizeof(cell_run) +
                        sets_.capacity() * sizeof(parameter_set) + stim_.bytes();
        for (const auto& s: sets_) b += s.table.bytes();
        return b;
    }

    void save_cell(local_index cell, double* v) const override {
        const local_index i = at(cell);
        v[0] = V_[i];
        v[1] = I_ex_[i];
        v[2] = dI_ex_[i];
        v[3] = I_in_[i];
        v[4] = dI_in_[i];
        v[5] = stim_.stim(i);
        v[6] = refractory_count_[i];
        v[7] = stim_.active() ? 1.0 : 0.0;
    }
    void load_cell(local_index cell, const double* v) override {
        const local_index i = at(cell);
        V_[i] = v[0];
        I_ex_[i] = v[1];
        dI_ex_[i] = v[2];
        I_in_[i] = v[3];
        dI_in_[i] = v[4];
        refractory_count_[i] = static_cast<std::int32_t>(v[6]);
        if (v[7] != 0) stim_.restore(V_.size(), i, v[5]);
    }

    double V_m(local_index cell) const override { return V_[at(cell)] + set_of(at(cell)).p.E_L; }
    double I_syn_ex(local_index cell) const override { return I_ex_[at(cell)]; }
    double I_syn_in(local_index cell) const override { return I_in_[at(cell)]; }
    double weighted_spikes_ex(local_index cell) const override { return weighted_ex_[at(cell)]; }
    double weighted_spikes_in(local_index cell) const override { return weighted_in_[at(cell)]; }
    std::int32_t refractory_count(local_index cell) const override { return refractory_count_[at(cell)]; }
    std::size_t parameter_sets() const override { return sets_.size(); }

private:
    static parameter_set make_set(const parameters& p, double h) {
        parameter_set s{p, compute_propagators(p, h), p.V_th - p.E_L, p.V_reset - p.E_L, false, {}};
        iaf_integration::checked_refractory_steps(model_name, p.t_ref, h);
        const double mean = p.poisson_rate_hz * h / 1000.0;
        if (mean > max_poisson_mean) {
            throw user_error(spikex::format(
                "iaf_psc_alpha parameter poisson_rate_hz = {}: must be <= {} Hz at dt = {} ms "
                "(at most {} events per step on average); use I_e for a larger mean drive",
                number(p.poisson_rate_hz), number(max_poisson_mean * 1000.0 / h), number(h), number(max_poisson_mean)));
        }
        s.poisson = mean > 0 && p.poisson_weight != 0;
        if (s.poisson) s.table = poisson_table(mean);
        return s;
    }

    void update(const parameter_set& s, std::size_t begin, std::size_t end) {
        if (!stim_.active())
            integrate<false>(s.q, s.p.I_e, begin, end, V_.data(), I_ex_.data(), dI_ex_.data(), I_in_.data(),
                             dI_in_.data(), nullptr, ex_sum_.data(), in_sum_.data(), weighted_ex_.data(),
                             weighted_in_.data(), refractory_count_.data());
        else
            integrate<true>(s.q, s.p.I_e, begin, end, V_.data(), I_ex_.data(), dI_ex_.data(), I_in_.data(),
                            dI_in_.data(), stim_.now(), ex_sum_.data(), in_sum_.data(), weighted_ex_.data(),
                            weighted_in_.data(), refractory_count_.data());
    }

    // Own Poisson input of step n. Even steps compute Philox block n/2 and keep its second
    // half for step n + 1 (used only if the next call is that step: the same numbers
    // either way).
    void add_poisson_input(step_type n) {
        const bool odd = (n & 1) != 0;
        const step_type block = n >> 1;
        const bool cached = odd && cached_block_ == block;
        for (const auto& run: runs_) {
            const parameter_set& s = sets_[run.set];
            if (!s.poisson) continue;
            const double w = s.p.poisson_weight;
            double* sum = w > 0 ? ex_sum_.data() : in_sum_.data();
            if (cached) {
                for (local_index i = run.begin; i < run.end; ++i) add_poisson_count(s, sum, i, poisson_cache_[i], w);
                continue;
            }
            // The blocks of a piece of cells side by side (random_lanes.hpp), the same words.
            const auto step = static_cast<std::uint64_t>(n);
            constexpr local_index piece = 512;
            for (auto& words: poisson_words_) words.resize(piece);
            for (local_index first = run.begin; first < run.end; first += piece) {
                const local_index count = std::min(piece, run.end - first);
                const random_keys keys{seed_,
                                       purpose::external_input,
                                       static_cast<std::uint32_t>(step >> 1),
                                       gid_.data() + first,
                                       nullptr,
                                       static_cast<std::uint32_t>(step >> 33)};
                random_blocks_columns(keys, count,
                                      {{poisson_words_[0].data(), poisson_words_[1].data(), poisson_words_[2].data(),
                                        poisson_words_[3].data()}});
                for (local_index l = 0; l < count; ++l) {
                    const random_words one = {poisson_words_[0][l], poisson_words_[1][l], poisson_words_[2][l],
                                              poisson_words_[3][l]};
                    poisson_cache_[first + l] = poisson_bits_from_block(one, n | 1);
                    add_poisson_count(s, sum, first + l, poisson_bits_from_block(one, n), w);
                }
            }
        }
        cached_block_ = odd ? -1 : block;
    }

    static void add_poisson_count(const parameter_set& s, double* sum, local_index i, std::uint64_t bits, double w) {
        const std::uint32_t k = s.table.sample(
            uniform_from_words(static_cast<std::uint32_t>(bits >> 32), static_cast<std::uint32_t>(bits)));
        if (k != 0) sum[i] += static_cast<double>(k) * w;
    }

    local_index at(local_index cell) const { return cell - first_; }
    const parameter_set& set_of(local_index i) const { return sets_[set_index_of(runs_, i, model_name)]; }

    std::uint32_t seed_;
    local_index first_; // rank-local index of cell 0 of this group
    std::vector<gid_type> gid_;
    std::vector<parameter_set> sets_;
    std::vector<cell_run> runs_;
    bool any_poisson_ = false;
    step_type cached_block_ = -1;
    std::vector<double> V_, I_ex_, dI_ex_, I_in_, dI_in_;     // V relative to E_L
    iaf_step::current_buffer stim_;                           // current inputs (I_stim) [pA]
    std::vector<std::int32_t> refractory_count_;              // r: refractory steps left
    std::vector<double> ex_sum_, in_sum_;                     // input of the current step [pA]
    std::vector<double> weighted_ex_, weighted_in_;           // input applied in the last end_step
    std::vector<std::uint64_t> poisson_cache_;                // second half of the last even block
    std::array<std::vector<std::uint32_t>, 4> poisson_words_; // scratch: a piece of cells' blocks
};

} // namespace

parameters parse_parameters(const std::map<std::string, double>& values) {
    const parameters p = model_parameters::parse(model_name, table, values);
    model_parameters::require(p.V_reset < p.V_th, model_name, "V_reset", p.V_reset,
                              spikex::format("must be < V_th = {} mV", number(p.V_th)));
    return p;
}

std::unique_ptr<group> make_group(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                  local_index first_local) {
    model_parameters::require_positive_dt(model_name, spec.dt_ms);
    return std::make_unique<iaf_psc_alpha_group>(spec, local_gids, first_local);
}

} // namespace iaf_psc_alpha

model_entry iaf_psc_alpha_model() {
    model_entry e;
    e.name = "iaf_psc_alpha";
    e.kind = model_kind::neuron;
    e.description = "NEST's leaky integrate-and-fire neuron with alpha-shaped synaptic currents (exact "
                    "integration), weights in pA, optionally with its own Poisson input";
    e.parameters = model_parameters::specs_of(iaf_psc_alpha::table);
    e.state = iaf_psc_alpha::state_table;
    e.receptors = "spikes: weight > 0 excitatory, <= 0 inhibitory (pA); currents (pA)";
    e.integration = "exact (NEST's propagators)";
    e.nest_model = "iaf_psc_alpha";
    e.pynn_types = {"IF_curr_alpha"};
    e.accepts_current = true;
    e.checkpoint_state = iaf_psc_alpha::checkpoint_names;
    e.docs_page = "docs/models/iaf_psc_alpha.md";
    e.make = [](const network_spec& spec, const std::vector<gid_type>& local_gids,
                local_index first_local) -> std::unique_ptr<cell_group> {
        return iaf_psc_alpha::make_group(spec, local_gids, first_local);
    };
    return e;
}

std::unique_ptr<cell_group> make_iaf_psc_alpha_group(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                                     local_index first_local) {
    return iaf_psc_alpha::make_group(spec, local_gids, first_local);
}

} // namespace spikex
