#pragma once
// Per-interval instrumentation: one row per exchange synchronisation (interval or
// sub-interval end) of this rank, as the paper's Figures 5-8 plot them (computation time
// and total time per interval, rank 0 / mean / max over ranks) and as its Results section
// counts spikes generated, sent and received per interval.
//
// The engine calls sample() right after every exchange synchronize(); each row holds what
// happened since the previous row (or since run_until began, for the first row of a call):
//   compute_s   time stepping cells (includes polling, handling of arrivals during the
//               interval and send initiation: the paper charges them to computation)
//   send_s      part of the time spent initiating sends (Isend / Start / Put), wherever
//               (computation or conservation loop)
//   wait_s      synchronisation wait before the exchange (MPI_Barrier, measure_wait)
//   exchange_s  the exchange itself (collective, or conservation loop / flush + read)
//   wall_s      wall-clock time of the row: compute + wait + exchange + a little loop overhead
//   rounds      collective calls (allgather) / conservation iterations (MPI_Allreduce)
//   spikes_generated, spikes_sent, spikes_received
// Sums over rows equal this rank's run totals (timers compute/send/wait/exchange, the
// counters rounds/spikes_emitted/spikes_sent/spikes_received). Off by default
// (record.timeline): recording costs a counters() call per row.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "spikex/core/types.hpp"
#include "spikex/exchange/spike_exchange.hpp"

namespace spikex {

class timeline_recorder {
public:
    void enable(bool on) { enabled_ = on; }
    bool enabled() const { return enabled_; }

    // A run_until call begins: time before it belongs to no row.
    void start_run();

    // After exchange.synchronize(step, due): one row of differences since the last row.
    void sample(step_type step, step_type due, double compute_s, std::uint64_t spikes_generated,
                const spike_exchange& exchange);

    std::size_t rows() const { return steps_.size(); }
    std::map<std::string, std::vector<std::int64_t>> integer_columns() const;
    std::map<std::string, std::vector<double>> float_columns() const;
    std::size_t bytes() const;

private:
    struct totals {
        double compute_s = 0, send_s = 0, wait_s = 0, exchange_s = 0;
        double rounds = 0, generated = 0, sent = 0, received = 0;
    };

    bool enabled_ = false;
    double mark_ = -1.0; // wall clock at the end of the last row or the start of the run
    totals last_;
    std::vector<std::int64_t> steps_, dues_, rounds_, generated_, sent_, received_;
    std::vector<double> compute_, send_, wait_, exchange_, wall_;
};

} // namespace spikex
