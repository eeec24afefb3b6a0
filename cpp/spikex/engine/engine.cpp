#include <algorithm>
#include <chrono>
#include <limits>

#include "spikex/connections/target_table.hpp"
#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/core/thread_team.hpp"
#include "spikex/core/worker_team.hpp"
#include "spikex/engine/engine.hpp"
#include "spikex/engine/heartbeat.hpp"
#include "spikex/engine/thread_work.hpp"
#include "spikex/instrument/counter_names.hpp"
#include "spikex/instrument/stopwatch.hpp"
#include "spikex/models/input_device.hpp"
#include "spikex/network/connectivity.hpp"

namespace spikex {

namespace {
bool emitted_before(const std::pair<local_index, step_type>& a, const std::pair<local_index, step_type>& b) {
    return a.second != b.second ? a.second < b.second : a.first < b.first;
}
} // namespace

engine::engine(context& comm, network_spec spec, engine_options options):
    comm_(comm), spec_(std::move(spec)), options_(std::move(options)) {
    parse_distribution_scheme(options_.distribution); // fail early on a bad name
    exchange_ = make_exchange(options_.method, options_.exchange);
}

engine::~engine() = default;

// --- build --------------------------------------------------------------------------

void engine::build() {
    if (built_) return;
    scoped_timer timer(build_s_);
    // A user error found on some ranks only (a target drawn on that rank) must stop every
    // rank with the same message, or the others would wait forever in the next collective.
    std::string error;
    try {
        build_local();
    } catch (const user_error& e) {
        error = e.what();
    }
    agree_on_error(error);
    built_ = true;
}

void engine::agree_on_error(const std::string& error) {
    std::int64_t first_failing = comm_.allreduce_min(error.empty() ? comm_.size() : comm_.rank());
    if (first_failing < comm_.size()) {
        std::vector<char> mine;
        if (comm_.rank() == first_failing) mine.assign(error.begin(), error.end());
        auto message = comm_.allgather_vector(mine);
        throw user_error(std::string(message.begin(), message.end()));
    }
}

void engine::build_local() {
    const std::uint32_t n_cells = spec_.cells();
    for (std::size_t k = 1; k < spec_.synapses.size(); ++k)
        find_synapse(spec_.synapses[k].name).check(spec_.synapses[k].params);
    cells_ = std::make_unique<distribution>(parse_distribution_scheme(options_.distribution), n_cells, comm_.size(),
                                            spec_.seed);
    local_gids_ = cells_->gids_of(comm_.rank());

    // Threads own contiguous blocks of the rank's cells, cut so that each holds an equal
    // share of the work per step (thread_work.hpp: devices count 0, plastic inputs more).
    const unsigned threads = std::max(1u, options_.threads);
    const std::vector<local_index> cuts = thread_cuts(cell_work(spec_, local_gids_), threads);
    parts_ = std::vector<thread_part>(threads);
    for (unsigned t = 0; t < threads; ++t) {
        auto& part = parts_[t];
        part.first = cuts[t];
        part.end = cuts[t + 1];
        std::vector<gid_type> gids(local_gids_.begin() + part.first, local_gids_.begin() + part.end);
        part.cells = make_cell_group(spec_, gids, part.first);
        part.plastic = &plastic_;
    }

    recorded_cell_.assign(local_gids_.size(), 0);
    for (auto [first, count]: spec_.recorded) {
        for (local_index i = 0; i < local_gids_.size(); ++i) {
            if (local_gids_[i] >= first && local_gids_[i] - first < count) recorded_cell_[i] = 1;
        }
    }
    // State recordings: each recorded local cell with the thread part that owns it.
    state_cells_.assign(spec_.state_recordings.size(), {});
    state_samples_.assign(spec_.state_recordings.size(), {});
    for (std::size_t k = 0; k < spec_.state_recordings.size(); ++k) {
        const auto& rec = spec_.state_recordings[k];
        for (local_index i = 0; i < local_gids_.size(); ++i) {
            const gid_type g = local_gids_[i];
            bool wanted = false;
            for (auto [first, count]: rec.cells) wanted = wanted || (g >= first && g - first < count);
            if (!wanted) continue;
            unsigned t = 0;
            while (i >= parts_[t].end) ++t;
            parts_[t].cells->state(i, rec.variable); // an unknown variable fails here, at build
            state_cells_[k].push_back({t, i});
            state_samples_[k].gids.push_back(g);
        }
    }
    build_connections();
    plastic_ = plasticity(spec_, local_gids_, table_, table_.take_input_indices(), table_.take_starting_weights());
}

void engine::build_connections() {
    const std::uint32_t n_cells = spec_.cells();
    for (const auto& set: spec_.connection_sets) {
        if (set.is_rule) continue;
        const auto& a = set.arrays;
        for (std::size_t k = 0; k < a.target.size(); ++k) {
            if (a.source[k] >= n_cells || a.target[k] >= n_cells) {
                throw user_error(spikex::format("connect: gid {} does not exist (the network has {} cells)",
                                                std::max(a.source[k], a.target[k]), n_cells));
            }
            if (a.local && cells_->rank_of(a.target[k]) != comm_.rank()) {
                throw user_error(spikex::format("connect(local=True): target gid {} is not on rank {} (it is on "
                                                "rank {}): give each rank only the connections ending on its cells",
                                                a.target[k], comm_.rank(), cells_->rank_of(a.target[k])));
            }
        }
    }
    // Connections from input devices become device inputs (device_inputs.hpp), not synapses.
    std::vector<std::pair<gid_type, gid_type>> device_ranges; // [first, end) gids
    for (const auto& pop: spec_.populations) {
        if (!is_input_device(pop.model)) continue;
        device_ranges.push_back({pop.first, pop.first + pop.size});
        // Every rank checks every device's parameters, connected or not (as NEST at Create).
        for (gid_type g = pop.first; g < pop.first + pop.size; ++g)
            input_device_schedule(pop, g, spec_.seed, spec_.dt_ms);
    }
    auto is_device = [&](gid_type g) {
        for (auto [first, end]: device_ranges)
            if (g >= first && g < end) return true;
        return false;
    };
    std::vector<char> set_has_devices; // whether a set may have device sources
    for (const auto& set: spec_.connection_sets) {
        bool touches = false;
        if (set.is_rule) {
            for (auto [first, end]: device_ranges) {
                touches =
                    touches || (set.rule.source_first < end && first < set.rule.source_first + set.rule.source_size);
            }
        } else {
            for (auto s: set.arrays.source) touches = touches || is_device(s);
        }
        set_has_devices.push_back(touches);
    }

    // Creation order: connection sets in order; within a rule, targets in local order and
    // each target's draws in order. The table asks for this sequence twice (count, place),
    // so the rules' connections are drawn twice instead of being held in a list; each
    // thread asks for its own cells' inputs.
    table_shape shape{n_cells, {}, plasticity::indexed_synapse_types(spec_)};
    shape.narrow_targets = options_.narrow_targets;
    shape.byte_targets = options_.byte_targets;
    shape.weights_when_counting =
        std::all_of(spec_.connection_sets.begin(), spec_.connection_sets.end(), [](auto& set) {
            return !set.is_rule || (set.rule.weight.is_constant() && set.rule.weight_spread == 0.0);
        });
    // Also for one thread: the table then knows its targets' range (its passes' parts).
    for (const auto& part: parts_) shape.thread_first.push_back(part.first);
    if (!parts_.empty()) shape.thread_first.push_back(parts_.back().end);
    // Each rule's per-rank preparation (fixed_outdegree, fixed_total_number plans), once.
    std::vector<rule_drawer> drawers;
    for (const auto& set: spec_.connection_sets) {
        if (!set.is_rule) continue;
        const auto rule_index = static_cast<std::uint32_t>(drawers.size());
        drawers.emplace_back(set.rule, rule_index, spec_.seed, spec_.dt_ms, local_gids_);
    }
    // `devices`: only the connections from input devices, else only the others.
    auto produce_some = [&](const connection_visitor& visit_any, target_range targets, bool devices, bool weights) {
        const local_index first = targets.first;
        const local_index end = std::min(targets.end, static_cast<local_index>(local_gids_.size()));
        std::size_t rule_number = 0;
        rule_scratch scratch;
        std::vector<built_connection> run; // one target's inputs, handed over together
        std::size_t set_index = 0;
        bool mixed = false; // the current set has device sources
        auto visit = [&](const built_connection& c) {
            if ((mixed && is_device(c.source)) == devices) visit_any(c);
        };
        for (const auto& set: spec_.connection_sets) {
            mixed = set_has_devices[set_index++];
            if (devices && !mixed) {
                rule_number += set.is_rule ? 1 : 0;
                continue;
            }
            if (set.is_rule) {
                const rule_drawer& drawer = drawers[rule_number++];
                for (local_index i = first; i < end; ++i) {
                    gid_type g = local_gids_[i];
                    if (!drawer.targets(g)) continue;
                    if (!mixed && drawer.uniform()) { // the drawn sources as they are
                        const auto& sources = drawer.sources_of(g, scratch);
                        const auto delay = static_cast<std::uint32_t>(drawer.constant_delay());
                        visit_any(uniform_run{sources.data(),
                                              sources.size(),
                                              {0, i, drawer.constant_weight(), delay, set.synapse, set.receptor}});
                        continue;
                    }
                    run.clear();
                    // delays >= 1 step, < 2^31 (checked)
                    drawer.draw_each(g, scratch, weights, [&](gid_type s, double w, step_type d) {
                        if (mixed && is_device(s) != devices) return;
                        run.push_back({s, i, w, static_cast<std::uint32_t>(d), set.synapse, set.receptor});
                    });
                    visit_any(run.data(), run.size());
                }
            } else {
                const auto& a = set.arrays;
                for (std::size_t k = 0; k < a.target.size(); ++k) {
                    if (cells_->rank_of(a.target[k]) != comm_.rank()) continue;
                    const local_index i = cells_->local_of(a.target[k]);
                    if (i < first || i >= end) continue;
                    visit({a.source[k], i, a.weight_at(k), a.delay_at(k), set.synapse, set.receptor});
                }
            }
        }
    };
    connection_producer produce = [&](const connection_visitor& visit, target_range targets, bool weights) {
        produce_some(visit, targets, false, weights);
    };
    std::vector<std::vector<device_connection>> from_devices(parts_.size());
    if (!device_ranges.empty()) {
        for (unsigned t = 0; t < parts_.size(); ++t) {
            produce_some(
                [&](const built_connection& c) {
                    from_devices[t].push_back({c.source, c.target, c.weight, c.delay, c.receptor});
                },
                target_range{parts_[t].first, parts_[t].end}, true, true);
        }
    }
    device_inputs_ = device_inputs(spec_, local_gids_, from_devices);
    // Source-addressed exchanges find connections by source: they need the sorted layout.
    bool sort = options_.sort_by_source || !find_exchange_method(options_.method).capabilities.target_addressed;
    table_ = connection_table(produce, shape, sort);
    // The table holds the connections now: the waiting arrays go (for a network read
    // from SONATA files they are the largest thing a rank holds after the table).
    for (auto& set: spec_.connection_sets) {
        if (set.is_rule) continue;
        auto& a = set.arrays;
        std::vector<gid_type>().swap(a.source);
        std::vector<gid_type>().swap(a.target);
        std::vector<double>().swap(a.weight);
        std::vector<std::uint32_t>().swap(a.delay);
        a.released = true;
    }
}

// --- init ---------------------------------------------------------------------------

void engine::init() {
    if (initialized_) return;
    build();
    scoped_timer timer(init_s_);
    constexpr std::int64_t none = std::numeric_limits<std::int64_t>::max();
    std::int64_t d_min = comm_.allreduce_min(table_.size() ? std::int64_t(table_.min_delay()) : none);
    if (d_min == none) d_min = std::max<std::int64_t>(1, delay_steps(1.0, spec_.dt_ms)); // no connections
    steps_per_interval_ = static_cast<std::uint32_t>(d_min);
    ring_.assign(table_.max_delay() + steps_per_interval_ + 1, {});
    batches_.assign(ring_.size(), {});
    max_delay_global_ = comm_.allreduce_max(table_.max_delay());
    const bool measure_wait = option_reader(common_exchange_options(), options_.exchange).boolean("measure_wait");
    exchange_->setup({comm_, *cells_, table_, steps_per_interval_, measure_wait, spec_.seed});
    if (resume_step_ >= 0) restore_in_flight(); // needs the source table
    if (!options_.keep_sources) table_.release_sources();
    schedule_ = interval_schedule(steps_per_interval_, exchange_->subintervals()); // checks the rule
    // The team starts now, so that its threads are placed (and asleep) before the loop.
    if (parts_.size() > 1) team_ = std::make_unique<worker_team>(static_cast<unsigned>(parts_.size()));
    initialized_ = true;
}

// --- simulation loop ----------------------------------------------------------------

void engine::run_until(step_type stop) {
    const heartbeat::running_scope running;
    init();
    timeline_.start_run();
    while (step_ < stop) run_stretch(stop);
    // A run that ends mid-interval still delivers what it emitted, so that every recorded
    // spike has been exchanged when the run returns.
    if (step_ > exchanged_until_) synchronize_exchange(step_);
    exchange_->verify_conservation();
}

void engine::run_stretch(step_type stop) {
    // Whole sub-intervals from step_ until stretch_steps have passed (or stop), run by the
    // team (rounds of parts, core/worker_team.hpp) or by this thread alone, whichever has
    // been faster (pace_), so that a second thread never slows a run.
    auto& ends = stretch_ends_;
    ends.clear();
    for (step_type at = step_; at < stop && (ends.empty() || at - step_ < stretch_steps);) {
        at = std::min(schedule_.next_boundary(at), stop);
        ends.push_back(at);
    }
    const auto threads = static_cast<unsigned>(parts_.size());
    const auto start = std::chrono::steady_clock::now();
    bool alone = threads == 1;
    if (!alone) {
        if (!team_ || team_->size() != threads) team_ = std::make_unique<worker_team>(threads);
        alone = pace_.alone_next();
    }
    const step_type first = step_;
    const std::uint64_t events_before = events_due_;
    const double compute_before = compute_s_;
    compute_since_ = start;
    if (alone)
        run_stretch_alone();
    else
        run_stretch_together(steps_run_freely());
    if (threads > 1) {
        const double computed = compute_s_ - compute_before;
        // The stretch's work: the events its steps delivered and its cells' steps.
        const double work = double(events_due_ - events_before) + double(local_gids_.size()) * double(step_ - first);
        pace_.record(alone, computed / std::max(work, 1.0));
        (alone ? alone_s_ : team_s_) += computed;
    }
}

bool engine::steps_run_freely() const {
    // Within a sub-interval the parts depend on each other only through the work thread 0
    // does between steps. Without plastic, short-term or stochastic synapses (their state
    // moves step by step), state recording (samples all parts after a step) and an
    // exchange that works between boundaries, that work can wait for the sub-interval's
    // end: every step's deliveries were known at its start (a spike emitted in the
    // sub-interval arrives after it), and the spikes reach the exchange in the same order.
    return !plastic_.active() && !plastic_.has_short_term() && !plastic_.has_stochastic() && state_cells_.empty() &&
           !exchange_->works_between_boundaries();
}

bool engine::end_subinterval(step_type end) {
    // Thread 0, every part past the steps before `end`. With two sub-intervals, spikes of
    // the one that just ended may still be in flight: only those of the one before must
    // have arrived (interval_schedule). The compute time until here goes into compute_s_
    // first: the exchange's timeline row reads it.
    const bool boundary = schedule_.next_boundary(step_) == end;
    step_ = end;
    if (!boundary) return false;
    const auto now = std::chrono::steady_clock::now();
    compute_s_ += std::chrono::duration<double>(now - compute_since_).count();
    synchronize_exchange(schedule_.due(end));
    compute_since_ = std::chrono::steady_clock::now();
    return true;
}

void engine::end_stretch(bool synchronized) {
    // Steps after the last exchange count now (the run's final exchange reads them);
    // after an exchange there were none, and its timeline row has every step.
    if (!synchronized) {
        compute_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - compute_since_).count();
    }
}

