#pragma once
// dryrun: memory per structure and rank for a virtual rank count, from the sizes of the
// real structures (the NEST memory-usage model of Jordan et al. 2018, section 2.5, but with
// our own tables instead of per-object constants). Names are those of the engine's
// memory_bytes() (summary.json "memory_bytes"):
//   connections       connection table: 4 + 8 bytes per connection (target, weight),
//                     source-run offsets and delay groups (push_back growth); creation
//                     order: + 4 bytes of delay per connection, every array grown by
//                     push_back;
//   sources           source table: one gid per source run (per connection unsorted);
//   lookup_tables     source lookup of source-addressed methods (dense: 4 N; hash; sorted
//                     copy), route table (routed: 2 P + partners);
//   targets           presynaptic tier: target table (8 bytes per entry, alltoall(v)),
//                     target-rank lists (8 bytes per (cell, target rank) + 8 P),
//                     relay plan (two-phase multisend);
//   receive_buffers   Allgather receive block P (4 + S e) + overflow; Alltoall sections;
//                     Alltoallv entries (capacity after the run's growth);
//   exchange_buffers  send blocks / sections / per-destination lists (collectives only);
//   window            rma: 16 rma_slot_spikes bytes per remote source (one window cell each).
// Not modelled (no entry): cells (model state), the delivery ring, and the buffers of
// point-to-point and routed methods whose size depends on message timing.
// Capacities follow libstdc++'s growth rules, as the real accounting counts capacity.
#include <map>
#include <string>
#include <vector>

#include "spikex/dryrun/exchange_counts.hpp"
#include "spikex/dryrun/virtual_partition.hpp"

namespace spikex {

// Per sampled rank, bytes per structure. `counts`: the same method's count_exchange result
// (buffer capacities reached during the run).
std::map<std::string, std::vector<double>> memory_model(const virtual_partition& partition,
                                                        const exchange_counts& counts, const option_values& options);

} // namespace spikex
