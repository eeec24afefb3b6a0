#pragma once
// The exchange interface: how spikes emitted on one rank reach the ranks that hold their
// targets. Each method is one file behind this interface, chosen by name from the
// registry (exchange_registry.cpp); the same name is used in C++, TOML, CLI and Python.
//
// Life cycle, per communication interval of M steps (M * dt = minimum delay):
//   spike_emitted(gid, step)   during the interval, for every local spike
//   poll()                     at least once per step (point-to-point methods progress here)
//   complete_interval(start, sink)
//                              at the interval end (collective): every spike of the interval
//                              [start, start + M) that has targets on this rank is handed
//                              to the sink; nothing of the interval may arrive later.
// A run may also end mid-interval: complete_interval is then called with the same `start`
// twice (once at the end of the run, once at the end of the interval); every spike is
// passed exactly once.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "spikex/comm/context.hpp"
#include "spikex/connections/connection_table.hpp"
#include "spikex/core/types.hpp"
#include "spikex/network/distribution.hpp"

namespace spikex {

struct exchange_options {
    int allgather_slots = 10;
    std::string compress = "auto";       // "auto" | "true" | "false"
    std::string source_lookup = "dense"; // "dense" | "hash" | "sorted"
    bool measure_wait = true;            // barrier before the collective: wait vs exchange time
};

// Receives source-addressed spikes: `slot` is the source's index in the connection
// table's source list, `step` the step the spike was emitted at.
class spike_sink {
public:
    virtual ~spike_sink() = default;
    virtual void deliver_source(std::uint32_t slot, step_type step) = 0;
};

struct exchange_setup {
    context& comm;
    const distribution& cells;
    const connection_table& table;
    std::uint32_t steps_per_interval;
    exchange_options options;
};

class spike_exchange {
public:
    virtual ~spike_exchange() = default;
    virtual std::string name() const = 0;
    virtual void setup(const exchange_setup& setup) = 0;
    virtual void spike_emitted(gid_type gid, step_type step) = 0;
    virtual void poll() {}
    virtual void complete_interval(step_type interval_start, spike_sink& sink) = 0;

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

    // Bytes held by the method's buffers and lookup structures (capacity).
    virtual std::map<std::string, double> memory_bytes() const = 0;

protected:
    double wait_s_ = 0.0;
    double exchange_s_ = 0.0;
};

// Unknown name -> user_error listing the known ones.
std::unique_ptr<spike_exchange> make_exchange(const std::string& method);
std::vector<std::string> exchange_methods();

} // namespace spikex