void engine::run_stretch_alone() {
    // The parts do not depend on the OS thread that runs them: one thread may run them all
    // in turn (the same spikes).
    bool synchronized = false;
    for (const step_type end: stretch_ends_) {
        for (step_type n = step_; n < end; ++n) {
            prepare_step(n);
            for (unsigned t = 0; t < parts_.size(); ++t) thread_step(parts_[t], t, n);
            finish_step(n);
        }
        synchronized = end_subinterval(end);
    }
    end_stretch(synchronized);
}

void engine::run_stretch_together(bool freely) {
    // spikex's own threads (core/worker_team.hpp: spin, then yield, then sleep), started
    // at init: no OpenMP region, so no OMP_WAIT_POLICY decides how they wait. A round of
    // the team runs every part once, each on whichever thread claims it (a worker the
    // kernel has not run yet takes none); this thread does the serial work between rounds:
    // after every step (finish it, prepare the next), or, running freely, one round per
    // sub-interval with its serial work at the ends.
    const auto parts = static_cast<unsigned>(parts_.size());
    bool synchronized = false;
    for (const step_type end: stretch_ends_) {
        const step_type from = step_;
        if (freely) {
            prepare_steps(from, end);
            const std::pair<step_type, step_type> steps{from, end}; // one capture: no allocation
            team_->run_parts(parts, [this, &steps](unsigned t) {
                for (step_type n = steps.first; n < steps.second; ++n) thread_step(parts_[t], t, n);
            });
            finish_steps(from, end);
        } else {
            for (step_type n = from; n < end; ++n) {
                prepare_step(n);
                team_->run_parts(parts, [this, n](unsigned t) { thread_step(parts_[t], t, n); });
                finish_step(n);
            }
        }
        synchronized = end_subinterval(end);
    }
    end_stretch(synchronized);
}

