// spike_source_array: cells that emit given spike times (NEST's spike_generator, PyNN's
// SpikeSourceArray). Each cell has its own list (population_spec::list_of).
//
// A spike time t > 0 (ms) is emitted at the end of the step that contains it, as NEST's
// spike_generator does under pyNN.nest (precise_times, through a parrot neuron): NEST
// stamps it ceil(t/dt)·dt (a time within 1e-6 step of a grid point counts as that point)
// and delivers it at stamp + delay. In spikex's step convention (a spike of step n is
// NEST's stamp n + 1) it is emitted at step ceil(t/dt) - 1, so it reaches targets when
// NEST's does. A cell emits at most once per step: times that fall in one step are one
// spike (NEST sends each; the Python API warns, naming the population and cell).
#include <algorithm>
#include <cmath>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/models/model_parameters.hpp"
#include "spikex/models/model_registry.hpp"

namespace spikex {
namespace {

using model_parameters::number;

class spike_source_array_group final: public cell_group {
public:
    spike_source_array_group(const network_spec& spec, const std::vector<gid_type>& gids, local_index first_local) {
        // (step, rank-local cell) of every spike, in step order.
        for (local_index i = 0; i < gids.size(); ++i) {
            const population_spec& pop = spec.population_of(gids[i]);
            std::vector<step_type> steps;
            for (double t: pop.list_of("spike_times", gids[i])) steps.push_back(emission_step(t, spec.dt_ms, gids[i]));
            std::sort(steps.begin(), steps.end());
            steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
            for (auto s: steps) spikes_.push_back({s, first_local + i});
        }
        std::stable_sort(spikes_.begin(), spikes_.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
    }

    void begin_step(step_type n, spike_output& out) override {
        while (next_ < spikes_.size() && spikes_[next_].first < n) ++next_; // a restart past them
        while (next_ < spikes_.size() && spikes_[next_].first == n) out.emit(spikes_[next_++].second, n);
    }

    void deliver(step_type, const local_index*, const double*, std::uint32_t, std::uint32_t, spike_output&) override {}

    std::size_t bytes() const override { return spikes_.capacity() * sizeof(spikes_[0]); }

private:
    static step_type emission_step(double t, double dt, gid_type gid) {
        const double steps = t / dt;
        const double rounded = std::round(steps);
        const double stamp = std::abs(steps - rounded) <= 1e-6 ? rounded : std::ceil(steps);
        if (!std::isfinite(t) || !(t > 0.0) || stamp < 1) {
            throw user_error(spikex::format("spike_source_array spike_times of cell {}: {} ms: must be a finite time "
                                            "> 0 ms",
                                            gid, number(t)));
        }
        return static_cast<step_type>(stamp) - 1;
    }

    std::vector<std::pair<step_type, local_index>> spikes_;
    std::size_t next_ = 0;
};

} // namespace

model_entry spike_source_array_model() {
    return {.name = "spike_source_array",
            .kind = model_kind::spike_source,
            .description = "cells that spike at given times (NEST's spike_generator, PyNN's SpikeSourceArray)",
            .parameters =
                {{"spike_times", "ms", 0.0, "", ranges::positive(),
                  "the cell's spike times, each > 0: emitted at the end of the step containing it (default: none)",
                  parameter_shape::per_cell_list}},
            .docs_page = "docs/models/devices.md",
            .make = [](const network_spec& spec, const std::vector<gid_type>& gids, local_index first) {
                return std::unique_ptr<cell_group>(std::make_unique<spike_source_array_group>(spec, gids, first));
            }};
}

} // namespace spikex
