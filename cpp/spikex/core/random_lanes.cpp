// random_columns (random_lanes.hpp): Philox4x32-10 on 16 (AVX-512) or 8 (AVX2) keys at
// once, chosen at run time, as random_batch.cpp does for one stream's consecutive blocks.
// The package is built for the x86-64 baseline, where GCC keeps random_blocks<L>'s rounds
// scalar (no 32 x 32 -> 64-bit vector multiply in SSE2's form it will pick): the Poisson
// drive of a network then spends most of its step in them (docs/dev/step_cost.md).
//
// GCC 12's AVX-512 intrinsics start from _mm512_undefined_epi32, which -Wuninitialized
// reports as uninitialized (GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "spikex/core/random_lanes.hpp"

namespace spikex {
namespace {

constexpr std::uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u; // the round multipliers
constexpr std::uint32_t W0 = 0x9E3779B9u, W1 = 0xBB67AE85u; // the key's Weyl increments

void columns_scalar(const random_keys& keys, std::size_t begin, std::size_t end, const random_columns& out) {
    for (std::size_t i = begin; i < end; ++i) {
        const random_words w = random_block(keys.seed, keys.gid[i], keys.p, keys.index, keys.substream_of(i));
        for (int j = 0; j < 4; ++j) out.word[j][i] = w[j];
    }
}

// N x 16 keys per iteration, one per 32-bit lane: N independent chains of rounds, so that
// the core overlaps one's multiplies with the other's (each round waits on the last);
// the tail 16 at a time with masked loads and stores.
template <int N>
[[gnu::target("avx512f"), gnu::always_inline]] inline void
philox_avx512_lanes(const random_keys& keys, std::size_t i, __mmask16 live, const random_columns& out) {
    const __m512i m0 = _mm512_set1_epi64(M0), m1 = _mm512_set1_epi64(M1);
    const __m512i w1 = _mm512_set1_epi32(static_cast<int>(W1));
    constexpr __mmask16 odd = 0xAAAA;
    __m512i c0[N], c1[N], c2[N], c3[N], k1[N];
    for (int v = 0; v < N; ++v) {
        c0[v] = _mm512_set1_epi32(static_cast<int>(keys.p));
        c1[v] = _mm512_set1_epi32(static_cast<int>(keys.index));
        c2[v] = keys.substream ? _mm512_maskz_loadu_epi32(live, keys.substream + i + 16 * v)
                               : _mm512_set1_epi32(static_cast<int>(keys.substream_all));
        c3[v] = _mm512_setzero_si512();
        k1[v] = _mm512_maskz_loadu_epi32(live, keys.gid + i + 16 * v);
    }
    std::uint32_t k0 = keys.seed;
    for (int round = 0; round < 10; ++round) {
        if (round > 0) k0 += W0;
        const __m512i k0_lanes = _mm512_set1_epi32(static_cast<int>(k0));
        for (int v = 0; v < N; ++v) {
            if (round > 0) k1[v] = _mm512_add_epi32(k1[v], w1);
            // 32 x 32 -> 64-bit products of the even lanes, then of the odd ones.
            const __m512i p0e = _mm512_mul_epu32(c0[v], m0), p0o = _mm512_mul_epu32(_mm512_srli_epi64(c0[v], 32), m0);
            const __m512i p1e = _mm512_mul_epu32(c2[v], m1), p1o = _mm512_mul_epu32(_mm512_srli_epi64(c2[v], 32), m1);
            const __m512i lo0 = _mm512_mask_blend_epi32(odd, p0e, _mm512_slli_epi64(p0o, 32));
            const __m512i hi0 = _mm512_mask_blend_epi32(odd, _mm512_srli_epi64(p0e, 32), p0o);
            const __m512i lo1 = _mm512_mask_blend_epi32(odd, p1e, _mm512_slli_epi64(p1o, 32));
            const __m512i hi1 = _mm512_mask_blend_epi32(odd, _mm512_srli_epi64(p1e, 32), p1o);
            c0[v] = _mm512_xor_si512(_mm512_xor_si512(hi1, c1[v]), k0_lanes);
            c1[v] = lo1;
            c2[v] = _mm512_xor_si512(_mm512_xor_si512(hi0, c3[v]), k1[v]);
            c3[v] = lo0;
        }
    }
    for (int v = 0; v < N; ++v) {
        _mm512_mask_storeu_epi32(out.word[0] + i + 16 * v, live, c0[v]);
        _mm512_mask_storeu_epi32(out.word[1] + i + 16 * v, live, c1[v]);
        _mm512_mask_storeu_epi32(out.word[2] + i + 16 * v, live, c2[v]);
        _mm512_mask_storeu_epi32(out.word[3] + i + 16 * v, live, c3[v]);
    }
}

[[gnu::target("avx512f")]] void columns_avx512(const random_keys& keys, std::size_t count, const random_columns& out) {
    static_assert(sizeof(gid_type) == 4);
    std::size_t i = 0;
    for (; i + 32 <= count; i += 32) philox_avx512_lanes<2>(keys, i, __mmask16(0xFFFF), out);
    for (; i < count; i += 16) {
        const __mmask16 live = count - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (count - i)) - 1);
        philox_avx512_lanes<1>(keys, i, live, out);
    }
}

