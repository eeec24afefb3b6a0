// Entry point of the multi-rank C++ tests (run under mpiexec by ctest, and also on one
// rank): every rank runs every test; only rank 0 prints; the exit status is the maximum
// over ranks, so a failure on any rank fails the run (as Arbor's MPI test driver does).
#include <gtest/gtest.h>

#include "mpi_context_fixture.hpp"

spikex::context* test_context = nullptr;

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    auto ctx = spikex::make_mpi_context();
    test_context = ctx.get();
    if (ctx->rank() != 0) {
        auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
        delete listeners.Release(listeners.default_result_printer());
    }
    int failed = RUN_ALL_TESTS() != 0;
    int any_failed = static_cast<int>(ctx->allreduce_max(failed));
    ctx.reset();
    spikex::finalize_mpi_if_initialized();
    return any_failed;
}
