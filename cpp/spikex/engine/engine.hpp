#pragma once
// The simulation engine of one rank: builds cells and connections, steps them through
// min-delay communication intervals, records spikes, hands them to the exchange and
// delivers what arrives.
//
// The interval loop and its dependencies (M = steps per interval = d_min / dt):
//
//   for each interval k = [kM, (k+1)M), split into 1 or 2 sub-intervals (the exchange says):
//     for each step n of a sub-interval:
//       thread 0:    sort ring[n mod R] into canonical order, cut it into per-source batches
//       every part t (its own cells, its own run of each delay group), on whichever
//       thread of the team claims it (core/worker_team.hpp):
//         cells.begin_step(n)      self-events due at n fire      -> t's emitted spikes
//         deliveries due at n      plastic groups update their weights first
//                                  -> cells.deliver (may fire)    -> t's emitted spikes
//         cells.end_step(n)        time-driven update (may fire)  -> t's emitted spikes
//       thread 0, every part done: advance plastic groups' traces, empty the bucket, hand
//         the emitted spikes of parts 0..T-1 to exchange.spike_emitted, exchange.poll(sink)
//     exchange.synchronize(end, due)   spikes emitted before `due` -> ring at step + delay
//
//   Without plasticity, state recording and an exchange that works between boundaries
//   (steps_run_freely), thread 0's work between steps waits for the sub-interval's end:
//   its buckets are all known at its start, so each part runs all its steps in one round.
//
//   Threads never write the same cell, connection or history (each owns a block of cells
//   and the connections that end there), and each target sees its inputs in canonical
//   order, so spikes do not depend on the thread count.
//
//   A spike emitted at step n in interval k arrives at n + d >= kM + M, i.e. never inside
//   interval k: that is why ranks only need to talk once per interval. The delivery ring
//   has R = max delay + M buckets; a bucket is emptied when its step is processed.
//   Nothing computed in interval k depends on anything received at its end, so computation
//   and communication of one interval could overlap (point-to-point methods do).
#include <chrono>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "spikex/comm/context.hpp"
#include "spikex/connections/connection_table.hpp"
#include "spikex/core/worker_team.hpp"
#include "spikex/engine/device_inputs.hpp"
#include "spikex/engine/engine_state.hpp"
#include "spikex/engine/interval_schedule.hpp"
#include "spikex/engine/plasticity.hpp"
#include "spikex/engine/thread_pace.hpp"
#include "spikex/engine/thread_part.hpp"
#include "spikex/exchange/method_registry.hpp"
#include "spikex/instrument/timeline.hpp"
#include "spikex/models/cell_group.hpp"
#include "spikex/network/distribution.hpp"
#include "spikex/network/network_spec.hpp"

namespace spikex {

struct engine_options {
    std::string method = "allgather";
    std::string distribution = "round_robin";
    option_values exchange;     // [exchange] keys given (the method's own; defaults for the rest)
    bool sort_by_source = true; // connections.sort_by_source (target-addressed methods)
    bool keep_sources = true;   // connections.keep_sources: false frees the source table after init
    unsigned threads = 1;       // threads per rank
    bool narrow_targets = true; // 2-byte targets where a rank's cells allow (false: 4 bytes; tests of both)
    bool byte_targets = true;   // 1-byte targets with pages where they pay (false: 2 or 4 bytes; tests of all)
};

class engine final: private spike_sink {
public:
    engine(context& comm, network_spec spec, engine_options options);
    ~engine() override;

    network_spec& spec() { return spec_; }
    engine_options& options() { return options_; }
    bool built() const { return built_; }

    void build();                   // collective only for error agreement: cells + connections, no spike traffic
    void init();                    // collective: interval length, exchange set-up
    void run_until(step_type stop); // collective

    // Checkpoints (engine_state.cpp). export_state: this rank's state between two
    // run_until calls. import_state: after build() and before init(), the rows of any
    // layout's checkpoint that belong here (cells, recorded spikes, plastic targets and
    // state columns of this rank's gids; all spikes in flight and presynaptic traces);
    // user_error (on every rank) when they do not match the network.
    engine_state export_state() const;
    void import_state(const engine_state& rows);
    // import_state in pieces, so that a restore never holds more than one piece of the
    // checkpoint besides the network (issue 56): import_begin(step); any number of
    // import_cells and import_weights pieces, each row whole (a cell's values, a target's
    // plastic weights), rows of one cell or target in one piece only; then import_finish
    // with the other tables (recorded, state/, plastic/pre, plastic/post, inflight and the
    // counters, as import_state takes them). A mismatch found in a piece is kept;
    // import_finish reports the first one on every rank (collective), or `error` when this
    // rank could not read its rows. import_state(rows) is these calls, one piece each.
    void import_begin(step_type step);
    void import_cells(const std::string& model, std::span<const std::int64_t> gids, std::span<const double> values);
    // Per target: gid, input count, key digest; its weights (and with quantal synapse
    // types its available sites, else empty) one target after the other.
    void import_weights(std::span<const std::int64_t> targets, std::span<const std::int64_t> counts,
                        std::span<const std::int64_t> digests, std::span<const double> values,
                        std::span<const std::int64_t> sites);
    void import_finish(const engine_state& rest, const std::string& error = {});

