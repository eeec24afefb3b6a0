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
        total_ += mine.size();
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
    for (auto& t: threads_) // a noise amplitude drawn for the old era is drawn again
        for (auto& in: t.inputs)
            if (in.source == it->second) in.cached_interval = -1;
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
    // The Poisson inputs' Philox blocks, 8 at a time (random_lanes.hpp: the same words as
    // one at a time), for a chunk of inputs; then the chunk in the inputs' order.
    constexpr std::size_t chunk = 64, lanes = 8;
    std::array<random_words, chunk> blocks;
    std::array<std::size_t, chunk> pending;
    for (std::size_t first = 0; first < mine.inputs.size(); first += chunk) {
        const std::size_t last = std::min(first + chunk, mine.inputs.size());
        std::size_t count = 0;
        for (std::size_t j = first; j < last; ++j) {
            const input& in = mine.inputs[j];
            const step_type e = n - static_cast<step_type>(in.delay);
            const source& s = era_of(in, e);
            if (s.kind == form::spikes && e >= s.schedule.first && e <= s.schedule.last &&
                !((e & 1) && in.cached_step == e))
                pending[count++] = j;
        }
        for (std::size_t b = 0; b < count; b += lanes) {
            std::array<gid_type, lanes> gids{};
            std::array<std::uint32_t, lanes> index{}, substream{};
            for (std::size_t l = 0; l < lanes && b + l < count; ++l) {
                const input& in = mine.inputs[pending[b + l]];
                gids[l] = gid_[in.target];
                index[l] = static_cast<std::uint32_t>((n - static_cast<step_type>(in.delay)) >> 1);
                substream[l] = in.substream;
            }
            const auto words = random_blocks<lanes>(seed_, gids, purpose::device_input, index, substream);
            for (std::size_t l = 0; l < lanes && b + l < count; ++l)
                blocks[pending[b + l] - first] = {words[0][l], words[1][l], words[2][l], words[3][l]};
        }
        for (std::size_t j = first; j < last; ++j) apply_input(mine, mine.inputs[j], n, blocks[j - first], cells);
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

// One input's effect on step n; `block`: its Philox block for step e = n - delay when it is
// a Poisson input whose draw is not cached (computed with the chunk's others).
void device_inputs::apply_input(thread_inputs& mine, input& in, step_type n, const random_words& block,
                                cell_group& cells) {
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
    if (s.kind == form::noise) {
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
        return;
    }
    std::uint64_t bits;
    if ((e & 1) && in.cached_step == e) {
        bits = in.cached_bits;
    } else {
        const auto half = [&](int k) { return static_cast<std::uint64_t>(block[k]) << 32 | block[k + 1]; };
        bits = (e & 1) ? half(2) : half(0);
        in.cached_bits = half(2);
        in.cached_step = (e & 1) ? -1 : e + 1;
    }
    const double u = uniform_from_words(static_cast<std::uint32_t>(bits >> 32), static_cast<std::uint32_t>(bits));
    const std::uint32_t k = tables_[s.table].sample(u);
    if (k == 0) return;
    mine.batch_targets.push_back(in.target);
    mine.batch_weights.push_back(static_cast<double>(k) * in.weight);
    mine.batch_ports.push_back(in.receptor);
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
        b += t.inputs.capacity() * sizeof(input) + t.tracks.capacity() * sizeof(sine_track) +
             t.batch_targets.capacity() * sizeof(local_index) + t.batch_weights.capacity() * sizeof(double);
    }
    return b;
}

} // namespace spikex
