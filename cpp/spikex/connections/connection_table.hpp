#pragma once
// The postsynaptic connection store of one rank (NEST 5g's postsynaptic tier): the
// connections whose target lives on this rank, as contiguous arrays (connection table),
// plus where each came from (source table). No structure grows with the total number of
// cells N.
//
// Two layouts:
//  sorted (default; NEST's 5g-sort): arrays sorted by (source gid, delay), creation order
//    kept within. A "source run" (slot) holds all connections of one source; a "delay
//    group" is the run with one source and one delay. An arriving spike becomes one
//    delivery batch per delay group (as NEURON enqueues the source object once). The
//    source table is one gid per slot.
//  creation order (NEST's 5g-nosort, connections.sort_by_source = false): arrays in the
//    order the connections were created, each with its own delay; the source table is one
//    gid per connection. Only target-addressed exchanges use it (one target entry, and one
//    delivery, per connection).
//
// Canonical order (spec/models.md): a target handles the events of one step by source gid,
// then by its own connection index (the order in which its incoming connections were
// created). Sorted: within a group creation order holds by construction; two groups of the
// same source only meet in one step if their delays differ, and then `connection_index`
// (kept only for networks that have such sources) orders the merge. Creation order: the
// engine sorts a step's connections by (source, position).
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
    std::uint32_t delay; // steps
    std::uint32_t begin; // first connection; the group ends where the next begins
    std::uint32_t slot;  // source run it belongs to
};

class connection_table {
public:
    connection_table(): connection_table(std::vector<built_connection>{}, true) {}
    explicit connection_table(std::vector<built_connection> connections, bool sort_by_source = true);

    bool sorted() const { return sorted_; }
    std::size_t size() const { return target_.size(); }

    const local_index* targets() const { return target_.data(); }
    const double* weights() const { return weight_.data(); }

    // --- sorted layout -----------------------------------------------------------------
    // Distinct sources with at least one local target, ascending (slot -> gid).
    std::size_t source_count() const { return slot_groups_.empty() ? 0 : slot_groups_.size() - 1; }
    const std::vector<gid_type>& sources() const { return slot_source_; }
    // Delay groups of slot s: [group_begin(s), group_begin(s+1)).
    std::uint32_t group_begin(std::uint32_t slot) const { return slot_groups_[slot]; }
    const delay_group& group(std::uint32_t g) const { return groups_[g]; }
    std::uint32_t group_end_connection(std::uint32_t g) const { return groups_[g + 1].begin; }
    std::size_t group_count() const { return groups_.empty() ? 0 : groups_.size() - 1; }
    bool has_mixed_delays() const { return !connection_index_.empty(); }
    std::uint32_t connection_index(std::uint32_t c) const { return connection_index_[c]; }

    // --- creation-order layout ---------------------------------------------------------
    gid_type source_of(std::uint32_t c) const { return connection_source_[c]; }
    std::uint32_t delay_of(std::uint32_t c) const { return connection_delay_[c]; }

    std::uint32_t min_delay() const { return min_delay_; }
    std::uint32_t max_delay() const { return max_delay_; }

    // Frees the source table where the simulation does not need it (connections.keep_sources
    // = false, sorted layout): connectivity can no longer be queried afterwards.
    void release_sources();
    bool sources_released() const { return sources_released_; }

    // Bytes held (capacity, not size), for memory accounting.
    std::size_t connection_bytes() const; // connection table + delivery groups
    std::size_t source_bytes() const;     // source table

private:
    void build_sorted(const std::vector<built_connection>& conns);
    void build_creation_order(const std::vector<built_connection>& conns);

    bool sorted_ = true;
    bool sources_released_ = false;
    std::vector<local_index> target_;
    std::vector<double> weight_;
    // sorted
    std::vector<gid_type> slot_source_;          // source table: slot -> gid
    std::vector<std::uint32_t> slot_groups_;      // per slot + 1 sentinel
    std::vector<delay_group> groups_;             // + 1 sentinel {0, size}
    std::vector<std::uint32_t> connection_index_; // per connection: index among its target's inputs
    // creation order
    std::vector<gid_type> connection_source_;     // source table: connection -> gid
    std::vector<std::uint32_t> connection_delay_;

    std::uint32_t min_delay_ = 0;
    std::uint32_t max_delay_ = 0;
};

} // namespace spikex
