#pragma once
// Input devices: poisson_generator, dc_generator and step_current_generator, with NEST
// 3.10's semantics. They are populations with gids like any other, but their connections
// are not synapses in the connection table: each becomes an input of its target, computed
// on the target's rank (engine/device_inputs.hpp). So a poisson_generator gives every
// target its own train, as NEST's does, and nothing of a device crosses the network.
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
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "spikex/core/types.hpp"
#include "spikex/network/network_spec.hpp"

namespace spikex {

struct device_schedule {
    step_type first = 0, last = -1; // emission steps [first, last] in which it acts
    double rate_hz = 0.0;           // spike_train: the rate of each target's train
    // current: (from emission step, amplitude in pA), ascending; the level at step e is
    // the amplitude of the last change at or before e (0 before the first).
    std::vector<std::pair<step_type, double>> levels;

    double level(step_type e) const;
};

// Whether `model` is an input device (model_kind::input_device).
bool is_input_device(const std::string& model);

// The schedule of device `gid` of `pop` at step h (user_error naming a bad parameter).
device_schedule input_device_schedule(const population_spec& pop, gid_type gid, std::uint32_t seed, double h);

} // namespace spikex
