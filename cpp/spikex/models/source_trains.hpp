#pragma once
// What the renewal spike sources share (spike_source_gamma, spike_source_poisson_refractory,
// spike_source_inh_gamma): each cell emits one train, the same to every target, made of
// one or several independent component processes, all drawn from the cell's own stream
// (seed, gid, purpose::source_train) and nothing else, so a train never depends on ranks,
// threads or layout.
//
// Event-driven: each component keeps the step of its next event; a cell keeps its
// components in a min-heap of (step, component) and the group keeps each cell's earliest
// step in a queue. When a component's event is taken, its next one is drawn at once from
// the cell's stream; components due in one step draw in component order. A cell spikes at
// most once per step: events of one step (of several components, or two of one component)
// make one spike.
//
// A Process says what a model's components do:
//   struct setup;      per cell: the parsed parameters, what follows from them, and
//                      `active` (a window: the emission steps first..last it acts in),
//                      `components` (how many) and `digest` (of every parameter)
//   static setup parse(const population_spec&, gid_type, std::uint32_t seed, double dt);
//   static step_type first(const setup&, std::uint32_t component, random_stream&, double& t);
//   static step_type next(const setup&, step_type fired, random_stream&, double& t);
// first(): the step of a component's first event from the process's initial state;
// next(): the step of its next event after one at step `fired`; both return a step
// > active.last (`never`) when there is none. `t` is the cell's continuous time of the
// event drawn last (spike_source_inh_gamma; a single-component process only).
//
// Checkpoints. A cell of one component (n_proc = 1; spike_source_inh_gamma always) saves
// its state: the step and time of its next event and the words its stream has used. A
// superposition's state (every component's next event) has no fixed size; it saves
// none, and a loaded group draws its train again from the start, dropping the events of
// the steps before the one it resumes at (the same train: the draws depend on nothing
// else). The same happens after a parameter change (a rebuilt group: its `digest`
// differs): from then on the cell emits the train the new parameters give from the start.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "spikex/core/random.hpp"
#include "spikex/models/cell_group.hpp"

namespace spikex::source_trains {

// "No event": later than any window's last step.
inline constexpr step_type never = std::numeric_limits<step_type>::max();
// An unbounded window's last step (room for step + draw without overflow).
inline constexpr step_type unbounded = std::numeric_limits<step_type>::max() / 4;
inline constexpr double infinity = std::numeric_limits<double>::infinity();

// The emission steps a NEST device acts in: NEST is active at step s when
// t_min < s <= t_max, t_min = (origin + start)/dt and t_max = (origin + stop)/dt, here
// rounded to the nearest step (NEST requires grid times). A spike of step s is NEST's
// stamp s + 1.
struct window {
    step_type first = 1, last = unbounded;
};

inline step_type device_steps(double ms, double dt) {
    const double steps = std::round(ms / dt);
    return steps < double(unbounded) ? static_cast<step_type>(steps) : unbounded;
}

inline window device_window(double start, double stop, double origin, double dt) {
    return {device_steps(origin + start, dt) + 1, device_steps(origin + stop, dt)};
}

// Bernoulli trials of probability p, one per step: how many up to and including the first
// success (1, 2, ...), by inversion of one uniform u: 1 + floor(ln(1 - u) / ln(1 - p)).
// `never` when it lies beyond any window. One uniform is drawn whatever p is.
inline step_type trials_to_success(random_stream& stream, double p) {
    const double u = stream.next_uniform();
    if (p >= 1.0) return 1;
    if (!(p > 0.0)) return never;
    const double failures = std::floor(std::log1p(-u) / std::log1p(-p));
    return failures < 1e17 ? static_cast<step_type>(failures) + 1 : never;
}

// A standard normal by Box-Muller from two uniforms (the cosine half only, so that the
// stream's position is the whole state).
inline double standard_normal(random_stream& stream) {
    const double u1 = stream.next_uniform();
    const double u2 = stream.next_uniform();
    return std::sqrt(-2.0 * std::log1p(-u1)) * std::cos(2.0 * 3.14159265358979323846 * u2);
}

// A gamma variate of shape a > 0 and scale 1: Marsaglia and Tsang (2000), "A simple method
// for generating gamma variables" (exact rejection); for a < 1 Gamma(a + 1) * U^(1/a).
inline double gamma_variate(random_stream& stream, double a) {
    if (a < 1.0) {
        const double g = gamma_variate(stream, a + 1.0);
        return g * std::pow(1.0 - stream.next_uniform(), 1.0 / a);
    }
    const double d = a - 1.0 / 3.0;
    const double c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
        double x, v;
        do {
            x = standard_normal(stream);
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        const double u = 1.0 - stream.next_uniform(); // in (0, 1]
        const double x2 = x * x;
        if (u < 1.0 - 0.0331 * x2 * x2) return d * v;
        if (std::log(u) < 0.5 * x2 + d * (1.0 - v + std::log(v))) return d * v;
    }
}

// A 32-bit digest of parameter values (FNV-1a over their bits): whether a loaded state
// belongs to the same parameters.
class digest {
public:
    digest& add(double x) {
        std::uint64_t bits;
        static_assert(sizeof bits == sizeof x);
        std::memcpy(&bits, &x, sizeof x);
        for (int b = 0; b < 8; ++b) {
            h_ ^= (bits >> (8 * b)) & 0xffu;
            h_ *= 0x100000001b3ull;
        }
        return *this;
    }
    digest& add(const std::vector<double>& xs) {
        add(static_cast<double>(xs.size()));
        for (double x: xs) add(x);
        return *this;
    }
    std::uint32_t value() const { return static_cast<std::uint32_t>(h_ ^ (h_ >> 32)); }

private:
    std::uint64_t h_ = 0xcbf29ce484222325ull;
};

template <class Process>
class train_group final: public cell_group {
public:
    using setup = typename Process::setup;

