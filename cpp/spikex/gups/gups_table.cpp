#include "spikex/gups/gups_table.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <new>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"

namespace spikex {

namespace {
constexpr std::size_t huge_page = std::size_t(2) << 20;
}

void gups_table::free_words::operator()(std::uint64_t* p) const { std::free(p); }

gups_table::gups_table(int log2_size, int ranks, int rank, bool huge_pages): ranks_(ranks) {
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
    if (extra_ == 0 && (base_ & (base_ - 1)) == 0) shift_ = std::countr_zero(base_);
    local_size_ = split.count(rank);
    // aligned_alloc needs a multiple of the alignment; at least one word (a rank may hold
    // none only if N < P, refused above).
    allocated_bytes_ =
        (std::max<std::size_t>(local_size_ * sizeof(std::uint64_t), 1) + huge_page - 1) / huge_page * huge_page;
    auto* words = static_cast<std::uint64_t*>(std::aligned_alloc(huge_page, allocated_bytes_));
    if (words == nullptr) throw std::bad_alloc();
    words_.reset(words);
    // Before the first touch, so that the pages are huge from the start.
    if (huge_pages) huge_pages_ = madvise(words, allocated_bytes_, MADV_HUGEPAGE) == 0;
    reset();
}

void gups_table::reset() {
    for (std::size_t i = 0; i < local_size_; ++i) words_[i] = first_ + i;
}

std::uint64_t gups_table::count_errors() const {
    std::uint64_t errors = 0;
    for (std::size_t i = 0; i < local_size_; ++i) errors += words_[i] != first_ + i;
    return errors;
}

} // namespace spikex
