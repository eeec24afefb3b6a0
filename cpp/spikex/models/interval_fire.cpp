// The interval_fire cell group: each cell's input state in one line (cell_state), self-events
// in an indexed heap.
#include <cmath>
#include <limits>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/core/random.hpp"
#include "spikex/engine/indexed_min_heap.hpp"
#include "spikex/models/cell_group.hpp"
#include "spikex/models/interval_fire.hpp"
#include "spikex/models/interval_fire_lanes.hpp"
#include "spikex/models/model_parameters.hpp"
#include "spikex/models/model_registry.hpp"
#include "spikex/models/ode/lanes.hpp"

namespace spikex {
namespace {

using interval_fire::parameters;

// The parameter table (read into doubles, then into interval_fire::parameters).
struct table_values {
    double tau_ms, invl_low_ms, invl_high_ms, burst_groups, burst_factor, burst_period_ms;
};
const std::vector<model_parameters::field<table_values>> table = {
    {{"tau_ms", "ms", 5.0, "", ranges::positive(), "time constant of the cell state m"}, &table_values::tau_ms},
    {{"invl_low_ms", "ms", 20.0, "", ranges::positive(), "shortest intrinsic inter-spike interval"},
     &table_values::invl_low_ms},
    {{"invl_high_ms", "ms", 40.0, "", ranges::positive(),
      "longest intrinsic inter-spike interval (>= invl_low_ms; intervals are uniform in between)"},
     &table_values::invl_high_ms},
    {{"burst_groups", "1", 0.0, "", ranges::count(),
      "number of burst groups of contiguous gids (paper Figure 9); 0 means no bursts"},
     &table_values::burst_groups},
    {{"burst_factor", "1", 5.0, "", ranges::positive(), "a bursting group draws its intervals divided by this factor"},
     &table_values::burst_factor},
    {{"burst_period_ms", "ms", 50.0, "", ranges::positive(),
      "group g bursts during [g*period, (g+1)*period) modulo groups*period"},
     &table_values::burst_period_ms},
};

parameters parse_parameters(const population_spec& pop) {
    const table_values v = model_parameters::parse("interval_fire", table, constant_parameters(pop));
    model_parameters::require(
        v.invl_high_ms >= v.invl_low_ms, "interval_fire", "invl_high_ms", v.invl_high_ms,
        spikex::format("must be >= invl_low_ms = {} ms", model_parameters::number(v.invl_low_ms)));
    return {v.tau_ms,       v.invl_low_ms,    v.invl_high_ms, static_cast<int>(v.burst_groups),
            v.burst_factor, v.burst_period_ms};
}

class interval_fire_group final: public cell_group_of_both_widths<interval_fire_group> {
public:
    interval_fire_group(const network_spec& spec, const std::vector<gid_type>& gids, local_index first_local):
        dt_(spec.dt_ms), seed_(spec.seed), first_(first_local), gid_(gids), heap_(gids.size()) {
        // One entry per population of the network (others' stay default: never used).
        for (const auto& pop: spec.populations) {
            params_.push_back(pop.model == "interval_fire" ? parse_parameters(pop) : parameters{});
        }
        const std::size_t n = gids.size();
        cells_.assign(n, interval_fire::cell_state{});
        log_excess_.assign(n, 0.0);
        draws_.assign(n, 0);
        population_.resize(n);
        burst_group_.resize(n);
        for (local_index i = 0; i < n; ++i) {
            std::size_t p = 0;
            while (gids[i] >= spec.populations[p].first + spec.populations[p].size) ++p;
            const auto& pop = spec.populations[p];
            population_[i] = static_cast<std::uint16_t>(p);
            cells_[i].tau = params_[p].tau_ms;
            burst_group_[i] = params_[p].burst_groups > 0
                                  ? static_cast<std::int32_t>(static_cast<std::uint64_t>(gids[i] - pop.first) *
                                                              params_[p].burst_groups / pop.size)
                                  : -1;
            draw_interval(i, 0.0);
            heap_.set(i, event_step(0.0 + time_to_fire(i), 0));
        }
    }

