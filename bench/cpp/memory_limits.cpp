// Question: what can this machine's memory system sustain for GUPS-like work (issue 21)?
//
//  latency: a pointer chase through a table far larger than the caches (one random cyclic
//    permutation, Sattolo's algorithm): every load waits for the one before, so ns per
//    step is the DRAM latency (plus a TLB miss, rarer on huge pages).
//  updates with k streams: T[a & (N - 1)] ^= a for a from the HPCC generator, in blocks of
//    k: the k addresses are generated, prefetched, then applied in order. k = 1 is one
//    update at a time; a larger k keeps up to k misses in flight (memory-level
//    parallelism). ns per update against k shows the limit the local path of GUPS can reach.
//    Each k twice: prefetched into L1 (prefetcht0) and into L2 (prefetcht1; what `spikex
//    gups` does, gups_table.hpp). On this machine's Xeon L1 prefetches got slower beyond
//    about 128 in flight and L2 ones did not (2026-11-27).
//    Applying in order after the prefetches loses no update when a block holds one word
//    twice (HPCC's Sandia opt2 loads a block's words first and loses such updates).
//
// The table is 2^log2 words (default 2^26, 512 MiB), on transparent huge pages as
// `spikex gups` asks for them (--huge-pages 0: 4 KiB pages). Every measurement is run
// --repeats times; the fastest is reported. The update runs are checked: applying the same stream
// again must give back T[i] = i. Prints one JSON object.
//
//   bench_memory_limits [--log2 26] [--updates 16777216] [--repeats 3] [--huge-pages 1]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include <sys/mman.h>

#include "spikex/gups/hpcc_stream.hpp"

using namespace spikex;

namespace {

using seconds_clock = std::chrono::steady_clock;

// Tables 2 MiB-aligned, with transparent huge pages asked for when `huge` is set (as
// gups_table does), before the first touch.
bool huge = true;
template <class T>
struct table_allocator {
    using value_type = T;
    table_allocator() = default;
    template <class U>
    table_allocator(const table_allocator<U>&) {}
    T* allocate(std::size_t n) {
        constexpr std::size_t page = std::size_t(2) << 20;
        const std::size_t bytes = (n * sizeof(T) + page - 1) / page * page;
        void* p = std::aligned_alloc(page, bytes);
        if (p == nullptr) throw std::bad_alloc();
        if (huge) madvise(p, bytes, MADV_HUGEPAGE);
        return static_cast<T*>(p);
    }
    void deallocate(T* p, std::size_t) { std::free(p); }
    bool operator==(const table_allocator&) const { return true; }
};
using words = std::vector<std::uint64_t, table_allocator<std::uint64_t>>;

double seconds_since(seconds_clock::time_point start) {
    return std::chrono::duration<double>(seconds_clock::now() - start).count();
}

// Random cyclic permutation: next[i] is the slot after i, one cycle through every slot.
words random_cycle(std::uint64_t n) {
    words next(n);
    for (std::uint64_t i = 0; i < n; ++i) next[i] = i;
    std::uint64_t state = 0x9e3779b97f4a7c15ULL;
    for (std::uint64_t i = n - 1; i > 0; --i) { // Sattolo: j < i, so one cycle
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        std::swap(next[i], next[state % i]);
    }
    return next;
}

double chase_ns(const words& next, std::uint64_t steps) {
    std::uint64_t at = 0;
    const auto start = seconds_clock::now();
    for (std::uint64_t s = 0; s < steps; ++s) at = next[at];
    const double took = seconds_since(start);
    if (at == next.size()) std::printf(" "); // keep the chase
    return took * 1e9 / double(steps);
}

// Applies `count` updates of the HPCC stream from its start in blocks of k, each block's
// words prefetched with __builtin_prefetch's `Locality` (3: prefetcht0, into L1; 2:
// prefetcht1, into L2); seconds.
template <int Locality>
double updates_in_blocks(words& table, std::uint64_t count, unsigned k) {
    const std::uint64_t mask = table.size() - 1;
    std::vector<std::uint64_t> block(k);
    std::uint64_t value = hpcc_starts(0);
    const auto start = seconds_clock::now();
    for (std::uint64_t done = 0; done < count; done += k) {
        const unsigned n = static_cast<unsigned>(std::min<std::uint64_t>(k, count - done));
        for (unsigned i = 0; i < n; ++i) {
            value = hpcc_next(value);
            block[i] = value;
            __builtin_prefetch(&table[value & mask], 0, Locality);
        }
        for (unsigned i = 0; i < n; ++i) table[block[i] & mask] ^= block[i];
    }
    return seconds_since(start);
}

std::uint64_t option(int argc, char** argv, const std::string& name, std::uint64_t fallback) {
    for (int i = 1; i + 1 < argc; ++i)
        if (name == argv[i]) return std::strtoull(argv[i + 1], nullptr, 10);
    return fallback;
}

} // namespace

int main(int argc, char** argv) {
    const auto log2 = option(argc, argv, "--log2", 26);
    const auto updates = option(argc, argv, "--updates", std::uint64_t(1) << 24);
    const auto repeats = option(argc, argv, "--repeats", 3);
    huge = option(argc, argv, "--huge-pages", 1) != 0;
    const std::uint64_t n = std::uint64_t(1) << log2;

    double latency = 1e300;
    {
        const auto next = random_cycle(n);
        chase_ns(next, n / 16); // warm the pages
        for (std::uint64_t r = 0; r < repeats; ++r) latency = std::min(latency, chase_ns(next, std::uint64_t(1) << 22));
    }

    words table(n);
    for (std::uint64_t i = 0; i < n; ++i) table[i] = i;
    std::printf("{\"question\": \"DRAM latency and random-update throughput with k updates in flight\", ");
    std::printf("\"table_words\": %llu, \"table_mib\": %llu, \"updates\": %llu, \"repeats\": %llu, "
                "\"huge_pages\": %s, ",
                (unsigned long long)n, (unsigned long long)(n * 8 >> 20), (unsigned long long)updates,
                (unsigned long long)repeats, huge ? "true" : "false");
    std::printf("\"latency_ns\": %.2f, \"blocks\": [", latency);
    bool first = true;
    struct prefetch_kind {
        const char* name;
        double (*run)(words&, std::uint64_t, unsigned);
    };
    for (const prefetch_kind kind:
         {prefetch_kind{"L1", updates_in_blocks<3>}, prefetch_kind{"L2", updates_in_blocks<2>}}) {
        for (unsigned k: {1u, 2u, 4u, 8u, 16u, 32u, 64u, 128u, 256u, 512u, 1024u}) {
            double best = 1e300;
            for (std::uint64_t r = 0; r < repeats; ++r) {
                best = std::min(best, kind.run(table, updates, k));
                kind.run(table, updates, k); // the same updates again: T[i] = i
            }
            for (std::uint64_t i = 0; i < n; ++i) {
                if (table[i] != i) {
                    std::fprintf(stderr, "memory_limits: word %llu wrong after k = %u\n", (unsigned long long)i, k);
                    return 1;
                }
            }
            std::printf("%s{\"k\": %u, \"prefetch\": \"%s\", \"ns_per_update\": %.3f, \"gups\": %.5f}",
                        first ? "" : ", ", k, kind.name, best * 1e9 / double(updates), double(updates) / best * 1e-9);
            first = false;
        }
    }
    std::printf("]}\n");
    return 0;
}
