#include <algorithm>
#include <limits>
#include <numeric>

#include "spikex/connections/connection_table.hpp"
#include "spikex/core/errors.hpp"

namespace spikex {
namespace {

constexpr std::uint64_t no_key = ~std::uint64_t{0};
// Keys use 48 bits; a key word with this bit set names a source's list of keys instead.
constexpr std::uint64_t several_keys = std::uint64_t{1} << 63;

// Groups are ordered by delay, then synapse type, inside a source run.
std::uint64_t group_key(const built_connection& c) { return (std::uint64_t{c.delay} << 16) | c.synapse; }
std::uint32_t key_delay(std::uint64_t key) { return static_cast<std::uint32_t>(key >> 16); }
std::uint16_t key_synapse(std::uint64_t key) { return static_cast<std::uint16_t>(key & 0xffff); }

template <typename T>
std::size_t capacity_bytes(const std::vector<T>& v) {
    return v.capacity() * sizeof(T);
}

template <typename T>
void free_vector(std::vector<T>& v) {
    std::vector<T>().swap(v);
}

// Reorders v[begin, begin + order.size()) so that position i holds old position order[i].
template <typename T>
void permute(std::vector<T>& v, std::uint32_t begin, const std::vector<std::uint32_t>& order,
             std::vector<T>& scratch) {
    if (v.empty()) return;
    scratch.resize(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) scratch[i] = v[begin + order[i]];
    std::copy(scratch.begin(), scratch.end(), v.begin() + begin);
}

// Where the placing pass puts each connection. Most sources have one (delay, synapse)
// key: one counter per source, turned into a cursor. A source with several keys (an
// excitatory source with plastic E->E and static E->I synapses) gets a short list of
// (key, counter) instead, so that its groups come out in key order and in creation order
// within each, without a per-connection key or a sort.
class placement {
public:
    explicit placement(std::uint32_t space): cursor_(space, 0), key_(space, no_key) {}

    // Counting pass.
    void count(const built_connection& c) {
        const std::uint32_t s = c.source;
        const std::uint64_t k = group_key(c);
        ++cursor_[s];
        std::uint64_t& sk = key_[s];
        if (sk == no_key) sk = k;
        if (sk == k) return;
        if (!(sk & several_keys)) { // a second key: every earlier connection had the first
            lists_.push_back({{sk, cursor_[s] - 1}});
            sk = several_keys | (lists_.size() - 1);
        }
        auto& list = lists_[sk & ~several_keys];
        auto it = std::find_if(list.begin(), list.end(), [k](const key_counter& e) { return e.key == k; });
        if (it == list.end()) list.push_back({k, 1});
        else ++it->counter;
    }

    // Turns counters into first positions, source by source in gid order, and reports
    // every slot (source gid) and group (key, first position) in table order.
    template <typename Slot, typename Group>
    std::uint64_t lay_out(Slot&& slot, Group&& group) {
        std::uint64_t position = 0;
        for (std::uint32_t s = 0; s < cursor_.size(); ++s) {
            if (cursor_[s] == 0) continue;
            slot(s);
            if (!(key_[s] & several_keys)) {
                group(key_[s], position);
                const std::uint32_t count = cursor_[s];
                cursor_[s] = static_cast<std::uint32_t>(position);
                position += count;
                continue;
            }
            auto& list = lists_[key_[s] & ~several_keys];
            std::sort(list.begin(), list.end(), [](const key_counter& a, const key_counter& b) { return a.key < b.key; });
            for (auto& e: list) {
                group(e.key, position);
                const std::uint32_t count = e.counter;
                e.counter = static_cast<std::uint32_t>(position);
                position += count;
            }
        }
        return position;
    }

    // Placing pass: the position of the next connection (after lay_out).
    std::uint32_t take(const built_connection& c) {
        const std::uint64_t sk = key_[c.source];
        if (!(sk & several_keys)) return cursor_[c.source]++;
        const std::uint64_t k = group_key(c);
        for (auto& e: lists_[sk & ~several_keys]) {
            if (e.key == k) return e.counter++;
        }
        throw internal_error("connection table: a connection's key was not counted");
    }

