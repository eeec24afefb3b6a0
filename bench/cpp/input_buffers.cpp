// Question: where should a spike's synaptic input wait until its arrival step, for the
// delivery pattern of NEST's hpc_benchmark? Three schemes on the same connections and spikes:
//  A delivery_ring (spikex's engine): per arrival step a bucket of the delay groups that
//    arrive then; at the step each group's connections are walked into two accumulators
//    per cell (ex if w > 0, else in), then one pass over the cells reads and zeroes them.
//  B neuron_rings (NEST): per-cell ring buffers of R = max delay + steps per interval
//    entries (NEST's "slots", one per step, here "ring steps"),
//    buffer[cell][ring step][channel]; after each interval's exchange every spike's
//    connections are walked once into the ring step of its arrival step; per step every
//    cell reads and clears its ring step.
//  C slot_buffers (the name kept in the output): B laid out ring-step-major,
//    buffer[ring step][channel][cell], one contiguous buffer per ring step (Jordan et al.
//    2018's one buffer per thread; one thread here).
//
// Set-up: hpc_benchmark on one rank and one thread: N = 11,250 cells (9,000 excitatory),
// fixed in-degree K split 4:1 between E (+45.61 pA) and I (-228.05 pA) with uniform
// sources, every delay 15 steps = the interval, dt = 0.1 ms. Every cell fires as a Poisson
// process at 10 Hz, drawn beforehand so that all schemes see the same spikes. Only delivery
// and the per-step read/clear are timed (the read stands in for the cell update and sums
// each cell's input over the run: the schemes must agree, exit 1 otherwise). Each scheme
// runs --repeats times, interleaved; the fastest run is reported. Prints one JSON object.
//
//   bench_input_buffers [--indegree K] [--seconds S] [--repeats R]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "spikex/connections/connection_table.hpp"

using namespace spikex;

