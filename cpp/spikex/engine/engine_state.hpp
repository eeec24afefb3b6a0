#pragma once
// One rank's part of a checkpoint (docs/user/checkpoint.md): named columns of integers and
// reals. Every row carries its key — a gid, a (source, delay, synapse) triple or a target
// gid with the digest of its inputs' keys — never a rank or a local index, so the rows of
// any layout restore any other layout (engine::import_state).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace spikex {

struct engine_state {
    std::map<std::string, std::vector<std::int64_t>> ints;
    std::map<std::string, std::vector<double>> reals;
};

} // namespace spikex
