#pragma once
// The postsynaptic connection store of one rank (NEST 5g's postsynaptic tier): the
// connections whose target lives on this rank, as contiguous arrays (connection table),
// plus where each came from (source table). No structure grows with the total number of
// cells N.
//
// Two layouts:
//  sorted (default; NEST's 5g-sort): arrays sorted by (source gid, delay, synapse type),
//    creation order kept within. A "source run" holds all connections of one source (it
//    is numbered by the source's index in the source list); a "delay group" is the part
//    of a source run with one delay, one synapse type and one receptor port. An arriving spike becomes one
//    delivery batch per delay group (as NEURON enqueues the source object once). The
//    source table is one gid per source run. With T threads each group is further split
//    into T thread runs by the thread that owns the target (the NEST paper's connection
//    tables per thread, as sub-ranges of one array); each target's connections keep their
//    creation order (a thread's run is built in parts, each a range of its targets in
//    order, so a producer that gives targets in order, as the engine's does, gives the
//    thread's connections in creation order).
//  creation order (NEST's 5g-nosort, connections.sort_by_source = false): arrays in the
//    order the connections were created, each with its own delay; the source table is one
//    gid per connection. Only target-addressed exchanges use it (one target entry, and one
//    delivery, per connection).
//
// Canonical order (spec/models.md): a target handles the events of one step by source gid,
// then by its own connection index (the order in which its incoming connections were
// created). Sorted: within a group creation order holds by construction; several groups
// of one source can meet in one step (different delays or synapse types), and only if they
// share a target does the order between them matter: then `connection_index` (kept only
// when some source has such groups) orders the merge. Creation order: the engine sorts a
// step's connections by (source, position).
//
// Building (sorted) makes two passes over the connections, which the builder produces
// twice in the same order: one to count per (source, delay, synapse), one to place each
// connection where it belongs (a third, for connection indices, only when groups of one
// source share a target). Peak memory is the final 12 bytes per connection instead of a
// copy of every built connection (plus 4 per connection of the synapse types that keep
// their input indices). Targets are placed in 2 or 4 bytes, then turned into byte
// targets (target_page) where there are few pages, before the plastic weights are first
// written: the table never holds both target arrays with its weights. With T threads every
// pass runs on T threads over parts of the targets (each thread's in two halves, taken by
// whichever thread is free: threads' cells differ in connections), counting and placing
// into the part's own runs (the counts take 16 bytes per source gid and part while the
// table is built).
#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "spikex/core/types.hpp"
#include "spikex/core/uninitialized_vector.hpp"

namespace spikex {

// One connection as the builder produces it, in creation order.
struct built_connection {
    gid_type source;
    local_index target;
    double weight;
    std::uint32_t delay;        // steps
    std::uint16_t synapse = 0;  // index into network_spec::synapses (0 = static)
    std::uint16_t receptor = 0; // receptor port of the target (0: none, the weight's sign decides)
};

// Connections that differ only in their source, in creation order: one target's inputs
// from a rule with one weight and one delay (the hpc_benchmark's every rule). Handed over
// as the drawn source list itself, with the rest once, so that no 24-byte
// built_connection is written and read again per connection.
struct uniform_run {
    const gid_type* sources;
    std::size_t count;
    built_connection shared; // target, weight, delay, synapse, receptor (its source unused)
};

// Receives connections in creation order, one at a time or a run of them at a time (one
// target's inputs, say): one call per run instead of one per connection (in the
// hpc_benchmark's build the calls cost more than the drawing, bench/build_time.py).
// A receiver of uniform runs may take them as they are; any other gets them as runs of
// built_connection.
class connection_visitor {
public:
    using run_function = std::function<void(const built_connection*, std::size_t)>;
    using uniform_function = std::function<void(const uniform_run&)>;
    connection_visitor(run_function visit_run): visit_(std::move(visit_run)) {}
    connection_visitor(run_function visit_run, uniform_function visit_uniform):
        visit_(std::move(visit_run)), visit_uniform_(std::move(visit_uniform)) {}
    // From a function taking one connection at a time.
    template <std::invocable<const built_connection&> F>
    connection_visitor(F visit_one):
        visit_([visit_one = std::move(visit_one)](const built_connection* run, std::size_t count) mutable {
            for (std::size_t k = 0; k < count; ++k) visit_one(run[k]);
        }) {}

