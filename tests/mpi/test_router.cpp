// route: random traffic between all pairs of ranks, on every grid shape that fits the job
// (full, ragged, hypercube, one-dimensional), reaches every destination exactly once, and
// no rank ever buffers more than its budget (the instrumented high-water mark). Run on
// 1-8 ranks (cpp/CMakeLists.txt).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "mpi_context_fixture.hpp"
#include "spikex/core/errors.hpp"
#include "spikex/route/router.hpp"

using namespace spikex;

namespace {

struct test_item {
    std::uint32_t destination, source, sequence, epoch, check;
};
static_assert(sizeof(test_item) == 20);

std::uint32_t check_of(const test_item& it) {
    return it.destination * 2654435761u ^ it.source * 40503u ^ it.sequence ^ it.epoch * 977u;
}

// Items rank s sends to rank t: uneven, some pairs none, rank 0 sends nothing at all.
std::uint32_t items_between(int s, int t, int epoch) {
    if (s == 0) return 0;
    return static_cast<std::uint32_t>((s * 7 + t * 3 + epoch * 5) % 11) * 9;
}

struct traffic_result {
    std::uint64_t high_water = 0;
    std::uint64_t messages = 0;
    std::uint64_t forwarded = 0;
};

// A codec that changes every byte and puts the pair's ranks first, so that a message that
// skipped encoding or decoding cannot pass for items, nor one that the router handed the
// wrong sender or receiver.
class scrambling_codec final: public message_codec {
public:
    static constexpr std::size_t header = 1 + 2 * sizeof(std::int32_t);
    std::size_t encode(const unsigned char* items, std::size_t count, int from, int to,
                       unsigned char* out) const override {
        const std::size_t bytes = count * sizeof(test_item);
        out[0] = 0xa5;
        const std::int32_t pair[] = {from, to};
        std::memcpy(&out[1], pair, sizeof pair);
        for (std::size_t k = 0; k < bytes; ++k) out[k + header] = items[k] ^ 0x5a;
        // The slack the router promises: written, so that a short buffer shows up under
        // a checker (and in the items of a neighbouring slot).
        std::memset(out + header + bytes, 0xee, encode_slack);
        return bytes + header;
    }
    std::size_t decode(const unsigned char* message, std::size_t size, int from, int to, unsigned char* items,
                       std::size_t capacity) const override {
        std::int32_t pair[2] = {-1, -1};
        if (size >= header) std::memcpy(pair, message + 1, sizeof pair);
        if (size < header || message[0] != 0xa5 || (size - header) % sizeof(test_item) != 0 ||
            (size - header) / sizeof(test_item) > capacity) {
            throw internal_error("scrambling_codec: malformed message");
        }
        if (pair[0] != from || pair[1] != to) throw internal_error("scrambling_codec: a message of another pair");
        for (std::size_t k = 0; k < size - header; ++k) items[k] = message[k + header] ^ 0x5a;
        return (size - header) / sizeof(test_item);
    }
    std::size_t max_message_bytes(std::size_t count) const override { return count * sizeof(test_item) + header; }
};

struct transport {
    bool shared_memory = false;
    const message_codec* codec = nullptr;
};

// How the test injects: item by item in random order (inject), or grouped by destination
// and cut into runs of 1-40 items (try_inject_run; this rank's own items too), waiting
// whenever a run is taken only in part.
enum class injection { one_at_a_time, runs };

// One router on `dims`, `epochs` rounds of inject-all-then-finish; checks exactly-once.
traffic_result run_traffic(const std::string& dims, std::int64_t budget, int epochs, bool progress_while_injecting,
                           int lanes = 1, transport how = {}, injection inject = injection::one_at_a_time) {
    context& comm = *test_context;
    const int p = comm.size(), me = comm.rank();
    process_grid grid = make_process_grid(p, dims, "dims");
    // Items of the next epoch may arrive while this rank is still finishing the previous
    // one (a faster rank has moved on): file arrivals by their epoch.
    std::vector<std::vector<test_item>> arrived(epochs);
    router_options options{sizeof(test_item), budget, 21000, default_message_bytes, lanes, how.codec};
    options.shared_memory = how.shared_memory;
    router r(
        comm, grid, options,
        [](const unsigned char* item) {
            std::uint32_t d;
            std::memcpy(&d, item, sizeof d);
            return static_cast<int>(d);
        },
        [&](const unsigned char* items, std::size_t count) {
            for (std::size_t k = 0; k < count; ++k) {
                test_item it;
                std::memcpy(&it, items + k * sizeof it, sizeof it);
                ASSERT_LT(it.epoch, arrived.size());
                arrived[it.epoch].push_back(it);
            }
        });
    // The budget shared by the send buckets (lanes of them per partner, as many lanes as
    // it can give one item each) and the receive buffers (one per channel), at most
    // default_message_bytes per message.
    const std::int64_t sends = grid.buckets() - grid.channels();
    int lanes_used = lanes;
    while (lanes_used > 1 && lanes_used * sends + grid.channels() > budget) --lanes_used;
    EXPECT_EQ(r.lanes(), lanes_used);
    EXPECT_EQ(r.bucket_capacity(), std::min(static_cast<std::size_t>(budget / (lanes_used * sends + grid.channels())),
                                            default_message_bytes / sizeof(test_item)));

    std::mt19937 shuffle(1234 + me);
    for (int epoch = 0; epoch < epochs; ++epoch) {
        std::vector<test_item> mine;
        for (int t = 0; t < p; ++t) {
            for (std::uint32_t k = 0; k < items_between(me, t, epoch); ++k) {
                test_item it{static_cast<std::uint32_t>(t), static_cast<std::uint32_t>(me), k,
                             static_cast<std::uint32_t>(epoch), 0};
                it.check = check_of(it);
                mine.push_back(it);
            }
        }
        std::shuffle(mine.begin(), mine.end(), shuffle);
        if (inject == injection::one_at_a_time) {
            for (std::size_t i = 0; i < mine.size(); ++i) {
                if (progress_while_injecting && i % 8 == 0) r.progress();
                r.inject(static_cast<int>(mine[i].destination), &mine[i]);
            }
        } else {
            std::stable_sort(mine.begin(), mine.end(),
                             [](const test_item& a, const test_item& b) { return a.destination < b.destination; });
            std::uniform_int_distribution<std::size_t> run_length(1, 40);
            for (std::size_t i = 0; i < mine.size();) {
                std::size_t end = std::min(mine.size(), i + run_length(shuffle));
                while (mine[end - 1].destination != mine[i].destination) --end; // one destination
                if (progress_while_injecting) r.progress();
                while (i < end) {
                    const std::size_t took = r.try_inject_run(static_cast<int>(mine[i].destination), &mine[i], end - i);
                    if (took == 0) r.wait();
                    i += took;
                }
            }
        }
        r.finish();

        // Exactly once: every (source, sequence) meant for this rank, nothing else.
        std::set<std::pair<std::uint32_t, std::uint32_t>> seen;
        for (const auto& it: arrived[epoch]) {
            EXPECT_EQ(it.destination, static_cast<std::uint32_t>(me));
            EXPECT_EQ(it.check, check_of(it)) << "item corrupted on the way";
            EXPECT_TRUE(seen.insert({it.source, it.sequence}).second)
                << "duplicate " << it.source << "/" << it.sequence << " on " << dims;
        }
        std::size_t expected = 0;
        for (int s = 0; s < p; ++s) {
            expected += items_between(s, me, epoch);
            for (std::uint32_t k = 0; k < items_between(s, me, epoch); ++k) {
                EXPECT_TRUE(seen.count({static_cast<std::uint32_t>(s), k}))
                    << "lost item " << s << "/" << k << " -> " << me << " on " << dims << " epoch " << epoch;
            }
        }
        EXPECT_EQ(arrived[epoch].size(), expected) << dims;
    }
    const auto& c = r.counters();
    EXPECT_LE(c.buffered_high_water, static_cast<std::uint64_t>(budget)) << dims << ": over the budget";
    EXPECT_EQ(c.finishes, static_cast<std::uint64_t>(epochs));
    EXPECT_GE(c.waves, static_cast<std::uint64_t>(epochs));
    // Collectively: items injected == items delivered.
    std::int64_t totals[2] = {std::int64_t(c.items_injected), std::int64_t(c.items_delivered)};
    comm.allreduce_sum(totals, 2);
    EXPECT_EQ(totals[0], totals[1]);
    // Mailboxes: every rank of this test is on one node, so every message took one.
    if (how.shared_memory) {
        EXPECT_EQ(c.shared_memory_messages, c.messages_sent) << dims;
        EXPECT_EQ(r.shared_memory_partners(), r.table().routers()) << dims;
    } else {
        EXPECT_EQ(c.shared_memory_messages, 0u) << dims;
    }
    return {c.buffered_high_water, c.messages_sent, c.items_forwarded};
}

// Shapes that fit the job: auto, one dimension, hypercube, and every 2-3 dimensional shape
// of sides 2-4 (full or ragged).
std::vector<std::string> shapes_for(int p) {
    std::vector<std::string> shapes = {"auto", std::to_string(p)};
    if (!hypercube_dims(p).empty() && p > 1) shapes.push_back("hypercube");
    for (int a = 2; a <= 4; ++a) {
        for (int b = 2; b <= 4; ++b) {
            if (grid_problem(p, {a, b}).empty()) shapes.push_back(dims_text({a, b}));
            for (int c = 2; c <= 3; ++c) {
                if (grid_problem(p, {a, b, c}).empty()) shapes.push_back(dims_text({a, b, c}));
            }
        }
    }
    return shapes;
}

} // namespace