namespace {

using clock_type = std::chrono::steady_clock;
double since(clock_type::time_point t0) { return std::chrono::duration<double>(clock_type::now() - t0).count(); }

struct parameters {
    std::uint32_t cells = 11'250, excitatory = 9'000;
    std::uint32_t indegree = 3'750;
    double seconds = 1.0, dt_ms = 0.1, rate_hz = 10.0;
    double weight_ex = 45.61, weight_in = -228.05;
    std::uint32_t delay = 15, interval = 15; // steps
    int repeats = 3;
    std::uint64_t seed = 12345;
};

// Everything the schemes share: the rank's connections, gid -> source run (the exchange's dense
// source lookup) and the spikes of each step, gids of step n in [first[n], first[n+1]).
struct network {
    parameters p;
    connection_table table;
    std::vector<std::uint32_t> run_of;
    step_type steps = 0;
    std::vector<std::uint32_t> first;
    std::vector<gid_type> spiking;
};

struct outcome {
    std::vector<double> total_ex, total_in; // per cell, summed by the per-step read
    std::uint64_t events = 0;
    double deliver_s = 0, read_s = 0;
    std::size_t bytes = 0; // the waiting structure
    double seconds() const { return deliver_s + read_s; }
};

constexpr std::uint32_t no_run_here = std::numeric_limits<std::uint32_t>::max();

network make_network(const parameters& p) {
    network net{p, {}, {}, 0, {}, {}};
    const std::uint32_t n = p.cells, ne = p.excitatory;
    const std::uint32_t ke = static_cast<std::uint32_t>(std::uint64_t(p.indegree) * ne / n), ki = p.indegree - ke;
    // The table's build calls this once per pass: the same seed gives the same sequence.
    // One part holds every target here, so the target range selects nothing.
    auto produce = [&](const connection_visitor& visit, target_range /*targets*/, bool /*weights*/) {
        std::mt19937_64 rng(p.seed);
        std::uniform_int_distribution<gid_type> from_e(0, ne - 1), from_i(ne, n - 1);
        built_connection c{};
        c.delay = p.delay;
        for (local_index t = 0; t < n; ++t) {
            c.target = t;
            c.weight = p.weight_ex;
            for (std::uint32_t k = 0; k < ke; ++k) c.source = from_e(rng), visit(c);
            c.weight = p.weight_in;
            for (std::uint32_t k = 0; k < ki; ++k) c.source = from_i(rng), visit(c);
        }
    };
    net.table = connection_table(produce, table_shape{n, {}}, true);
    net.run_of.assign(n, no_run_here);
    for (std::uint32_t s = 0; s < net.table.sources().size(); ++s) net.run_of[net.table.sources()[s]] = s;

    // At most one spike per cell and step, gaps geometric: a Poisson process on the grid.
    net.steps = std::llround(p.seconds * 1000.0 / p.dt_ms);
    std::mt19937_64 rng(p.seed + 1);
    std::geometric_distribution<step_type> gap(1.0 - std::exp(-p.rate_hz * p.dt_ms * 1e-3));
    std::vector<std::pair<step_type, gid_type>> spikes;
    for (gid_type g = 0; g < n; ++g) {
        for (step_type s = gap(rng); s < net.steps; s += 1 + gap(rng)) spikes.push_back({s, g});
    }
    std::sort(spikes.begin(), spikes.end());
    net.first.assign(net.steps + 1, 0);
    for (auto [s, g]: spikes) ++net.first[s + 1], net.spiking.push_back(g);
    for (step_type s = 0; s < net.steps; ++s) net.first[s + 1] += net.first[s];
    return net;
}

// Calls f(group, arrival) for every delay group that spikes emitted in [from, to) send
// and that arrives before the run ends.
template <class F>
void for_each_arrival(const network& net, step_type from, step_type to, F&& f) {
    const auto& table = net.table;
    for (step_type n = from; n < to; ++n) {
        for (auto k = net.first[n]; k < net.first[n + 1]; ++k) {
            const std::uint32_t run = net.run_of[net.spiking[k]];
            if (run == no_run_here) continue;
            for (auto g = table.group_begin(run); g < table.group_begin(run + 1); ++g) {
                const step_type arrival = n + table.group(g).delay;
                if (arrival < net.steps) f(g, arrival);
            }
        }
    }
}

// The table's targets as 4-byte indices (the table may keep them in 2 bytes).
std::vector<local_index> four_byte_targets(const connection_table& table) {
    std::vector<local_index> out(table.size());
    for (std::uint32_t c = 0; c < table.size(); ++c) out[c] = table.target(c);
    return out;
}

outcome run_delivery_ring(const network& net) {
    const auto& table = net.table;
    const std::uint32_t n = net.p.cells, m = net.p.interval;
    const std::size_t r = table.max_delay() + m + 1; // as engine::init
    std::vector<std::vector<std::uint32_t>> ring(r);
    std::vector<double> ex(n, 0.0), in(n, 0.0);
    outcome o{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
    const std::vector<local_index> wide = four_byte_targets(table); // the layouts compared read 4-byte targets
    const local_index* targets = wide.data();
    // Equal weights within every delay group (here: a source's sign decides its weight)
    // are stored once per group, as the engine stores them (connection_table).
    const bool uniform = table.all_weights_shared();
    std::size_t queued = 0, peak = 0;
    for (step_type k0 = 0; k0 < net.steps; k0 += m) {
        const step_type end = std::min<step_type>(k0 + m, net.steps);
        for (step_type s = k0; s < end; ++s) {
            auto t0 = clock_type::now();
            auto& bucket = ring[s % r];
            std::sort(bucket.begin(), bucket.end()); // canonical order (engine::prepare_step)
            for (auto g: bucket) {
                const double group_w = uniform ? table.group_weight(g) : 0.0;
                const std::uint32_t begin = table.group(g).begin;
                const double* weights = uniform ? nullptr : table.weights_of_group(g); // [c - begin]
                for (auto c = begin; c < table.group_end_connection(g); ++c) {
                    const double w = uniform ? group_w : weights[c - begin];
                    if (w > 0)
                        ex[targets[c]] += w;
                    else
                        in[targets[c]] += w;
                }
            }
            queued -= bucket.size();
            bucket.clear();
            auto t1 = clock_type::now();
            o.deliver_s += std::chrono::duration<double>(t1 - t0).count();
            for (std::uint32_t i = 0; i < n; ++i) {
                o.total_ex[i] += ex[i];
                o.total_in[i] += in[i];
                ex[i] = 0;
                in[i] = 0;
            }
            o.read_s += since(t1);
        }
        // The exchange at the interval's end enqueues group numbers, not events.
        auto t0 = clock_type::now();
        for_each_arrival(net, k0, end, [&](std::uint32_t g, step_type arrival) {
            ring[arrival % r].push_back(g);
            ++queued;
            o.events += table.group_end_connection(g) - table.group(g).begin;
        });
        peak = std::max(peak, queued);
        o.deliver_s += since(t0);
    }
    o.bytes = peak * sizeof(std::uint32_t) + r * sizeof(ring[0]) + 2 * n * sizeof(double);
    return o;
}

// B (ring_step_major = false) and C (true): the same walk, different index arithmetic.
template <bool ring_step_major>
outcome run_ring_buffers(const network& net) {
    const auto& table = net.table;
    const std::uint32_t n = net.p.cells, m = net.p.interval;
    const std::size_t r = table.max_delay() + m; // NEST: min delay + max delay ring steps
    std::vector<double> buffer(r * 2 * n, 0.0);
    outcome o{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
    const std::vector<local_index> wide = four_byte_targets(table); // the layouts compared read 4-byte targets
    const local_index* targets = wide.data();
    // Equal weights within every delay group (here: a source's sign decides its weight)
    // are stored once per group, as the engine stores them (connection_table).
    const bool uniform = table.all_weights_shared();
    for (step_type k0 = 0; k0 < net.steps; k0 += m) {
        const step_type end = std::min<step_type>(k0 + m, net.steps);
        for (step_type s = k0; s < end; ++s) {
            auto t0 = clock_type::now();
            const std::size_t ring_step = s % r;
            if constexpr (ring_step_major) {
                double* ex = &buffer[2 * ring_step * n];
                double* in = ex + n;
                for (std::uint32_t i = 0; i < n; ++i) {
                    o.total_ex[i] += ex[i];
                    o.total_in[i] += in[i];
                    ex[i] = 0;
                    in[i] = 0;
                }
            } else {
                double* p = &buffer[2 * ring_step];
                for (std::uint32_t i = 0; i < n; ++i, p += 2 * r) {
                    o.total_ex[i] += p[0];
                    o.total_in[i] += p[1];
                    p[0] = 0;
                    p[1] = 0;
                }
            }
            o.read_s += since(t0);
        }
        // Delivery after the exchange: every event into the ring step of its arrival step now.
        auto t0 = clock_type::now();
        for_each_arrival(net, k0, end, [&](std::uint32_t g, step_type arrival) {
            const std::size_t ring_step = arrival % r;
            const std::uint32_t begin = table.group(g).begin, stop = table.group_end_connection(g);
            const double group_w = uniform ? table.group_weight(g) : 0.0;
            const double* weights = uniform ? nullptr : table.weights_of_group(g); // [c - begin]
            if constexpr (ring_step_major) {
                double* ex = &buffer[2 * ring_step * n];
                double* in = ex + n;
                for (auto c = begin; c < stop; ++c) {
                    const double w = uniform ? group_w : weights[c - begin];
                    if (w > 0)
                        ex[targets[c]] += w;
                    else
                        in[targets[c]] += w;
                }
            } else {
                double* base = &buffer[2 * ring_step];
                for (auto c = begin; c < stop; ++c) {
                    const double w = uniform ? group_w : weights[c - begin];
                    double* p = base + std::size_t(targets[c]) * 2 * r;
                    if (w > 0)
                        p[0] += w;
                    else
                        p[1] += w;
                }
            }
            o.events += stop - begin;
        });
        o.deliver_s += since(t0);
    }
    o.bytes = buffer.size() * sizeof(double);
    return o;
}

// Largest relative difference per cell and channel (summation orders may differ).
double max_relative_difference(const outcome& a, const outcome& b) {
    double worst = 0;
    auto compare = [&](const std::vector<double>& x, const std::vector<double>& y) {
        for (std::size_t i = 0; i < x.size(); ++i) {
            const double scale = std::max(std::abs(x[i]), std::abs(y[i]));
            if (scale > 0) worst = std::max(worst, std::abs(x[i] - y[i]) / scale);
        }
    };
    compare(a.total_ex, b.total_ex);
    compare(a.total_in, b.total_in);
    return worst;
}

std::string first_line(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
            std::string model = line.substr(line.find(':') + 1);
            model.erase(0, model.find_first_not_of(' '));
            std::erase_if(model, [](char ch) { return ch == '"' || ch == '\\'; });
            return model;
        }
    }
    return "unknown";
}

// "L1d 48K, L2 1024K, ...": B and C hold 5.4 MB of buffers, A 0.2 MB; where they fit matters.
std::string cpu_caches() {
    std::string out;
    for (int i = 0; i < 8; ++i) {
        const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
        const std::string level = first_line(dir + "level"), type = first_line(dir + "type");
        if (level.empty()) break;
        if (type == "Instruction") continue;
        out += (out.empty() ? "" : ", ") + ("L" + level) + (type == "Data" ? "d " : " ") + first_line(dir + "size");
    }
    return out;
}

[[noreturn]] void usage() {
    std::fprintf(stderr, "usage: bench_input_buffers [--indegree K] [--seconds S] [--repeats R]\n");
    std::exit(2);
}

} // namespace

