#pragma once
// Wire formats of a spike in the Allgather buffers (Hines et al. 2011, section Allgather).
//  compressed, 2 bytes: [local index of the cell on its rank][step within the interval]
//                       usable when every rank holds <= 256 cells and M <= 256 steps
//  full, 8 bytes:       [gid: uint32 little-endian][step within the interval: uint32 LE]
// The receiving rank knows the sender from the buffer position, so a compressed entry
// needs no rank field; the interval start is known to all.
#include <cstdint>
#include <cstring>

#include "spikex/core/types.hpp"

namespace spikex {

struct compressed_codec {
    static constexpr std::size_t entry_bytes = 2;
    static void encode(unsigned char* out, local_index local, std::uint32_t offset) {
        out[0] = static_cast<unsigned char>(local);
        out[1] = static_cast<unsigned char>(offset);
    }
    static void decode(const unsigned char* in, local_index& local, std::uint32_t& offset) {
        local = in[0];
        offset = in[1];
    }
};

struct full_codec {
    static constexpr std::size_t entry_bytes = 8;
    static void encode(unsigned char* out, gid_type gid, std::uint32_t offset) {
        std::uint32_t words[2] = {gid, offset};
        std::memcpy(out, words, sizeof words); // little-endian on every supported target
    }
    static void decode(const unsigned char* in, gid_type& gid, std::uint32_t& offset) {
        std::uint32_t words[2];
        std::memcpy(words, in, sizeof words);
        gid = words[0];
        offset = words[1];
    }
};

} // namespace spikex
