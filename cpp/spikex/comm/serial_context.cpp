// Serial backend: one rank, collectives are copies. No MPI call is made, so a
// single-process run needs no launcher.
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "spikex/comm/context.hpp"

namespace spikex {
namespace {

class serial_context final: public context {
public:
    std::string backend() const override { return "serial"; }
    int rank() const override { return 0; }
    int size() const override { return 1; }
    void barrier() override { ++counters_.collectives; }

    void allgather(const void* send, std::size_t bytes, void* recv) override {
        ++counters_.collectives;
        if (bytes) std::memmove(recv, send, bytes);
    }

    void allgatherv(const void* send, std::size_t bytes, void* recv, const std::vector<int>&,
                    const std::vector<int>& displs) override {
        ++counters_.collectives;
        if (bytes) std::memmove(static_cast<char*>(recv) + displs[0], send, bytes);
    }

    std::int64_t allreduce_sum(std::int64_t v) override { ++counters_.collectives; return v; }
    std::int64_t allreduce_max(std::int64_t v) override { ++counters_.collectives; return v; }
    std::int64_t allreduce_min(std::int64_t v) override { ++counters_.collectives; return v; }

    [[noreturn]] void abort(int code) override {
        std::cerr.flush();
        std::_Exit(code);
    }
};

} // namespace

std::unique_ptr<context> make_serial_context() { return std::make_unique<serial_context>(); }

} // namespace spikex
