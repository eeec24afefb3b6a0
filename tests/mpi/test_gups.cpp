// gups on several ranks: both algorithms apply every update exactly once (verification
// finds no wrong word), corrupted updates are counted, budgets are respected.
#include <gtest/gtest.h>

#include "mpi_context_fixture.hpp"
#include "spikex/core/errors.hpp"
#include "spikex/gups/gups.hpp"
#include "spikex/route/process_grid.hpp"

using namespace spikex;

TEST(gups, both_algorithms_verify_without_errors) {
    for (const char* algorithm:
         {"baseline", "routed", "routed with two lanes", "routed with MPI messages", "routed with mailboxes if fit"}) {
        for (const char* dims: {"auto", "hypercube", "[2, 2]"}) {
            gups_options o;
            o.log2_table = 11;
            o.algorithm = std::string(algorithm).substr(0, std::string(algorithm).find(' '));
            o.lanes = std::string(algorithm).find("lanes") != std::string::npos ? 2 : 1;
            if (std::string(algorithm).find("if fit") == std::string::npos) {
                o.shared_memory = std::string(algorithm).find("MPI") == std::string::npos;
            }
            o.dims = dims;
            if (grid_problem(test_context->size(), {2, 2}) != "" && std::string(dims) == "[2, 2]") continue;
            if (hypercube_dims(test_context->size()).empty() && std::string(dims) == "hypercube") continue;
            gups_result r = run_gups(*test_context, o);
            EXPECT_TRUE(r.passed) << algorithm << " " << dims;
            EXPECT_EQ(r.errors, 0u) << algorithm << " " << dims;
            EXPECT_EQ(r.updates, 4u * 2048u);
            EXPECT_LE(r.counts.buffered_high_water, 1024u);
            if (test_context->size() > 1) EXPECT_GT(r.counts.messages_sent, 0u);
            // One node: the routed messages take the mailboxes unless told not to.
            const bool routed = o.algorithm == "routed";
            EXPECT_EQ(r.oversubscribed, test_context->share_of_node().oversubscribed());
            EXPECT_EQ(r.shared_memory, routed && o.shared_memory.value_or(true)) << algorithm;
            EXPECT_EQ(r.counts.shared_memory_messages, r.shared_memory ? r.counts.messages_sent : 0u) << algorithm;
        }
    }
}

TEST(gups, corrupted_updates_are_counted) {
    for (const char* algorithm: {"baseline", "routed"}) {
        gups_options o;
        o.log2_table = 10;
        o.algorithm = algorithm;
        o.corrupt_updates = 3;
        gups_result r = run_gups(*test_context, o);
        EXPECT_EQ(r.errors, 3u) << algorithm;
        EXPECT_TRUE(r.passed) << "3 of 1024 words is within the 1% HPCC allows";
        // The stream starts with 64 powers of two (a_n = x^n), which pile up on word 0 and
        // cancel in pairs: corrupt well past them to spoil more than 1% of the words.
        o.corrupt_updates = 200;
        r = run_gups(*test_context, o);
        EXPECT_GT(r.errors * 100, r.table_size) << algorithm;
        EXPECT_FALSE(r.passed) << algorithm << " errors " << r.errors;
    }
}

TEST(gups, small_budget_bounds_buffering) {
    gups_options o;
    o.log2_table = 10;
    o.budget = 16;
    for (const char* algorithm: {"baseline", "routed"}) {
        o.algorithm = algorithm;
        for (int lanes: {1, 2}) {
            for (bool shared_memory: {true, false}) {
                o.lanes = lanes;
                o.shared_memory = shared_memory;
                gups_result r = run_gups(*test_context, o);
                EXPECT_EQ(r.errors, 0u) << algorithm;
                EXPECT_LE(r.counts.buffered_high_water, 16u) << algorithm;
            }
        }
        o.lanes = 1;
    }
    // Tighter still: the router gets the whole budget and updates are generated one at a
    // time (gups.cpp share_routed_budget).
    o.algorithm = "routed";
    process_grid grid = make_process_grid(test_context->size(), "auto", "dims");
    o.budget = grid.buckets();
    gups_result tight = run_gups(*test_context, o);
    EXPECT_EQ(tight.errors, 0u);
    EXPECT_EQ(tight.bucket_capacity, 1);
    o.budget = 1;
    o.algorithm = "routed";
    if (test_context->size() > 1) EXPECT_THROW(run_gups(*test_context, o), user_error);
}
