#pragma once
// Exact draws of the counts that connection rules need, each from one uniform u in [0, 1)
// (so a draw consumes a fixed amount of its stream, whatever its parameters).
//
//  binomial(n, p):             number of successes in n trials of probability p.
//  hypergeometric(M, G, n):    number of marked items among n drawn without replacement
//                              from M items of which G are marked.
//  geometric_gap(p):           failures before the next success (pairwise_bernoulli's skip).
//
// binomial and hypergeometric are sampled by inversion searched outwards from the mode
// (mode, mode+1, mode-1, mode+2, ...): u is compared with the probabilities in that fixed
// order, so the draw has the exact distribution (to double rounding; no normal
// approximation) and costs O(standard deviation) steps. The probability at the mode comes
// from Loader's saddle-point formula (C. Loader 2000, "Fast and accurate computation of
// binomial probabilities"), accurate for n up to 2^64; its neighbours from the ratio of
// consecutive probabilities.
#include <cstdint>

namespace spikex {

// Numbers are doubles holding integers (exact below 2^53; above, the counts are as exact as
// their double neighbours, far below any statistical effect). 0 <= p <= 1.
std::uint64_t binomial_from_uniform(std::uint64_t n, double p, double u);
// Like binomial_from_uniform with p = good / total given as two integers (more precise).
std::uint64_t binomial_split(std::uint64_t n, std::uint64_t good, std::uint64_t total, double u);
// total >= good, total >= draws.
std::uint64_t hypergeometric_from_uniform(std::uint64_t total, std::uint64_t good, std::uint64_t draws, double u);
// Failures before the first success of probability p in (0, 1]: floor(ln(1 - u) / ln(1 - p)),
// saturated at UINT64_MAX (p == 0 gives UINT64_MAX: no success ever).
std::uint64_t geometric_gap(double p, double u);

// Probability of k successes under binomial(n, p) (Loader's formula), for tests and the mode.
double binomial_probability(double k, double n, double p, double q);

} // namespace spikex
