// Question: what does a step of one cell cost for each neuron model (the ODE layer's
// conductance-based and Hodgkin-Huxley models, Euler, exact propagators), under comparable
// drive? Each model's group of N cells runs S steps at dt = 0.1 ms with a constant current
// that makes every cell fire at a few tens of Hz and one input every fourth step to each
// cell (about 2.5 kHz of input per cell, half excitatory, half inhibitory). Only the
// group's own work is timed (deliver + end_step); the fastest of --repeats runs is
// reported, as ns per cell and step, with the spike count and the model's integration
// (its registry entry). Prints one JSON object (docs/dev/ode.md).
//
//   bench_model_step_cost [--cells N] [--steps S] [--repeats R]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "spikex/models/cell_group.hpp"
#include "spikex/models/model_registry.hpp"
#include "spikex/models/ode/lanes.hpp"
#include "spikex/network/network_spec.hpp"

using namespace spikex;

namespace {

struct counter final: spike_output {
    std::uint64_t spikes = 0;
    void emit(local_index, step_type) override { ++spikes; }
};

struct measured {
    double ns_per_cell_step;
    std::uint64_t spikes;
};

measured run(const std::string& model, const std::map<std::string, double>& params, double weight, std::uint32_t cells,
             step_type steps) {
    network_spec spec;
    spec.dt_ms = 0.1;
    spec.seed = 1;
    spec.populations.push_back({model, 0, cells, constant_parameter_map(params), {}});
    std::vector<gid_type> gids(cells);
    for (std::uint32_t i = 0; i < cells; ++i) gids[i] = i;
    auto group = find_model(model).make(spec, gids, 0);
    std::vector<local_index> targets;
    std::vector<double> weights;
    counter out;
    const auto t0 = std::chrono::steady_clock::now();
    for (step_type n = 0; n < steps; ++n) {
        targets.clear();
        weights.clear();
        for (std::uint32_t i = std::uint32_t(n % 4); i < cells; i += 4) {
            targets.push_back(i);
            weights.push_back((i / 4 + n) % 2 ? weight : -weight);
        }
        group->begin_step(n, out);
        group->deliver(n, targets.data(), weights.data(), 0, std::uint32_t(targets.size()), out);
        group->end_step(n, out);
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return {s * 1e9 / (double(cells) * double(steps)), out.spikes};
}

} // namespace

int main(int argc, char** argv) {
    std::uint32_t cells = 10'000;
    step_type steps = 2'000;
    int repeats = 3;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--cells") cells = std::uint32_t(std::atol(argv[i + 1]));
        if (flag == "--steps") steps = std::atol(argv[i + 1]);
        if (flag == "--repeats") repeats = std::atoi(argv[i + 1]);
    }
    struct model_case {
        const char* name;
        std::map<std::string, double> params;
        double weight; // pA (current-based) or nS (conductance-based)
    };
    const std::vector<model_case> cases = {
        {"iaf_psc_exp", {{"I_e", 400.0}}, 20.0},
        {"iaf_psc_alpha", {{"I_e", 400.0}}, 20.0},
        {"iaf_psc_delta", {{"I_e", 400.0}}, 0.5}, // mV
        {"interval_fire", {}, 0.0},               // fires by itself; weight 0 as the Hines benchmark
        {"izhikevich", {{"I_e", 5.0}}, 0.5},
        {"iaf_cond_exp", {{"I_e", 400.0}}, 1.0},
        {"iaf_cond_alpha", {{"I_e", 400.0}}, 1.0},
        {"iaf_cond_exp_sfa_rr", {{"I_e", 400.0}}, 1.0},
        {"gif_cond_exp", {{"I_e", 170.0}}, 1.0},
        {"aeif_cond_exp", {{"I_e", 800.0}}, 1.0},
        {"aeif_cond_alpha", {{"I_e", 800.0}}, 1.0},
        {"hh_cond_exp_traub", {{"I_e", 400.0}}, 1.0},
        {"hh_psc_alpha", {{"I_e", 400.0}}, 20.0},
    };
    double load = -1.0; // the machine's 1-minute load average before the runs
    if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
        if (std::fscanf(f, "%lf", &load) != 1) load = -1.0;
        std::fclose(f);
    }
    std::printf("{\"cells\": %u, \"steps\": %lld, \"dt_ms\": 0.1, \"load_average_1min\": %.2f, \"vector_isa\": \"%s\", "
                "\"models\": {",
                cells, (long long)steps, load, spikex::ode::wide_vectors() ? "avx512" : "baseline");
    for (std::size_t k = 0; k < cases.size(); ++k) {
        measured best{1e300, 0};
        for (int r = 0; r < repeats; ++r) {
            const measured m = run(cases[k].name, cases[k].params, cases[k].weight, cells, steps);
            if (m.ns_per_cell_step < best.ns_per_cell_step) best = m;
        }
        std::printf("%s\"%s\": {\"ns_per_cell_step\": %.2f, \"spikes\": %llu, \"integration\": \"%s\"}", k ? ", " : "",
                    cases[k].name, best.ns_per_cell_step, (unsigned long long)best.spikes,
                    find_model(cases[k].name).integration.c_str());
    }
    std::printf("}}\n");
    return 0;
}
