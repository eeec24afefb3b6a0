// Question: what are this machine's parameters of the spikex time model
// (python/spikex/scaling/time_model.py)? Message latency and bandwidth, send and receive
// overhead of a 16-byte spike message, cost of one Allgather stage, one Alltoall partner,
// one Allreduce and Barrier, and the CPU costs of handling an arrived spike (source lookup
// + enqueue), skipping a buffer entry without local targets, and one routing hop.
//
// Run under mpiexec with 2 ranks (bench/fit_profile.py does, and writes
// profiles/local.toml). Each measurement is the median of several repetitions; prints one
// JSON object on rank 0.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "spikex/comm/context.hpp"
#include "spikex/connections/source_lookup.hpp"
#include "spikex/route/process_grid.hpp"
#include "spikex/route/route_table.hpp"

using namespace spikex;

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Median over `repeats` of the seconds per operation of `body(n)` doing n operations.
double per_op(int repeats, int n, const std::function<void(int)>& body) {
    std::vector<double> t;
    for (int r = 0; r < repeats; ++r) {
        double start = now();
        body(n);
        t.push_back((now() - start) / n);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int stages(int p) { return p > 1 ? static_cast<int>(std::ceil(std::log2(p))) : 1; }

} // namespace

int main() {
    auto comm = make_mpi_context();
    const int me = comm->rank(), p = comm->size();
    const int peer = me ^ 1;
    const bool paired = peer < p;
    constexpr int tag = 77;

    // Ping-pong: half the round trip of `bytes` between ranks 0 and 1.
    auto pingpong = [&](std::size_t bytes, int n) {
        std::vector<char> buf(bytes);
        comm->barrier();
        double t = per_op(5, n, [&](int k) {
            for (int i = 0; i < k; ++i) {
                if (!paired) continue;
                if (me % 2 == 0) {
                    auto r = comm->isend(peer, tag, buf.data(), bytes);
                    comm->wait(r);
                    comm->recv(peer, tag, buf.data(), bytes);
                } else {
                    comm->recv(peer, tag, buf.data(), bytes);
                    auto r = comm->isend(peer, tag, buf.data(), bytes);
                    comm->wait(r);
                }
            }
        });
        return t / 2;
    };
    const double latency = pingpong(16, 2000);
    const std::size_t big = 1 << 20;
    const double big_time = pingpong(big, 20);
    const double bandwidth = big / std::max(big_time - latency, 1e-12);

    // Send overhead: posting an Isend of 16 bytes (then completing them all);
    // receive overhead: Iprobe + Recv of one arrived 16-byte message.
    double send_overhead = 0, receive_overhead = 0;
    {
        const int n = 20000;
        std::vector<request> requests(n);
        char msg[16] = {};
        std::vector<double> sends, receives;
        for (int rep = 0; rep < 5; ++rep) {
            comm->barrier();
            if (me == 0 && paired) {
                double start = now();
                for (int i = 0; i < n; ++i) requests[i] = comm->isend(peer, tag, msg, sizeof msg);
                sends.push_back((now() - start) / n);
                for (auto& r: requests) comm->wait(r);
            }
            comm->barrier(); // everything has arrived at rank 1 (eager protocol)
            if (me == 1) {
                double start = now();
                probe_result found;
                int got = 0;
                while (got < n) {
                    if (comm->iprobe(any_source, tag, found)) {
                        comm->recv(found.source, tag, msg, sizeof msg);
                        ++got;
                    }
                }
                receives.push_back((now() - start) / n);
            }
            comm->barrier();
        }
        std::sort(sends.begin(), sends.end());
        std::sort(receives.begin(), receives.end());
        std::int64_t s = sends.empty() ? 0 : static_cast<std::int64_t>(sends[sends.size() / 2] * 1e12);
        std::int64_t r = receives.empty() ? 0 : static_cast<std::int64_t>(receives[receives.size() / 2] * 1e12);
        send_overhead = comm->allreduce_max(s) * 1e-12;
        receive_overhead = comm->allreduce_max(r) * 1e-12;
    }

    // Collectives with small payloads (a 24-byte Allgather block, one 8-byte Alltoall record),
    // each after a barrier and `compute_s` of busy computation, as in a simulation interval
    // (back-to-back collectives on an idle pair of cores would be much faster than what a
    // run sees on a shared machine, where a rank that computed may have lost its core).
    constexpr double compute_s = 0.5e-3;
    auto spin = [](double seconds) {
        double until = now() + seconds;
        while (now() < until) {}
    };
    auto collective = [&](const std::function<void()>& op) {
        std::vector<double> t;
        for (int i = 0; i < 400; ++i) {
            spin(compute_s);
            comm->barrier();
            double start = now();
            op();
            t.push_back(now() - start);
        }
        std::sort(t.begin(), t.end());
        double mean = 0;
        for (double x: t) mean += x;
        // the mean, as the model predicts run totals; as a double in ps on every rank
        std::int64_t ps = static_cast<std::int64_t>(mean / t.size() * 1e12);
        return comm->allreduce_max(ps) * 1e-12;
    };
    std::vector<char> a(24), b(24 * p), c(8 * p), d(8 * p);
    comm->barrier();
    const double allgather = collective([&] { comm->allgather(a.data(), a.size(), b.data()); });
    const double alltoall = collective([&] { comm->alltoall(c.data(), 8, d.data()); });
    std::int64_t v[2] = {1, 2};
    const double allreduce = collective([&] { comm->allreduce_sum(v, 2); });
    const double barrier = collective([&] { comm->barrier(); });

    // CPU: look up a received spike's source in the dense table and enqueue it (a hit), and
    // skip an entry with no local target (a miss), as the Allgather receive loop does.
    const std::uint32_t cells = 1u << 16;
    std::vector<gid_type> sources;
    for (gid_type g = 0; g < cells; g += 4) sources.push_back(g);
    auto lookup = make_source_lookup("dense", sources, cells);
    std::mt19937 rng(1);
    std::vector<gid_type> hits(1 << 16), misses(1 << 16);
    for (auto& g: hits) g = static_cast<gid_type>(rng() % (cells / 4)) * 4;
    for (auto& g: misses) g = static_cast<gid_type>(rng() % (cells / 4)) * 4 + 1;
    std::vector<std::pair<std::uint32_t, std::int64_t>> queue;
    queue.reserve(hits.size());
    volatile std::uint64_t sink = 0;
    const double handling = per_op(7, static_cast<int>(hits.size()), [&](int k) {
        queue.clear();
        for (int i = 0; i < k; ++i) queue.emplace_back(lookup->find(hits[i]), i);
        sink = sink + queue.size();
    });
    const double scan = per_op(7, static_cast<int>(misses.size()), [&](int k) {
        std::uint64_t found = 0;
        for (int i = 0; i < k; ++i) found += lookup->find(misses[i]) != no_run;
        sink = sink + found;
    });

    // One routing hop: next-hop lookup of an item and its copy into the bucket.
    process_grid grid(4096, {16, 16, 16});
    route_table table(grid, 0);
    std::vector<std::uint32_t> destinations(1 << 16);
    for (auto& t: destinations) t = rng() % 4096;
    std::vector<unsigned char> bucket(12 * (1 << 16));
    const double hop = per_op(7, static_cast<int>(destinations.size()), [&](int k) {
        for (int i = 0; i < k; ++i) {
            std::uint32_t item[3] = {destinations[i], static_cast<std::uint32_t>(i), 7};
            auto router = table.router_of(static_cast<int>(destinations[i]));
            std::memcpy(&bucket[12 * ((i + router) & 0xffff)], item, 12);
        }
        sink = sink + bucket[5];
    });

    if (me == 0) {
        std::printf("{\n  \"question\": \"time-model parameters of this machine\",\n  \"ranks\": %d,\n", p);
        std::printf("  \"latency_s\": %.4e,\n  \"bandwidth_bytes_per_s\": %.4e,\n", latency, bandwidth);
        std::printf("  \"send_overhead_s\": %.4e,\n  \"receive_overhead_s\": %.4e,\n", send_overhead, receive_overhead);
        std::printf("  \"allgather_s\": %.4e,\n  \"allgather_stage_s\": %.4e,\n", allgather, allgather / stages(p));
        std::printf("  \"alltoall_s\": %.4e,\n  \"alltoall_partner_s\": %.4e,\n", alltoall,
                    alltoall / std::max(1, p - 1));
        std::printf("  \"allreduce_s\": %.4e,\n  \"barrier_s\": %.4e,\n  \"barrier_stage_s\": %.4e,\n", allreduce,
                    barrier, barrier / stages(p));
        std::printf("  \"spike_handling_s\": %.4e,\n  \"scan_entry_s\": %.4e,\n  \"route_hop_s\": %.4e\n}\n", handling,
                    scan, hop);
    }
    comm.reset();
    finalize_mpi_if_initialized();
    return 0;
}
