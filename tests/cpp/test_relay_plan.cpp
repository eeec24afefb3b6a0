// Two-phase relay groups (Hines et al. 2011, "Multisend method variations"): every target
// rank of a cell is reached exactly once, groups are ~sqrt(Nt) in size and number, the relay
// belongs to its group, and the choice is a pure function of (seed, gid).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "spikex/connections/relay_plan.hpp"

using namespace spikex;

TEST(relay_plan, integer_sqrt_is_the_floor) {
    for (std::uint32_t n = 0; n < 20000; ++n) {
        auto r = integer_sqrt(n);
        ASSERT_LE(std::uint64_t(r) * r, n) << n;
        ASSERT_GT(std::uint64_t(r + 1) * (r + 1), n) << n;
    }
    EXPECT_EQ(integer_sqrt(0xffffffffu), 65535u);
}

TEST(relay_plan, groups_cover_every_target_exactly_once) {
    for (std::uint32_t n = 0; n <= 300; ++n) {
        std::vector<int> targets(n);
        std::iota(targets.begin(), targets.end(), 3); // ranks 3..n+2
        auto groups = split_relay_groups(targets, /*gid=*/n * 7 + 1, /*seed=*/5);
        std::vector<int> seen;
        std::size_t largest = 0, smallest = n;
        for (const auto& g: groups) {
            seen.push_back(g.relay);
            seen.insert(seen.end(), g.members.begin(), g.members.end());
            EXPECT_EQ(std::count(g.members.begin(), g.members.end(), g.relay), 0) << "relay is not its own member";
            largest = std::max(largest, g.members.size() + 1);
            smallest = std::min(smallest, g.members.size() + 1);
        }
        std::sort(seen.begin(), seen.end());
        ASSERT_EQ(seen, targets) << "n = " << n;
        if (n == 0) {
            EXPECT_TRUE(groups.empty());
            continue;
        }
        const std::uint32_t s = std::max<std::uint32_t>(1, integer_sqrt(n));
        EXPECT_EQ(groups.size(), (n + s - 1) / s) << "n = " << n;
        EXPECT_LE(largest - smallest, 1u) << "n = " << n;
        EXPECT_LE(largest, s + 1) << "n = " << n;
    }
}

TEST(relay_plan, members_of_a_group_are_consecutive_and_the_relay_is_drawn_from_them) {
    std::vector<int> targets(1000);
    std::iota(targets.begin(), targets.end(), 0);
    auto groups = split_relay_groups(targets, 42, 1);
    ASSERT_EQ(groups.size(), 33u); // isqrt(1000) = 31 per group, ceil(1000 / 31) = 33 groups
    int next = 0;
    for (const auto& g: groups) {
        std::vector<int> all = g.members;
        all.push_back(g.relay);
        std::sort(all.begin(), all.end());
        for (int r: all) EXPECT_EQ(r, next++) << "groups are consecutive runs of the target list";
    }
    EXPECT_EQ(next, 1000);
}

TEST(relay_plan, the_choice_depends_on_seed_and_gid_only) {
    std::vector<int> targets(100);
    std::iota(targets.begin(), targets.end(), 0);
    auto relays = [&](gid_type gid, std::uint32_t seed) {
        std::vector<int> out;
        for (const auto& g: split_relay_groups(targets, gid, seed)) out.push_back(g.relay);
        return out;
    };
    EXPECT_EQ(relays(9, 1), relays(9, 1));
    EXPECT_NE(relays(9, 1), relays(10, 1));
    EXPECT_NE(relays(9, 1), relays(9, 2));
    // Every rank of a group gets chosen for some gid: the draw is not stuck on one position.
    std::vector<int> chosen(100, 0);
    for (gid_type gid = 0; gid < 400; ++gid) {
        for (int r: relays(gid, 3)) chosen[r] = 1;
    }
    EXPECT_EQ(std::accumulate(chosen.begin(), chosen.end(), 0), 100);
}
