#pragma once
// The cores a process may run on, as the kernel's affinity mask: a bit per CPU number, so
// that the masks of a node's ranks combine with a bitwise OR (context::share_of_node).
#include <vector>

namespace spikex {

std::vector<unsigned char> own_cpu_set(); // sched_getaffinity; every CPU online if unknown
int cpu_count(const std::vector<unsigned char>& cpu_set);

} // namespace spikex
