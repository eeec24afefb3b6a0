#pragma once
// The exchange interface: how spikes emitted on one rank reach the ranks that hold their
// targets. Each method is one file behind this interface, chosen by name from the
// registry (method_registry.hpp, exchange_registry.cpp), which also holds each method's own
// options; the same name is used in C++, TOML, CLI and Python.
//
// Life cycle. M = steps per interval (min delay / dt); an interval has k = subintervals()
// sub-intervals (1, or 2 as the multisend methods allow), the first of floor(M/k) steps.
//   spike_emitted(gid, step)   for every local spike, as it happens
//   poll(sink)                 at least once per step: point-to-point methods progress and
//                              may hand arrived spikes to the sink at once
//   synchronize(step, due, sink)
//                              collective, at every sub-interval boundary `step`: every
//                              spike emitted at a step < `due` that has targets on this
//                              rank must have reached the sink when it returns. With k = 1,
//                              due = step; with k = 2, due = the start of the sub-interval
//                              that just ended (its spikes may still be in flight); the
//                              rule is engine/interval_schedule.hpp.
// synchronize() is the same for every method (not virtual): it checks the call (0 <= due
// <= step, steps never go back), and when the method has something collective to do
// (collective_due(due); default: always) it runs before_barrier(sink) and the barrier
// (exchange.measure_wait: its time is wait_seconds(), the rest exchange_seconds();
// without measure_wait only methods that need the barrier, needs_barrier(), make it and
// count it as exchange time), then the method's exchange_interval(step, due, sink), timed
// as exchange. With nothing collective due, exchange_interval runs untimed.
// At the end of a run the engine calls synchronize(step, step, sink): everything emitted
// is delivered, so that every recorded spike has been exchanged when a run returns (a
// run may end mid-interval). A spike is passed to the sink exactly once.
// Any spike emitted at step n arrives at n + delay >= n + M, so delivering it by the end
// of the next sub-interval is always in time.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "spikex/comm/context.hpp"
#include "spikex/connections/connection_table.hpp"
#include "spikex/core/types.hpp"
#include "spikex/network/distribution.hpp"

namespace spikex {

// Receives spikes that have targets on this rank; `step` is the step the spike was
// emitted at. Source-addressed methods name the source run (`run`, the source's index in
// the connection table's source list); target-addressed methods name what their target
// entry points at: a source run (sorted layout) or one connection (creation order).
class spike_sink {
public:
    // One entry of a batch: what it names (a source run or a connection) and its step
    // within the interval that starts at the batch's `interval_start`.
    struct entry {
        std::uint32_t location, offset;
    };

    virtual ~spike_sink() = default;
    virtual void deliver_source(std::uint32_t run, step_type step) = 0;
    virtual void deliver_connection(std::uint32_t connection, step_type step) = 0;
    // A batch of one kind, e.g. a decoded block's entries, delivered in order as one call
    // each would: the sink may look ahead and overlap their memory accesses.
    virtual void deliver_batch(const entry* entries, std::size_t n, step_type interval_start, bool connections) {
        for (std::size_t i = 0; i < n; ++i) {
            const step_type step = interval_start + entries[i].offset;
            if (connections)
                deliver_connection(entries[i].location, step);
            else
                deliver_source(entries[i].location, step);
        }
    }
};

struct exchange_setup {
    context& comm;
    const distribution& cells;
    const connection_table& table;
    std::uint32_t steps_per_interval;
    bool measure_wait = true; // exchange.measure_wait (common_exchange_options)
    std::uint32_t seed = 1;   // simulation.seed, for methods that draw at set-up (relay choice)
};

class spike_exchange {
public:
    virtual ~spike_exchange() = default;
    virtual std::string name() const = 0;
    virtual void setup(const exchange_setup& setup) = 0;
    virtual void spike_emitted(gid_type gid, step_type step) = 0;
    virtual int subintervals() const { return 1; }
    // Whether spike_emitted and poll do work between boundaries (send, progress, deliver
    // locally): then the engine hands spikes over step by step, as they happen. Methods
    // that only collect spikes for synchronize() may get a sub-interval's at its end.
    virtual bool works_between_boundaries() const { return false; }
    // After setup, for a run that goes on from a checkpoint at step s (nothing in flight).
    virtual void resume_at(step_type s) { last_step_ = s; }
    virtual void poll(spike_sink&) {}
    // Collective; see the life cycle above. Barrier, timers and the call check are here,
    // the method's part is exchange_interval().
    void synchronize(step_type step, step_type due, spike_sink& sink);

    // Collective: throws internal_error unless every spike sent was received where the
    // method says it must be ("nothing lost").
    virtual void verify_conservation() = 0;

    // This rank's counters (summed over ranks by the caller): at least messages_sent,
    // bytes_sent, rounds.
    virtual std::map<std::string, double> counters() const = 0;

    // Properties of the set-up, the same on every rank (not summed): e.g. compressed.
    virtual std::map<std::string, double> properties() const { return {}; }

    // Seconds spent waiting for other ranks (load imbalance) and exchanging.
    double wait_seconds() const { return wait_s_; }
    double exchange_seconds() const { return exchange_s_; }
    // Seconds spent initiating sends (point-to-point methods), wherever it happens.
    double send_seconds() const { return send_s_; }

    // The presynaptic target table, if the method has one: (local cell, packed target)
    // pairs (connections/target_table.hpp). For tests that walk both tiers.
    virtual std::vector<std::pair<local_index, std::uint64_t>> target_entries() const { return {}; }

    // Bytes held by the method's structures (capacity), by name: exchange_buffers,
    // receive_buffers, lookup_tables, targets.
    virtual std::map<std::string, double> memory_bytes() const = 0;

protected:
    // The method's part of synchronize(): deliver what is due (see the life cycle above).
    virtual void exchange_interval(step_type step, step_type due, spike_sink& sink) = 0;
    // Whether synchronize(.., due, ..) has collective work (barrier, timers); default: yes.
    virtual bool collective_due(step_type) const { return true; }
    // Work before the barrier, timed as exchange (rma: complete this rank's puts).
    virtual void before_barrier(spike_sink&) {}
    // The method's correctness needs the barrier even without exchange.measure_wait.
    virtual bool needs_barrier() const { return false; }

    // Set by each method's setup(): the communicator and exchange.measure_wait.
    context* comm_ = nullptr;
    bool measure_wait_ = true; // barrier before the exchange: wait vs exchange time

    double wait_s_ = 0.0;
    double exchange_s_ = 0.0;
    double send_s_ = 0.0;

private:
    step_type last_step_ = 0; // of the previous synchronize (the call check)
};

// Methods are made by name from the registry (method_registry.hpp).

} // namespace spikex
