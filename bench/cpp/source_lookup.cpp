// Question: which source lookup should the Allgather exchange use on receipt — a dense
// table indexed by gid, an open-addressing hash table, or binary search in the sorted
// source list? Every rank looks up every spike of the network (P * spikes per rank), so
// the lookup is on the per-spike path.
//
// Set-up: N cells, a rank whose cells have `S` distinct sources (drawn uniformly), queries
// are uniformly random gids (Allgather delivers every spike; a fraction S/N is a hit).
// Prints one JSON object: ns per lookup and bytes, per kind and size.
#include <chrono>
#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "spikex/connections/source_lookup.hpp"

using namespace spikex;

int main() {
    struct size_case {
        std::uint32_t cells, sources;
    };
    // sources: distinct sources of a rank holding n cells with 1000 inputs each,
    // S = N (1 - exp(-n*1000/N)): 8192 cells on 1/4 ranks; 1M cells on 256/4096 ranks;
    // 32M cells on 128K ranks (the paper's largest run).
    const std::vector<size_case> cases = {
        {8192, 8192}, {8192, 8050}, {1u << 20, 1048000}, {1u << 20, 226000}, {1u << 25, 255000}};
    const int queries = 4'000'000;
    std::printf("{\n  \"question\": \"cost per lookup of a received spike's source\",\n  \"results\": [\n");
    bool first = true;
    for (auto sc: cases) {
        std::mt19937_64 rng(12345);
        std::set<gid_type> chosen;
        std::uniform_int_distribution<gid_type> any(0, sc.cells - 1);
        while (chosen.size() < sc.sources) chosen.insert(any(rng));
        std::vector<gid_type> sources(chosen.begin(), chosen.end());
        std::vector<gid_type> q(queries);
        for (auto& g: q) g = any(rng);
        for (std::string kind: {"dense", "hash", "sorted"}) {
            auto lookup = make_source_lookup(kind, sources, sc.cells);
            std::uint64_t hits = 0;
            auto t0 = std::chrono::steady_clock::now();
            for (auto g: q) hits += lookup->find(g) != no_run;
            double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            std::printf("%s    {\"kind\": \"%s\", \"cells\": %u, \"sources\": %u, \"ns_per_lookup\": %.2f, "
                        "\"bytes\": %zu, \"hits\": %llu}",
                        first ? "" : ",\n", kind.c_str(), sc.cells, sc.sources, 1e9 * s / queries,
                        lookup->bytes() + (kind == "sorted" ? sources.size() * sizeof(gid_type) : 0),
                        static_cast<unsigned long long>(hits));
            first = false;
        }
    }
    std::printf("\n  ]\n}\n");
}
