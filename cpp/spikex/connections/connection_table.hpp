#pragma once
// The postsynaptic connection store of one rank, grouped for source-addressed delivery.
//
// Connections whose target lives on this rank are kept as contiguous arrays sorted by
// (source gid, delay), and within that in creation order. One "delay group" is the run of
// connections with the same source and delay: an arriving spike of that source becomes
// one delivery batch per delay group (as NEURON enqueues the source object once, not every
// connection).
//
// Canonical order (spec/models.md): a target handles the events of one step by source gid,
// then by its own connection index (the order in which its incoming connections were
// created). Within a group the creation order holds by construction; two groups of the same
// source can only meet in one step if their delays differ, and then `connection_index`
// (kept only for networks that have such sources) orders the merge.
#include <cstdint>
#include <vector>

#include "spikex/core/types.hpp"

namespace spikex {

// One connection as the builder produces it, in creation order.
struct built_connection {
    gid_type source;
    local_index target;
    double weight;
    std::uint32_t delay; // steps
};

struct delay_group {
    std::uint32_t delay;   // steps
    std::uint32_t begin;   // first connection; the group ends where the next begins
};

class connection_table {
public:
    connection_table(): connection_table(std::vector<built_connection>{}) {}
    explicit connection_table(std::vector<built_connection> connections);

    std::size_t size() const { return target_.size(); }
    std::size_t source_count() const { return sources_.size(); }

    // Distinct sources with at least one local target, ascending.
    const std::vector<gid_type>& sources() const { return sources_; }

    // Delay groups of source slot s: [group_begin(s), group_begin(s+1)).
    std::uint32_t group_begin(std::uint32_t slot) const { return slot_groups_[slot]; }
    const delay_group& group(std::uint32_t g) const { return groups_[g]; }
    std::uint32_t group_end_connection(std::uint32_t g) const { return groups_[g + 1].begin; }
    std::size_t group_count() const { return groups_.size() - 1; }

    const local_index* targets() const { return target_.data(); }
    const double* weights() const { return weight_.data(); }

    bool has_mixed_delays() const { return !connection_index_.empty(); }
    std::uint32_t connection_index(std::uint32_t c) const { return connection_index_[c]; }

    std::uint32_t min_delay() const { return min_delay_; }
    std::uint32_t max_delay() const { return max_delay_; }

    // Bytes held (capacity, not size) for memory accounting.
    std::size_t bytes() const;

private:
    std::vector<gid_type> sources_;
    std::vector<std::uint32_t> slot_groups_;   // per source slot + 1 sentinel
    std::vector<delay_group> groups_;          // + 1 sentinel {0, size}
    std::vector<local_index> target_;
    std::vector<double> weight_;
    std::vector<std::uint32_t> connection_index_; // per connection: index among its target's inputs
    std::uint32_t min_delay_ = 0;
    std::uint32_t max_delay_ = 0;
};

} // namespace spikex
