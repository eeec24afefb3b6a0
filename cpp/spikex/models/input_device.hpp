#pragma once
// Input devices: poisson_generator and dc_generator, with NEST 3.10's semantics. They are
// populations with gids like any other, but their connections are not synapses in the
// connection table: each becomes an input of its target, computed on the target's rank
// (engine/device_inputs.hpp). So a poisson_generator gives every target its own train, as
// NEST's does, and nothing of a device crosses the network.
//
// Parameters (NEST's names, ms and Hz / pA): rate or amplitude, start [0], stop [inf],
// origin [0]. With s0 = round((origin + start)/h), s1 = round((origin + stop)/h) and a
// connection of delay d steps (measured against NEST 3.10, bench/nest probes):
//  poisson_generator: trains drawn for emission steps n with s0 < n <= s1, each reaching
//    the target at step n + d (an event of step n is NEST's stamp n + 1);
//  dc_generator: amplitude * weight is the target's current read at steps m with
//    s0 - 1 <= m - d < s1 - 1, so it acts on V in the update steps k with
//    s0 <= k - d < s1 (NEST: a current generator is active at T if t_min < T + 2 <= t_max).
#include <cstdint>
#include <limits>
#include <string>

#include "spikex/network/network_spec.hpp"

namespace spikex {

enum class input_device_kind { poisson_generator, dc_generator };

struct input_device_parameters {
    input_device_kind kind = input_device_kind::poisson_generator;
    double rate_hz = 0.0;                                                             // poisson_generator
    double amplitude = 0.0;                                                           // dc_generator [pA]
    double start = 0.0, stop = std::numeric_limits<double>::infinity(), origin = 0.0; // ms
};

// Parameters of device `gid` of `pop` (user_error naming a bad one).
input_device_parameters parse_input_device(const population_spec& pop, gid_type gid, std::uint32_t seed);

// Whether the device is a poisson_generator / dc_generator population.
bool is_input_device(const std::string& model);

} // namespace spikex