    void operator()(const built_connection& c) const { visit_(&c, 1); }
    void operator()(const built_connection* run, std::size_t count) const {
        if (count > 0) visit_(run, count);
    }
    void operator()(const uniform_run& run) const;

private:
    run_function visit_;
    uniform_function visit_uniform_; // empty: uniform runs are expanded
};

// Rank-local target indices [first, end): the targets of one part of a build pass.
struct target_range {
    local_index first = 0;
    local_index end = ~local_index{0}; // default: every target
    bool holds(local_index target) const { return target >= first && target < end; }
};

// Calls `visit` for every connection of the rank whose target is in `targets`, in creation
// order; called once per build pass and part of the rank's targets (a thread's, or a piece
// of one), for different parts at the same time, and must produce the same sequence every
// time. `weights` false: the pass does not read weights (the producer may leave them 0 and
// skip drawing them).
using connection_producer = std::function<void(const connection_visitor&, target_range targets, bool weights)>;

struct delay_group {
    std::uint32_t delay;        // steps
    std::uint32_t begin;        // first connection; the group ends where the next begins
    std::uint32_t source_run;   // source run it belongs to (its index in sources())
    std::uint16_t synapse = 0;  // synapse type of all its connections
    std::uint16_t receptor = 0; // receptor port of all its targets (cell_group::deliver_port)
};

struct table_shape {
    // Source gids are < source_space (the network's cell count).
    std::uint32_t source_space = 0;
    // Thread t owns the rank-local targets [thread_first[t], thread_first[t+1]);
    // empty = one thread owning everything.
    std::vector<local_index> thread_first;
    // Per synapse type: 1 when its connections keep their index among their target's inputs
    // (take_input_indices; the stochastic synapses' keys); empty = none.
    std::vector<char> indexed_synapses;
    // The producer gives every connection's weight in the counting pass too (its rules
    // have constant weights): the table can then see, before placing, that it keeps one
    // weight per group.
    bool weights_when_counting = false;
    // Targets take 2 bytes each where the rank's targets allow (sorted layout); false: 4
    // bytes always (tests of both widths).
    bool narrow_targets = true;
    // Targets take 1 byte each, plus a page entry where the next 256 target indices begin,
    // where there are few pages (min_connections_per_page; sorted layout; false: 2 or 4
    // bytes, tests of every width).
    bool byte_targets = true;
    // Sources with several keys count in rows (one counter per key the thread has seen)
    // while the rows take at most this many entries beyond 4 per connection counted, else
    // in lists (the same table; 0: lists at once, for tests).
    std::uint64_t key_rows_budget = std::uint64_t{1} << 24;
    // The placing pass holds uniform runs' connections this many at a time (8 bytes each)
    // and places them by blocks of sources (0: as they come, for tests).
    std::size_t placing_chunk = std::size_t{1} << 18;
};

// Sorted tables keep their targets in 2 bytes when every target index is below this (a
// rank with at most 65,536 cells): 2 bytes less per connection, and half the bytes the
// delivery reads per event.
inline constexpr std::uint64_t narrow_target_limit = std::uint64_t{1} << 16;

// Byte targets: a connection keeps the low byte of its target; the page it lies in gives
// the rest. A page entry marks the position from which on targets lie in [base, base +
// 256), until the next entry. A source's run that visits its targets in order (as the
// engine's rules give them) changes page about once per 256 targets, so a dense table
// keeps 1 byte per connection and 8 per page.
struct target_page {
    std::uint32_t begin; // first position of the page
    local_index base;    // a multiple of 256
};
inline constexpr unsigned target_page_bits = 8;
// A table keeps byte targets when it has at most one page per this many connections.
inline constexpr std::size_t min_connections_per_page = 64;

class connection_table {
public:
    connection_table(): connection_table(std::vector<built_connection>{}, true) {}
    // From a list (tests, small networks): any gids. narrow_targets: compact targets (1 or
    // 2 bytes, table_shape's narrow_targets and byte_targets) where they fit.
    explicit connection_table(const std::vector<built_connection>& connections, bool sort_by_source = true,
                              std::vector<local_index> thread_first = {}, bool narrow_targets = true,
                              std::uint64_t key_rows_budget = table_shape{}.key_rows_budget);
    connection_table(const connection_producer& produce, const table_shape& shape, bool sort_by_source);