void engine::prepare_steps(step_type from, step_type to) {
    for (step_type n = from; n < to; ++n) prepare_step(n);
}

void engine::finish_steps(step_type from, step_type to) {
    // As finish_step for each step in turn (steps_run_freely: nothing plastic, no state
    // recording): each part's spikes of the sub-interval, (step, cell) order, go to the
    // exchange step by step, the parts' blocks in turn.
    for (auto& part: parts_) {
        if (!std::is_sorted(part.emitted.begin(), part.emitted.end(), emitted_before)) {
            std::sort(part.emitted.begin(), part.emitted.end(), emitted_before);
        }
        part.next_emitted = 0;
    }
    for (step_type n = from; n < to; ++n) {
        for (auto& part: parts_) {
            auto& i = part.next_emitted;
            const bool last = n + 1 == to; // and anything emitted for a later step, as finish_step would
            for (; i < part.emitted.size() && (last || part.emitted[i].second <= n); ++i) {
                emit(part.emitted[i].first, part.emitted[i].second);
            }
        }
        ring_[n % ring_.size()].clear();
        exchange_->poll(*this);
    }
    for (auto& part: parts_) part.emitted.clear();
}

void engine::prepare_step(step_type n) {
    auto& bucket = ring_[n % ring_.size()];
    auto& batch = batches_[n % ring_.size()];
    batch.clear();
    if (bucket.empty()) return;
    if (!table_.sorted()) {
        events_due_ += bucket.size();
        // One entry per connection; creation order is each target's connection-index
        // order, so (source gid, position) is the canonical order. Sorted as keys that
        // hold the source: a comparator that looked it up made n log n cache misses in
        // the table's sources (a sixth of 5g-nosort's run time on one rank, 2026-11-27).
        constexpr std::size_t ahead = 16;
        creation_order_keys_.resize(bucket.size());
        for (std::size_t i = 0; i < bucket.size(); ++i) {
            if (i + ahead < bucket.size()) __builtin_prefetch(table_.location_source_address(bucket[i + ahead]));
            creation_order_keys_[i] = {table_.source_of(bucket[i]), bucket[i]};
        }
        std::sort(creation_order_keys_.begin(), creation_order_keys_.end());
        for (std::size_t i = 0; i < bucket.size(); ++i) bucket[i] = creation_order_keys_[i].second;
        return;
    }
    // Delay groups are numbered by (source gid, delay, synapse): sorting by group puts the
    // batches in canonical source order whatever order the exchange delivered them in.
    std::sort(bucket.begin(), bucket.end());
    for (std::uint32_t i = 0; i < bucket.size(); ++i) {
        if (i == 0 || table_.group(bucket[i]).source_run != table_.group(bucket[i - 1]).source_run) batch.push_back(i);
        events_due_ += table_.group_end_connection(bucket[i]) - table_.group(bucket[i]).begin;
    }
    batch.push_back(static_cast<std::uint32_t>(bucket.size()));
    // Short-term and quantal synapses: each arriving group's state moves to its spike, here on
    // one thread before the step's deliveries, which read it. Steps run in order, so every
    // group sees its spikes in time order whatever the layout.
    if (plastic_.has_short_term()) {
        for (auto g: bucket) plastic_.arrive(table_, g, n);
    }
}