    void begin_step(step_type n, spike_output& out) override {
        while (!heap_.empty() && heap_.top_key() <= n) fire(heap_.top(), n, out);
    }

    template <class Target>
    void deliver_to(step_type n, Target targets, const double* weights, std::uint32_t begin, std::uint32_t end,
                    spike_output& out) {
        deliver_each(
            n, targets, begin, end, [weights](std::uint32_t c) { return weights[c]; }, out);
    }
    template <class Target>
    void deliver_uniform_to(step_type n, Target targets, std::uint32_t count, double weight, spike_output& out) {
        deliver_each(
            n, targets, 0, count, [weight](std::uint32_t) { return weight; }, out);
    }

    // Inputs of connections [begin, end) in order, weight(c) each. Where the vector exp runs,
    // eight inputs to eight different cells go at once (interval_fire_lanes.hpp: the same
    // states and steps; each input reads and writes only its own cell, so their order is
    // kept); inputs to a cell met twice among the eight go one by one.
    template <class Target, class Weight>
    void deliver_each(step_type n, Target targets, std::uint32_t begin, std::uint32_t end, Weight weight,
                      spike_output& out) {
        using interval_fire::input_lanes;
        const double t = n * dt_;
        std::uint32_t c = begin;
        if (ode::wide_vectors() && cells_.size() < interval_fire::max_cells_for_lanes) {
            for (; c + input_lanes <= end; c += input_lanes) {
                std::uint32_t cell[input_lanes];
                double w[input_lanes];
                bool distinct = true;
                // the cells two chunks ahead, from L2 into L1 while these eight compute
                if (c + 3 * input_lanes <= end)
                    for (std::size_t l = 0; l < input_lanes; ++l)
                        __builtin_prefetch(&cells_[targets[c + 2 * input_lanes + l] - first_]);
                for (std::size_t l = 0; l < input_lanes; ++l) {
                    cell[l] = targets[c + l] - first_;
                    w[l] = weight(c + l);
                    for (std::size_t k = 0; k < l; ++k) distinct &= cell[k] != cell[l];
                }
                if (!distinct) {
                    for (std::size_t l = 0; l < input_lanes; ++l) input(n, t, cell[l], w[l], out);
                    continue;
                }
                double m[input_lanes], step[input_lanes];
                interval_fire::inputs_wide(cells_.data(), cell, w, t, n, dt_, m, step);
                for (std::size_t l = 0; l < input_lanes; ++l) moved(n, t, cell[l], m[l], step[l], out);
            }
        }
        for (; c < end; ++c) input(n, t, targets[c] - first_, weight(c), out);
    }

    // Checkpoint values: m, t0, minf, draws (blocks of `intervals` used), next_event (the
    // self-event's step: event_step clamps, so it cannot be recomputed from m), ln(minf - 1)
    // (minf alone loses it for long intervals).
    void save_cell(local_index cell, double* v) const override {
        const local_index i = cell - first_;
        v[0] = cells_[i].m;
        v[1] = cells_[i].t0;
        v[2] = cells_[i].minf;
        v[3] = draws_[i];
        v[4] = static_cast<double>(heap_.key(i));
        v[5] = log_excess_[i];
    }
    void load_cell(local_index cell, const double* v) override {
        const local_index i = cell - first_;
        cells_[i].m = v[0];
        cells_[i].t0 = v[1];
        cells_[i].minf = v[2];
        draws_[i] = static_cast<std::uint32_t>(v[3]);
        heap_.set(i, static_cast<step_type>(v[4]));
        log_excess_[i] = v[5];
    }

