// GCC 12's AVX-512 intrinsics start from _mm512_undefined_epi32, which -Wuninitialized
// reports as uninitialized (GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "spikex/core/random_batch.hpp"

namespace spikex {
namespace {

// Philox4x32-10 (Random123's philox4x32_R with R = 10; spikex::random_block), on 16
// counters at once: one 32-bit lane per counter, words 0-3 in c[0..3].
[[gnu::target("avx512f")]] void philox_avx512(std::uint32_t seed, gid_type gid, purpose p, std::uint32_t first,
                                              std::uint32_t substream, std::uint32_t* words) {
    static_assert(random_batch_blocks == 16);
    const __m512i m0 = _mm512_set1_epi64(0xD2511F53), m1 = _mm512_set1_epi64(0xCD9E8D57);
    __m512i c0 = _mm512_set1_epi32(static_cast<int>(p));
    __m512i c1 = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(first)),
                                  _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    __m512i c2 = _mm512_set1_epi32(static_cast<int>(substream));
    __m512i c3 = _mm512_setzero_si512();
    std::uint32_t k0 = seed, k1 = gid;
    constexpr __mmask16 odd = 0xAAAA;
    for (int round = 0; round < 10; ++round) {
        if (round > 0) k0 += 0x9E3779B9, k1 += 0xBB67AE85;
        // 32 x 32 -> 64-bit products of the even lanes, then of the odd ones.
        const __m512i p0e = _mm512_mul_epu32(c0, m0), p0o = _mm512_mul_epu32(_mm512_srli_epi64(c0, 32), m0);
        const __m512i p1e = _mm512_mul_epu32(c2, m1), p1o = _mm512_mul_epu32(_mm512_srli_epi64(c2, 32), m1);
        const __m512i lo0 = _mm512_mask_blend_epi32(odd, p0e, _mm512_slli_epi64(p0o, 32));
        const __m512i hi0 = _mm512_mask_blend_epi32(odd, _mm512_srli_epi64(p0e, 32), p0o);
        const __m512i lo1 = _mm512_mask_blend_epi32(odd, p1e, _mm512_slli_epi64(p1o, 32));
        const __m512i hi1 = _mm512_mask_blend_epi32(odd, _mm512_srli_epi64(p1e, 32), p1o);
        c0 = _mm512_xor_si512(_mm512_xor_si512(hi1, c1), _mm512_set1_epi32(static_cast<int>(k0)));
        c1 = lo1;
        c2 = _mm512_xor_si512(_mm512_xor_si512(hi0, c3), _mm512_set1_epi32(static_cast<int>(k1)));
        c3 = lo0;
    }
    alignas(64) std::uint32_t w[4][16];
    _mm512_store_si512(w[0], c0);
    _mm512_store_si512(w[1], c1);
    _mm512_store_si512(w[2], c2);
    _mm512_store_si512(w[3], c3);
    for (std::uint32_t l = 0; l < 16; ++l) {
        for (int j = 0; j < 4; ++j) words[4 * l + j] = w[j][l];
    }
}

#pragma GCC diagnostic pop

bool have_avx512() {
    static const bool have = __builtin_cpu_supports("avx512f");
    return have;
}

} // namespace

void stream_blocks(std::uint32_t seed, gid_type gid, purpose p, std::uint32_t first, std::uint32_t substream,
                   std::uint32_t* words) {
    if (have_avx512()) {
        philox_avx512(seed, gid, p, first, substream, words);
        return;
    }
    for (std::uint32_t k = 0; k < random_batch_blocks; ++k) {
        const random_words w = random_block(seed, gid, p, first + k, substream);
        for (int j = 0; j < 4; ++j) words[4 * k + j] = w[j];
    }
}

} // namespace spikex