void engine::thread_step(thread_part& part, unsigned t, step_type n) {
    part.cells->begin_step(n, part);
    const auto& bucket = ring_[n % ring_.size()];
    if (!bucket.empty()) {
        if (!table_.sorted()) {
            deliver_creation_order(part, n);
        } else {
            const auto& batch = batches_[n % ring_.size()];
            for (std::size_t b = 0; b + 1 < batch.size(); ++b) {
                const std::uint32_t first = batch[b], last = batch[b + 1];
                if (last - first > 1 &&
                    table_.source_run_groups_share_targets(table_.group(bucket[first]).source_run)) {
                    deliver_merged(part, t, first, last, n);
                } else {
                    // One group, or groups without a common target: no order between them.
                    for (auto i = first; i < last; ++i) deliver_group(part, t, bucket[i], n);
                }
            }
        }
    }
    device_inputs_.apply(t, n, *part.cells, part);
    part.cells->end_step(n, part);
}

void engine::finish_step(step_type n) {
    auto& bucket = ring_[n % ring_.size()];
    if (plastic_.active()) {
        for (auto g: bucket) {
            if (plastic_.plastic(table_.group(g))) plastic_.advance(table_, g, n);
        }
    }
    bucket.clear();
    if (!state_cells_.empty()) sample_state(n);
    // Spikes go to the exchange in (step, cell) order, threads' contiguous blocks in turn, so
    // that the codec gets every block's keys ascending and never sorts them (a model may
    // emit out of order: interval_fire fires from a heap). Mostly already in order: checked first.
    for (auto& part: parts_) {
        if (!std::is_sorted(part.emitted.begin(), part.emitted.end(), emitted_before)) {
            std::sort(part.emitted.begin(), part.emitted.end(), emitted_before);
        }
        for (auto [cell, step]: part.emitted) emit(cell, step);
        part.emitted.clear();
    }
    exchange_->poll(*this);
}

