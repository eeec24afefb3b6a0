#pragma once
// glif_psc: NEST 3.10's generalized leaky integrate-and-fire neuron (the five GLIF levels of
// the Allen Institute's models, Teeter et al. 2018) with alpha-shaped synaptic currents, one
// per receptor port (docs/models/glif_psc.md). The threshold and the after-spike currents
// are glif_common.hpp's; the membrane is integrated exactly, NEST's propagators in NEST's
// order.
//
//  State per cell (NEST's): U = V_m - E_L, the threshold's components, the after-spike
//  currents I_j, per port k the alpha current's y1_k (dI/dt) and y2_k (I), I (the current
//  input of the step before), the refractory counter r.
//  end_step(n), per cell:
//   1. r == 0: the threshold's spike component and the after-spike currents decay
//      (glif_common.hpp); U = v_old P33 + (I + ASCurrents_sum) P30, then for each port
//      U += P31_k y1_k + P32_k y2_k (I_syn = the sum of y2_k); the voltage component, the
//      threshold and the spike test with its reset; else --r, U held
//   2. per port: y2 = P21 y1 + P22 y2, y1 *= P11, y1 += e/tau_syn_k * (the port's weights
//      of step n): a weight w (either sign) peaks at w pA tau_syn_k later
//   3. I = the current inputs of step n
//  P33 = exp(-h g/C_m), P30, P31, P32 NEST's (IAFPropagatorAlpha, iaf_propagators.hpp). A
//  spike at step n is NEST's spike at (n + 1) h.
#include "spikex/models/model_registry.hpp"

namespace spikex {

model_entry glif_psc_model();

} // namespace spikex
