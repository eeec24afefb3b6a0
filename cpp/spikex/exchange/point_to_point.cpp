#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/exchange/point_to_point.hpp"
#include "spikex/instrument/counter_names.hpp"
#include "spikex/instrument/stopwatch.hpp"

namespace spikex {

// --- the family's options ------------------------------------------------------------

option_spec subintervals_option() {
    return {.name = "subintervals",
            .kind = option_kind::integer,
            .default_value = std::int64_t{1},
            .doc = "2 cuts each min-delay interval into sub-intervals A and B with a conservation check at each "
                   "end; a spike sent in A need only arrive by the end of B (Hines et al. 2011).",
            .minimum = 1,
            .maximum = 2,
            .variant = true};
}

option_spec phases_option() {
    return {.name = "phases",
            .kind = option_kind::integer,
            .default_value = std::int64_t{1},
            .doc = "2 sends each spike to ~sqrt(Nt) relay ranks, which forward it to the rest of the cell's Nt "
                   "target ranks (two-phase multisend).",
            .minimum = 1,
            .maximum = 2,
            .variant = true};
}

option_spec max_pending_sends_option() {
    return {.name = "max_pending_sends",
            .kind = option_kind::integer,
            .default_value = std::int64_t{1024},
            .doc = "Most send requests in flight per rank; a full pool completes old sends before new ones start.",
            .minimum = 1,
            .maximum = 2147483647};
}

method_capabilities point_to_point_capabilities() { return {.point_to_point = true}; }

point_to_point_options read_point_to_point_options(const option_reader& o) {
    point_to_point_options p;
    p.subintervals = static_cast<int>(o.integer("subintervals"));
    p.source_lookup = o.text("source_lookup");
    return p;
}

// --- point_to_point_base -------------------------------------------------------------

void point_to_point_base::setup_common(const exchange_setup& s) {
    comm_ = &s.comm;
    cells_ = &s.cells;
    my_rank_ = s.comm.rank();
    ranks_ = s.comm.size();
    schedule_ = interval_schedule(s.steps_per_interval, options_.subintervals); // checks the rule
    codec_ = spike_codec(s.steps_per_interval);
    steps_per_interval_ = s.steps_per_interval;
    phases_ = options_.phases;
    measure_wait_ = s.measure_wait;
    // Every lookup owns what it needs ("sorted" its one copy of the source list), so the
    // table may release its sources after set-up (connections.keep_sources = false).
    lookup_ = make_source_lookup(options_.source_lookup, s.table.sources(), s.cells.cells());

    targets_ = target_ranks::build(s.comm, s.cells, s.table.sources());
    const auto local = static_cast<std::uint32_t>(targets_.cells());
    local_run_.assign(local, no_run);
    remote_offsets_.assign(local + 1, 0);
    remote_ranks_.clear();
    remote_ranks_.reserve(targets_.entries());
    for (local_index i = 0; i < local; ++i) {
        for (int r: targets_.of(i)) {
            if (r == my_rank_) {
                local_run_[i] = lookup_->find(s.cells.gid_of(my_rank_, i));
                if (local_run_[i] == no_run) {
                    throw internal_error(spikex::format("target ranks: gid {} has targets here but no source run",
                                                        s.cells.gid_of(my_rank_, i)));
                }
            } else {
                remote_ranks_.push_back(r);
            }
        }
        remote_offsets_[i + 1] = static_cast<std::uint32_t>(remote_ranks_.size());
    }
    max_fanout_ = s.comm.allreduce_max(static_cast<std::int64_t>(targets_.max_fanout()));
    // Relayed items are gids: all cells must fit. SPIKEX_TEST_MAX_TAG lowers the bound
    // (tests of the item-in-bytes form, which an MPI library with a small MPI_TAG_UB gets).
    std::int64_t max_tag = s.comm.max_tag();
    if (const char* test_max = std::getenv("SPIKEX_TEST_MAX_TAG"))
        max_tag = std::min<std::int64_t>(max_tag, std::atoll(test_max));
    item_in_tag_ = items_fit_tag(s.cells.cells(), max_tag);

    if (const char* rank = std::getenv("SPIKEX_TEST_SLOW_RANK")) {
        slow_rank_ = std::atoi(rank);
        const char* ms = std::getenv("SPIKEX_TEST_SLOW_MS");
        slow_seconds_ = (ms ? std::atof(ms) : 2.0) / 1000.0;
        slow_pending_ = true;
    }
}

wire_message point_to_point_base::encode_message(const spike_message& msg) const {
    wire_message out;
    const step_type interval = msg.step / steps_per_interval_;
    const bool relayed = msg.phase == 2;
    const std::uint32_t item = relayed ? msg.gid : cells_->local_of(msg.gid);
    const auto offset = static_cast<std::uint32_t>(msg.step - interval * steps_per_interval_);
    const auto tag = static_cast<std::uint32_t>((relayed ? 1 : 0) | ((interval & 7) << 1));
    if (item_in_tag_) {
        out.tag = spike_item_tag_base + static_cast<int>(item);
        out.size = static_cast<std::uint8_t>(
            codec_.encode_single({0, offset}, 1, wire_message::header_bits, tag, out.bytes.data()));
    } else {
        const std::uint64_t items = relayed ? cells_->cells() : cells_->count(my_rank_);
        out.tag = spike_message_tag;
        out.size = static_cast<std::uint8_t>(
            codec_.encode_single({item, offset}, items, wire_message::header_bits, tag, out.bytes.data()));
    }
    return out;
}

spike_message point_to_point_base::decode_message(const unsigned char* bytes, std::size_t size, int source,
                                                  int mpi_tag) const {
    const std::uint32_t tag = spike_codec::single_tag(bytes, size, wire_message::header_bits);
    const bool relayed = tag & 1;
    const std::uint64_t items = relayed ? cells_->cells() : cells_->count(source);
    wire_spike spike;
    if (item_in_tag_) {
        spike = codec_.decode_single(bytes, size, 1, wire_message::header_bits);
        spike.item = static_cast<std::uint32_t>(mpi_tag - spike_item_tag_base);
        if (mpi_tag < spike_item_tag_base || spike.item >= items) {
            throw internal_error(spikex::format("{}: message from rank {} with tag {}: item {} outside 0 to {}", name(),
                                                source, mpi_tag, mpi_tag - spike_item_tag_base, items - 1));
        }
    } else {
        spike = codec_.decode_single(bytes, size, items, wire_message::header_bits);
    }
    spike_message msg{};
    msg.phase = relayed ? 2 : 1;
    msg.gid = relayed ? spike.item : cells_->gid_of(source, spike.item);
    // The interval nearest to this rank's own with the same number mod 8.
    const std::int64_t mine = current_sub_ / schedule_.subintervals();
    const std::int64_t difference = ((std::int64_t(tag >> 1) - mine) % 8 + 8 + 4) % 8 - 4;
    msg.step = (mine + difference) * steps_per_interval_ + spike.offset;
    msg.subinterval = static_cast<std::uint8_t>(schedule_.subintervals() == 2 ? sub_of(msg.step) & 1 : 0);
    return msg;
}

void point_to_point_base::deliver_local(spike_sink& sink) {
    for (const auto& p: local_pending_) sink.deliver_source(p.run, p.step);
    local_pending_.clear();
}

void point_to_point_base::maybe_sleep() {
    if (!slow_pending_) return;
    slow_pending_ = false;
    if (my_rank_ == slow_rank_ && slow_seconds_ > 0) {
        std::this_thread::sleep_for(std::chrono::duration<double>(slow_seconds_));
    }
}

std::map<std::string, double> point_to_point_base::common_counters() const {
    return {{counter::spikes_local, double(spikes_local_)},
            {counter::spikes_matched, double(spikes_matched_)},
            {counter::target_rank_entries, double(targets_.entries())}};
}

std::map<std::string, double> point_to_point_base::common_properties() const {
    return {{counter::subintervals, double(schedule_.subintervals())},
            {counter::phases, double(phases_)},
            {counter::max_target_ranks, double(max_fanout_)}};
}

std::map<std::string, double> point_to_point_base::common_memory() const {
    return {{"targets",
             double(targets_.bytes() + (remote_offsets_.capacity() + local_run_.capacity()) * sizeof(std::uint32_t) +
                    remote_ranks_.capacity() * sizeof(int))},
            {"lookup_tables", double(lookup_ ? lookup_->bytes() : 0)}};
}

// --- message_exchange: set-up ----------------------------------------------------------

message_exchange::~message_exchange() {
    // Requests still in flight at the end are freed (they complete on their own); after
    // MPI_Finalize (interpreter exit) nothing may be freed any more.
    if (!comm_ || mpi_finalized()) return;
    try {
        for (auto e: active_) comm_->request_free(pool_[e].req);
    } catch (...) {}
}

void message_exchange::setup(const exchange_setup& s) {
    setup_common(s);
    if (phases_ == 2) plan_ = relay_plan::build(s.comm, s.cells, targets_, s.table.sources(), s.seed);
    pool_.assign(static_cast<std::size_t>(options_.max_pending_sends), {});
    free_.clear();
    for (std::size_t e = pool_.size(); e-- > 0;) free_.push_back(static_cast<std::uint32_t>(e));
    active_.clear();
    setup_sends();
}

// --- sending ---------------------------------------------------------------------------

void message_exchange::count_sent(std::int64_t sub, std::uint64_t n) {
    open_[sub].sent += static_cast<std::int64_t>(n);
}

void message_exchange::count_received(std::int64_t sub, std::uint64_t n) {
    open_[sub].received += static_cast<std::int64_t>(n);
}

void message_exchange::spike_emitted(gid_type gid, step_type step) {
    const local_index i = cells_->local_of(gid);
    queue_local(i, step);
    std::span<const int> ranks = phases_ == 2 ? plan_.phase_one(i) : remote(i);
    if (ranks.empty()) return;
    const std::int64_t sub = sub_of(step);
    const spike_message msg{gid, 1, static_cast<std::uint8_t>(schedule_.subintervals() == 2 ? sub & 1 : 0), 0, step};
    scoped_timer t(send_s_);
    send_phase_one(i, msg, ranks);
    count_sent(sub, ranks.size());
}

void message_exchange::send_phase_one(local_index, const spike_message& msg, std::span<const int> ranks) {
    const wire_message wire = encode_message(msg);
    for (int r: ranks) isend_pooled(r, wire);
}

void message_exchange::isend_pooled(int dest, const wire_message& msg) {
    if (free_.empty()) {
        reclaim_pool();
        if (free_.empty()) {
            ++sends_blocked_;
            while (free_.empty()) {
                receive_pending();
                reclaim_pool();
            }
        }
    }
    const auto e = free_.back();
    free_.pop_back();
    pool_[e].msg = msg;
    pool_[e].req = comm_->isend(dest, msg.tag, pool_[e].msg.bytes.data(), msg.size);
    if (pool_[e].req.active)
        active_.push_back(e);
    else
        free_.push_back(e);
    ++messages_;
    bytes_ += msg.size;
}

void message_exchange::reclaim_pool() {
    std::size_t keep = 0;
    for (auto e: active_) {
        if (comm_->test(pool_[e].req))
            free_.push_back(e);
        else
            active_[keep++] = e;
    }
    active_.resize(keep);
}

// --- receiving -------------------------------------------------------------------------

void message_exchange::receive_pending() {
    probe_result found;
    // No other point-to-point message travels on the communicator during a run, so any tag is a spike's.
    while (comm_->iprobe(any_source, item_in_tag_ ? any_tag : spike_message_tag, found)) {
        wire_message wire;
        if (found.bytes == 0 || found.bytes > wire.bytes.size()) {
            throw internal_error(spikex::format("{}: message of {} bytes from rank {}, expected 1 to {}", name(),
                                                found.bytes, found.source, wire.bytes.size()));
        }
        comm_->recv(found.source, found.tag, wire.bytes.data(), found.bytes);
        const spike_message msg = decode_message(wire.bytes.data(), found.bytes, found.source, found.tag);
        count_received(sub_of(msg.step), 1);
        ++received_;
        inbox_.push_back(msg);
    }
}

void message_exchange::process_inbox() {
    while (!inbox_.empty()) {
        work_.swap(inbox_);
        for (const auto& msg: work_) {
            const std::uint32_t run = lookup_->find(msg.gid);
            if (run == no_run) {
                throw internal_error(spikex::format("{}: rank {} received a spike of gid {}, which has no targets here",
                                                    name(), my_rank_, msg.gid));
            }
            const std::int64_t sub = sub_of(msg.step);
            arrivals_[sub & 1].push_back({run, msg.step});
            if (msg.phase == 1 && phases_ == 2 && !plan_.phase_two(run).empty()) {
                ++relayed_;
                if (forward_now(sub))
                    forward(run, msg);
                else
                    deferred_.push_back({run, msg});
            }
        }
        work_.clear();
    }
}

void message_exchange::forward(std::uint32_t run, const spike_message& msg) {
    scoped_timer t(send_s_);
    spike_message out = msg;
    out.phase = 2;
    const wire_message wire = encode_message(out);
    auto ranks = plan_.phase_two(run);
    for (int r: ranks) isend_pooled(r, wire);
    count_sent(sub_of(msg.step), ranks.size());
    phase_two_sent_ += ranks.size();
}

void message_exchange::flush_deferred(std::int64_t limit) {
    std::size_t keep = 0;
    for (std::size_t k = 0; k < deferred_.size(); ++k) {
        if (sub_of(deferred_[k].msg.step) <= limit)
            forward(deferred_[k].run, deferred_[k].msg);
        else
            deferred_[keep++] = deferred_[k];
    }
    deferred_.resize(keep);
}

void message_exchange::deliver_arrivals(spike_sink& sink) {
    deliver_local(sink);
    for (auto& buffer: arrivals_) {
        for (const auto& a: buffer) sink.deliver_source(a.run, a.step);
        spikes_matched_ += buffer.size();
        buffer.clear();
    }
}

void message_exchange::poll(spike_sink& sink) {
    maybe_sleep();
    receive_pending();
    process_inbox();
    // Relays forward in the sub-interval after the one the spike was emitted in (k = 2).
    if (!deferred_.empty()) flush_deferred(current_sub_ - 1);
    reclaim_sends();
    deliver_arrivals(sink);
}

// --- the conservation loop -------------------------------------------------------------

void message_exchange::exchange_interval(step_type step, step_type due, spike_sink& sink) {
    const std::int64_t last = due_sub(due);
    if (last >= 0) {
        // (barrier and timers: spike_exchange::synchronize)
        const std::int64_t limit = std::max(last, current_sub_ - 1);
        for (bool first = true;; first = false) {
            // Everything received is processed (and relayed) before the counts are taken.
            do {
                receive_pending();
                process_inbox();
                if (!deferred_.empty()) flush_deferred(limit);
            } while (!inbox_.empty());
            deliver_arrivals(sink);
            std::int64_t totals[2] = {settled_.sent, settled_.received};
            for (auto it = open_.begin(); it != open_.end() && it->first <= last; ++it) {
                totals[0] += it->second.sent;
                totals[1] += it->second.received;
            }
            comm_->allreduce_sum(totals, 2);
            ++rounds_;
            if (!first) ++iterations_;
            if (totals[0] == totals[1]) break;
            if (totals[1] > totals[0]) {
                throw internal_error(
                    spikex::format("{}: more spike messages received ({}) than sent ({}) up to sub-interval {}", name(),
                                   totals[1], totals[0], last));
            }
        }
        // Settled: nothing of these sub-intervals is in flight any more.
        while (!open_.empty() && open_.begin()->first <= last) {
            settled_.sent += open_.begin()->second.sent;
            settled_.received += open_.begin()->second.received;
            open_.erase(open_.begin());
        }
    } else {
        deliver_arrivals(sink);
    }
    current_sub_ = sub_of(step);
    slow_pending_ = slow_rank_ >= 0;
}

void message_exchange::verify_conservation() {
    reclaim_sends();
    std::int64_t v[3] = {settled_.sent, settled_.received, static_cast<std::int64_t>(deferred_.size() + inbox_.size())};
    for (const auto& [sub, t]: open_) {
        v[0] += t.sent;
        v[1] += t.received;
    }
    comm_->allreduce_sum(v, 3);
    if (v[0] != v[1] || v[2] != 0) {
        throw internal_error(
            spikex::format("{}: {} spike messages sent, {} received, {} not yet processed", name(), v[0], v[1], v[2]));
    }
}

// --- reporting -------------------------------------------------------------------------

std::map<std::string, double> message_exchange::counters() const {
    auto out = common_counters();
    out[counter::messages_sent] = double(messages_);
    out[counter::bytes_sent] = double(bytes_);
    out[counter::rounds] = double(rounds_);
    out[counter::conservation_iterations] = double(iterations_);
    out[counter::spikes_sent] = double(messages_);
    out[counter::spikes_received] = double(received_);
    out[counter::wire_bytes] = double(bytes_); // one wire_message per spike and rank
    out[counter::wire_spikes] = double(messages_);
    out[counter::phase_two_sent] = double(phase_two_sent_);
    out[counter::relayed_spikes] = double(relayed_);
    out[counter::sends_blocked] = double(sends_blocked_);
    out[counter::phase_one_entries] = double(phases_ == 2 ? plan_.phase_one_entries() : remote_ranks_.size());
    out[counter::phase_two_entries] = double(plan_.phase_two_entries());
    extra_counters(out);
    return out;
}

std::map<std::string, double> message_exchange::properties() const {
    auto out = common_properties();
    out[counter::max_pending_sends] = double(pool_.size());
    return out;
}

std::map<std::string, double> message_exchange::memory_bytes() const {
    auto out = common_memory();
    out["targets"] += double(plan_.bytes());
    std::size_t buffers =
        pool_.capacity() * sizeof(pooled_send) + (free_.capacity() + active_.capacity()) * sizeof(std::uint32_t) +
        (inbox_.capacity() + work_.capacity()) * sizeof(spike_message) +
        (arrivals_[0].capacity() + arrivals_[1].capacity() + local_pending_.capacity()) * sizeof(run_step) +
        deferred_.capacity() * sizeof(deferred_forward) + extra_memory();
    out["exchange_buffers"] = double(buffers);
    return out;
}

} // namespace spikex