void engine::synchronize_exchange(step_type due) {
    exchange_->synchronize(step_, due, *this);
    exchanged_until_ = due;
    // Keep the spikes that may still be in flight at a checkpoint: emitted at or after
    // step_ - max delay. Compact once the dropped part is the larger half.
    while (recent_first_ < recent_.size() && recent_[recent_first_].step < step_ - max_delay_global_) ++recent_first_;
    if (recent_first_ > 1024 && 2 * recent_first_ > recent_.size()) {
        recent_.erase(recent_.begin(), recent_.begin() + static_cast<std::ptrdiff_t>(recent_first_));
        recent_first_ = 0;
    }
    heartbeat::spikes.fetch_add(std::int64_t(spikes_emitted_ - spikes_in_heartbeat_), std::memory_order_relaxed);
    spikes_in_heartbeat_ = spikes_emitted_;
    heartbeat::exchanges.fetch_add(1, std::memory_order_relaxed);
    timeline_.sample(step_, due, compute_s_, spikes_emitted_, *exchange_); // if record.timeline
}

namespace {
// Synaptic input through a receptor port when the group has one (multisynapse targets).
void deliver_through(cell_group& cells, std::uint16_t port, step_type n, const local_index* targets,
                     const double* weights, std::uint32_t begin, std::uint32_t end, spike_output& out) {
    if (port == 0)
        cells.deliver(n, targets, weights, begin, end, out);
    else
        cells.deliver_port(port, n, targets, weights, begin, end, out);
}
void deliver_uniform_through(cell_group& cells, std::uint16_t port, step_type n, const local_index* targets,
                             std::uint32_t count, double weight, spike_output& out) {
    if (port == 0)
        cells.deliver_uniform(n, targets, count, weight, out);
    else
        cells.deliver_uniform_port(port, n, targets, count, weight, out);
}
} // namespace

