#include "spikex/network/source_pool.hpp"

namespace spikex {

void source_pool::draw_distinct(random_stream& rng, std::uint32_t count, std::vector<std::uint64_t>& bitmap,
                                std::vector<gid_type>& out) const {
    const std::size_t words = (static_cast<std::size_t>(size_) + 63) / 64;
    if (bitmap.size() < words) bitmap.resize(words, 0);
    auto test_and_set = [&](std::uint32_t v) {
        const std::uint64_t bit = std::uint64_t{1} << (v & 63);
        const bool was = bitmap[v >> 6] & bit;
        bitmap[v >> 6] |= bit;
        return was;
    };
    const std::size_t begin = out.size();
    for (std::uint32_t j = size_ - count; j < size_; ++j) {
        const std::uint32_t t = rng.next_below(j + 1);
        const std::uint32_t chosen = test_and_set(t) ? j : t;
        if (chosen == j) test_and_set(j);
        out.push_back(chosen);
    }
    for (std::size_t k = begin; k < out.size(); ++k) {
        bitmap[out[k] >> 6] = 0; // every set bit belongs to a chosen index
        out[k] = gid(out[k]);
    }
}

} // namespace spikex
