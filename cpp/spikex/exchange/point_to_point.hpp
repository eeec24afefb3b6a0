#pragma once
// Machinery shared by the point-to-point exchanges of Hines, Kumar & Schürmann 2011
// (sections Multisend, MPI point-to-point, Multisend method variations): `multisend`,
// `persistent` (Record-Replay) and `rma` (the DMA-like one-sided variant).
//
//  point_to_point_base  set-up every member shares: target ranks of each local cell
//                       (connections/target_ranks.hpp), the cell's own source run when it
//                       also has targets here (delivered directly, no message), the remote
//                       target ranks, the source lookup for arrivals, sub-interval
//                       numbering, and the test hook that makes one rank slow.
//  message_exchange     multisend and persistent: one-spike messages (wire_message) sent at
//                       emission, polled with MPI_Iprobe/MPI_Recv every step, buffered per
//                       sub-interval, two-phase relays, and the spike-conservation loop
//                       (MPI_Allreduce of (sent, received) per sub-interval until equal).
//
// Sub-intervals. With exchange.subintervals = k, interval [jM, (j+1)M) is cut into k
// sub-intervals (A = the first floor(M/2) steps when k = 2), numbered globally:
// sub(n) = k * floor(n / M) + (k == 2 && n mod M >= M/2). The engine calls
// synchronize(step, due) at each boundary; every spike emitted before `due` must have
// arrived: the sub-intervals <= sub(due - 1). Messages carry the step, so a receiver counts
// each arrival under the sender's sub-interval; sends and receives are tallied per
// sub-interval and the conservation loop compares the sums up to sub(due - 1) over all
// ranks. The loop ends when they are equal, which (all ranks contribute counts taken while
// nobody sends for those sub-intervals, and every received phase-one message has already
// been forwarded) means nothing of those sub-intervals is in flight any more.
//
// Test hook: SPIKEX_TEST_SLOW_RANK=R (and SPIKEX_TEST_SLOW_MS, default 2) makes rank R
// sleep at the first step of every sub-interval, so that its sends are late and messages
// to it pile up; spikes must not change.
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "spikex/connections/relay_plan.hpp"
#include "spikex/connections/source_lookup.hpp"
#include "spikex/connections/target_ranks.hpp"
#include "spikex/engine/interval_schedule.hpp"
#include "spikex/exchange/method_registry.hpp"
#include "spikex/exchange/spike_codec.hpp"