    std::size_t bytes() const override {
        return cells_.capacity() * sizeof(interval_fire::cell_state) + log_excess_.capacity() * sizeof(double) +
               draws_.capacity() * sizeof(std::uint32_t) + gid_.capacity() * sizeof(gid_type) +
               population_.capacity() * sizeof(std::uint16_t) + burst_group_.capacity() * sizeof(std::int32_t) +
               heap_.bytes();
    }

private:
    // An input of weight w to cell i at step n (time t).
    void input(step_type n, double t, local_index i, double w, spike_output& out) {
        moved(n, t, i, interval_fire::state_at(t, cells_[i].m, cells_[i].t0, cells_[i].minf, cells_[i].tau) + w,
              std::numeric_limits<double>::quiet_NaN(), out);
    }
    // Cell i's state after an input is m: it fires, or its self-event moves to its next
    // step (`known_step`, or NaN: computed here).
    void moved(step_type n, double t, local_index i, double m, double known_step, spike_output& out) {
        cells_[i].m = m;
        cells_[i].t0 = t;
        if (m > 1.0) {
            fire(i, n, out);
        } else {
            const step_type s =
                !std::isnan(known_step) ? static_cast<step_type>(known_step) : event_step(t + time_to_fire(i), n);
            if (s != heap_.key(i)) heap_.set(i, s);
        }
    }

    double time_to_fire(local_index i) const {
        return interval_fire::time_to_fire(cells_[i].m, cells_[i].minf, log_excess_[i], cells_[i].tau);
    }

    step_type event_step(double t_event, step_type now) const {
        auto s = static_cast<step_type>(std::ceil(t_event / dt_ - 1e-9));
        return s > now ? s : now + 1;
    }

    void draw_interval(local_index i, double t) {
        const parameters& p = params_[population_[i]];
        auto w = random_block(seed_, gid_[i], purpose::intervals, draws_[i]++);
        double invl = p.invl_low_ms + (p.invl_high_ms - p.invl_low_ms) * uniform_from_words(w[0], w[1]);
        if (interval_fire::bursting(burst_group_[i], p.burst_groups, t, p.burst_period_ms)) {
            invl /= p.burst_factor;
        }
        cells_[i].minf = interval_fire::steady_state(invl, cells_[i].tau);
        log_excess_[i] = interval_fire::log_excess(invl, cells_[i].tau);
    }

    void fire(local_index i, step_type n, spike_output& out) {
        const double t = n * dt_;
        out.emit(first_ + i, n);
        cells_[i].m = 0.0;
        cells_[i].t0 = t;
        draw_interval(i, t);
        heap_.set(i, event_step(t + time_to_fire(i), n));
    }

    double dt_;
    std::uint32_t seed_;
    local_index first_; // rank-local index of cell 0 of this group
    std::vector<parameters> params_;
    std::vector<gid_type> gid_;
    std::vector<interval_fire::cell_state> cells_; // what an input reads and writes, one line
    std::vector<double> log_excess_;               // ln(minf - 1) of each cell
    std::vector<std::uint32_t> draws_;
    std::vector<std::uint16_t> population_;
    std::vector<std::int32_t> burst_group_;
    indexed_min_heap heap_;
};

} // namespace

std::unique_ptr<cell_group> make_interval_fire_group(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                                     local_index first_local) {
    return std::make_unique<interval_fire_group>(spec, local_gids, first_local);
}

model_entry interval_fire_model() {
    return {.name = "interval_fire",
            .kind = model_kind::neuron,
            .description = "the artificial cell of Hines, Kumar & Schürmann 2011: fires after a random interval, "
                           "inputs move its next firing time",
            .parameters = model_parameters::specs_of(table),
            .accepts_current = false,
            .checkpoint_state = {"m", "t0", "minf", "draws", "next_event", "log_minf_excess"},
            .receptors = "spikes: a weight moves the state towards (> 0) or away from (< 0) firing",
            .integration = "event-driven (closed form between events)",
            .docs_page = "docs/models/interval_fire.md",
            .make = make_interval_fire_group};
}

} // namespace spikex