    bool sorted() const { return sorted_; }
    std::size_t size() const { return size_; }

    // Targets: 1 byte each (byte targets, with pages), 2 (narrow) or 4.
    bool narrow_targets() const { return width_ == 2; }
    bool byte_targets() const { return width_ == 1; }
    unsigned target_bytes() const { return width_; }
    // Targets of positions [begin, end) piece by piece, for loops compiled for every
    // width: f(targets, base, first, last) with target(c) = base + targets[c] for c in
    // [first, last), `targets` a const local_index*, narrow_target* or std::uint8_t*
    // indexed by position. One piece, base 0, unless targets are bytes: then one per page.
    template <typename F>
    void for_target_pieces(std::uint32_t begin, std::uint32_t end, F&& f) const {
        if (begin >= end) return;
        if (width_ == 4) return f(target_.data(), local_index{0}, begin, end);
        if (width_ == 2) return f(narrow_target_.data(), local_index{0}, begin, end);
        for_byte_pieces(begin, end, f);
    }
    // The same for byte targets only (byte_targets()): f(const std::uint8_t*, base, first, last).
    template <typename F>
    void for_byte_pieces(std::uint32_t begin, std::uint32_t end, F&& f) const {
        for (std::size_t k = page_of(begin); begin < end; ++k) {
            const std::uint32_t last = std::min<std::uint32_t>(end, page_end(k));
            f(byte_target_.data(), page_[k].base, begin, last);
            begin = last;
        }
    }
    // One target; with byte targets a search of the pages (target_reader walks them).
    local_index target(std::uint32_t c) const {
        if (width_ == 4) return target_[c];
        if (width_ == 2) return narrow_target_[c];
        return page_[page_of(c)].base + byte_target_[c];
    }
    const narrow_target* narrow_target_data() const { return narrow_target_.data(); }
    const std::uint8_t* byte_target_data() const { return byte_target_.data(); }
    // Byte targets' pages: page k covers positions [page(k).begin, page_end(k)).
    std::size_t page_count() const { return page_.size(); }
    const target_page& page(std::size_t k) const { return page_[k]; }
    std::uint32_t page_end(std::size_t k) const { return k + 1 < page_.size() ? page_[k + 1].begin : size_; }
    std::size_t page_of(std::uint32_t c) const { // the page holding position c
        return static_cast<std::size_t>(
                   std::upper_bound(page_.begin(), page_.end(), c,
                                    [](std::uint32_t x, const target_page& p) { return x < p.begin; }) -
                   page_.begin()) -
               1;
    }
    // Targets [begin, end) as 4-byte indices: a pointer into the table (4-byte targets) or
    // into `scratch`, filled (1- or 2-byte targets).
    const local_index* targets_of(std::uint32_t begin, std::uint32_t end, std::vector<local_index>& scratch) const;
    // Weights (sorted layout). A delay group keeps one weight (shares_weight: static
    // synapses whose source's static connections all carry one weight, as a projection
    // with a constant weight gives) or one per connection, in table order within the
    // group: weights_of_group(g)[c - group(g).begin]. Plastic, short-term and stochastic
    // groups always keep theirs.
    bool shares_weight(std::uint32_t g) const {
        return !group_weight_.empty() && (weight_first_.empty() || weight_first_[g] == no_weight);
    }
    double group_weight(std::uint32_t g) const { return group_weight_[g]; }
    const double* weights_of_group(std::uint32_t g) const { return weight_.data() + first_weight(g); }
    double* mutable_weights_of_group(std::uint32_t g) {
        return weight_.data() + first_weight(g);
    } // plastic ones change
    // The weight of connection c of group g, whichever way it is stored.
    double weight_of(std::uint32_t g, std::uint32_t c) const {
        return shares_weight(g) ? group_weight_[g] : weight_[first_weight(g) + (c - groups_[g].begin)];
    }
    // Whether no group keeps a weight per connection.
    bool all_weights_shared() const { return weight_.empty(); }
    // Creation-order layout: one weight per connection, by connection.
    const double* creation_weights() const { return weight_.data(); }
    // The delay group connection c belongs to (sorted layout; binary search).
    std::uint32_t group_of_connection(std::uint32_t c) const;