    bool any_several_keys() const { return !lists_.empty(); }

private:
    struct key_counter {
        std::uint64_t key;
        std::uint32_t counter;
    };
    std::vector<std::uint32_t> cursor_; // per source: count, then next position
    std::vector<std::uint64_t> key_;    // per source: its key, or several_keys | list
    std::vector<std::vector<key_counter>> lists_;
};

} // namespace

connection_table::connection_table(const std::vector<built_connection>& conns, bool sort_by_source,
                                   std::vector<local_index> thread_first) {
    // Any gids: number the distinct sources densely for the build, then put the gids back.
    std::vector<gid_type> distinct;
    if (sort_by_source) {
        distinct.reserve(conns.size());
        for (const auto& c: conns) distinct.push_back(c.source);
        std::sort(distinct.begin(), distinct.end());
        distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    }
    connection_producer produce = [&](const connection_visitor& visit) {
        for (built_connection c: conns) {
            if (sort_by_source) {
                c.source = static_cast<gid_type>(std::lower_bound(distinct.begin(), distinct.end(), c.source) -
                                                 distinct.begin());
            }
            visit(c);
        }
    };
    *this = connection_table(produce, {static_cast<std::uint32_t>(distinct.size()), std::move(thread_first)},
                             sort_by_source);
    for (auto& s: slot_source_) s = distinct[s];
}

connection_table::connection_table(const connection_producer& produce, const table_shape& shape,
                                   bool sort_by_source):
    sorted_(sort_by_source) {
    threads_ = shape.thread_first.empty() ? 1u : static_cast<unsigned>(shape.thread_first.size() - 1);
    if (sorted_) build_sorted(produce, shape);
    else build_creation_order(produce);
}

void connection_table::build_sorted(const connection_producer& produce, const table_shape& shape) {
    // Pass 1: connections per source and (delay, synapse) key.
    const std::uint32_t space = shape.source_space;
    placement place(space);
    std::uint64_t n = 0;
    local_index targets_end = 0;
    min_delay_ = std::numeric_limits<std::uint32_t>::max();
    max_delay_ = 0;
    produce([&](const built_connection& c) {
        if (c.source >= space) throw internal_error("connection source outside the table's source space");
        place.count(c);
        min_delay_ = std::min(min_delay_, c.delay);
        max_delay_ = std::max(max_delay_, c.delay);
        has_plastic_ = has_plastic_ || c.synapse != 0;
        targets_end = std::max<local_index>(targets_end, c.target + 1);
        ++n;
    });
    if (n == 0) min_delay_ = 0;
    if (n >= std::numeric_limits<std::uint32_t>::max()) {
        throw user_error("one rank would hold " + std::to_string(n) +
                         " connections; at most 4,294,967,294 fit: use more ranks");
    }

    // Slots and groups in table order; the counters become cursors.
    place.lay_out(
        [&](std::uint32_t source) {
            slot_groups_.push_back(static_cast<std::uint32_t>(groups_.size()));
            slot_source_.push_back(source);
        },
        [&](std::uint64_t key, std::uint64_t begin) {
            const auto slot = static_cast<std::uint32_t>(slot_source_.size() - 1);
            groups_.push_back({key_delay(key), static_cast<std::uint32_t>(begin), slot, key_synapse(key)});
        });
    slot_groups_.push_back(static_cast<std::uint32_t>(groups_.size()));
    groups_.push_back({0, static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(slot_source_.size()), 0});

    // Pass 2: place every connection; creation order survives within each group. A copy
    // of the cursors is kept for pass 3, which only runs if connection indices are needed.
    const placement start = place.any_several_keys() ? place : placement(0);
    target_.resize(n);
    weight_.resize(n);
    produce([&](const built_connection& c) {
        const std::uint32_t p = place.take(c);
        target_[p] = c.target;
        weight_[p] = c.weight;
    });

    if (find_shared_targets()) {
        // Pass 3: each connection's index among its target's inputs, in creation order.
        placement again = start;
        connection_index_.resize(n);
        std::vector<std::uint32_t> seen(targets_end, 0);
        produce([&](const built_connection& c) { connection_index_[again.take(c)] = seen[c.target]++; });
    }
    if (threads_ > 1) split_by_thread(shape.thread_first);
}

void connection_table::permute_range(std::uint32_t begin, const std::vector<std::uint32_t>& order) {
    std::vector<local_index> t;
    std::vector<double> w;
    std::vector<std::uint32_t> i;
    permute(target_, begin, order, t);
    permute(weight_, begin, order, w);
    permute(connection_index_, begin, order, i);
}

bool connection_table::find_shared_targets() {
    // Only sources with several groups can have groups meeting one target in one step.
    bool several = false;
    for (std::size_t s = 0; s + 1 < slot_groups_.size() && !several; ++s) several = slot_groups_[s + 1] - slot_groups_[s] > 1;
    if (!several) return false;
    local_index targets_end = 0;
    for (auto t: target_) targets_end = std::max<local_index>(targets_end, t + 1);
    constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();
    std::vector<std::uint32_t> mark_slot(targets_end, none), mark_group(targets_end, none);
    slot_shares_.assign(source_count(), 0);
    bool any = false;
    for (std::uint32_t s = 0; s < source_count(); ++s) {
        if (group_begin(s + 1) - group_begin(s) < 2) continue;
        for (auto g = group_begin(s); g < group_begin(s + 1) && !slot_shares_[s]; ++g) {
            for (auto c = groups_[g].begin; c < group_end_connection(g); ++c) {
                const local_index t = target_[c];
                if (mark_slot[t] == s && mark_group[t] != g) {
                    slot_shares_[s] = 1;
                    break;
                }
                mark_slot[t] = s;
                mark_group[t] = g;
            }
        }
        any = any || slot_shares_[s];
    }
    if (!any) free_vector(slot_shares_);
    return any;
}

void connection_table::split_by_thread(const std::vector<local_index>& thread_first) {
    // Stable counting sort of each group by the thread owning the target: creation order
    // (and so the canonical order of each target) survives inside every thread's run.
    const unsigned T = threads_;
    thread_begin_.assign((group_count() + 1) * (T + 1), 0);
    std::vector<std::uint32_t> order, count(T + 1);
    std::vector<unsigned> owner;
    for (std::uint32_t g = 0; g < group_count(); ++g) {
        const std::uint32_t begin = groups_[g].begin, end = group_end_connection(g);
        owner.resize(end - begin);
        std::fill(count.begin(), count.end(), 0u);
        for (std::uint32_t c = begin; c < end; ++c) {
            unsigned t = static_cast<unsigned>(
                std::upper_bound(thread_first.begin(), thread_first.end(), target_[c]) - thread_first.begin() - 1);
            owner[c - begin] = t;
            ++count[t + 1];
        }
        for (unsigned t = 0; t < T; ++t) count[t + 1] += count[t];
        for (unsigned t = 0; t <= T; ++t) thread_begin_[std::size_t(g) * (T + 1) + t] = begin + count[t];
        bool in_order = std::is_sorted(owner.begin(), owner.end());
        if (in_order) continue;
        order.resize(end - begin);
        for (std::uint32_t i = 0; i < end - begin; ++i) order[count[owner[i]]++] = i;
        permute_range(begin, order);
    }
    for (unsigned t = 0; t <= T; ++t) thread_begin_[group_count() * (T + 1) + t] = static_cast<std::uint32_t>(size());
}

void connection_table::build_creation_order(const connection_producer& produce) {
    min_delay_ = std::numeric_limits<std::uint32_t>::max();
    max_delay_ = 0;
    produce([&](const built_connection& c) {
        if (c.synapse != 0) {
            throw user_error("connections.sort_by_source = false: plastic synapses need the sorted "
                             "connection layout (sort_by_source = true)");
        }
        target_.push_back(c.target);
        weight_.push_back(c.weight);
        connection_source_.push_back(c.source);
        connection_delay_.push_back(c.delay);
        min_delay_ = std::min(min_delay_, c.delay);
        max_delay_ = std::max(max_delay_, c.delay);
    });
    if (target_.empty()) min_delay_ = 0;
}

void connection_table::release_sources() {
    // The creation-order layout needs every connection's source to order a step's inputs,
    // so only the sorted layout can let its source table go.
    if (!sorted_) return;
    free_vector(slot_source_);
    sources_released_ = true;
}

std::size_t connection_table::connection_bytes() const {
    return capacity_bytes(target_) + capacity_bytes(weight_) + capacity_bytes(slot_groups_) +
           capacity_bytes(groups_) + capacity_bytes(thread_begin_) + capacity_bytes(slot_shares_) +
           capacity_bytes(connection_index_) + capacity_bytes(connection_delay_);
}

std::size_t connection_table::source_bytes() const {
    return capacity_bytes(slot_source_) + capacity_bytes(connection_source_);
}

} // namespace spikex
