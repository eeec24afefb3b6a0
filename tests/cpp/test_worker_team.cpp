// worker_team (core/worker_team.hpp): every thread runs the job, a meeting lets no thread
// pass before all have arrived and thread 0's serial part has run, exceptions come back to
// the caller, and a team sleeping between jobs wakes for the next one.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "spikex/core/worker_team.hpp"

using namespace spikex;

namespace {

// Each round: every thread adds to its own slot; thread 0's serial part checks that all
// slots reached the round and sums them; after the meeting every thread reads the sum.
void run_rounds(worker_team& team, int rounds) {
    const unsigned T = team.size();
    std::vector<long> slot(T, 0), seen_total(T, 0);
    long total = 0;
    bool ok = true;
    team.run([&](unsigned t) {
        for (int r = 1; r <= rounds; ++r) {
            slot[t] = r;
            team.meet(t, [&] {
                for (unsigned u = 0; u < T; ++u) ok = ok && slot[u] == r;
                total += long(T) * r;
            });
            seen_total[t] = total;
            team.meet(t, [] {});
        }
    });
    const long expected = long(T) * rounds * (rounds + 1) / 2;
    EXPECT_TRUE(ok);
    EXPECT_EQ(total, expected);
    for (unsigned t = 0; t < T; ++t) EXPECT_EQ(seen_total[t], expected) << "thread " << t;
}

} // namespace

TEST(worker_team, meetings_order_every_thread) {
    for (unsigned threads: {1u, 2u, 3u, 5u}) {
        worker_team team(threads);
        for (int job = 0; job < 20; ++job) run_rounds(team, 50);
    }
}

TEST(worker_team, every_thread_runs_the_job_once) {
    worker_team team(4);
    std::vector<std::atomic<int>> runs(4);
    for (int job = 0; job < 100; ++job) team.run([&](unsigned t) { runs[t].fetch_add(1); });
    for (auto& r: runs) EXPECT_EQ(r.load(), 100);
}

TEST(worker_team, the_first_exception_reaches_the_caller_and_the_team_goes_on) {
    worker_team team(3);
    EXPECT_THROW(team.run([&](unsigned t) {
        if (t == 2) throw std::runtime_error("thread 2 failed");
    }),
                 std::runtime_error);
    run_rounds(team, 10); // still usable
}

TEST(worker_team, waits_spin_yield_and_sleep_and_wake_up) {
    // Short limits: a pause between jobs longer than the yield limit puts the worker to
    // sleep; the next job must wake it. The same inside a job, at a meeting.
    worker_team team(2, wait_limits{1.0, 100.0});
    for (int job = 0; job < 5; ++job) {
        std::this_thread::sleep_for(std::chrono::milliseconds(3));
        run_rounds(team, 3);
    }
    int after = 0;
    team.run([&](unsigned t) {
        if (t == 0) std::this_thread::sleep_for(std::chrono::milliseconds(3));
        team.meet(t, [&] { after = 1; });
        EXPECT_EQ(after, 1);
    });
    EXPECT_GT(team.counts().slept, 0u);
    EXPECT_GE(team.counts().yielded, team.counts().slept);
}

TEST(worker_team, destroys_a_sleeping_team) {
    auto team = std::make_unique<worker_team>(3, wait_limits{1.0, 10.0});
    run_rounds(*team, 2);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    team.reset(); // joins: must not hang
    SUCCEED();
}

TEST(worker_team, a_new_team_spins_through_its_warm_up) {
    // The same short limits as above, with a warm-up far longer than the pause: the worker
    // keeps spinning (it neither yields nor sleeps) until its first job, so that the
    // scheduler has moved it to a core of its own by then (engine::team_warm_up_us).
    worker_team team(2, wait_limits{1.0, 100.0, 2e6});
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    run_rounds(team, 3);
    EXPECT_EQ(team.counts().yielded, 0u);
    EXPECT_EQ(team.counts().slept, 0u);
    // Without it, the same pause makes the worker yield, then sleep.
    worker_team cold(2, wait_limits{1.0, 100.0});
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    run_rounds(cold, 3);
    EXPECT_GT(cold.counts().slept, 0u);
}
