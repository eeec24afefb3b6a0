#include <algorithm>
#include <cmath>
#include <map>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/core/random.hpp"
#include "spikex/core/random_lanes.hpp"
#include "spikex/engine/device_inputs.hpp"
#include "spikex/models/model_registry.hpp"

namespace spikex {

device_inputs::device_inputs(const network_spec& spec, const std::vector<gid_type>& local_gids,
                             const std::vector<std::vector<device_connection>>& by_thread):
    seed_(spec.seed), gid_(local_gids) {
    auto source_index = [&](gid_type device) {
        auto it = source_of_device_.find(device);
        if (it != source_of_device_.end()) return it->second;
        auto index = static_cast<std::uint32_t>(sources_.size());
        sources_.push_back(make_source(spec, device));
        source_of_device_.emplace(device, index);
        return index;
    };
    threads_.resize(by_thread.size());
    for (std::size_t t = 0; t < by_thread.size(); ++t) {
        auto& mine = threads_[t].inputs;
        std::map<local_index, std::uint32_t> count; // device inputs per target so far
        for (const auto& c: by_thread[t]) {
            mine.push_back({c.target, source_index(c.device), count[c.target]++, c.delay, c.weight, c.receptor});
        }
        std::stable_sort(mine.begin(), mine.end(), [](const input& a, const input& b) {
            return a.target != b.target ? a.target < b.target : a.substream < b.substream;
        });
        // One sine track per source with a sine among this thread's inputs.
        auto& tracks = threads_[t].tracks;
        for (input& in: mine) {
            const device_schedule& sched = sources_[in.source].schedule;
            if (!sched.has_sine) continue;
            auto it =
                std::find_if(tracks.begin(), tracks.end(), [&](const sine_track& k) { return k.source == in.source; });
            if (it == tracks.end()) {
                const step_type every = sources_[in.source].kind == form::noise ? sched.interval : 1;
                tracks.push_back(
                    {in.source, in.delay, in.delay, sched.sine_from, every, sched.sine_from - 1, sched.sine, {}, -1});
                it = std::prev(tracks.end());
            }
            it->min_delay = std::min(it->min_delay, in.delay);
            it->max_delay = std::max(it->max_delay, in.delay);
            in.track = static_cast<std::uint32_t>(it - tracks.begin());
        }
        for (auto& k: tracks) {
            // The steps e = n - d of one step n span max - min + 1 steps: samples j of at most
            // (max - min)/every + 2 intervals.
            k.ring.assign(static_cast<std::size_t>((k.max_delay - k.min_delay) / k.every + 2), 0.0);
        }
        build_segments(threads_[t]);
        auto& ti = threads_[t];
        ti.gids.resize(mine.size());
        ti.substreams.resize(mine.size());
        ti.cached.assign(mine.size(), 0);
        ti.targets.resize(mine.size());
        ti.weights.resize(mine.size());
        for (std::size_t j = 0; j < mine.size(); ++j) {
            ti.gids[j] = gid_[mine[j].target];
            ti.substreams[j] = mine[j].substream;
            ti.targets[j] = mine[j].target;
            ti.weights[j] = mine[j].weight;
        }
        total_ += mine.size();
    }
}

// Runs of consecutive spike-train inputs with the same delay and port whose devices act
// alike at every step: the same device, or devices of one era each with the same active
// steps and rate (PyNN's SpikeSourcePoisson population, one device per cell); currents
// between them, one segment per stretch.
void device_inputs::build_segments(thread_inputs& mine) const {
    mine.segments.clear();
    const auto alike = [&](const input& a, const input& b) {
        if (a.delay != b.delay || a.receptor != b.receptor) return false;
        if (a.source == b.source) return true;
        const source &x = sources_[a.source], &y = sources_[b.source];
        const auto one_era = [](const source& s) { return s.until == std::numeric_limits<step_type>::max(); };
        return one_era(x) && one_era(y) && x.table == y.table && x.schedule.first == y.schedule.first &&
               x.schedule.last == y.schedule.last;
    };
    for (std::uint32_t j = 0; j < mine.inputs.size(); ++j) {
        const input& in = mine.inputs[j];
        const bool spikes = sources_[in.source].kind == form::spikes;
        bool extends = false;
        if (!mine.segments.empty() && mine.segments.back().spikes == spikes)
            extends = !spikes || alike(mine.inputs[mine.segments.back().begin], in);
        if (extends)
            mine.segments.back().end = j + 1;
        else
            mine.segments.push_back({j, j + 1, spikes});
    }
}

device_inputs::source device_inputs::make_source(const network_spec& spec, gid_type device) {
    const double h = spec.dt_ms;
    const population_spec& pop = spec.population_of(device);
    const device_output output = find_model(pop.model).output;
    source s{output == device_output::spike_train, input_device_schedule(pop, device, spec.seed, h), 0};
    s.kind = s.spikes                                 ? form::spikes
             : output == device_output::noise_current ? form::noise
             : s.schedule.has_sine                    ? form::sine
                                                      : form::levels;
    if (s.spikes) {
        const double rate_hz = s.schedule.rate_hz;
        const double mean = rate_hz * h / 1000.0;
        if (mean > max_poisson_mean) {
            throw user_error(spikex::format(
                "{} parameter rate = {} Hz: must be <= {} Hz at dt = {} ms (at most {} events per step on "
                "average)",
                pop.model, rate_hz, max_poisson_mean * 1000.0 / h, h, max_poisson_mean));
        }
        auto t = table_of_mean_.find(mean);
        if (t == table_of_mean_.end()) {
            t = table_of_mean_.emplace(mean, static_cast<std::uint32_t>(tables_.size())).first;
            tables_.emplace_back(mean);
        }
        s.table = t->second;
    }
    return s;
}

void device_inputs::respecify(gid_type device, const network_spec& spec, step_type from) {
    auto it = source_of_device_.find(device);
    if (it == source_of_device_.end()) return; // no input of it on this rank
    source fresh = make_source(spec, device);
    if (fresh.schedule.has_sine || sources_[it->second].schedule.has_sine) {
        throw user_error(spikex::format("set: {} (cell {}) cannot change between runs (its sine goes on from the "
                                        "start); build the network with the new values",
                                        spec.population_of(device).model, device));
    }
    std::uint32_t last = it->second;
    while (sources_[last].until != std::numeric_limits<step_type>::max() && sources_[last].until <= from)
        last = sources_[last].next;
    // Eras after `from` (a replayed change) are replaced by the new one.
    sources_[last].until = from;
    sources_[last].next = static_cast<std::uint32_t>(sources_.size());
    sources_.push_back(std::move(fresh));
    for (auto& t: threads_) { // a noise amplitude drawn for the old era is drawn again
        for (auto& in: t.inputs)
            if (in.source == it->second) in.cached_interval = -1;
        build_segments(t); // the device's inputs no longer run with other devices'
    }
}

void device_inputs::apply(unsigned thread, step_type n, cell_group& cells, spike_output& out) {
    if (thread >= threads_.size()) return;
    auto& mine = threads_[thread];
    if (mine.inputs.empty()) return;
    mine.batch_targets.clear();
    mine.batch_weights.clear();
    mine.batch_ports.clear();
    for (auto& k: mine.tracks) {
        const device_schedule& sched = sources_[k.source].schedule;
        if (n < k.last_n) { // a new run from an earlier step: start the sine again
            k.now = sched.sine;
            k.step = k.from - 1;
        }
        k.last_n = n;
        k.advance_to(std::min(n - static_cast<step_type>(k.min_delay), sched.last));
    }
    for (segment& seg: mine.segments) {
        if (seg.spikes)
            apply_spike_run(mine, seg, n);
        else
            for (std::uint32_t j = seg.begin; j < seg.end; ++j) apply_current(mine, mine.inputs[j], n, cells);
    }
    deliver_batch(mine, n, cells, out);
}

void device_inputs::deliver_batch(thread_inputs& mine, step_type n, cell_group& cells, spike_output& out) {
    if (mine.batch_targets.empty()) return;
    const auto ports = std::minmax_element(mine.batch_ports.begin(), mine.batch_ports.end());
    if (*ports.second == 0) { // no receptor ports: the common case, one batch
        cells.deliver(n, mine.batch_targets.data(), mine.batch_weights.data(), 0,
                      static_cast<std::uint32_t>(mine.batch_targets.size()), out);
        return;
    }
    for (std::uint32_t port = *ports.first; port <= *ports.second; ++port) {
        mine.port_targets.clear();
        mine.port_weights.clear();
        for (std::size_t j = 0; j < mine.batch_targets.size(); ++j) {
            if (mine.batch_ports[j] != port) continue;
            mine.port_targets.push_back(mine.batch_targets[j]);
            mine.port_weights.push_back(mine.batch_weights[j]);
        }
        if (mine.port_targets.empty()) continue;
        const auto count = static_cast<std::uint32_t>(mine.port_targets.size());
        if (port == 0)
            cells.deliver(n, mine.port_targets.data(), mine.port_weights.data(), 0, count, out);
        else
            cells.deliver_port(port, n, mine.port_targets.data(), mine.port_weights.data(), 0, count, out);
    }
}

const device_inputs::source& device_inputs::era_of(const input& in, step_type e) const {
    const source* era = &sources_[in.source];
    while (e >= era->until) era = &sources_[era->next];
    return *era;
}

// A run's inputs in order: their uniforms from the Philox blocks of emission step e (all
// computed side by side, a piece at a time) or from the cache, and their Poisson counts.
void device_inputs::apply_spike_run(thread_inputs& mine, segment& run, step_type n) {
    const input& head = mine.inputs[run.begin];
    const step_type e = n - static_cast<step_type>(head.delay);
    const source& s = era_of(head, e);
    if (e < s.schedule.first || e > s.schedule.last) return;
    const poisson_table& table = tables_[s.table];
    const double none_below = table.none_below(); // < 2: exact times 2^53 below 2^54
    const auto none_below_m = static_cast<std::uint64_t>(std::ceil(none_below * 0x1.0p53));
    const double one_at_most_below = table.one_at_most_below();
    const bool odd = (e & 1) != 0, cached = odd && run.cached_step == e;
    constexpr std::uint32_t piece = 512; // the blocks of a piece stay in L1
    for (auto& w: mine.words) w.resize(piece);
    mine.hits.resize(piece);
    const auto half = [](std::uint32_t hi, std::uint32_t lo) { return static_cast<std::uint64_t>(hi) << 32 | lo; };
    for (std::uint32_t first = run.begin; first < run.end; first += piece) {
        const std::uint32_t count = std::min(piece, run.end - first);
        std::uint64_t* kept = mine.cached.data() + first;
        if (!cached) {
            const random_keys keys{seed_, purpose::device_input, static_cast<std::uint32_t>(e >> 1),
                                   mine.gids.data() + first, mine.substreams.data() + first};
            random_blocks_columns(
                keys, count,
                {{mine.words[0].data(), mine.words[1].data(), mine.words[2].data(), mine.words[3].data()}});
            for (std::uint32_t i = 0; i < count; ++i) kept[i] = half(mine.words[2][i], mine.words[3][i]);
        }
        // The inputs with an event, without a branch per input (about one in ten has one at
        // 1 kHz and 0.1 ms: a branch would be mispredicted at each): u = m 2^-53 < P(0)
        // exactly when the integer m < ceil(P(0) 2^53), P(0) 2^53 being exact.
        std::uint32_t* hit = mine.hits.data();
        std::uint32_t hits = 0;
        const std::uint32_t* w0 = mine.words[0].data();
        const std::uint32_t* w1 = mine.words[1].data();
        if (cached || odd) {
            for (std::uint32_t i = 0; i < count; ++i) {
                hit[hits] = i;
                hits += (kept[i] >> 11) >= none_below_m;
            }
        } else {
            for (std::uint32_t i = 0; i < count; ++i) {
                hit[hits] = i;
                hits += (half(w0[i], w1[i]) >> 11) >= none_below_m;
            }
        }
        const std::size_t at = mine.batch_targets.size();
        mine.batch_targets.resize(at + hits);
        mine.batch_weights.resize(at + hits);
        mine.batch_ports.resize(at + hits, head.receptor);
        local_index* batch_target = mine.batch_targets.data() + at;
        double* batch_weight = mine.batch_weights.data() + at;
        const local_index* target = mine.targets.data() + first;
        const double* weight = mine.weights.data() + first;
        for (std::uint32_t h = 0; h < hits; ++h) {
            const std::uint32_t i = hit[h];
            const std::uint64_t bits = cached || odd ? kept[i] : half(w0[i], w1[i]);
            const double u =
                uniform_from_words(static_cast<std::uint32_t>(bits >> 32), static_cast<std::uint32_t>(bits));
            batch_target[h] = target[i];
            // One event is most of them at a few events per hundred steps: no table search.
            const std::uint32_t k = u < one_at_most_below ? 1 : table.sample(u);
            batch_weight[h] = static_cast<double>(k) * weight[i];
        }
    }
    run.cached_step = odd ? -1 : e + 1;
}

// One current input's effect on step n.
void device_inputs::apply_current(thread_inputs& mine, input& in, step_type n, cell_group& cells) {
    const step_type e = n - static_cast<step_type>(in.delay);
    const source& s = era_of(in, e);
    if (e < s.schedule.first || e > s.schedule.last) return;
    if (s.kind == form::levels) {
        cells.deliver_current(n, in.target, s.schedule.level(e) * in.weight);
        return;
    }
    if (s.kind == form::sine) {
        const double level = mine.tracks[in.track].sample(e) + s.schedule.offset; // NEST's I = y_1 + offset
        cells.deliver_current(n, in.target, level * in.weight);
        return;
    }
    // noise
    const step_type j = (e - s.schedule.first) / s.schedule.interval;
    if (j != in.cached_interval) {
        const device_schedule& d = s.schedule;
        const double sine = d.has_sine ? mine.tracks[in.track].sample(d.first + j * d.interval) : 0.0;
        // NEST's expression; a sine a few ulps past -1 (std_mod = std) gives variance 0, not NaN.
        const double variance = std::max(d.std * d.std + sine * d.std_mod * d.std_mod, 0.0);
        in.noise_amplitude = d.mean + std::sqrt(variance) * standard_normal(gid_[in.target], in.substream, j);
        in.cached_interval = j;
    }
    cells.deliver_current(n, in.target, in.noise_amplitude * in.weight);
}

double device_inputs::standard_normal(gid_type target, std::uint32_t substream, step_type interval) const {
    const auto w = random_block(seed_, target, purpose::device_input, static_cast<std::uint32_t>(interval), substream);
    const double u1 = uniform_from_words(w[0], w[1]);
    const double u2 = uniform_from_words(w[2], w[3]);
    return std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(2.0 * 3.14159265358979323846 * u2);
}

void device_inputs::sine_track::advance_to(step_type e) {
    while (step < e) {
        now.turn();
        ++step;
        if ((step - from) % every == 0) ring[static_cast<std::size_t>((step - from) / every) % ring.size()] = now.y1;
    }
}

std::size_t device_inputs::bytes() const {
    std::size_t b = gid_.capacity() * sizeof(gid_type) + sources_.capacity() * sizeof(source);
    for (const auto& s: sources_) b += s.schedule.levels.capacity() * sizeof(s.schedule.levels[0]);
    for (const auto& t: tables_) b += t.bytes();
    for (const auto& t: threads_) {
        for (const auto& k: t.tracks) b += k.ring.capacity() * sizeof(double);
        for (const auto& w: t.words) b += w.capacity() * sizeof(std::uint32_t);
        b += t.segments.capacity() * sizeof(segment) + t.gids.capacity() * sizeof(gid_type) +
             t.substreams.capacity() * sizeof(std::uint32_t) + t.cached.capacity() * sizeof(std::uint64_t) +
             t.targets.capacity() * sizeof(local_index) + t.weights.capacity() * sizeof(double);
        b += t.inputs.capacity() * sizeof(input) + t.tracks.capacity() * sizeof(sine_track) +
             t.batch_targets.capacity() * sizeof(local_index) + t.batch_weights.capacity() * sizeof(double);
    }
    return b;
}

} // namespace spikex
