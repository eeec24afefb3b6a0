// The MPI backend of the comm layer: collectives with uneven and empty contributions,
// reductions, and MPI errors turned into exceptions instead of aborts.
#include <gtest/gtest.h>

#include <numeric>

#include "mpi_context_fixture.hpp"
#include "spikex/core/errors.hpp"

using namespace spikex;

TEST(mpi_context, backend_and_ranks) {
    EXPECT_EQ(test_context->backend(), "mpi");
    EXPECT_GE(test_context->size(), 1);
    EXPECT_LT(test_context->rank(), test_context->size());
}

TEST(mpi_context, allgather_places_blocks_in_rank_order) {
    int p = test_context->size();
    std::int64_t mine[2] = {test_context->rank(), 100 + test_context->rank()};
    std::vector<std::int64_t> all(2 * p);
    test_context->allgather(mine, sizeof mine, all.data());
    for (int r = 0; r < p; ++r) {
        EXPECT_EQ(all[2 * r], r);
        EXPECT_EQ(all[2 * r + 1], 100 + r);
    }
}

TEST(mpi_context, allgather_vector_with_uneven_and_empty_parts) {
    // rank r contributes r values (rank 0 none): the case of ranks that emit no spikes
    std::vector<int> mine(test_context->rank(), test_context->rank());
    auto all = test_context->allgather_vector(mine);
    int p = test_context->size();
    ASSERT_EQ(all.size(), static_cast<std::size_t>(p * (p - 1) / 2));
    std::size_t k = 0;
    for (int r = 0; r < p; ++r) {
        for (int i = 0; i < r; ++i) EXPECT_EQ(all[k++], r);
    }
}

TEST(mpi_context, reductions) {
    int p = test_context->size();
    int r = test_context->rank();
    EXPECT_EQ(test_context->allreduce_sum(r + 1), p * (p + 1) / 2);
    EXPECT_EQ(test_context->allreduce_max(r), p - 1);
    EXPECT_EQ(test_context->allreduce_min(r + 5), 5);
}

TEST(mpi_context, counters_count_collectives_and_bytes) {
    auto before = test_context->counters();
    int x = 1;
    std::vector<int> all(test_context->size());
    test_context->allgather(&x, sizeof x, all.data());
    auto after = test_context->counters();
    EXPECT_EQ(after.collectives, before.collectives + 1);
    EXPECT_EQ(after.bytes_sent, before.bytes_sent + sizeof x);
}

TEST(mpi_context, mpi_error_becomes_comm_error) {
    // A byte count that does not fit MPI's int is an invalid count: MPI returns an error
    // code (MPI_ERRORS_RETURN) and the wrapper throws instead of aborting the job.
    char byte = 0;
    std::vector<char> all(test_context->size());
    EXPECT_THROW(test_context->allgather(&byte, static_cast<std::size_t>(-1), all.data()), comm_error);
    test_context->barrier(); // still usable afterwards
}
