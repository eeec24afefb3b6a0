// The iaf_psc_alpha cell group: state as arrays (structure of arrays), propagators per
// parameter set, the update of end_step in three passes over the cells:
//   1. own Poisson input of the step into the input sums (only if some cell has one);
//   2. the exact-integration update (branch-free, vectorisable);
//   3. threshold test, reset and spike report (rare, scalar).
// Cells are grouped into runs of consecutive local indices sharing one parameter set
// (populations with equal dynamics share a set, so the two hpc_benchmark populations form
// one run whatever the cell distribution).
#include <bit>
#include <cmath>
#include <limits>
#include <sstream>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/models/iaf_psc_alpha.hpp"
#include "spikex/models/model_registry.hpp"

namespace spikex {
namespace iaf_psc_alpha {
namespace {

const std::vector<std::string> names = {"E_L",     "C_m",        "tau_m",           "t_ref",         "V_th",
                                        "V_reset", "tau_syn_ex", "tau_syn_in",      "I_e",           "V_m",
                                        "V_m_sd",  "tau_minus",  "poisson_rate_hz", "poisson_weight"};

std::string number(double x) {
    std::ostringstream s;
    s.precision(17);
    s << x;
    return s.str();
}

std::string all_names() {
    std::string s;
    for (const auto& n: names) s += (s.empty() ? "" : ", ") + n;
    return s;
}

// Parameters that change the dynamics (V_m, V_m_sd only set the initial state; tau_minus
// belongs to the synapses).
bool same_dynamics(const parameters& a, const parameters& b) {
    return a.E_L == b.E_L && a.C_m == b.C_m && a.tau_m == b.tau_m && a.t_ref == b.t_ref && a.V_th == b.V_th &&
           a.V_reset == b.V_reset && a.tau_syn_ex == b.tau_syn_ex && a.tau_syn_in == b.tau_syn_in && a.I_e == b.I_e &&
           a.poisson_rate_hz == b.poisson_rate_hz && a.poisson_weight == b.poisson_weight;
}

// Everything end_step needs of one parameter set.
struct parameter_set {
    parameters p;
    propagators q;
    double theta;   // V_th - E_L
    double V_reset; // V_reset - E_L
    bool poisson;   // own Poisson input with a non-zero weight
    poisson_table table;
};

struct run {
    local_index begin, end; // group-local indices
    std::uint32_t set;
};

// The exact-integration update of cells [begin, end): NEST's expressions in NEST's
// order, written without branches so that the compiler vectorises the loop (a free
// function: GCC honours __restrict on parameters).
[[gnu::noinline]] void integrate(const propagators& propagators_of_set, double I_e, std::size_t begin, std::size_t end,
                                 double* __restrict V, double* __restrict I_ex, double* __restrict dI_ex,
                                 double* __restrict I_in, double* __restrict dI_in, double* __restrict ex_sum,
                                 double* __restrict in_sum, double* __restrict w_ex, double* __restrict w_in,
                                 std::int32_t* __restrict r) {
    const propagators q = propagators_of_set;
    const double I_e_term = q.P30 * I_e; // NEST: P30 * (I0 + I_e), I0 = 0
    for (std::size_t i = begin; i < end; ++i) {
        const double v = V[i];
        const double v_new = I_e_term + q.P31_ex * dI_ex[i] + q.P32_ex * I_ex[i] + q.P31_in * dI_in[i] +
                             q.P32_in * I_in[i] + q.expm1_tau_m * v + v;
        // V = r == 0 ? v_new : v, as a bit mask: a conditional would keep the compiler from
        // computing v_new speculatively (floating point may trap), so from vectorising.
        const std::int32_t ri = r[i];
        const std::uint64_t not_refractory = std::uint64_t(0) - std::uint64_t(ri == 0);
        V[i] = std::bit_cast<double>((std::bit_cast<std::uint64_t>(v_new) & not_refractory) |
                                     (std::bit_cast<std::uint64_t>(v) & ~not_refractory));
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

class iaf_psc_alpha_group final: public group {
public:
    iaf_psc_alpha_group(const network_spec& spec, const std::vector<gid_type>& gids, local_index first_local):
        seed_(spec.seed), first_(first_local), gid_(gids) {
        const double h = spec.dt_ms;
        std::vector<parameters> pop_params;
        std::vector<std::uint32_t> pop_set;
        for (const auto& pop: spec.populations) {
            if (pop.model != "iaf_psc_alpha") { // another model's cells: never among ours
                pop_params.push_back({});
                pop_set.push_back(0);
                continue;
            }
            parameters p = parse_parameters(pop);
            pop_params.push_back(p);
            std::uint32_t s = 0;
            while (s < sets_.size() && !same_dynamics(sets_[s].p, p)) ++s;
            if (s == sets_.size()) sets_.push_back(make_set(p, h));
            pop_set.push_back(s);
        }
        const std::size_t n = gids.size();
        V_.resize(n);
        I_ex_.assign(n, 0.0);
        dI_ex_.assign(n, 0.0);
        I_in_.assign(n, 0.0);
        dI_in_.assign(n, 0.0);
        refractory_count_.assign(n, 0);
        ex_sum_.assign(n, 0.0);
        in_sum_.assign(n, 0.0);
        weighted_ex_.assign(n, 0.0);
        weighted_in_.assign(n, 0.0);
        std::size_t p = 0;
        for (local_index i = 0; i < n; ++i) {
            if (gids[i] < spec.populations[p].first) p = 0;
            while (p < spec.populations.size() && gids[i] >= spec.populations[p].first + spec.populations[p].size) ++p;
            if (p == spec.populations.size()) {
                throw internal_error(spikex::format("iaf_psc_alpha: gid {} is in no population", gids[i]));
            }
            const std::uint32_t s = pop_set[p];
            V_[i] = initial_membrane_potential(pop_params[p], seed_, gids[i]) - sets_[s].p.E_L;
            if (runs_.empty() || runs_.back().set != s) runs_.push_back({i, i, s});
            runs_.back().end = i + 1;
            if (sets_[s].poisson) any_poisson_ = true;
        }
        if (any_poisson_) poisson_cache_.assign(n, 0);
    }

    void begin_step(step_type, spike_output&) override {}

    void deliver(step_type, const local_index* targets, const double* weights, std::uint32_t begin, std::uint32_t end,
                 spike_output&) override {
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

    void end_step(step_type n, spike_output& out) override {
        if (any_poisson_) add_poisson_input(n);
        for (const auto& run: runs_) update(sets_[run.set], run.begin, run.end);
        for (const auto& run: runs_) {
            const parameter_set& s = sets_[run.set];
            for (local_index i = run.begin; i < run.end; ++i) {
                if (V_[i] >= s.theta) {
                    refractory_count_[i] = s.q.refractory_steps;
                    V_[i] = s.V_reset;
                    out.emit(first_ + i, n);
                }
            }
        }
    }

    std::size_t bytes() const override {
        std::size_t b = (V_.capacity() + I_ex_.capacity() + dI_ex_.capacity() + I_in_.capacity() + dI_in_.capacity() +
                         ex_sum_.capacity() + in_sum_.capacity() + weighted_ex_.capacity() + weighted_in_.capacity()) *
                            sizeof(double) +
                        refractory_count_.capacity() * sizeof(std::int32_t) + gid_.capacity() * sizeof(gid_type) +
                        poisson_cache_.capacity() * sizeof(std::uint64_t) + runs_.capacity() * sizeof(run) +
                        sets_.capacity() * sizeof(parameter_set);
        for (const auto& s: sets_) b += s.table.cdf().capacity() * sizeof(double);
        return b;
    }

    double V_m(local_index cell) const override { return V_[at(cell)] + set_of(at(cell)).p.E_L; }
    double I_syn_ex(local_index cell) const override { return I_ex_[at(cell)]; }
    double I_syn_in(local_index cell) const override { return I_in_[at(cell)]; }
    double weighted_spikes_ex(local_index cell) const override { return weighted_ex_[at(cell)]; }
    double weighted_spikes_in(local_index cell) const override { return weighted_in_[at(cell)]; }
    std::int32_t refractory_count(local_index cell) const override { return refractory_count_[at(cell)]; }

private:
    static parameter_set make_set(const parameters& p, double h) {
        parameter_set s{p, compute_propagators(p, h), p.V_th - p.E_L, p.V_reset - p.E_L, false, {}};
        if (p.t_ref / h > double(std::numeric_limits<std::int32_t>::max() - 1)) {
            throw user_error(
                spikex::format("iaf_psc_alpha parameter t_ref = {} ms: must be at most {} ms at dt = {} ms",
                               number(p.t_ref), number(std::numeric_limits<std::int32_t>::max() * h), number(h)));
        }
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
        integrate(s.q, s.p.I_e, begin, end, V_.data(), I_ex_.data(), dI_ex_.data(), I_in_.data(), dI_in_.data(),
                  ex_sum_.data(), in_sum_.data(), weighted_ex_.data(), weighted_in_.data(), refractory_count_.data());
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
            for (local_index i = run.begin; i < run.end; ++i) {
                std::uint64_t bits;
                if (cached) {
                    bits = poisson_cache_[i];
                } else {
                    const random_words words = poisson_block(seed_, gid_[i], n);
                    bits = poisson_bits_from_block(words, n);
                    poisson_cache_[i] = poisson_bits_from_block(words, n | 1);
                }
                const std::uint32_t k = s.table.sample(
                    uniform_from_words(static_cast<std::uint32_t>(bits >> 32), static_cast<std::uint32_t>(bits)));
                if (k != 0) sum[i] += static_cast<double>(k) * w;
            }
        }
        cached_block_ = odd ? -1 : block;
    }

    local_index at(local_index cell) const { return cell - first_; }
    const parameter_set& set_of(local_index i) const {
        for (const auto& run: runs_)
            if (i >= run.begin && i < run.end) return sets_[run.set];
        throw internal_error(spikex::format("iaf_psc_alpha: cell {} is not in this group", i));
    }

    std::uint32_t seed_;
    local_index first_; // rank-local index of cell 0 of this group
    std::vector<gid_type> gid_;
    std::vector<parameter_set> sets_;
    std::vector<run> runs_;
    bool any_poisson_ = false;
    step_type cached_block_ = -1;
    std::vector<double> V_, I_ex_, dI_ex_, I_in_, dI_in_; // V relative to E_L
    std::vector<std::int32_t> refractory_count_;          // r: refractory steps left
    std::vector<double> ex_sum_, in_sum_;                 // input of the current step [pA]
    std::vector<double> weighted_ex_, weighted_in_;       // input applied in the last end_step
    std::vector<std::uint64_t> poisson_cache_;            // second half of the last even block
};

} // namespace

const std::vector<std::string>& parameter_names() { return names; }

parameters parse_parameters(const population_spec& pop) {
    parameters p;
    bool V_m_given = false;
    for (const auto& [name, value]: constant_parameters(pop)) {
        if (!std::isfinite(value)) {
            throw user_error(
                spikex::format("iaf_psc_alpha parameter {} = {}: must be a finite number", name, number(value)));
        }
        if (name == "E_L")
            p.E_L = value;
        else if (name == "C_m")
            p.C_m = value;
        else if (name == "tau_m")
            p.tau_m = value;
        else if (name == "t_ref")
            p.t_ref = value;
        else if (name == "V_th")
            p.V_th = value;
        else if (name == "V_reset")
            p.V_reset = value;
        else if (name == "tau_syn_ex")
            p.tau_syn_ex = value;
        else if (name == "tau_syn_in")
            p.tau_syn_in = value;
        else if (name == "I_e")
            p.I_e = value;
        else if (name == "V_m")
            p.V_m = value, V_m_given = true;
        else if (name == "V_m_sd")
            p.V_m_sd = value;
        else if (name == "tau_minus")
            p.tau_minus = value;
        else if (name == "poisson_rate_hz")
            p.poisson_rate_hz = value;
        else if (name == "poisson_weight")
            p.poisson_weight = value;
        else
            throw user_error(
                spikex::format("iaf_psc_alpha parameter \"{}\" is unknown: allowed are {}", name, all_names()));
    }
    if (!V_m_given) p.V_m = p.E_L;
    auto require = [](bool ok, const std::string& name, double value, const std::string& allowed) {
        if (!ok) throw user_error(spikex::format("iaf_psc_alpha parameter {} = {}: {}", name, number(value), allowed));
    };
    require(p.C_m > 0, "C_m", p.C_m, "must be > 0 pF");
    require(p.tau_m > 0, "tau_m", p.tau_m, "must be > 0 ms");
    require(p.tau_syn_ex > 0, "tau_syn_ex", p.tau_syn_ex, "must be > 0 ms");
    require(p.tau_syn_in > 0, "tau_syn_in", p.tau_syn_in, "must be > 0 ms");
    require(p.t_ref >= 0, "t_ref", p.t_ref, "must be >= 0 ms");
    require(p.V_reset < p.V_th, "V_reset", p.V_reset, spikex::format("must be < V_th = {} mV", number(p.V_th)));
    require(p.V_m_sd >= 0, "V_m_sd", p.V_m_sd, "must be >= 0 mV");
    require(p.tau_minus > 0, "tau_minus", p.tau_minus, "must be > 0 ms");
    require(p.poisson_rate_hz >= 0, "poisson_rate_hz", p.poisson_rate_hz, "must be >= 0 Hz");
    return p;
}

std::unique_ptr<group> make_group(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                  local_index first_local) {
    if (!(spec.dt_ms > 0))
        throw user_error(spikex::format("iaf_psc_alpha: dt = {} ms: must be > 0", number(spec.dt_ms)));
    return std::make_unique<iaf_psc_alpha_group>(spec, local_gids, first_local);
}

} // namespace iaf_psc_alpha

std::unique_ptr<cell_group> make_iaf_psc_alpha_group(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                                     local_index first_local) {
    return iaf_psc_alpha::make_group(spec, local_gids, first_local);
}

const std::vector<std::string>& iaf_psc_alpha_parameter_names() { return iaf_psc_alpha::parameter_names(); }

model_entry iaf_psc_alpha_model() {
    return {.name = "iaf_psc_alpha",
            .kind = model_kind::neuron,
            .description = "NEST's leaky integrate-and-fire neuron with alpha-shaped synaptic currents (exact "
                           "integration), weights in pA, optionally with its own Poisson input",
            .parameters = iaf_psc_alpha::parameter_names(),
            .state_variables = {},
            .accepts_current = false,
            .docs_page = "docs/models/iaf_psc_alpha.md",
            .make = make_iaf_psc_alpha_group};
}

} // namespace spikex