namespace spikex {

// One spike as a rank handles it (not on the wire).
struct spike_message {
    std::uint32_t gid;
    std::uint8_t phase;       // 1: from the source's rank, 2: from a relay
    std::uint8_t subinterval; // 0 = A, 1 = B (always 0 with one sub-interval)
    std::uint16_t reserved;
    std::int64_t step; // emission step
};

// One spike on the wire (the paper packed (gid, sub-interval, spike time) into the 16-byte
// DCMF_Multicast header; the first version here sent spike_message, 16 bytes): a one-spike
// message of the spike wire codec (exchange/spike_codec.hpp, encode_single) whose 4-bit tag
// is [bit 0: relayed (phase 2); bits 1-3: the interval number mod 8], then the offset (the
// step within the interval), then the item: the source's local index on the sending rank
// (phase 1; the receiver knows the sender; items = the sender's cells), or its gid when
// relayed (items = all cells).
//
// The item travels in the MPI tag when every item fits it (items_fit_tag: MPI tag =
// spike_item_tag_base + item), and the bytes then hold the 4 tag bits and the offset
// alone: ceil((4 + bits(M - 1)) / 8) bytes, 1 up to M = 16 steps per interval and 2 up to
// 4,096, at any cells per rank. Every MPI message carries a tag in its envelope whatever
// its value (OpenMPI's match header has a 32-bit field), so the item then costs no byte of
// its own, as rma's window cell names the source. Otherwise (an MPI library whose
// MPI_TAG_UB is below base + cells) the item is in the bytes and the tag is
// spike_message_tag: ceil((4 + bits(M - 1) + bits(items - 1)) / 8) bytes
// (docs/methods/wire_format.md). The conservation loop at every boundary is collective, so
// ranks are at most one interval apart and the receiver rebuilds the interval from its own
// (3 bits leave room). The sub-interval follows from the step.
struct wire_message {
    static constexpr unsigned header_bits = 4;
    std::array<unsigned char, spike_codec::max_single_bytes> bytes{};
    std::uint8_t size = 0;
    int tag = 0; // the MPI tag
};

inline constexpr int spike_message_tag = 4241;              // the item is in the bytes
inline constexpr int spike_item_tag_base = 1 << 16;         // the item is in the tag; above spikex's fixed tags
inline constexpr std::int64_t openmpi_max_tag = 2147483647; // OpenMPI's MPI_TAG_UB (ob1, ucx)

// Whether every item below `items` fits the MPI tag (spike_item_tag_base + items - 1 <= max_tag).
inline bool items_fit_tag(std::uint64_t items, std::int64_t max_tag) {
    return max_tag >= spike_item_tag_base && items <= std::uint64_t(max_tag - spike_item_tag_base) + 1;
}

// Bytes of a one-spike message whose item space is `items`.
inline std::size_t wire_message_bytes(const spike_codec& codec, std::uint64_t items, bool item_in_tag) {
    return codec.single_bytes(item_in_tag ? 1 : items, wire_message::header_bits);
}

// Bytes of an rma window entry (rma.cpp): the step within the interval as one spike alone
// with a 1-bit "written" tag and one item (the window cell names the source).
inline std::size_t rma_entry_bytes(const spike_codec& codec) { return codec.single_bytes(1, 1); }

// The family's options; each method declares (and reads) the ones it has.
struct point_to_point_options {
    int subintervals = 1;         // exchange.subintervals: 1 | 2
    int phases = 1;               // exchange.phases (multisend): 1 | 2
    int max_pending_sends = 1024; // exchange.max_pending_sends (multisend, persistent)
    int rma_slot_spikes = 2;      // exchange.rma_slot_spikes (rma): entries per window cell
    std::string source_lookup = "dense";
};
option_spec subintervals_option();
option_spec phases_option();
option_spec max_pending_sends_option();
// The family's capabilities and the options all its members read.
method_capabilities point_to_point_capabilities();
point_to_point_options read_point_to_point_options(const option_reader& options);

class point_to_point_base: public spike_exchange {
public:
    explicit point_to_point_base(point_to_point_options options): options_(std::move(options)) {}
    int subintervals() const override { return schedule_.subintervals(); }
    bool works_between_boundaries() const override { return true; } // sends as spikes happen
    void resume_at(step_type s) override {
        spike_exchange::resume_at(s);
        current_sub_ = sub_of(s); // else relays would wait for the boundary (slower, same spikes)
    }

protected:
    // Collective.
    void setup_common(const exchange_setup& s);

    // The wire form of a spike message and back (`source`: the rank it came from).
    wire_message encode_message(const spike_message& msg) const;
    spike_message decode_message(const unsigned char* bytes, std::size_t size, int source, int tag) const;

    // Sub-interval numbering: the interval rule (engine/interval_schedule.hpp).
    std::int64_t sub_of(step_type n) const { return schedule_.sub_of(n); }
    std::int64_t due_sub(step_type due) const { return schedule_.due_sub(due); }

    std::span<const int> remote(local_index i) const {
        return {remote_ranks_.data() + remote_offsets_[i], remote_ranks_.data() + remote_offsets_[i + 1]};
    }
    std::uint32_t remote_begin(local_index i) const { return remote_offsets_[i]; }

    // Own targets: delivered at the next poll or synchronize, without a message.
    void queue_local(local_index i, step_type step) {
        if (local_run_[i] != no_run) {
            local_pending_.push_back({local_run_[i], step});
            ++spikes_local_;
        }
    }
    void deliver_local(spike_sink& sink);

    void maybe_sleep(); // the slow-rank test hook

    std::map<std::string, double> common_counters() const;
    std::map<std::string, double> common_properties() const;
    std::map<std::string, double> common_memory() const;

    struct run_step {
        std::uint32_t run;
        step_type step;
    };