TEST(router, all_pairs_traffic_arrives_exactly_once_on_every_shape) {
    for (const auto& dims: shapes_for(test_context->size())) {
        SCOPED_TRACE("dims " + dims);
        run_traffic(dims, 1024, 2, true);
    }
}

TEST(router, smallest_budget_never_overflows) {
    // Buckets of one or two items: every bucket is constantly full or in flight, so
    // receive buffers block and injection waits; still nothing is lost or over budget.
    const int p = test_context->size();
    for (const auto& dims: shapes_for(p)) {
        SCOPED_TRACE("dims " + dims);
        process_grid grid = make_process_grid(p, dims, "dims");
        for (std::int64_t budget: {std::int64_t(grid.buckets()), std::int64_t(2 * grid.buckets() + 1)}) {
            auto result = run_traffic(dims, budget, 1, false);
            EXPECT_LE(result.high_water, static_cast<std::uint64_t>(budget));
        }
    }
}

TEST(router, lanes_fill_in_turn_and_lose_nothing) {
    // Two or three buckets per partner, with a budget that affords them and with one that
    // affords fewer (then fewer lanes): exactly once and within the budget all the same.
    const int p = test_context->size();
    for (const auto& dims: shapes_for(p)) {
        SCOPED_TRACE("dims " + dims);
        process_grid grid = make_process_grid(p, dims, "dims");
        for (int lanes: {2, 3}) {
            run_traffic(dims, 1024, 2, true, lanes);
            run_traffic(dims, 2 * grid.buckets() + 1, 1, false, lanes);
        }
    }
}