    // Changes between runs (network_changes.cpp; NEST's SetStatus between Simulate calls,
    // PyNN's set() after run()). Cells [first, first + count) of one population: `name`
    // takes values[i] for cell first + i (a list parameter: the lists of `values` cut at
    // `offsets`). A recordable state variable of a built network is set now; a parameter
    // goes into the spec, and the thread groups holding those cells are built again from
    // it with their state carried over (V_m kept, as NEST keeps it when E_L changes);
    // a device's inputs use it from emission step from_step on. Collective (every rank
    // calls it with the same values; a user_error stops all of them), between run_until
    // calls.
    // A recordable state variable of each of `gids` now (NaN for cells of other ranks).
    std::vector<double> read_state(const std::string& variable, const std::vector<gid_type>& gids) const;
    void change_values(gid_type first, std::uint32_t count, const std::string& name, const std::vector<double>& values,
                       step_type from_step);
    // Several list parameters at once (amplitude_times and amplitude_values must agree).
    void change_lists(gid_type first, std::uint32_t count, const std::vector<std::string>& names,
                      const std::vector<std::vector<double>>& values,
                      const std::vector<std::vector<std::uint64_t>>& offsets, step_type from_step);
    bool owns(gid_type gid) const { return cells_->rank_of(gid) == comm_.rank(); }
    // The longest delay of any connection of any rank, in steps (after init).
    step_type max_delay_global() const { return max_delay_global_; }

    step_type step() const { return step_; }
    std::uint32_t steps_per_interval() const { return steps_per_interval_; }
    std::uint32_t cells_total() const { return spec_.cells(); }
    std::uint32_t local_cells() const { return static_cast<std::uint32_t>(local_gids_.size()); }
    // Synapses ending on this rank's cells plus the inputs of devices to them.
    std::size_t local_connections() const { return table_.size() + device_inputs_.size(); }
    std::size_t local_synapses() const { return table_.size(); }

    const std::vector<spike>& recorded_spikes() const { return recorded_; }
    // Hands over the spikes recorded since the last call (streamed outputs keep memory
    // bounded by one chunk); recorded_spikes() is empty afterwards.
    std::vector<spike> take_recorded_spikes() { return std::exchange(recorded_, {}); }
    // Samples of state recording k (network_spec::state_recordings) on this rank: the
    // recorded local cells' gids, and per sample its step and one value per cell.
    struct state_samples {
        std::vector<gid_type> gids;
        std::vector<step_type> steps;
        std::vector<double> values; // steps.size() rows of gids.size() values
    };
    const state_samples& recorded_state(std::size_t k) const { return state_samples_.at(k); }
    // Per-interval rows (record.timeline), sampled after every exchange synchronisation.
    timeline_recorder& timeline() { return timeline_; }

    struct connection_arrays {
        std::vector<std::int64_t> source, target;
        std::vector<double> weight, delay_ms;
        std::vector<std::int64_t> synapse;  // index into spec().synapses
        std::vector<std::int64_t> receptor; // receptor port (0: none)
    };
    connection_arrays connections() const;
    std::vector<std::int64_t> out_degrees() const;

    // For tests that walk both tiers of the connection store:
    // presynaptic entries of this rank's cells (source gid, target rank, location) and the
    // source of every location of this rank's table (source run or connection -> source gid).
    struct target_entry_arrays {
        std::vector<std::int64_t> source, rank, location;
    };
    target_entry_arrays target_entries() const;
    std::vector<std::int64_t> location_sources() const;

    std::map<std::string, double> counters() const;   // additive: summed over ranks
    std::map<std::string, double> properties() const; // the same on every rank
    std::map<std::string, double> timers() const;
    std::map<std::string, double> memory_bytes() const;

private:
    void build_local();
    // network_changes.cpp: the groups of the thread parts holding cells of population
    // `pop`, built again from the spec, state carried over; then its devices' inputs.
    void rebuild_population(const population_spec& pop, step_type from_step);
    // Collective: every rank throws user_error with the first failing rank's message, or
    // none does (`error` empty on the ranks that did not fail).
    void agree_on_error(const std::string& error);
    void build_connections();
    // The loop (run_until): stretches of whole sub-intervals, each run by the team or by
    // one thread alone (pace_); see run_stretch.
    void run_stretch(step_type stop);
    void run_stretch_alone();
    void run_stretch_together(bool freely);
    bool steps_run_freely() const;       // thread 0's work between steps can wait for the sub-interval's end
    bool end_subinterval(step_type end); // step_ = end; the exchange at a boundary (true)
    void end_stretch(bool synchronized); // the compute time since the last exchange
    static constexpr step_type stretch_steps = 64;
    void prepare_step(step_type n); // one thread
    void thread_step(thread_part& part, unsigned t, step_type n);
    void finish_step(step_type n);                    // one thread
    void prepare_steps(step_type from, step_type to); // one thread
    void finish_steps(step_type from, step_type to);  // one thread (steps_run_freely)
    void synchronize_exchange(step_type due);

