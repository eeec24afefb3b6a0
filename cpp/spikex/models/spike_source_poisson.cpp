// spike_source_poisson: cells that each emit one Poisson train (PyNN's SpikeSourcePoisson;
// in NEST a poisson_generator feeding a parrot_neuron). Unlike poisson_generator, whose
// every target gets a train of its own, all targets of a cell receive the same spikes,
// and the cell's spikes can be recorded.
//
// Parameters: rate (Hz, >= 0), start and stop (ms, default 0 and infinity). The train of
// cell `gid` is a sequence of exponential gaps drawn from its own stream (seed, gid,
// purpose::source_train): the events t1 < t2 < ... in (start, stop). An event at time t is
// emitted at step ceil(t/dt) - 1, so that its time stamp (n + 1)·dt (NEST's convention,
// docs/models/iaf_psc_alpha.md) is the first grid time at or after t. A cell spikes at most
// once per step: two events of one step make one spike (at 10 Hz and dt = 0.1 ms about one
// event in 2·10^5 shares a step with the one before).
#include <cmath>
#include <limits>
#include <queue>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/core/random.hpp"
#include "spikex/models/model_parameters.hpp"
#include "spikex/models/model_registry.hpp"

namespace spikex {
namespace {

using model_parameters::number;

struct train_parameters {
    double rate_hz, start, stop;
};

const std::vector<model_parameters::field<train_parameters>> table = {
    {{"rate", "Hz", 0.0, "", ranges::non_negative(), "mean rate of the cell's train"}, &train_parameters::rate_hz},
    {{"start", "ms", 0.0, "", ranges::non_negative(), "the train's events lie after this time"},
     &train_parameters::start},
    {{"stop", "ms", std::numeric_limits<double>::infinity(), "", ranges::any_or_inf(),
      "the train's events lie before this time"},
     &train_parameters::stop},
};

train_parameters parse(const population_spec& pop, gid_type gid, std::uint32_t seed) {
    const train_parameters p = model_parameters::parse("spike_source_poisson", table, cell_parameters(pop, gid, seed));
    if (p.stop < p.start) {
        throw user_error(spikex::format("spike_source_poisson parameter stop = {}: must be >= start = {} ms",
                                        number(p.stop), number(p.start)));
    }
    return p;
}

class spike_source_poisson_group final: public cell_group {
public:
    spike_source_poisson_group(const network_spec& spec, const std::vector<gid_type>& gids, local_index first_local):
        dt_(spec.dt_ms), first_local_(first_local) {
        cells_.reserve(gids.size());
        for (local_index i = 0; i < gids.size(); ++i) {
            const train_parameters p = parse(spec.population_of(gids[i]), gids[i], spec.seed);
            cells_.push_back({p, random_stream(spec.seed, gids[i], purpose::source_train), p.start, -1});
            schedule(i, std::numeric_limits<step_type>::max());
        }
    }

    void begin_step(step_type n, spike_output& out) override {
        // A restart past some events (none in a normal run) drops them.
        while (!due_.empty() && due_.top().first <= n) {
            const auto [step, i] = due_.top();
            due_.pop();
            cells_[i].queued = -1;
            if (step == n) out.emit(first_local_ + i, n);
            schedule(i, step);
        }
    }

    void deliver(step_type, const local_index*, const double*, std::uint32_t, std::uint32_t, spike_output&) override {}

    // Checkpoint values: t (the last event drawn), the words its stream has used, and the
    // step queued for it (-1: none). The constructor's pre-drawn queue is replaced.
    void save_cell(local_index cell, double* v) const override {
        const struct cell& c = cells_[cell - first_local_];
        v[0] = c.t;
        v[1] = static_cast<double>(c.stream.position());
        v[2] = static_cast<double>(c.queued);
    }
    void load_cell(local_index cell, const double* v) override {
        if (!loading_) {
            due_ = {};
            loading_ = true;
        }
        const local_index i = cell - first_local_;
        cells_[i].t = v[0];
        cells_[i].stream.seek(static_cast<std::uint64_t>(v[1]));
        cells_[i].queued = static_cast<step_type>(v[2]);
        if (cells_[i].queued >= 0) due_.push({cells_[i].queued, i});
    }
    void after_load() override { loading_ = false; }

    std::size_t bytes() const override {
        return cells_.capacity() * sizeof(cells_[0]) + due_.size() * sizeof(std::pair<step_type, local_index>);
    }

private:
    struct cell {
        train_parameters p;
        random_stream stream;
        double t;              // the last event drawn, ms
        step_type queued = -1; // the step queued in due_ (-1: none)
    };

    // Draws cell i's events until one falls on a step after `after` (none before the
    // first call: `after` = max), and queues it unless it is at or past stop.
    void schedule(local_index i, step_type after) {
        cell& c = cells_[i];
        if (c.p.rate_hz <= 0) return;
        const double mean_gap_ms = 1000.0 / c.p.rate_hz;
        for (;;) {
            c.t += -std::log(1.0 - c.stream.next_uniform()) * mean_gap_ms;
            if (!(c.t < c.p.stop)) return;
            const double steps = std::ceil(c.t / dt_);
            if (steps > double(std::numeric_limits<step_type>::max() - 1)) return;
            const auto step = static_cast<step_type>(steps) - 1;
            if (after == std::numeric_limits<step_type>::max() || step > after) {
                due_.push({step, i});
                c.queued = step;
                return;
            }
        }
    }

    using entry = std::pair<step_type, local_index>;
    double dt_;
    local_index first_local_;
    std::vector<cell> cells_;
    std::priority_queue<entry, std::vector<entry>, std::greater<entry>> due_;
    bool loading_ = false; // between the first load_cell and after_load
};

} // namespace

model_entry spike_source_poisson_model() {
    return {.name = "spike_source_poisson",
            .kind = model_kind::spike_source,
            .description = "cells that each emit one Poisson train, the same to every target (PyNN's "
                           "SpikeSourcePoisson, NEST's poisson_generator into a parrot_neuron)",
            .parameters = model_parameters::specs_of(table),
            .checkpoint_state = {"t", "stream_words", "due"},
            .docs_page = "docs/models/devices.md",
            .make = [](const network_spec& spec, const std::vector<gid_type>& gids, local_index first) {
                return std::unique_ptr<cell_group>(std::make_unique<spike_source_poisson_group>(spec, gids, first));
            }};
}

} // namespace spikex