    // --- sorted layout -----------------------------------------------------------------
    // Distinct sources with at least one local target, ascending (source run -> gid).
    std::size_t source_count() const { return source_run_groups_.empty() ? 0 : source_run_groups_.size() - 1; }
    const std::vector<gid_type>& sources() const { return source_run_gid_; }
    // Delay groups of source run s: [group_begin(s), group_begin(s+1)).
    std::uint32_t group_begin(std::uint32_t run) const { return source_run_groups_[run]; }
    const std::uint32_t* group_begin_address(std::uint32_t run) const { return &source_run_groups_[run]; }
    const delay_group& group(std::uint32_t g) const { return groups_[g]; }
    std::uint32_t group_end_connection(std::uint32_t g) const { return groups_[g + 1].begin; }
    std::size_t group_count() const { return groups_.empty() ? 0 : groups_.size() - 1; }
    // Thread t's groups in a pass over the plastic connections on `threads` threads, each
    // group on one of them: [plastic_share_first_group(t), plastic_share_first_group(t + 1)),
    // the groups that begin in its share of the plastic connections (equal shares; cut by
    // all connections, the STDP hpc_benchmark's first thread had 62 % of the plastic ones).
    std::uint32_t plastic_share_first_group(unsigned t, unsigned threads) const;
    // Connections of group g whose target belongs to thread t: [thread_begin(g, t),
    // thread_begin(g, t + 1)).
    std::uint32_t thread_begin(std::uint32_t g, unsigned t) const {
        if (threads_ == 1) return t == 0 ? groups_[g].begin : groups_[g + 1].begin;
        return thread_begin_[std::size_t(g) * (threads_ + 1) + t];
    }
    unsigned threads() const { return threads_; }
    // Whether groups of this source run share a target (then their merge order matters).
    bool source_run_groups_share_targets(std::uint32_t run) const {
        return !source_run_shares_.empty() && source_run_shares_[run];
    }
    // Index of connection c among its target's inputs (creation order), kept only for
    // connections whose target has several inputs from c's source run (the ones a merge
    // has to order); binary search.
    std::uint32_t connection_index(std::uint32_t c) const;
    bool find_connection_index(std::uint32_t c, std::uint32_t& index) const;
    bool has_connection_index() const { return !shared_index_.empty(); }
    // The index among its target's inputs (creation order) of every connection of the synapse
    // types table_shape::indexed_synapses names, group by group in table order; moved out
    // (plasticity keeps them with the connections' state).
    std::vector<std::uint32_t> take_input_indices() { return std::move(input_index_); }
    // Per group (sorted layout), the one weight every connection of a plastic group was
    // filled with at the build (its source's plastic connections all start from it); NaN
    // for other groups; empty when no group was filled so. Moved out (plasticity checks a
    // group's range on it instead of reading every weight).
    std::vector<double> take_starting_weights() { return std::move(starting_weight_); }

    // --- target locations (what a target-addressed spike is delivered to) --------------
    // Source runs in the sorted layout, connections in creation order.
    std::size_t location_count() const { return sorted_ ? source_count() : size(); }
    gid_type location_source(std::uint32_t location) const {
        return sorted_ ? source_run_gid_[location] : connection_source_[location];
    }
    const gid_type* location_source_address(std::uint32_t location) const { // to prefetch
        return sorted_ ? &source_run_gid_[location] : &connection_source_[location];
    }

    // --- creation-order layout ---------------------------------------------------------
    gid_type source_of(std::uint32_t c) const { return connection_source_[c]; }
    std::uint32_t delay_of(std::uint32_t c) const { return connection_delay_[c]; }
    const std::uint32_t* delay_address(std::uint32_t c) const { return &connection_delay_[c]; } // to prefetch