    train_group(const network_spec& spec, const std::vector<gid_type>& gids, local_index first_local):
        first_local_(first_local) {
        cells_.reserve(gids.size());
        for (local_index i = 0; i < gids.size(); ++i) {
            cells_.push_back({Process::parse(spec.population_of(gids[i]), gids[i], spec.seed, spec.dt_ms),
                              random_stream(spec.seed, gids[i], purpose::source_train),
                              {},
                              0.0});
            cell& c = cells_.back();
            for (std::uint32_t k = 0; k < c.s.components; ++k) push(c, Process::first(c.s, k, c.stream, c.t), k);
        }
        queue_cells();
    }

    // Every event due at or before step n is taken (those before n only after a restart:
    // the train drawn again from the start); the cell spikes if one is due at n.
    void begin_step(step_type n, spike_output& out) override {
        while (!due_.empty() && due_.top().first <= n) {
            const local_index i = due_.top().second;
            due_.pop();
            cell& c = cells_[i];
            bool fires = false;
            while (!c.heap.empty() && c.heap.front().first <= n) {
                std::pop_heap(c.heap.begin(), c.heap.end(), std::greater<>());
                const auto [step, k] = c.heap.back();
                c.heap.pop_back();
                fires = fires || step == n;
                push(c, Process::next(c.s, step, c.stream, c.t), k);
            }
            if (fires) out.emit(first_local_ + i, n);
            if (!c.heap.empty()) due_.push({c.heap.front().first, i});
        }
    }

    void deliver(step_type, const local_index*, const double*, std::uint32_t, std::uint32_t, spike_output&) override {}

    // single (1: the state of a one-component cell follows; 0: none, drawn again from the
    // start), digest, due (the step of the next event, -1: none), stream_words and, for a
    // continuous-time process, event_time (ms).
    static std::vector<std::string> checkpoint_state() {
        std::vector<std::string> names = {"single", "digest", "due", "stream_words"};
        if (Process::continuous) names.push_back("event_time");
        return names;
    }

    void save_cell(local_index cell_index, double* v) const override {
        const cell& c = cells_[cell_index - first_local_];
        v[0] = c.s.components == 1 ? 1.0 : 0.0;
        v[1] = static_cast<double>(c.s.digest);
        v[2] = c.heap.empty() ? -1.0 : static_cast<double>(c.heap.front().first);
        v[3] = static_cast<double>(c.stream.position());
        if (Process::continuous) v[4] = c.t;
    }

    void load_cell(local_index cell_index, const double* v) override {
        cell& c = cells_[cell_index - first_local_];
        if (v[0] != 1.0 || c.s.components != 1 || v[1] != static_cast<double>(c.s.digest)) return;
        c.heap.clear();
        if (v[2] >= 0) c.heap.push_back({static_cast<step_type>(v[2]), 0});
        c.stream.seek(static_cast<std::uint64_t>(v[3]));
        c.t = Process::continuous ? v[4] : 0.0;
    }

    void after_load() override { queue_cells(); }

    std::size_t bytes() const override {
        std::size_t heaps = 0;
        for (const auto& c: cells_) heaps += c.heap.capacity() * sizeof(c.heap[0]);
        return cells_.capacity() * sizeof(cell) + heaps + due_.size() * sizeof(entry);
    }

private:
    using entry = std::pair<step_type, local_index>;
    struct cell {
        setup s;
        random_stream stream;
        std::vector<std::pair<step_type, std::uint32_t>> heap; // (step of its next event, component)
        double t;                                              // Process's continuous time (ms)
    };

    static void push(cell& c, step_type step, std::uint32_t k) {
        if (step > c.s.active.last) return; // none, or past stop
        c.heap.push_back({step, k});
        std::push_heap(c.heap.begin(), c.heap.end(), std::greater<>());
    }

    void queue_cells() {
        due_ = {};
        for (local_index i = 0; i < cells_.size(); ++i)
            if (!cells_[i].heap.empty()) due_.push({cells_[i].heap.front().first, i});
    }

    local_index first_local_;
    std::vector<cell> cells_;
    std::priority_queue<entry, std::vector<entry>, std::greater<entry>> due_;
};

template <class Process>
std::unique_ptr<cell_group> make_train_group(const network_spec& spec, const std::vector<gid_type>& gids,
                                             local_index first) {
    return std::make_unique<train_group<Process>>(spec, gids, first);
}

} // namespace spikex::source_trains
