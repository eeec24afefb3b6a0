#pragma once
// gups: the distributed table of HPCC RandomAccess (Garg & Sabharwal, section 2): N = 2^k
// 64-bit words T[i] = i, in contiguous blocks over P ranks (the first N mod P ranks hold
// one word more), and the split of the 4 N updates of the one global stream into
// contiguous pieces, one per rank, the same way.
//
// Algorithm: update a goes to word a & (N - 1) of the rank owning it; applying it is
//   T[a & (N - 1)] ^= a. XOR is its own inverse, so applying every update a second time
//   restores T[i] = i: verification counts the words where that fails.
// Messages and bytes: none (the algorithms move updates). Memory: 8 N / P bytes per rank.
// Ordering guarantee: XOR is associative and commutative: any order gives the same table.
#include <algorithm>
#include <cstdint>
#include <vector>

namespace spikex {

// Contiguous blocks of `total` items over `ranks`: the first total % ranks get one more.
struct block_split {
    std::uint64_t total = 0;
    int ranks = 1;
    std::uint64_t count(int rank) const {
        return total / ranks + (static_cast<std::uint64_t>(rank) < total % ranks ? 1 : 0);
    }
    std::uint64_t first(int rank) const {
        std::uint64_t r = static_cast<std::uint64_t>(rank);
        return r * (total / ranks) + std::min<std::uint64_t>(r, total % ranks);
    }
};

class gups_table {
public:
    gups_table(int log2_size, int ranks, int rank);

    std::uint64_t size() const { return size_; }   // N, all ranks
    std::uint64_t first() const { return first_; } // global index of this rank's word 0
    std::uint64_t local_size() const { return words_.size(); }
    int ranks() const { return ranks_; }

    int owner(std::uint64_t update) const {
        std::uint64_t i = update & mask_;
        return i < boundary_ ? static_cast<int>(i / (base_ + 1)) : extra_ + static_cast<int>((i - boundary_) / base_);
    }
    void apply(std::uint64_t update) { words_[(update & mask_) - first_] ^= update; }
    void prefetch(std::uint64_t update) const { __builtin_prefetch(&words_[(update & mask_) - first_], 1); }
    // Updates [first, first + n) of this rank, in order, each word prefetched `ahead`
    // updates before it is applied (a received message: misses overlap).
    void apply_all(const std::uint64_t* updates, std::size_t n) {
        constexpr std::size_t ahead = 32;
        for (std::size_t i = 0; i < std::min(n, ahead); ++i) prefetch(updates[i]);
        for (std::size_t i = 0; i < n; ++i) {
            if (i + ahead < n) prefetch(updates[i + ahead]);
            apply(updates[i]);
        }
    }

    void reset();                       // T[i] = i
    std::uint64_t count_errors() const; // words with T[i] != i
    std::size_t bytes() const { return words_.capacity() * sizeof(std::uint64_t); }

private:
    std::uint64_t size_, mask_, first_;
    std::uint64_t base_, boundary_;
    int extra_, ranks_;
    std::vector<std::uint64_t> words_;
};

// Local updates applied a block at a time: each is prefetched when it is added, and the
// block is applied in order (read-modify-write one by one) when it is full or flushed, so
// up to `capacity` misses are in flight instead of one (bench/cpp/memory_limits.cpp).
// Updates of one word in one block are all applied: nothing is loaded ahead of its turn.
// Its updates count towards the rank's look-ahead budget.
class local_batch {
public:
    explicit local_batch(std::size_t capacity): updates_(capacity) {}
    std::size_t size() const { return size_; }
    bool full() const { return size_ == updates_.size(); }
    void add(gups_table& table, std::uint64_t update) {
        table.prefetch(update);
        updates_[size_++] = update;
        if (full()) flush(table);
    }
    void flush(gups_table& table) {
        for (std::size_t i = 0; i < size_; ++i) table.apply(updates_[i]);
        size_ = 0;
    }

private:
    std::vector<std::uint64_t> updates_;
    std::size_t size_ = 0;
};

} // namespace spikex