void engine::deliver_group(thread_part& part, unsigned t, std::uint32_t g, step_type n) {
    const std::uint32_t begin = table_.thread_begin(g, t), end = table_.thread_begin(g, t + 1);
    if (begin == end) return;
    const std::uint16_t port = table_.group(g).receptor;
    if (plastic_.stochastic(table_.group(g))) {
        // The connections the spike crosses, each with its weight times the number released.
        auto& targets = part.transmitted_targets;
        auto& weights = part.scaled_weights;
        targets.clear();
        weights.clear();
        plastic_.transmit(table_, g, begin, end, n, targets, weights);
        if (!targets.empty())
            deliver_through(*part.cells, port, n, targets.data(), weights.data(), 0, std::uint32_t(targets.size()),
                            part);
        return;
    }
    if (plastic_.plastic(table_.group(g)) && !plastic_.short_term(table_.group(g))) {
        plastic_.update_weights(table_, g, begin, end, n);
    }
    const bool shares_weight = table_.shares_weight(g);
    const std::uint32_t group_begin = table_.group(g).begin;
    const double* weights = shares_weight ? nullptr : table_.weights_of_group(g) + (begin - group_begin);
    if (!shares_weight && plastic_.short_term(table_.group(g))) {
        // The stored weights times the group's factor for this spike; they stay as they are.
        const double factor = plastic_.factor(g);
        auto& scaled = part.scaled_weights;
        scaled.resize(end - begin);
        for (std::uint32_t k = 0; k < end - begin; ++k) scaled[k] = weights[k] * factor;
        weights = scaled.data();
    }
    const std::uint32_t count = end - begin;
    if (table_.byte_targets() && port == 0) { // the models read byte targets themselves, a page at a time
        const double group_weight = shares_weight ? table_.group_weight(g) : 0.0;
        table_.for_byte_pieces(
            begin, end, [&](const std::uint8_t* targets, local_index base, std::uint32_t first, std::uint32_t last) {
                if (shares_weight)
                    part.cells->deliver_uniform_bytes(n, base, targets + first, last - first, group_weight, part);
                else
                    part.cells->deliver_bytes(n, base, targets + first, weights + (first - begin), 0, last - first,
                                              part);
            });
        return;
    }
    if (table_.narrow_targets() && port == 0) { // the models read 2-byte targets themselves
        const narrow_target* targets = table_.narrow_target_data() + begin;
        if (shares_weight)
            part.cells->deliver_uniform_narrow(n, targets, count, table_.group_weight(g), part);
        else
            part.cells->deliver_narrow(n, targets, weights, 0, count, part);
        return;
    }
    // 4-byte targets, or 2-byte ones through a receptor port: widened a piece at a time
    // (in the first-level cache).
    constexpr std::uint32_t piece = 4096;
    for (std::uint32_t from = 0; from < count; from += piece) {
        const std::uint32_t to = std::min(count, from + piece);
        const local_index* targets = table_.targets_of(begin + from, begin + to, part.target_scratch);
        if (shares_weight)
            deliver_uniform_through(*part.cells, port, n, targets, to - from, table_.group_weight(g), part);
        else
            deliver_through(*part.cells, port, n, targets, weights + from, 0, to - from, part);
    }
}

void engine::deliver_merged(thread_part& part, unsigned t, std::size_t first, std::size_t last, step_type n) {
    // Several groups of one source reach a common target in this step (different delays
    // or synapse types): each target takes them by its own connection index.
    const auto& bucket = ring_[n % ring_.size()];
    auto& merged = part.merge_scratch;
    merged.clear();
    for (std::size_t k = first; k < last; ++k) {
        const std::uint32_t g = bucket[k];
        const std::uint32_t begin = table_.thread_begin(g, t), end = table_.thread_begin(g, t + 1);
        if (plastic_.plastic(table_.group(g)) && !plastic_.short_term(table_.group(g))) {
            plastic_.update_weights(table_, g, begin, end, n);
        }
        for (auto c = begin; c < end; ++c) merged.push_back(c);
    }
    std::stable_sort(merged.begin(), merged.end(), [&](std::uint32_t a, std::uint32_t b) {
        const local_index ta = table_.target(a), tb = table_.target(b);
        if (ta != tb) return ta < tb;
        // A target with inputs in several of the groups has indices for all of them; else
        // both are in one group, where positions are creation order.
        std::uint32_t ia = 0, ib = 0;
        if (table_.find_connection_index(a, ia) && table_.find_connection_index(b, ib)) return ia < ib;
        return a < b;
    });
    const bool per_spike_weights = plastic_.has_short_term() || plastic_.has_stochastic();
    for (auto c: merged) {
        const std::uint32_t g = table_.group_of_connection(c);
        const std::uint16_t port = table_.group(g).receptor;
        const local_index target = table_.target(c);
        if (table_.shares_weight(g)) {
            deliver_uniform_through(*part.cells, port, n, &target, 1, table_.group_weight(g), part);
        } else if (per_spike_weights && plastic_.short_term(table_.group(g))) {
            const double weight = table_.weight_of(g, c) * plastic_.factor(g); // the stored weight stays
            deliver_through(*part.cells, port, n, &target, &weight, 0, 1, part);
        } else if (per_spike_weights && plastic_.stochastic(table_.group(g))) {
            auto& crossed = part.transmitted_targets;
            auto& weights = part.scaled_weights;
            crossed.clear();
            weights.clear();
            plastic_.transmit(table_, g, c, c + 1, n, crossed, weights);
            if (!crossed.empty()) deliver_through(*part.cells, port, n, crossed.data(), weights.data(), 0, 1, part);
        } else {
            const double weight = table_.weight_of(g, c);
            deliver_through(*part.cells, port, n, &target, &weight, 0, 1, part);
        }
    }
}