    void emit(local_index cell, step_type step);
    void restore_in_flight(); // init(): spikes of a checkpoint back into the delivery ring
    void import_plastic_state(const engine_state& rows);
    local_index import_local(std::int64_t gid, const char* what) const; // user_error if not here
    void sample_state(step_type n);
    void deliver_source(std::uint32_t run, step_type step) override; // spike_sink
    void deliver_connection(std::uint32_t connection, step_type step) override;
    void deliver_batch(const entry* entries, std::size_t n, step_type interval_start, bool connections) override;
    void push_delivery(std::uint32_t index, step_type arrival, step_type emitted);
    void deliver_group(thread_part& part, unsigned t, std::uint32_t g, step_type n);
    void deliver_merged(thread_part& part, unsigned t, std::size_t first, std::size_t last, step_type n);
    void deliver_creation_order(thread_part& part, step_type n);

    context& comm_;
    network_spec spec_;
    engine_options options_;
    bool built_ = false, initialized_ = false;

    std::unique_ptr<distribution> cells_;
    std::vector<gid_type> local_gids_;
    std::vector<char> recorded_cell_;
    device_inputs device_inputs_;
    // Per state recording: (thread part, local cell) of each recorded cell, and the samples.
    std::vector<std::vector<std::pair<unsigned, local_index>>> state_cells_;
    std::vector<state_samples> state_samples_;
    std::vector<thread_part> parts_;    // one per thread
    std::unique_ptr<worker_team> team_; // threads > 1: started at init, kept
    thread_pace pace_;                  // threads > 1: the team or one thread, stretch by stretch (run_stretch)
    connection_table table_;
    plasticity plastic_;
    std::unique_ptr<spike_exchange> exchange_;

    std::uint32_t steps_per_interval_ = 1;
    // Delivery ring: per step, delay groups (sorted layout; their numbers order them by
    // source) or connections (creation order) due then.
    std::vector<std::vector<std::uint32_t>> ring_;
    // Per ring bucket, once prepared: its cuts into batches [b[i], b[i+1]) of one source.
    std::vector<std::vector<std::uint32_t>> batches_;
    // prepare_step's scratch in creation order: (source gid, connection) per entry.
    std::vector<std::pair<gid_type, std::uint32_t>> creation_order_keys_;
    step_type step_ = 0;
    step_type exchanged_until_ = 0; // spikes of steps < this have been exchanged
    interval_schedule schedule_;    // sub-interval boundaries and what is due at each

    std::vector<spike> recorded_;
    // Spikes this rank emitted in the last max_delay_global_ steps (recent_first_ on):
    // a checkpoint's spikes in flight.
    std::vector<spike> recent_;
    std::size_t recent_first_ = 0;
    step_type max_delay_global_ = 0;
    // From import_begin until import_finish: what the pieces restored so far.
    struct import_progress {
        step_type step = -1;
        std::string error;           // the first mismatch found in a piece
        std::vector<char> cell_done; // per local cell
        std::size_t cells_seen = 0;
        // Plastic weights: per local cell + 1 the prefix sum of its plastic inputs (made by
        // the first piece), whether its weights came, and its row in the current piece (-1).
        std::vector<std::uint32_t> plastic_begin;
        std::vector<char> weights_done;
        std::vector<std::int32_t> slot;
        std::size_t targets_seen = 0;
    };
    std::unique_ptr<import_progress> import_;
    // From import_state until init(): where the run goes on, and the spikes in flight.
    step_type resume_step_ = -1;
    std::vector<spike> resume_in_flight_;
    std::uint64_t restored_events_delivered_ = 0, restored_spikes_emitted_ = 0; // earlier segments (rank 0)
    std::uint64_t events_delivered_ = 0;
    std::uint64_t events_due_ = 0;      // connections of the steps prepared so far (the pace's work)
    std::uint64_t delivery_groups_ = 0; // ring entries made by arriving spikes (counter::delivery_groups)
    std::uint64_t spikes_emitted_ = 0;
    std::uint64_t spikes_in_heartbeat_ = 0; // part of spikes_emitted_ added to heartbeat::spikes
    double build_s_ = 0, init_s_ = 0, compute_s_ = 0;
    double team_s_ = 0, alone_s_ = 0;                     // threads > 1: compute time with the team and without it
    std::chrono::steady_clock::time_point compute_since_; // compute_s_ counted until then
    std::vector<step_type> stretch_ends_;                 // the current stretch's sub-interval ends
    timeline_recorder timeline_;
};

} // namespace spikex
