// The routed exchange's item (exchange/routed_item.hpp): the size follows from P, N and M;
// destination, gid and step come back for every step within M of the receiver's
// synchronization step, on either side of it.
#include <gtest/gtest.h>

#include <cstdint>

#include "spikex/exchange/routed_item.hpp"

using namespace spikex;

TEST(routed_item, size_is_the_bits_of_rank_gid_and_step_mod_2m) {
    EXPECT_EQ(routed_item_format(2, 1200, 40).bytes(), 3u);        // 1 + 11 + 7 bits
    EXPECT_EQ(routed_item_format(4, 11250, 15).bytes(), 3u);       // 2 + 14 + 5
    EXPECT_EQ(routed_item_format(1, 1, 1).bytes(), 1u);            // 0 + 0 + 1
    EXPECT_EQ(routed_item_format(1024, 1u << 20, 15).bytes(), 5u); // 10 + 20 + 5
    EXPECT_LE(routed_item_format(1 << 30, 4294967295u, 1 << 20).bytes(), 12u);
}

TEST(routed_item, round_trips_around_the_reference_step) {
    const int ranks = 5;
    const std::uint64_t cells = 1000;
    for (step_type m: {1, 2, 15, 40}) {
        const routed_item_format format(ranks, cells, m);
        for (step_type reference: {step_type{0}, m, 7 * m, 7 * m + m / 2, step_type{1} << 40}) {
            for (step_type step = std::max<step_type>(0, reference - m); step < reference + m; ++step) {
                for (int destination: {0, ranks - 1}) {
                    for (gid_type gid: {0u, 999u}) {
                        unsigned char item[spike_codec::max_single_bytes] = {};
                        format.encode(destination, gid, step, item);
                        EXPECT_EQ(format.destination(item), destination);
                        gid_type back_gid = 1;
                        step_type back_step = -1;
                        format.decode(item, reference, back_gid, back_step);
                        EXPECT_EQ(back_gid, gid);
                        EXPECT_EQ(back_step, step) << "M " << m << " reference " << reference;
                    }
                }
            }
        }
    }
}