void engine::deliver_creation_order(thread_part& part, step_type n) {
    const local_index* targets = table_.targets_of(0, 0, part.target_scratch); // 4-byte in creation order
    const double* weights = table_.creation_weights();
    const auto& bucket = ring_[n % ring_.size()];
    constexpr std::size_t ahead = 16; // the connections' targets and weights: a miss each
    for (std::size_t i = 0; i < bucket.size(); ++i) {
        if (i + ahead < bucket.size()) {
            __builtin_prefetch(&targets[bucket[i + ahead]]);
            if (weights != nullptr) __builtin_prefetch(&weights[bucket[i + ahead]]);
        }
        const std::uint32_t c = bucket[i];
        if (targets[c] >= part.first && targets[c] < part.end) {
            part.cells->deliver(n, targets, weights, c, c + 1, part);
        }
    }
}

void engine::sample_state(step_type n) {
    for (std::size_t k = 0; k < state_cells_.size(); ++k) {
        const auto& rec = spec_.state_recordings[k];
        if (n < rec.start_step || (n - rec.start_step) % rec.interval_steps != 0) continue;
        auto& samples = state_samples_[k];
        samples.steps.push_back(n);
        for (auto [t, cell]: state_cells_[k]) samples.values.push_back(parts_[t].cells->state(cell, rec.variable));
    }
}

void engine::emit(local_index cell, step_type step) {
    gid_type gid = local_gids_[cell];
    ++spikes_emitted_;
    if (recorded_cell_[cell] && step >= spec_.record_from_step) recorded_.push_back({gid, step});
    recent_.push_back({gid, step});
    exchange_->spike_emitted(gid, step);
}

void engine::deliver_source(std::uint32_t run, step_type step) {
    for (auto g = table_.group_begin(run); g < table_.group_begin(run + 1); ++g) {
        push_delivery(g, step + table_.group(g).delay, step);
        events_delivered_ += table_.group_end_connection(g) - table_.group(g).begin;
    }
    delivery_groups_ += table_.group_begin(run + 1) - table_.group_begin(run);
}

void engine::deliver_connection(std::uint32_t c, step_type step) {
    push_delivery(c, step + table_.delay_of(c), step);
    ++events_delivered_;
    ++delivery_groups_;
}

void engine::deliver_batch(const entry* entries, std::size_t n, step_type interval_start, bool connections) {
    // The delay (creation order) or the delay groups (sorted layout) of entries `ahead` on
    // are loaded early: consecutive entries name unrelated connections or sources, each a
    // cache miss in tables of 4 bytes a connection or source.
    constexpr std::size_t ahead = 16;
    auto prefetch = [&](std::size_t i) {
        if (connections)
            __builtin_prefetch(table_.delay_address(entries[i].location));
        else
            __builtin_prefetch(table_.group_begin_address(entries[i].location));
    };
    for (std::size_t i = 0; i < std::min(n, ahead); ++i) prefetch(i);
    for (std::size_t i = 0; i < n; ++i) {
        if (i + ahead < n) prefetch(i + ahead);
        const step_type step = interval_start + entries[i].offset;
        if (connections)
            deliver_connection(entries[i].location, step);
        else
            deliver_source(entries[i].location, step);
    }
}

void engine::push_delivery(std::uint32_t index, step_type arrival, step_type emitted) {
    if (arrival < step_ || arrival - step_ >= static_cast<step_type>(ring_.size())) {
        throw internal_error(
            spikex::format("a spike emitted at step {} arrives at step {}, outside the delivery window at "
                           "step {}",
                           emitted, arrival, step_));
    }
    ring_[arrival % ring_.size()].push_back(index);
}

// --- reporting ----------------------------------------------------------------------

