#include <algorithm>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/exchange/directed_exchange.hpp"
#include "spikex/instrument/counter_names.hpp"
#include "spikex/instrument/stopwatch.hpp"

namespace spikex {

option_spec max_init_buffer_option() {
    return {.name = "max_init_buffer_mb",
            .kind = option_kind::real,
            .default_value = 128.0,
            .doc = "Bound in MB of the MPI buffer of one round of target-table construction during init (NEST's "
                   "default is 128 MB); more data takes more rounds.",
            .minimum = 0.0,
            .exclusive_minimum = true};
}

method_capabilities directed_capabilities() { return {.target_addressed = true, .presynaptic_targets = true}; }

void directed_exchange::setup(const exchange_setup& s) {
    comm_ = &s.comm;
    cells_ = &s.cells;
    ranks_ = s.comm.size();
    measure_wait_ = s.measure_wait;
    sorted_ = s.table.sorted();
    steps_per_interval_ = s.steps_per_interval;
    codec_ = spike_codec(s.steps_per_interval);
    numbering_ = sender_numbering(s.cells, s.table);
    auto limit = static_cast<std::size_t>(max_init_buffer_mb_ * 1048576.0);
    targets_ = target_table::build(s.comm, s.cells, s.table, numbering_, limit, init_stats_);
    items_for_.assign(ranks_, 0);
    for (std::size_t k = 0; k < targets_.size(); ++k) ++items_for_[packed_target::rank(targets_.data()[k])];
    pending_.assign(ranks_, {});
}

void directed_exchange::spike_emitted(gid_type gid, step_type step) {
    // A cell fires: one entry per target run (or connection), into the section of the
    // rank that holds it (NEST: the spike register filled from the target table).
    local_index local = cells_->local_of(gid);
    auto lag = static_cast<std::uint32_t>(step % steps_per_interval_);
    const std::uint64_t* t = targets_.data();
    for (auto k = targets_.begin(local); k < targets_.end(local); ++k) {
        pending_[packed_target::rank(t[k])].push_back({packed_target::location(t[k]), lag});
    }
    ++spikes_sent_;
    entries_sent_ += targets_.end(local) - targets_.begin(local);
}

void directed_exchange::exchange_interval(step_type step, step_type, spike_sink& sink) {
    const step_type start = ((step - 1) / steps_per_interval_) * steps_per_interval_;
    transfer(start, sink);
    for (auto& p: pending_) p.clear();
}

void directed_exchange::verify_conservation() {
    std::int64_t totals[2] = {static_cast<std::int64_t>(entries_sent_), static_cast<std::int64_t>(entries_received_)};
    comm_->allreduce_sum(totals, 2);
    if (totals[0] != totals[1]) {
        throw internal_error(
            spikex::format("{}: target entries sent ({}) != received ({})", name(), totals[0], totals[1]));
    }
}

std::map<std::string, double> directed_exchange::counters() const {
    return {{counter::messages_sent, double(messages_)},
            {counter::bytes_sent, double(bytes_)},
            {counter::bytes_received, double(bytes_received_)},
            {counter::rounds, double(rounds_)},
            {counter::spikes_sent, double(spikes_sent_)},
            {counter::entries_sent, double(entries_sent_)},
            {counter::entries_received, double(entries_received_)},
            {counter::wire_bytes, double(wire_bytes_)},
            {counter::wire_spikes, double(entries_sent_)},
            {counter::encoder_sorts, double(encoder_sorts_)},
            {counter::init_rounds, double(init_stats_.rounds)},
            {counter::init_bytes_sent, double(init_stats_.bytes_sent)},
            {counter::target_entries, double(targets_.size())}};
}

std::map<std::string, double> directed_exchange::properties() const {
    return {{counter::sorted_by_source, sorted_ ? 1.0 : 0.0},
            {counter::init_section_entries, double(init_stats_.section_entries)}};
}

std::vector<std::pair<local_index, std::uint64_t>> directed_exchange::target_entries() const {
    std::vector<std::pair<local_index, std::uint64_t>> out;
    for (local_index i = 0; i < cells_->count(comm_->rank()); ++i) {
        for (auto k = targets_.begin(i); k < targets_.end(i); ++k) out.emplace_back(i, targets_.data()[k]);
    }
    return out;
}

std::map<std::string, double> directed_exchange::memory_bytes() const {
    std::size_t pending = 0;
    for (const auto& p: pending_) pending += p.capacity() * sizeof(wire_spike);
    const std::size_t item_spaces = items_for_.capacity() * sizeof(std::uint32_t);
    return {{"targets", double(targets_.bytes())},
            {"exchange_buffers", double(buffer_bytes() + pending + item_spaces)},
            {"receive_buffers", double(receive_buffer_bytes())},
            {"lookup_tables", double(numbering_.bytes())}};
}

} // namespace spikex
