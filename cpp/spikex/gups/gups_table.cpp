#include "spikex/gups/gups_table.hpp"

#include <algorithm>

#include "spikex/core/errors.hpp"

namespace spikex {

gups_table::gups_table(int log2_size, int ranks, int rank): ranks_(ranks) {
    if (log2_size < 0 || log2_size > 40) {
        throw user_error("--log2-table = " + std::to_string(log2_size) + ": must be between 0 and 40");
    }
    size_ = std::uint64_t(1) << log2_size;
    if (size_ < static_cast<std::uint64_t>(ranks)) {
        throw user_error("--log2-table = " + std::to_string(log2_size) + ": the table must have at least one word per rank (" +
                         std::to_string(ranks) + " ranks)");
    }
    mask_ = size_ - 1;
    block_split split{size_, ranks};
    first_ = split.first(rank);
    base_ = size_ / ranks;
    extra_ = static_cast<int>(size_ % ranks);
    boundary_ = static_cast<std::uint64_t>(extra_) * (base_ + 1);
    words_.resize(split.count(rank));
    reset();
}

void gups_table::reset() {
    for (std::size_t i = 0; i < words_.size(); ++i) words_[i] = first_ + i;
}

std::uint64_t gups_table::count_errors() const {
    std::uint64_t errors = 0;
    for (std::size_t i = 0; i < words_.size(); ++i) errors += words_[i] != first_ + i;
    return errors;
}

} // namespace spikex
