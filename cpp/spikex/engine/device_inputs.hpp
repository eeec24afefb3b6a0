#pragma once
// The inputs of input devices (models/input_device.hpp: a spike train or a current)
// to this rank's cells. A connection from a device is kept here, with its target, instead
// of in the connection table: nothing of a device is exchanged between ranks.
//
// Each thread owns the inputs of its own cells, ordered by (target, k), k = the index of
// the input among its target's device inputs in creation order. In step n a thread hands
// its cells, after the step's synaptic input and before end_step:
//   poisson_generator: k_n events of the connection's weight in one deliver() batch
//     per receptor port (port 0 first, then ascending; targets ascending, each target's
//     inputs by k within a port), with k_n ~ Poisson(rate * h) drawn
//     for the emission step e = n - d from Philox block floor(e/2) of stream
//     (seed, target gid, device_input, sub-stream k): words (x0, x1) for even e, (x2, x3)
//     for odd e, as one 53-bit uniform, inverted through the Poisson CDF (poisson_table);
//   current generators: the level of step e times the weight as a current
//   (cell_group::deliver_current); ac_generator's level is offset + the sine of step e;
//   noise_generator: the amplitude of its interval j = (e - first)/D (device_schedule) times
//   the weight as a current, with z ~ N(0, 1) of interval j from Philox block j of the
//   same stream (seed, target gid, device_input, sub-stream k): u1 from words (x0, x1),
//   u2 from (x2, x3), z = sqrt(-2 ln(1 - u1))·cos(2π u2) (j < 2^32).
// So a train or a noise depends only on (seed, target gid, k): never on P, T or the
// layout. A sine (ac_generator, a modulated noise_generator) is NEST's recurrence, turned
// per thread once for all its inputs there (sine_track): its value at a step depends only
// on the number of turns, so a run resumed at step n turns it n times first.
//
// A device changed between runs (respecify) gets a new era: its emission steps from the
// change on use the new parameters, those before it (inputs still in flight) the old ones,
// as in NEST, where a generator's events already sent keep their values.
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <vector>

#include "spikex/core/types.hpp"
#include "spikex/models/cell_group.hpp"
#include "spikex/models/input_device.hpp"
#include "spikex/models/poisson_table.hpp"

namespace spikex {

struct device_connection {
    gid_type device;
    local_index target;
    double weight;
    std::uint32_t delay;        // steps
    std::uint16_t receptor = 0; // the target's receptor port for a spike train (0: none)
};

class device_inputs {
public:
    device_inputs() = default;
    // `by_thread[t]`: the device connections of thread t's cells in creation order.
    device_inputs(const network_spec& spec, const std::vector<gid_type>& local_gids,
                  const std::vector<std::vector<device_connection>>& by_thread);

    bool empty() const { return total_ == 0; }
    std::size_t size() const { return total_; }

    // Emission steps >= from of `device` use its parameters in spec now (its population's
    // parameters changed between runs). user_error for a bad value.
    void respecify(gid_type device, const network_spec& spec, step_type from);

    // The inputs of thread t's cells for step n (see above).
    void apply(unsigned thread, step_type n, cell_group& cells, spike_output& out);

    std::size_t bytes() const;

private:
    struct input {
        local_index target;
        std::uint32_t source; // index into sources_
        std::uint32_t substream;
        std::uint32_t delay;
        double weight;
        std::uint16_t receptor = 0; // spike trains: the target's port (0: deliver())
        // noise: the amplitude of interval `cached_interval`; sine: index into the thread's tracks.
        double noise_amplitude = 0.0;
        step_type cached_interval = -1;
        std::uint32_t track = 0;
    };
    enum class form { spikes, levels, sine, noise };
    // One device's timing and level, shared by its inputs.
    struct source {
        bool spikes;              // a spike train (else a current)
        device_schedule schedule; // active emission steps, levels (current)
        std::uint32_t table;      // spike train: index into tables_
        // Eras: emission steps >= until belong to sources_[next] (the device changed then).
        step_type until = std::numeric_limits<step_type>::max();
        std::uint32_t next = 0;
        form kind = form::levels;
    };
    // A source's sine on one thread: the oscillator turned through step `step`, and its
    // samples (the sine of steps from + j·every, `every` = 1 for ac_generator, D for
    // noise_generator) at index j mod ring.size(), enough for the spread of the delays.
    struct sine_track {
        std::uint32_t source;
        std::uint32_t min_delay, max_delay;
        step_type from, every, step;
        oscillator now;
        std::vector<double> ring;
        step_type last_n = -1; // the last step applied: a smaller one starts again

        void advance_to(step_type e); // turn through step e, keeping the samples
        double sample(step_type e) const { return ring[static_cast<std::size_t>((e - from) / every) % ring.size()]; }
    };
    source make_source(const network_spec& spec, gid_type device);
    // Consecutive inputs of a thread: a run of spike trains of one delay and port whose
    // devices act alike (build_segments; drawn side by side: their Philox blocks in vector
    // registers, random_lanes.hpp), or currents, one at a time.
    struct segment {
        std::uint32_t begin, end; // indices into inputs
        bool spikes;
        // A run's odd emission step whose uniforms are in `cached` (one Philox block serves
        // steps 2m and 2m + 1: the second half is kept for the next step), else -1.
        step_type cached_step = -1;
    };
    struct thread_inputs {
        std::vector<input> inputs;
        std::vector<segment> segments;
        // Per input, used by the runs: the key's gid, the sub-stream, the cached bits, the
        // target and the weight (columns: a step reads them all, or a tenth at random).
        std::vector<gid_type> gids;
        std::vector<std::uint32_t> substreams;
        std::vector<std::uint64_t> cached;
        std::vector<local_index> targets;
        std::vector<double> weights;
        std::array<std::vector<std::uint32_t>, 4> words; // scratch: one piece of a run's blocks
        std::vector<std::uint32_t> hits;                 // scratch: the piece's inputs with events
        std::vector<sine_track> tracks;
        std::vector<local_index> batch_targets;
        std::vector<double> batch_weights;
        std::vector<std::uint16_t> batch_ports; // the receptor port of each batch entry
        std::vector<local_index> port_targets;  // scratch: one port's part of the batch
        std::vector<double> port_weights;
    };
    // Hands the step's spike-train batch to the cells, port by port (header comment).
    static void deliver_batch(thread_inputs& mine, step_type n, cell_group& cells, spike_output& out);

    // The source (era) an input's emission step e belongs to.
    const source& era_of(const input& in, step_type e) const;
    void build_segments(thread_inputs& mine) const;
    // A run's Poisson counts of step n, into the thread's batch.
    void apply_spike_run(thread_inputs& mine, segment& run, step_type n);
    // One current input's effect on step n.
    void apply_current(thread_inputs& mine, input& in, step_type n, cell_group& cells);
    // noise_generator's z of `interval` for input `substream` of `target` (header comment).
    double standard_normal(gid_type target, std::uint32_t substream, step_type interval) const;

    std::uint32_t seed_ = 0;
    std::vector<gid_type> gid_; // of local cells
    std::vector<source> sources_;
    std::map<gid_type, std::uint32_t> source_of_device_; // a device's first era
    std::map<double, std::uint32_t> table_of_mean_;
    std::vector<poisson_table> tables_;
    std::vector<thread_inputs> threads_;
    std::size_t total_ = 0;
};

} // namespace spikex