// 8 keys per iteration; the tail in scalar code.
[[gnu::target("avx2")]] void columns_avx2(const random_keys& keys, std::size_t count, const random_columns& out) {
    const __m256i m0 = _mm256_set1_epi64x(M0), m1 = _mm256_set1_epi64x(M1);
    const __m256i w1 = _mm256_set1_epi32(static_cast<int>(W1));
    std::size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        __m256i c0 = _mm256_set1_epi32(static_cast<int>(keys.p)), c1 = _mm256_set1_epi32(static_cast<int>(keys.index));
        __m256i c2 = keys.substream ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(keys.substream + i))
                                    : _mm256_set1_epi32(static_cast<int>(keys.substream_all));
        __m256i c3 = _mm256_setzero_si256();
        __m256i k1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(keys.gid + i));
        std::uint32_t k0 = keys.seed;
        for (int round = 0; round < 10; ++round) {
            if (round > 0) k0 += W0, k1 = _mm256_add_epi32(k1, w1);
            const __m256i p0e = _mm256_mul_epu32(c0, m0), p0o = _mm256_mul_epu32(_mm256_srli_epi64(c0, 32), m0);
            const __m256i p1e = _mm256_mul_epu32(c2, m1), p1o = _mm256_mul_epu32(_mm256_srli_epi64(c2, 32), m1);
            const __m256i lo0 = _mm256_blend_epi32(p0e, _mm256_slli_epi64(p0o, 32), 0xAA);
            const __m256i hi0 = _mm256_blend_epi32(_mm256_srli_epi64(p0e, 32), p0o, 0xAA);
            const __m256i lo1 = _mm256_blend_epi32(p1e, _mm256_slli_epi64(p1o, 32), 0xAA);
            const __m256i hi1 = _mm256_blend_epi32(_mm256_srli_epi64(p1e, 32), p1o, 0xAA);
            c0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), _mm256_set1_epi32(static_cast<int>(k0)));
            c1 = lo1;
            c2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), k1);
            c3 = lo0;
        }
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.word[0] + i), c0);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.word[1] + i), c1);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.word[2] + i), c2);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.word[3] + i), c3);
    }
    columns_scalar(keys, i, count, out);
}

#pragma GCC diagnostic pop

} // namespace

void random_blocks_columns(const random_keys& keys, std::size_t count, const random_columns& out, lane_isa isa) {
    if (isa == lane_isa::best) isa = best_lane_isa();
    switch (isa) {
    case lane_isa::avx512:
        columns_avx512(keys, count, out);
        return;
    case lane_isa::avx2:
        columns_avx2(keys, count, out);
        return;
    default:
        columns_scalar(keys, 0, count, out);
        return;
    }
}

} // namespace spikex
