#include <algorithm>
#include <numeric>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/core/random.hpp"
#include "spikex/network/distribution.hpp"

namespace spikex {

distribution_scheme parse_distribution_scheme(const std::string& name) {
    if (name == "round_robin") return distribution_scheme::round_robin;
    if (name == "consecutive") return distribution_scheme::consecutive;
    if (name == "random_shuffle") return distribution_scheme::random_shuffle;
    throw user_error(spikex::format(
        "distribution.scheme = \"{}\": must be one of \"round_robin\", \"consecutive\", \"random_shuffle\"", name));
}

distribution::distribution(distribution_scheme scheme, std::uint32_t cells, int ranks, std::uint32_t seed):
    scheme_(scheme), cells_(cells), ranks_(ranks) {
    if (ranks < 1) throw internal_error("distribution: ranks must be >= 1");
    block_ = static_cast<std::uint32_t>((static_cast<std::uint64_t>(cells) + ranks - 1) / ranks);
    if (scheme == distribution_scheme::random_shuffle) {
        std::vector<std::uint64_t> key(cells);
        for (gid_type g = 0; g < cells; ++g) {
            auto w = random_block(seed, g, purpose::placement, 0);
            key[g] = (static_cast<std::uint64_t>(w[0]) << 32) | w[1];
        }
        gid_at_.resize(cells);
        std::iota(gid_at_.begin(), gid_at_.end(), 0u);
        std::sort(gid_at_.begin(), gid_at_.end(),
                  [&](gid_type a, gid_type b) { return key[a] != key[b] ? key[a] < key[b] : a < b; });
        position_.resize(cells);
        for (std::uint32_t p = 0; p < cells; ++p) position_[gid_at_[p]] = p;
    }
}

int distribution::rank_of(gid_type gid) const {
    switch (scheme_) {
    case distribution_scheme::round_robin:
        return static_cast<int>(gid % ranks_);
    case distribution_scheme::consecutive:
        return static_cast<int>(gid / block_);
    case distribution_scheme::random_shuffle:
        return static_cast<int>(position_[gid] % ranks_);
    }
    return 0;
}

local_index distribution::local_of(gid_type gid) const {
    switch (scheme_) {
    case distribution_scheme::round_robin:
        return gid / ranks_;
    case distribution_scheme::consecutive:
        return gid % block_;
    case distribution_scheme::random_shuffle:
        return position_[gid] / ranks_;
    }
    return 0;
}

gid_type distribution::gid_of(int rank, local_index local) const {
    switch (scheme_) {
    case distribution_scheme::round_robin:
        return local * ranks_ + rank;
    case distribution_scheme::consecutive:
        return rank * block_ + local;
    case distribution_scheme::random_shuffle:
        return gid_at_[local * ranks_ + rank];
    }
    return 0;
}

std::uint32_t distribution::count(int rank) const {
    switch (scheme_) {
    case distribution_scheme::round_robin:
    case distribution_scheme::random_shuffle:
        return cells_ / ranks_ + (static_cast<std::uint32_t>(rank) < cells_ % ranks_ ? 1 : 0);
    case distribution_scheme::consecutive: {
        std::uint64_t start = static_cast<std::uint64_t>(rank) * block_;
        if (start >= cells_) return 0;
        return static_cast<std::uint32_t>(std::min<std::uint64_t>(block_, cells_ - start));
    }
    }
    return 0;
}

std::uint32_t distribution::max_count() const {
    std::uint32_t m = 0;
    for (int r = 0; r < ranks_; ++r) m = std::max(m, count(r));
    return m;
}

std::vector<gid_type> distribution::gids_of(int rank) const {
    std::vector<gid_type> out(count(rank));
    for (local_index i = 0; i < out.size(); ++i) out[i] = gid_of(rank, i);
    return out;
}

} // namespace spikex
