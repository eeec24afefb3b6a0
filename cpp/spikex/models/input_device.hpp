#pragma once
// Input devices: poisson_generator, dc_generator, step_current_generator, ac_generator and
// noise_generator, with NEST 3.10's semantics. They are populations with gids like any
// other, but their connections are not synapses in the connection table: each becomes an
// input of its target, computed on the target's rank (engine/device_inputs.hpp). So a
// poisson_generator gives every target its own train, as NEST's does, and nothing of a
// device crosses the network.
//
// Each device's registry entry says what it gives (model_entry::output) and turns its
// parameters into a device_schedule: the emission steps e in which it acts, and its level
// in each. With s0 = round((origin + start)/h), s1 = round((origin + stop)/h) and a
// connection of delay d steps (measured against NEST 3.10, bench/nest probes):
//  poisson_generator: trains drawn for emission steps s0 < e <= s1, each reaching the
//    target at step e + d (an event of step e is NEST's stamp e + 1);
//  current generators: level * weight is the target's current read at step m = e + d for
//    max(s0 - 1, 0) <= e <= s1 - 2, so it acts on V in the update steps k with
//    s0 <= k - d < s1 (NEST: a current generator is active at T if t_min < T + 2 <= t_max;
//    its first update is step 0, so with start = 0 it acts from step d + 1 on).
//  step_current_generator: the amplitude of time t_k (a grid time > 0, NEST's
//    amplitude_times) is its level from emission step round(t_k/h) - 1 on (NEST changes it
//    one step ahead), 0 before the first.
//  ac_generator: the level of emission step e is offset + amplitude·sin(ω(e + 1)h + φ) as
//    NEST computes it: an oscillator turned once per step from step 0 on, whether the
//    device is active or not (struct oscillator).
//  noise_generator: each target's amplitude is drawn at the emission steps first + j·D
//    (D = dt/h; first = the window's first step, where NEST's next_step_ = 0 makes its
//    first draw) and held for D steps; with std_mod > 0 the oscillator turns only from
//    `first` on (NEST turns it in active steps only).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "spikex/core/types.hpp"
#include "spikex/network/network_spec.hpp"

namespace spikex {

// NEST's sine of ac_generator and noise_generator: (y0, y1) starts at amplitude·(cos φ,
// sin φ) and turns by ω·h each step through the rotation [[cos ωh, −sin ωh], [sin ωh,
// cos ωh]]; y1 is the sine. A recurrence, not a closed-form sin: its rounding is NEST's, so
// the values are NEST's to the bit (on x86-64 without -march neither build fuses a
// multiply-add; a fused one would round otherwise).
struct oscillator {
    double y0 = 0.0, y1 = 0.0;       // after the turns so far
    double cos_h = 1.0, sin_h = 0.0; // one step's rotation

    // ω = 2π·frequency/1000 per ms, φ = phase·2π/360, in NEST's order of operations.
    static oscillator start(double amplitude, double frequency_hz, double phase_deg, double h);
    void turn() {
        const double y = y0;
        y0 = cos_h * y + (-sin_h) * y1;
        y1 = sin_h * y + cos_h * y1;
    }
};

struct device_schedule {
    step_type first = 0, last = -1; // emission steps [first, last] in which it acts
    double rate_hz = 0.0;           // spike_train: the rate of each target's train
    // current: (from emission step, amplitude in pA), ascending; the level at step e is
    // the amplitude of the last change at or before e (0 before the first).
    std::vector<std::pair<step_type, double>> levels;
    // A sine (ac_generator's current, noise_generator's modulation): `sine` as it is before
    // the turn of step `sine_from`, turned once per step from there on; the sine of step e
    // is its y1 after the turn of step e.
    bool has_sine = false;
    oscillator sine;
    step_type sine_from = 0;
    // ac_generator (a current with has_sine): the level of step e is offset + the sine of
    // e, not level(e).
    double offset = 0.0;
    // noise_current (noise_generator): each target's amplitude, drawn at the steps
    // first + j·interval, j = 0, 1, ..., and held for `interval` steps, is
    // mean + sqrt(std² + s·std_mod²)·z: z ~ N(0, 1) of the target's own stream, s the sine
    // of the step of the draw (0 without one).
    double mean = 0.0, std = 0.0, std_mod = 0.0;
    step_type interval = 1;

    double level(step_type e) const;
};

// Whether `model` is an input device (model_kind::input_device).
bool is_input_device(const std::string& model);

// The schedule of device `gid` of `pop` at step h (user_error naming a bad parameter).
device_schedule input_device_schedule(const population_spec& pop, gid_type gid, std::uint32_t seed, double h);

} // namespace spikex