int main(int argc, char** argv) {
    parameters p;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (i + 1 >= argc) usage();
        const char* value = argv[++i];
        if (arg == "--indegree")
            p.indegree = static_cast<std::uint32_t>(std::strtoul(value, nullptr, 10));
        else if (arg == "--seconds")
            p.seconds = std::strtod(value, nullptr);
        else if (arg == "--repeats")
            p.repeats = std::atoi(value);
        else
            usage();
    }
    if (p.indegree < 1 || !(p.seconds > 0) || p.repeats < 1) usage();

    const network net = make_network(p);
    // Interleaved so that a slow phase of the shared machine does not hit one scheme only.
    const char* names[] = {"delivery_ring", "neuron_rings", "slot_buffers"};
    std::vector<outcome> best(3);
    std::vector<std::vector<double>> all(3);
    double worst = 0;
    bool same_events = true;
    for (int rep = 0; rep < p.repeats; ++rep) {
        outcome runs[] = {run_delivery_ring(net), run_ring_buffers<false>(net), run_ring_buffers<true>(net)};
        for (int s = 0; s < 3; ++s) {
            worst = std::max(worst, max_relative_difference(runs[0], runs[s]));
            same_events = same_events && runs[s].events == runs[0].events;
            all[s].push_back(runs[s].seconds());
            if (rep == 0 || runs[s].seconds() < best[s].seconds()) best[s] = std::move(runs[s]);
        }
    }
    const bool agree = same_events && worst <= 1e-6;

    std::printf(
        "{\n  \"question\": \"where a spike's input waits until its arrival step (hpc_benchmark delivery)\",\n");
    std::printf("  \"cpu\": \"%s\",\n  \"caches\": \"%s\",\n", cpu_model().c_str(), cpu_caches().c_str());
    std::printf("  \"parameters\": {\"cells\": %u, \"excitatory\": %u, \"indegree\": %u, \"weight_ex_pA\": %.2f, "
                "\"weight_in_pA\": %.2f, \"delay_steps\": %u, \"dt_ms\": %.1f, \"steps_per_interval\": %u, "
                "\"seconds\": %g, \"steps\": %lld, \"rate_hz\": %.1f, \"repeats\": %d, \"connections\": %zu, "
                "\"spikes\": %zu},\n",
                p.cells, p.excitatory, p.indegree, p.weight_ex, p.weight_in, p.delay, p.dt_ms, p.interval, p.seconds,
                static_cast<long long>(net.steps), p.rate_hz, p.repeats, net.table.size(), net.spiking.size());
    std::printf("  \"agree\": %s,\n  \"max_relative_difference\": %.3g,\n  \"results\": [\n", agree ? "true" : "false",
                worst);
    for (int s = 0; s < 3; ++s) {
        const outcome& o = best[s];
        std::printf("    {\"scheme\": \"%c\", \"kind\": \"%s\", \"seconds\": %.4f, \"deliver_seconds\": %.4f, "
                    "\"read_seconds\": %.4f, \"ns_per_event\": %.3f, \"bytes\": %zu, \"events\": %llu, "
                    "\"seconds_all\": [",
                    'A' + s, names[s], o.seconds(), o.deliver_s, o.read_s,
                    o.events ? 1e9 * o.seconds() / double(o.events) : 0.0, o.bytes,
                    static_cast<unsigned long long>(o.events));
        for (std::size_t r = 0; r < all[s].size(); ++r) std::printf("%s%.4f", r ? ", " : "", all[s][r]);
        std::printf("]}%s\n", s < 2 ? "," : "");
    }
    std::printf("  ]\n}\n");
    if (!agree) {
        std::fprintf(stderr,
                     "bench_input_buffers: the schemes disagree (events %s, max relative "
                     "difference %g)\n",
                     same_events ? "equal" : "differ", worst);
        return 1;
    }
}
