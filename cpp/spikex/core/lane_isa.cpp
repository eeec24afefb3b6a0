#include "spikex/core/lane_isa.hpp"

#include <cstdlib>
#include <string_view>

namespace spikex {

lane_isa best_lane_isa() {
    static const lane_isa best = [] {
        const char* asked = std::getenv("SPIKEX_VECTOR_ISA");
        if (asked != nullptr && std::string_view(asked) == "baseline") return lane_isa::scalar;
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx512f")) return lane_isa::avx512;
        if (__builtin_cpu_supports("avx2")) return lane_isa::avx2;
        return lane_isa::scalar;
    }();
    return best;
}

} // namespace spikex
