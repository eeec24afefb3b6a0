#pragma once
// route: termination detection with forwarding (Garg & Sabharwal, section 4.3: "a
// termination detection mechanism is required so that the nodes can determine when they
// are not required to perform any more software routing").
//
// Algorithm (counting waves): every rank counts items it injected (I_r) and items that
//   reached it as their destination (D_r), both cumulative and never decreasing. A rank
//   that has injected its last item of the epoch joins waves: non-blocking sums (MPI_Iallreduce) of
//   (I_r, D_r) over all ranks, one after another, while it keeps receiving and forwarding.
//   Every rank sees the same sums, so all stop at the same wave: the first with
//   sum I = sum D. A rank joins a wave only when it is idle, to waste few of them.
// Why it is correct. Let wave w take rank r's counts at time t_r. Each t_r comes after
//   r's last injection of the epoch, and no rank injects again before the wave has
//   completed everywhere (it is still inside finish()), so sum_r I_r(t_r) = I, all items
//   ever injected. Items are delivered once and D_r only grows, so sum_r D_r(t_r) <=
//   sum_r D_r(now) <= I, with equality only if every item had reached its destination by
//   the time that destination contributed: then no item is in a bucket, a message, an MPI
//   buffer or a receive buffer anywhere, hence nothing is left to forward either. The
//   snapshot need not be consistent: the monotone counter makes a late count harmless.
//   Conversely, once every item has arrived the next complete wave sees equality, and a
//   wave completes because every rank keeps progressing and eventually becomes idle.
// Why per-pair message order is not enough: "rank s sends an end marker to its partners"
//   works without forwarding (the baseline GUPS relies on it), but an item s handed to a
//   router can still be on a later hop, on another pair, when s's marker arrives: a rank
//   must also know that all traffic it may have to forward is done. End-to-end counts do.
// Messages and bytes per wave: one MPI_Iallreduce of 16 bytes; waves per epoch: usually
//   1-3 (each costs one allreduce latency; a wave is started only by idle ranks).
// Memory: 16 bytes + one request. Ordering guarantee: all ranks return from the same wave.
#include <cstdint>

#include "spikex/comm/context.hpp"

namespace spikex {

class termination_detector {
public:
    // Call repeatedly after this rank's last injection. `idle`: start a wave now if none
    // is running. Returns true once a completed wave found every injected item delivered;
    // after that the next call starts a new epoch.
    bool poll(context& comm, bool idle, std::uint64_t injected, std::uint64_t delivered);

    std::uint64_t waves() const { return waves_; }

private:
    std::int64_t sums_[2] = {0, 0};
    request request_;
    bool running_ = false;
    std::uint64_t waves_ = 0;
};

} // namespace spikex
