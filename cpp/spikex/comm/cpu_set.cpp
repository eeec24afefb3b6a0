#include "spikex/comm/cpu_set.hpp"

#include <algorithm>
#include <bit>

#include <sched.h>
#include <unistd.h>

namespace spikex {

std::vector<unsigned char> own_cpu_set() {
    cpu_set_t mask;
    CPU_ZERO(&mask);
    std::vector<unsigned char> bits(CPU_SETSIZE / 8, 0);
    if (sched_getaffinity(0, sizeof mask, &mask) == 0) {
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
            if (CPU_ISSET(cpu, &mask)) bits[cpu / 8] |= static_cast<unsigned char>(1u << (cpu % 8));
        }
        return bits;
    }
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    for (long cpu = 0; cpu < std::min<long>(online, CPU_SETSIZE); ++cpu) {
        bits[cpu / 8] |= static_cast<unsigned char>(1u << (cpu % 8));
    }
    return bits;
}

int cpu_count(const std::vector<unsigned char>& cpu_set) {
    int count = 0;
    for (unsigned char byte: cpu_set) count += std::popcount(byte);
    return count;
}

} // namespace spikex
