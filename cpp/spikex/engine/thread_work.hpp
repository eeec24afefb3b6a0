#pragma once
// How a rank's cells are cut into its threads' contiguous blocks: equal shares of the work
// the cells bring per step, not of their count.
//  * A cell counts 1 (its update and its static inputs, alike for most cells).
//  * An input device's gid counts 0: its inputs are drawn on its targets' threads (by
//    count, a PyNN network with one Poisson source per cell gave one thread all the neurons).
//  * A cell's expected plastic inputs (connections of a synapse type other than static)
//    add 1 per plastic_inputs_per_update: each of their spikes updates a weight from the
//    target's spike history. In the STDP hpc_benchmark (10 Hz, 2026-11-30), one plastic
//    input cost about as much per simulated second as 1/40 of a cell's updates and static
//    inputs. By count, the thread holding the first half of the cells (all excitatory, all
//    with 9,000 plastic inputs) did 62 % of the weight updates and set the pace.
#include <vector>

#include "spikex/core/types.hpp"
#include "spikex/network/network_spec.hpp"

namespace spikex {

inline constexpr double plastic_inputs_per_update = 40.0;

// The work of each local cell (local_gids ascending or not), as above.
std::vector<double> cell_work(const network_spec& spec, const std::vector<gid_type>& local_gids);

// threads + 1 boundaries: thread t owns local cells [cut[t], cut[t + 1]). Each boundary is
// the last cell whose work before it is at most t/threads of the whole; no work at all:
// equal counts.
std::vector<local_index> thread_cuts(const std::vector<double>& work, unsigned threads);

} // namespace spikex