engine::connection_arrays engine::connections() const {
    if (table_.sources_released()) {
        throw user_error("connections: connectivity can no longer be queried: connections.keep_sources = false "
                         "freed the source table after init");
    }
    connection_arrays out;
    const auto n = table_.size();
    out.source.reserve(n);
    out.target.reserve(n);
    out.weight.reserve(n);
    out.delay_ms.reserve(n);
    out.synapse.reserve(n);
    out.receptor.reserve(n);
    if (!table_.sorted()) {
        for (std::uint32_t c = 0; c < n; ++c) {
            out.source.push_back(table_.source_of(c));
            out.target.push_back(local_gids_[table_.target(c)]);
            out.weight.push_back(table_.creation_weights()[c]);
            out.delay_ms.push_back(table_.delay_of(c) * spec_.dt_ms);
            out.synapse.push_back(0);  // creation order holds static synapses only
            out.receptor.push_back(0); // and no receptor ports
        }
        return out;
    }
    target_reader target(table_);
    for (std::uint32_t run = 0; run < table_.source_count(); ++run) {
        for (auto g = table_.group_begin(run); g < table_.group_begin(run + 1); ++g) {
            for (auto c = table_.group(g).begin; c < table_.group_end_connection(g); ++c) {
                out.source.push_back(table_.sources()[run]);
                out.target.push_back(local_gids_[target(c)]);
                out.weight.push_back(table_.weight_of(g, c));
                out.delay_ms.push_back(table_.group(g).delay * spec_.dt_ms);
                out.synapse.push_back(table_.group(g).synapse);
                out.receptor.push_back(table_.group(g).receptor);
            }
        }
    }
    return out;
}

std::vector<std::int64_t> engine::out_degrees() const {
    if (table_.sources_released()) {
        throw user_error("out_degrees: connectivity can no longer be queried: connections.keep_sources = false "
                         "freed the source table after init");
    }
    std::vector<std::int64_t> degree(spec_.cells(), 0);
    if (!table_.sorted()) {
        for (std::uint32_t c = 0; c < table_.size(); ++c) ++degree[table_.source_of(c)];
        return degree;
    }
    for (std::uint32_t run = 0; run < table_.source_count(); ++run) {
        auto first = table_.group(table_.group_begin(run)).begin;
        auto last = table_.group(table_.group_begin(run + 1)).begin;
        degree[table_.sources()[run]] += last - first;
    }
    return degree;
}

engine::target_entry_arrays engine::target_entries() const {
    target_entry_arrays out;
    for (auto [cell, packed]: exchange_->target_entries()) {
        out.source.push_back(local_gids_[cell]);
        out.rank.push_back(packed_target::rank(packed));
        out.location.push_back(packed_target::location(packed));
    }
    return out;
}

std::vector<std::int64_t> engine::location_sources() const {
    if (table_.sources_released()) return {}; // connections.keep_sources = false
    std::vector<std::int64_t> out(table_.location_count());
    for (std::uint32_t l = 0; l < out.size(); ++l) out[l] = table_.location_source(l);
    return out;
}

std::map<std::string, double> engine::counters() const {
    std::map<std::string, double> out = exchange_->counters();
    out[counter::events_delivered] = double(events_delivered_ + restored_events_delivered_);
    out[counter::spikes_emitted] = double(spikes_emitted_ + restored_spikes_emitted_);
    out[counter::delivery_groups] = double(delivery_groups_); // this segment's, as the exchange's counters
    return out;
}

std::map<std::string, double> engine::properties() const {
    std::map<std::string, double> out = exchange_->properties();
    out[counter::steps_per_interval] = double(steps_per_interval_);
    return out;
}

std::map<std::string, double> engine::timers() const {
    return {{"build", build_s_},
            {"init", init_s_},
            {"compute", compute_s_},
            {"compute_team", team_s_},   // threads > 1: sub-intervals the team ran
            {"compute_alone", alone_s_}, // and those one thread ran, every part in turn
            {"wait", exchange_->wait_seconds()},
            {"exchange", exchange_->exchange_seconds()},
            {"send", exchange_->send_seconds()}};
}

std::map<std::string, double> engine::memory_bytes() const {
    std::map<std::string, double> out = exchange_->memory_bytes();
    out["connections"] = double(table_.connection_bytes());
    out["sources"] = double(table_.source_bytes());
    double cells = 0;
    for (const auto& part: parts_) cells += part.cells ? double(part.cells->bytes()) : 0.0;
    out["cells"] = cells;
    // Every rank reports the same names (the summary reduces them over ranks), zeros included.
    out["device_inputs"] = double(device_inputs_.bytes());
    out["state_recording"] = 0.0;
    for (const auto& s: state_samples_) {
        out["state_recording"] += double(s.values.capacity() * sizeof(double) + s.steps.capacity() * sizeof(step_type) +
                                         s.gids.capacity() * sizeof(gid_type));
    }
    if (spec_.synapses.size() > 1) out["plasticity"] = plastic_.active() ? double(plastic_.bytes()) : 0.0;
    std::size_t ring = ring_.capacity() * sizeof(ring_[0]);
    for (const auto& b: ring_) ring += b.capacity() * sizeof(std::uint32_t);
    ring += creation_order_keys_.capacity() * sizeof(creation_order_keys_[0]);
    for (const auto& b: batches_) ring += b.capacity() * sizeof(std::uint32_t);
    out["delivery_queue"] = double(ring);
    return out;
}

} // namespace spikex
