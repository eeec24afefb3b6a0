#pragma once
// gups: the distributed table of HPCC RandomAccess (Garg & Sabharwal, section 2): N = 2^k
// 64-bit words T[i] = i, in contiguous blocks over P ranks (the first N mod P ranks hold
// one word more), and the split of the 4 N updates of the one global stream into
// contiguous pieces, one per rank, the same way.
//
// Algorithm: update a goes to word a & (N - 1) of the rank owning it; applying it is
//   T[a & (N - 1)] ^= a. XOR is its own inverse, so applying every update a second time
//   restores T[i] = i: verification counts the words where that fails.
// Memory layout: the words are aligned to 2 MiB and, unless switched off, transparent huge
//   pages are asked for (madvise MADV_HUGEPAGE): a random update then misses the TLB far
//   less often (one entry covers 2 MiB instead of 4 KiB; bench/cpp/memory_limits.cpp).
// Owner of a word: a shift when P is a power of two (every rank holds N / P words), else
//   the division by the block size.
// Messages and bytes: none (the algorithms move updates). Memory: 8 N / P bytes per rank.
// Ordering guarantee: XOR is associative and commutative: any order gives the same table.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
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
    // huge_pages: ask for transparent huge pages for the words (huge_pages() says whether
    // the kernel accepted the request; it may still back some of them with small pages).
    gups_table(int log2_size, int ranks, int rank, bool huge_pages = true);

    std::uint64_t size() const { return size_; }   // N, all ranks
    std::uint64_t first() const { return first_; } // global index of this rank's word 0
    std::uint64_t local_size() const { return local_size_; }
    int ranks() const { return ranks_; }
    bool huge_pages() const { return huge_pages_; }

    int owner(std::uint64_t update) const {
        std::uint64_t i = update & mask_;
        if (shift_ >= 0) return static_cast<int>(i >> shift_);
        return i < boundary_ ? static_cast<int>(i / (base_ + 1)) : extra_ + static_cast<int>((i - boundary_) / base_);
    }
    void apply(std::uint64_t update) { words_[(update & mask_) - first_] ^= update; }
    void prefetch(std::uint64_t update) const { prefetch_word(&words_[(update & mask_) - first_]); }
    // The word of `update` if `mine`, else word 0 (in cache, almost free): a prefetch for
    // every generated update without a branch on its owner.
    void prefetch_if(std::uint64_t update, bool mine) const {
        const std::uint64_t index = ((update & mask_) - first_) & (std::uint64_t(0) - std::uint64_t(mine));
        prefetch_word(&words_[index]);
    }
    // Into L2 (prefetcht1), not L1 (prefetcht0): the local block holds 512 prefetched
    // words, a received run up to 256 ahead, and with that many lines in flight L1
    // prefetches got slower while L2 ones did not (memory_limits.cpp on 2^24 words, 2026-11-27:
    // 7.4 ns an update at 128 in flight and 8.3 at 512 into L1, 6.7 at both into L2).
    // GUPS with 2^24 words went from 0.12-0.14 to 0.15-0.17 at P = 1 and from 0.18-0.19
    // to 0.19-0.20 at P = 2, with 2^26 words from 0.116 to 0.14 at P = 2 (interleaved runs).
    static void prefetch_word(const std::uint64_t* word) { __builtin_prefetch(word, 0, 2); }
    // How far ahead a received run is prefetched: as deep as the local blocks (random
    // updates keep getting cheaper up to ~256 in flight: bench/cpp/memory_limits.cpp).
    static constexpr std::size_t ahead = 256;
    // Updates [first, first + n) of this rank, in order, each word prefetched `ahead`
    // updates before it is applied (a received message: misses overlap).
    void apply_all(const std::uint64_t* updates, std::size_t n) {
        for (std::size_t i = 0; i < std::min(n, ahead); ++i) prefetch(updates[i]);
        for (std::size_t i = 0; i < n; ++i) {
            if (i + ahead < n) prefetch(updates[i + ahead]);
            apply(updates[i]);
        }
    }
    // The same for updates stored as bytes (8 each, native order), e.g. a message in a
    // receive buffer: read in place, no copy.
    void apply_all(const unsigned char* updates, std::size_t n) {
        auto at = [updates](std::size_t i) {
            std::uint64_t u;
            std::memcpy(&u, updates + i * sizeof u, sizeof u);
            return u;
        };
        for (std::size_t i = 0; i < std::min(n, ahead); ++i) prefetch(at(i));
        for (std::size_t i = 0; i < n; ++i) {
            if (i + ahead < n) prefetch(at(i + ahead));
            apply(at(i));
        }
    }

    void reset();                       // T[i] = i
    std::uint64_t count_errors() const; // words with T[i] != i
    std::size_t bytes() const { return allocated_bytes_; }

private:
    struct free_words {
        void operator()(std::uint64_t* p) const;
    };
    std::uint64_t size_, mask_, first_;
    std::uint64_t base_, boundary_;
    int extra_, ranks_;
    int shift_ = -1; // owner = i >> shift_ when >= 0 (P a power of two)
    std::uint64_t local_size_ = 0;
    std::size_t allocated_bytes_ = 0;
    bool huge_pages_ = false;
    std::unique_ptr<std::uint64_t[], free_words> words_;
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
    std::size_t capacity() const { return updates_.size(); }
    bool full() const { return size_ == updates_.size(); }
    // Room for capacity() - size() more, written in place and then taken with added():
    // a caller can store every update and keep only its own without a branch. The caller
    // has prefetched their words (gups_table::prefetch_if, as it generated them).
    std::uint64_t* tail() { return updates_.data() + size_; }
    // Both return whether the block is now full: the caller then applies it (flush), so
    // that it can time that on its own.
    bool added(std::size_t count) {
        size_ += count;
        return full();
    }
    bool add(gups_table& table, std::uint64_t update) {
        table.prefetch(update);
        updates_[size_++] = update;
        return full();
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