    std::uint32_t min_delay() const { return min_delay_; }
    std::uint32_t max_delay() const { return max_delay_; }
    bool has_plastic() const { return has_plastic_; }

    // Frees the source table where the simulation does not need it (connections.keep_sources
    // = false, sorted layout): connectivity can no longer be queried afterwards.
    void release_sources();
    bool sources_released() const { return sources_released_; }

    // Bytes held (capacity, not size), for memory accounting.
    std::size_t connection_bytes() const; // connection table + delivery groups
    std::size_t source_bytes() const;     // source table

private:
    void build_sorted(const connection_producer& produce, const table_shape& shape);
    void build_creation_order(const connection_producer& produce);
    // Sets source_run_shares_ and the positions of shared_index_ (indices still 0).
    void find_shared_targets(local_index targets_end);
    void share_uniform_weights();
    void keep_input_indices(const std::vector<std::uint32_t>& creation_index, const std::vector<char>& indexed);
    // Turns 2- or 4-byte targets into byte targets where there are few pages
    // (min_connections_per_page).
    void pack_targets();

    bool sorted_ = true;
    bool sources_released_ = false;
    bool has_plastic_ = false;
    unsigned threads_ = 1;
    unsigned width_ = 4;   // bytes per target
    std::size_t size_ = 0; // connections
    // Filled in full by the placing pass's threads, so never zeroed first.
    uninitialized_vector<local_index> target_;          // 4-byte targets (creation order, or beyond 2^16 cells)
    uninitialized_vector<narrow_target> narrow_target_; // 2-byte targets (sorted, all < narrow_target_limit)
    uninitialized_vector<std::uint8_t> byte_target_;    // byte targets: the low byte (sorted)
    std::vector<target_page> page_;                     // byte targets: the pages, by position
    uninitialized_vector<double> weight_;
    // Weights, in one of three ways: every group shares one (group_weight_ only), none
    // does (weight_ by connection), or some do (group_weight_ and weight_first_ per group,
    // weight_ holding the other groups' weights one after another).
    static constexpr std::uint32_t no_weight = ~std::uint32_t{0};
    std::vector<double> group_weight_;        // per delay group: its weight where it shares one
    std::vector<std::uint32_t> weight_first_; // per delay group: its first weight in weight_, or no_weight
    std::uint32_t first_weight(std::uint32_t g) const {
        return weight_first_.empty() ? groups_[g].begin : weight_first_[g];
    }
    // sorted
    std::vector<gid_type> source_run_gid_;         // source table: source run -> gid
    std::vector<std::uint32_t> source_run_groups_; // per source run + 1 sentinel
    std::vector<delay_group> groups_;              // + 1 sentinel {0, size}
    std::vector<std::uint32_t> thread_begin_;      // (T + 1) per group, when T > 1
    std::vector<char> source_run_shares_;          // per source run, when some has several groups
    // (connection, index among its target's inputs), sorted, for connections whose target
    // has several inputs from their source run (multapses over several delay groups).
    std::vector<std::pair<std::uint32_t, std::uint32_t>> shared_index_;
    std::vector<std::uint32_t> input_index_; // take_input_indices
    std::vector<double> starting_weight_;    // take_starting_weights
    // creation order
    std::vector<gid_type> connection_source_; // source table: connection -> gid
    std::vector<std::uint32_t> connection_delay_;

    std::uint32_t min_delay_ = 0;
    std::uint32_t max_delay_ = 0;
};

// Targets of positions read in ascending order, each in constant time on average
// (connection_table::target searches the pages of byte targets; this walks them).
class target_reader {
public:
    explicit target_reader(const connection_table& table): table_(table) {}
    local_index operator()(std::uint32_t c) {
        if (!table_.byte_targets()) return table_.target(c);
        if (c < table_.page(page_).begin || c >= table_.page_end(page_)) {
            const bool next =
                c >= table_.page_end(page_) && page_ + 1 < table_.page_count() && c < table_.page_end(page_ + 1);
            page_ = next ? page_ + 1 : table_.page_of(c);
        }
        return table_.page(page_).base + table_.byte_target_data()[c];
    }

private:
    const connection_table& table_;
    std::size_t page_ = 0;
};

} // namespace spikex
