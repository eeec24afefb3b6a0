#include <algorithm>
#include <limits>

#include "spikex/connections/connection_table.hpp"

namespace spikex {
namespace {

// Stable LSD radix sort of `order` by a 32-bit key, two 16-bit digits: O(n) for any N.
template <typename Key>
void stable_radix_sort(std::vector<std::uint32_t>& order, Key key) {
    std::vector<std::uint32_t> tmp(order.size());
    for (int shift: {0, 16}) {
        std::vector<std::uint32_t> count(65537, 0);
        for (auto i: order) ++count[((key(i) >> shift) & 0xffff) + 1];
        for (std::size_t d = 1; d < count.size(); ++d) count[d] += count[d - 1];
        for (auto i: order) tmp[count[(key(i) >> shift) & 0xffff]++] = i;
        order.swap(tmp);
    }
}

template <typename T>
std::size_t capacity_bytes(const std::vector<T>& v) {
    return v.capacity() * sizeof(T);
}

} // namespace

connection_table::connection_table(std::vector<built_connection> conns, bool sort_by_source):
    sorted_(sort_by_source) {
    min_delay_ = std::numeric_limits<std::uint32_t>::max();
    max_delay_ = 0;
    for (auto& c: conns) {
        min_delay_ = std::min(min_delay_, c.delay);
        max_delay_ = std::max(max_delay_, c.delay);
    }
    if (conns.empty()) min_delay_ = 0;
    if (sorted_) build_sorted(conns);
    else build_creation_order(conns);
}

void connection_table::build_sorted(const std::vector<built_connection>& conns) {
    const std::size_t n = conns.size();
    std::vector<std::uint32_t> order(n);
    for (std::uint32_t i = 0; i < n; ++i) order[i] = i;
    const bool uniform_delay = min_delay_ == max_delay_;

    // LSD: secondary key (delay) first, then the primary key (source); both stable, so
    // creation order survives inside each (source, delay) group.
    if (!uniform_delay) stable_radix_sort(order, [&](std::uint32_t i) { return conns[i].delay; });
    stable_radix_sort(order, [&](std::uint32_t i) { return conns[i].source; });

    target_.resize(n);
    weight_.resize(n);
    std::vector<std::uint32_t> index_in_target;
    if (!uniform_delay) {
        // connection index = position among the target's inputs in creation order
        index_in_target.resize(n);
        std::vector<std::uint32_t> seen;
        for (std::uint32_t i = 0; i < n; ++i) {
            auto t = conns[i].target;
            if (t >= seen.size()) seen.resize(t + 1, 0);
            index_in_target[i] = seen[t]++;
        }
        connection_index_.resize(n);
    }

    for (std::uint32_t pos = 0; pos < n; ++pos) {
        const auto& c = conns[order[pos]];
        target_[pos] = c.target;
        weight_[pos] = c.weight;
        if (!uniform_delay) connection_index_[pos] = index_in_target[order[pos]];
        bool new_source = slot_source_.empty() || slot_source_.back() != c.source;
        if (new_source) {
            slot_source_.push_back(c.source);
            slot_groups_.push_back(static_cast<std::uint32_t>(groups_.size()));
        }
        if (new_source || groups_.back().delay != c.delay) {
            groups_.push_back({c.delay, pos, static_cast<std::uint32_t>(slot_source_.size() - 1)});
        }
    }
    slot_groups_.push_back(static_cast<std::uint32_t>(groups_.size()));
    groups_.push_back({0, static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(slot_source_.size())});
}

void connection_table::build_creation_order(const std::vector<built_connection>& conns) {
    const std::size_t n = conns.size();
    target_.resize(n);
    weight_.resize(n);
    connection_source_.resize(n);
    connection_delay_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        target_[i] = conns[i].target;
        weight_[i] = conns[i].weight;
        connection_source_[i] = conns[i].source;
        connection_delay_[i] = conns[i].delay;
    }
}

void connection_table::release_sources() {
    // The creation-order layout needs every connection's source to order a step's inputs,
    // so only the sorted layout can let its source table go.
    if (!sorted_) return;
    std::vector<gid_type>().swap(slot_source_);
    sources_released_ = true;
}

std::size_t connection_table::connection_bytes() const {
    return capacity_bytes(target_) + capacity_bytes(weight_) + capacity_bytes(slot_groups_) +
           capacity_bytes(groups_) + capacity_bytes(connection_index_) + capacity_bytes(connection_delay_);
}

std::size_t connection_table::source_bytes() const {
    return capacity_bytes(slot_source_) + capacity_bytes(connection_source_);
}

} // namespace spikex
