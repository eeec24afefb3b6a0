#include <algorithm>
#include <limits>
#include <numeric>

#include "spikex/connections/connection_table.hpp"
#include "spikex/core/errors.hpp"

namespace spikex {
namespace {

constexpr std::uint64_t no_key = ~std::uint64_t{0};
constexpr std::uint64_t mixed_key = no_key - 1;

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
    // Pass 1: connections per source, and whether all of a source's connections share one
    // (delay, synapse) key (one group) or not.
    const std::uint32_t space = shape.source_space;
    std::vector<std::uint32_t> next(space, 0);
    std::vector<std::uint64_t> source_key(space, no_key);
    std::vector<std::uint64_t> keys; // distinct keys (few)
    std::uint64_t last_key = no_key, n = 0;
    local_index targets_end = 0;
    min_delay_ = std::numeric_limits<std::uint32_t>::max();
    max_delay_ = 0;
    produce([&](const built_connection& c) {
        if (c.source >= space) throw internal_error("connection source outside the table's source space");
        ++next[c.source];
        const std::uint64_t k = group_key(c);
        auto& sk = source_key[c.source];
        if (sk == no_key) sk = k;
        else if (sk != k) sk = mixed_key;
        if (k != last_key && std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
        last_key = k;
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
    if (keys.size() > 0xffff) {
        throw user_error("more than 65,535 distinct (delay, synapse) combinations on one rank");
    }
    std::sort(keys.begin(), keys.end());

    // Slots, their connection ranges, and where the next connection of each source goes.
    std::vector<std::uint32_t> slot_begin;
    std::vector<std::uint64_t> slot_key;
    bool any_mixed = false;
    std::uint32_t position = 0;
    for (std::uint32_t s = 0; s < space; ++s) {
        if (next[s] == 0) continue;
        slot_source_.push_back(s);
        slot_begin.push_back(position);
        slot_key.push_back(source_key[s]);
        any_mixed = any_mixed || source_key[s] == mixed_key;
        std::uint32_t count = next[s];
        next[s] = position;
        position += count;
    }
    slot_begin.push_back(position);
    free_vector(source_key);

    // Pass 2: place every connection; creation order survives within each source.
    target_.resize(n);
    weight_.resize(n);
    std::vector<std::uint16_t> key_id;
    std::vector<std::uint32_t> seen;
    if (any_mixed) {
        key_id.resize(n);
        connection_index_.resize(n);
        seen.assign(targets_end, 0);
    }
    produce([&](const built_connection& c) {
        const std::uint32_t p = next[c.source]++;
        target_[p] = c.target;
        weight_[p] = c.weight;
        if (any_mixed) {
            key_id[p] = static_cast<std::uint16_t>(std::lower_bound(keys.begin(), keys.end(), group_key(c)) -
                                                   keys.begin());
            connection_index_[p] = seen[c.target]++;
        }
    });
    free_vector(next);
    free_vector(seen);

    for (std::uint32_t slot = 0; slot < slot_source_.size(); ++slot) {
        group_slot(slot, slot_begin[slot], slot_begin[slot + 1], slot_key[slot], key_id, keys);
    }
    slot_groups_.push_back(static_cast<std::uint32_t>(groups_.size()));
    groups_.push_back({0, static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(slot_source_.size()), 0});
    free_vector(key_id);

    find_shared_targets();
    if (threads_ > 1) split_by_thread(shape.thread_first);
}

void connection_table::group_slot(std::uint32_t slot, std::uint32_t begin, std::uint32_t end, std::uint64_t key,
                                  std::vector<std::uint16_t>& key_id, const std::vector<std::uint64_t>& keys) {
    slot_groups_.push_back(static_cast<std::uint32_t>(groups_.size()));
    if (key != mixed_key) {
        groups_.push_back({key_delay(key), begin, slot, key_synapse(key)});
        return;
    }
    // Several keys: a stable sort by key keeps creation order inside each group.
    std::vector<std::uint32_t> order(end - begin);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return key_id[begin + a] < key_id[begin + b]; });
    permute_range(begin, order);
    std::vector<std::uint16_t> id_scratch;
    permute(key_id, begin, order, id_scratch);
    for (std::uint32_t c = begin; c < end; ++c) {
        if (c == begin || key_id[c] != key_id[c - 1]) {
            const std::uint64_t k = keys[key_id[c]];
            groups_.push_back({key_delay(k), c, slot, key_synapse(k)});
        }
    }
}

void connection_table::permute_range(std::uint32_t begin, const std::vector<std::uint32_t>& order) {
    std::vector<local_index> t;
    std::vector<double> w;
    std::vector<std::uint32_t> i;
    permute(target_, begin, order, t);
    permute(weight_, begin, order, w);
    permute(connection_index_, begin, order, i);
}

void connection_table::find_shared_targets() {
    // Only sources with several groups can have groups meeting one target in one step.
    bool several = false;
    for (std::size_t s = 0; s + 1 < slot_groups_.size() && !several; ++s) several = slot_groups_[s + 1] - slot_groups_[s] > 1;
    if (!several) {
        free_vector(connection_index_);
        return;
    }
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
    if (!any) {
        free_vector(connection_index_);
        free_vector(slot_shares_);
    }
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
