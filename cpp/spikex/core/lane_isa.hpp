#pragma once
// The vector instructions a loop over cells may use, chosen at run time: the package is
// built for the x86-64 baseline (SSE2) and runs on machines with AVX2 or AVX-512. Loops
// that have a clone per instruction set (random_lanes.cpp, iaf_psc_exp's update) take
// the best this machine runs; the clones compute the same bits (no fused multiply-add:
// -ffp-contract=off, and each cell's arithmetic is the same operations in any width).
// SPIKEX_VECTOR_ISA=baseline chooses the baseline (as for ode/lanes.hpp): tests compare.
namespace spikex {

enum class lane_isa { best, avx512, avx2, scalar };

lane_isa best_lane_isa(); // the widest this machine runs (scalar: the baseline)

} // namespace spikex