TEST(router, shared_memory_mailboxes_lose_nothing_on_every_shape) {
    // The same traffic through mailboxes in shared memory: with items as they are (written
    // into the partner's slot in place) and with a codec; one and two lanes; the smallest
    // budget, where every slot is constantly full and senders wait for receivers.
    const int p = test_context->size();
    const scrambling_codec codec;
    for (const auto& dims: shapes_for(p)) {
        SCOPED_TRACE("dims " + dims);
        process_grid grid = make_process_grid(p, dims, "dims");
        for (const message_codec* with:
             {static_cast<const message_codec*>(nullptr), static_cast<const message_codec*>(&codec)}) {
            const transport mailboxes{true, with};
            for (int lanes: {1, 2}) run_traffic(dims, 1024, 2, true, lanes, mailboxes);
            run_traffic(dims, grid.buckets(), 1, false, 1, mailboxes);
        }
    }
}

TEST(router, runs_of_one_destination_arrive_exactly_once) {
    // try_inject_run: runs that a bucket takes whole, in part (it fills and goes; the next
    // lane takes the rest, or none is free and the run waits) or not at all, through MPI
    // messages and mailboxes, with the budget of GUPS and the smallest one.
    const int p = test_context->size();
    for (const auto& dims: shapes_for(p)) {
        SCOPED_TRACE("dims " + dims);
        process_grid grid = make_process_grid(p, dims, "dims");
        for (bool shared_memory: {false, true}) {
            const transport how{shared_memory};
            for (int lanes: {1, 2}) run_traffic(dims, 1024, 2, true, lanes, how, injection::runs);
            run_traffic(dims, grid.buckets(), 1, false, 1, how, injection::runs);
        }
    }
}

TEST(router, forwards_through_routers_when_the_grid_has_several_dimensions) {
    const int p = test_context->size();
    if (p < 4) GTEST_SKIP() << "needs a two-dimensional grid";
    for (bool shared_memory: {false, true}) {
        auto result =
            run_traffic(dims_text({2, (p + 1) / 2}), 1024, 1, true, 1, {shared_memory}); // ragged when p is odd
        std::int64_t forwarded = test_context->allreduce_sum(static_cast<std::int64_t>(result.forwarded));
        EXPECT_GT(forwarded, 0) << "some items must have taken two hops";
    }
}

TEST(router, budget_below_one_item_per_bucket_is_a_user_error) {
    context& comm = *test_context;
    process_grid grid = make_process_grid(comm.size(), "auto", "dims");
    auto nowhere = [](const unsigned char*) { return 0; };
    auto ignore = [](const unsigned char*, std::size_t) {};
    EXPECT_THROW(router(comm, grid, {8, grid.buckets() - 1, 21000}, nowhere, ignore), user_error);
    EXPECT_NE(budget_problem(grid, grid.buckets() - 1), "");
    EXPECT_EQ(budget_problem(grid, grid.buckets()), "");
}
