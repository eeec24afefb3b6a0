#include "spikex/gups/gups_table.hpp"

#include <algorithm>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"

namespace spikex {

gups_table::gups_table(int log2_size, int ranks, int rank): ranks_(ranks) {
    if (log2_size < 0 || log2_size > 40) {
        throw user_error(spikex::format("--log2-table = {}: must be between 0 and 40", log2_size));
    }
    size_ = std::uint64_t(1) << log2_size;
    if (size_ < static_cast<std::uint64_t>(ranks)) {
        throw user_error(spikex::format("--log2-table = {}: the table must have at least one word per rank ({} ranks)",
                                        log2_size, ranks));
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
