#pragma once
// The specs of the parameters NEST's point neurons share (names, units, NEST 3.10's
// defaults, ranges, sentences): one place for each, read by every model's table.
#include "spikex/models/parameter_spec.hpp"

namespace spikex::neuron_parameters {

inline parameter_spec E_L(const char* meaning = "resting membrane potential", double default_mV = -70.0) {
    return {"E_L", "mV", default_mV, "", ranges::any(), meaning};
}
inline parameter_spec C_m(double default_pF = 250.0) {
    return {"C_m", "pF", default_pF, "", ranges::positive(), "membrane capacitance"};
}
inline parameter_spec tau_m() { return {"tau_m", "ms", 10.0, "", ranges::positive(), "membrane time constant"}; }
inline parameter_spec t_ref(double default_ms = 2.0) {
    return {"t_ref",
            "ms",
            default_ms,
            "",
            ranges::non_negative(),
            "absolute refractory period (rounded up to whole steps; V is clamped at V_reset)"};
}
inline parameter_spec V_th() { return {"V_th", "mV", -55.0, "", ranges::any(), "spike threshold (> V_reset)"}; }
inline parameter_spec V_reset(double default_mV = -70.0) {
    return {"V_reset", "mV", default_mV, "", ranges::any(), "membrane potential after a spike (< V_th)"};
}
inline parameter_spec I_e() { return {"I_e", "pA", 0.0, "", ranges::any(), "constant input current"}; }
// NEST's rule: the initial V_m is the model's default unless given, whatever E_L is.
inline parameter_spec V_m(double default_mV = -70.0) {
    return {"V_m",         "mV",
            default_mV,    "",
            ranges::any(), "initial membrane potential (the default unless given, whatever E_L is: NEST's rule)"};
}
// A parameter of every neuron (NEST's ArchivingNode): what STDP synapses onto it read.
inline parameter_spec tau_minus() {
    return {"tau_minus",
            "ms",
            20.0,
            "",
            ranges::positive(),
            "time constant of the postsynaptic trace that STDP synapses onto the cell read"};
}
inline parameter_spec tau_syn(const char* name, double default_ms, const char* meaning) {
    return {name, "ms", default_ms, "", ranges::positive(), meaning};
}

} // namespace spikex::neuron_parameters
