#pragma once
// The cells one target (or one source, for fixed_outdegree) may connect with: a gid range
// without, when autapses are not allowed, the cell itself. Draws pick pool indices
// 0 .. size-1 (the range's offsets with the excluded one skipped) from a random_stream.
//  with multapses:    each draw next_below(size), independent.
//  without:           Floyd's algorithm (R. Floyd, CACM 1987): `count` distinct indices in
//                     exactly `count` draws; index j (j = size-count .. size-1) draws
//                     t = next_below(j + 1) and takes t, or j if t was taken before.
// These are the draws of the legacy rules (random: Floyd; fixed_indegree: with
// multapses, self excluded): changing them changes existing networks.
#include <cstdint>
#include <type_traits>
#include <vector>

#include "spikex/core/random.hpp"
#include "spikex/core/random_batch.hpp"
#include "spikex/core/types.hpp"

namespace spikex {

class source_pool {
public:
    // Cells first .. first+size-1 without `self` when exclude_self and self is among them.
    source_pool(gid_type first, std::uint32_t size, gid_type self, bool exclude_self):
        first_(first), size_(size), skip_(size) {
        if (exclude_self && self >= first && self - first < size) {
            skip_ = self - first;
            --size_;
        }
    }

    std::uint32_t size() const { return size_; }
    gid_type gid(std::uint32_t index) const { return first_ + (index >= skip_ ? index + 1 : index); }

    // Appends `count` gids drawn with replacement (size() >= 1 unless count == 0).
    // `rng`: a random_stream or a batched_random_stream (the same words).
    template <typename Stream>
    void draw_with_replacement(Stream& rng, std::uint64_t count, std::vector<gid_type>& out) const {
        if constexpr (std::is_same_v<Stream, batched_random_stream>) { // the same draws, in batches
            const std::size_t old = out.size();
            out.resize(old + count);
            gid_type* drawn = out.data() + old;
            rng.fill_below(size_, drawn, count);
            for (std::uint64_t k = 0; k < count; ++k) drawn[k] = gid(drawn[k]);
        } else {
            for (std::uint64_t k = 0; k < count; ++k) out.push_back(gid(rng.next_below(size_)));
        }
    }

    // Appends `count` <= size() distinct gids. `bitmap` is scratch: grown as needed, left
    // all zero (only the chosen bits are touched, so a draw costs O(count), not O(size)).
    void draw_distinct(random_stream& rng, std::uint32_t count, std::vector<std::uint64_t>& bitmap,
                       std::vector<gid_type>& out) const;

private:
    gid_type first_;
    std::uint32_t size_;
    std::uint32_t skip_; // pool index from which offsets are shifted by one (size: none)
};

} // namespace spikex