    point_to_point_options options_;
    const distribution* cells_ = nullptr;
    int my_rank_ = 0, ranks_ = 1;
    interval_schedule schedule_;
    spike_codec codec_;
    step_type steps_per_interval_ = 1;
    bool item_in_tag_ = false; // the item travels in the MPI tag (wire_message); the same on every rank
    int phases_ = 1;
    std::int64_t current_sub_ = 0; // sub-interval being computed (set at each synchronize)

    std::unique_ptr<source_lookup> lookup_;
    target_ranks targets_;
    std::vector<std::uint32_t> local_run_; // per local cell: its source run here, or no_run
    std::vector<std::uint32_t> remote_offsets_;
    std::vector<int> remote_ranks_;
    std::vector<run_step> local_pending_;
    std::int64_t max_fanout_ = 0; // max over ranks of a cell's target ranks

    int slow_rank_ = -1;
    double slow_seconds_ = 0.0;
    bool slow_pending_ = false;

    std::uint64_t spikes_local_ = 0;   // spikes delivered on the own rank without a message
    std::uint64_t spikes_matched_ = 0; // arrivals handed to the sink
};

// multisend and persistent.
class message_exchange: public point_to_point_base {
public:
    using point_to_point_base::point_to_point_base;
    ~message_exchange() override;

    void setup(const exchange_setup& s) override;
    void spike_emitted(gid_type gid, step_type step) override;
    void poll(spike_sink& sink) override;
    void verify_conservation() override;
    std::map<std::string, double> counters() const override;
    std::map<std::string, double> properties() const override;
    std::map<std::string, double> memory_bytes() const override;

    // For tests: the relay plan (empty unless phases = 2).
    const relay_plan& relays() const { return plan_; }

protected:
    // The conservation loop (below), when anything is due; otherwise only delivery.
    bool collective_due(step_type due) const override { return due_sub(due) >= 0; }
    void exchange_interval(step_type step, step_type due, spike_sink& sink) override;

    // Phase-one send of local cell i's spike to `ranks` (its remote target ranks, or its
    // relays). Default: one pooled MPI_Isend per rank.
    virtual void send_phase_one(local_index i, const spike_message& msg, std::span<const int> ranks);
    virtual void setup_sends() {}
    virtual void reclaim_sends() { reclaim_pool(); }
    virtual void extra_counters(std::map<std::string, double>&) const {}
    virtual std::size_t extra_memory() const { return 0; }
    virtual bool sends_pending() const { return !active_.empty(); }

    // Bounded pool of in-flight MPI_Isend requests (exchange.max_pending_sends): a send
    // first reclaims completed requests and, if the pool is still full, polls incoming
    // messages (so that two ranks waiting on each other still progress) until one completes.
    void isend_pooled(int dest, const wire_message& msg);
    void reclaim_pool();

    // Receives whatever has arrived (MPI_Iprobe + MPI_Recv), counts it, and queues it.
    void receive_pending();
    // Looks up, buffers per sub-interval, and forwards (relays) the queued messages.
    void process_inbox();
    void forward(std::uint32_t run, const spike_message& msg);
    void flush_deferred(std::int64_t limit);
    bool forward_now(std::int64_t sub) const { return schedule_.subintervals() == 1 || sub < current_sub_; }
    void deliver_arrivals(spike_sink& sink);

    void count_sent(std::int64_t sub, std::uint64_t n);
    void count_received(std::int64_t sub, std::uint64_t n);

    struct tally {
        std::int64_t sent = 0, received = 0;
    };
    std::map<std::int64_t, tally> open_; // per sub-interval not yet settled
    tally settled_;                      // sums over settled sub-intervals
    std::uint64_t messages_ = 0, bytes_ = 0, rounds_ = 0, iterations_ = 0;
    std::uint64_t received_ = 0, phase_two_sent_ = 0, relayed_ = 0, sends_blocked_ = 0;

    relay_plan plan_;
    std::vector<spike_message> inbox_, work_;
    std::vector<run_step> arrivals_[2]; // per sub-interval parity (A, B)
    struct deferred_forward {
        std::uint32_t run;
        spike_message msg;
    };
    std::vector<deferred_forward> deferred_;

    struct pooled_send {
        wire_message msg;
        request req;
    };
    std::vector<pooled_send> pool_;
    std::vector<std::uint32_t> free_, active_;
};

} // namespace spikex
