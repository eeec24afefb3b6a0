// spike_source_array: cells that emit given spike times (NEST's spike_generator, PyNN's
// SpikeSourceArray). Each cell has its own list (population_spec::list_of).
//
// A spike time t (ms) must lie on the grid (within 1e-6 step) and be >= dt: NEST stamps it
// t and delivers it at t + delay; in spikex's step convention (docs/models/iaf_psc_alpha.md,
// a spike of step n is NEST's stamp n + 1) it is emitted at step round(t/dt) - 1, so it
// reaches targets exactly when NEST's does and is reported at t - dt. A cell emits at most
// once per step: a time given twice is an error.
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
            if (std::adjacent_find(steps.begin(), steps.end()) != steps.end()) {
                throw user_error(spikex::format("spike_source_array spike_times of cell {}: a time is given twice "
                                                "(a cell spikes at most once per step)",
                                                gids[i]));
            }
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
        if (!std::isfinite(t) || std::abs(steps - rounded) > 1e-6 || rounded < 1) {
            throw user_error(spikex::format("spike_source_array spike_times of cell {}: {} ms: must be a multiple of "
                                            "dt = {} ms and >= dt",
                                            gid, number(t), number(dt)));
        }
        return static_cast<step_type>(rounded) - 1;
    }

    std::vector<std::pair<step_type, local_index>> spikes_;
    std::size_t next_ = 0;
};

} // namespace

model_entry spike_source_array_model() {
    return {.name = "spike_source_array",
            .kind = model_kind::spike_source,
            .description = "cells that spike at given times (NEST's spike_generator, PyNN's SpikeSourceArray)",
            .parameters = {{"spike_times", "ms", 0.0, "", ranges::positive(),
                            "the cell's spike times, each a multiple of dt and >= dt (default: none)",
                            parameter_shape::per_cell_list}},
            .docs_page = "docs/models/devices.md",
            .make = [](const network_spec& spec, const std::vector<gid_type>& gids, local_index first) {
                return std::unique_ptr<cell_group>(std::make_unique<spike_source_array_group>(spec, gids, first));
            }};
}

} // namespace spikex
