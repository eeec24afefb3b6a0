// Question: what do the spike wire codec's bytes cost in CPU time (issue 21)? For a rank's
// spikes of one interval (the block an Allgather rank or a rank pair sends), the ns per spike
// to encode the block and to decode it, against 8-byte entries (memcpy of (item, offset) in,
// out), and the bytes per spike each gives. Blocks as a network makes them: N cells per
// rank firing at r Hz, dt = 0.1 ms, M steps per interval: S = N r M dt spikes at random
// cells and steps, steps ascending, in two orders within a step: random (what a
// target-addressed block may hold; the encoder sorts) and cell order (what the engine
// emits: each thread's contiguous cells updated in order, threads in order; the encoder
// finds the keys ascending and skips the sort). Also a routed bucket (routed_bucket_codec:
// encoded at send, decoded at every hop). Every decode is checked to give the block back
// (as a sorted multiset). A case's blocks lie one after the other in one array, encoded into
// one buffer and decoded from it, as the exchange's send and receive buffers hold them (with
// an array of its own per block the 8-byte entries cost up to 1.3 times as much in blocks
// of 1-8 spikes; the codec's ns moved by less than 10 %). Prints one JSON object.
//
//   bench_spike_codec [--spikes 4000000] [--repeats 5] [--rate-hz 5] [--cells N --steps M]
// (--cells and --steps: that one case only; bench/fit_profile.py takes the time model's
// codec costs from one case)
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "spikex/exchange/point_to_point.hpp"
#include "spikex/exchange/routed_bucket_codec.hpp"
#include "spikex/exchange/routed_item.hpp"
#include "spikex/exchange/spike_codec.hpp"
#include "spikex/network/distribution.hpp"

using namespace spikex;

namespace {

using seconds_clock = std::chrono::steady_clock;

double seconds_since(seconds_clock::time_point start) {
    return std::chrono::duration<double>(seconds_clock::now() - start).count();
}

// A rank's spikes of each interval, one block after the other in one array, as the
// exchange holds them (an interval's spike buffer, sent from and received into contiguous
// buffers): a block is a view into it.
struct workload {
    std::uint64_t cells;
    std::uint32_t steps;
    std::vector<wire_spike> all;
    std::vector<std::span<const wire_spike>> blocks;
    std::size_t spikes = 0;
};

workload make_workload(std::uint64_t cells, std::uint32_t steps, double rate_hz, std::size_t total, std::uint64_t seed,
                       bool in_cell_order) {
    workload w{cells, steps, {}, {}, 0};
    std::mt19937_64 rng(seed);
    std::poisson_distribution<std::size_t> count(double(cells) * rate_hz * 1e-4 * steps);
    std::uniform_int_distribution<std::uint32_t> cell(0, static_cast<std::uint32_t>(cells - 1)), step(0, steps - 1);
    std::vector<std::size_t> ends;
    while (w.spikes < total) {
        std::vector<wire_spike> block(count(rng));
        for (auto& s: block) s = {cell(rng), step(rng)};
        std::sort(block.begin(), block.end(), [](auto a, auto b) { return a.offset < b.offset; });
        if (in_cell_order) {
            std::sort(block.begin(), block.end(),
                      [](auto a, auto b) { return a.offset != b.offset ? a.offset < b.offset : a.item < b.item; });
        }
        w.spikes += block.size();
        w.all.insert(w.all.end(), block.begin(), block.end());
        ends.push_back(w.all.size());
    }
    std::size_t begin = 0;
    for (std::size_t end: ends) {
        w.blocks.emplace_back(w.all.data() + begin, end - begin);
        begin = end;
    }
    return w;
}

struct result {
    double encode_ns = 1e300, decode_ns = 1e300, bytes_per_spike = 0;
};

// Every block encoded after the one before into one buffer, and decoded from it (as an
// Allgather rank's send and receive buffers hold them).
result measure_codec(const workload& w, int repeats) {
    const spike_codec codec(w.steps);
    std::vector<unsigned char> wire;
    std::vector<std::size_t> ends(w.blocks.size());
    result out;
    for (int rep = 0; rep < repeats; ++rep) {
        wire.clear();
        auto start = seconds_clock::now();
        for (std::size_t b = 0; b < w.blocks.size(); ++b) {
            codec.encode(w.blocks[b], w.cells, wire);
            ends[b] = wire.size();
        }
        out.encode_ns = std::min(out.encode_ns, seconds_since(start) * 1e9 / double(w.spikes));
        out.bytes_per_spike = double(wire.size()) / double(w.spikes);
        std::uint64_t checksum = 0, n = 0;
        start = seconds_clock::now();
        std::size_t begin = 0;
        for (std::size_t end: ends) {
            n += codec.decode(wire.data() + begin, end - begin, w.cells,
                              [&](std::uint32_t item, std::uint32_t offset) { checksum += item * 31 + offset; });
            begin = end;
        }
        out.decode_ns = std::min(out.decode_ns, seconds_since(start) * 1e9 / double(w.spikes));
        std::uint64_t expected = 0;
        for (const auto& s: w.all) expected += std::uint64_t(s.item) * 31 + s.offset;
        if (n != w.spikes || checksum != expected) {
            std::fprintf(stderr, "spike codec: decoded %llu spikes, checksum mismatch\n", (unsigned long long)n);
            std::exit(1);
        }
    }
    return out;
}

// 8-byte entries: [item uint32][offset uint32] copied in and out (allgather compress=false),
// block after block in one buffer, as above.
result measure_entries(const workload& w, int repeats) {
    std::vector<unsigned char> wire(w.spikes * 8);
    std::vector<std::size_t> ends(w.blocks.size());
    result out;
    for (int rep = 0; rep < repeats; ++rep) {
        auto start = seconds_clock::now();
        std::size_t at = 0;
        for (std::size_t b = 0; b < w.blocks.size(); ++b) {
            for (const wire_spike& s: w.blocks[b]) {
                const std::uint32_t words[2] = {s.item, s.offset};
                std::memcpy(&wire[at], words, 8);
                at += 8;
            }
            ends[b] = at;
        }
        out.encode_ns = std::min(out.encode_ns, seconds_since(start) * 1e9 / double(w.spikes));
        out.bytes_per_spike = 8;
        std::uint64_t checksum = 0;
        start = seconds_clock::now();
        std::size_t begin = 0;
        for (std::size_t end: ends) {
            for (std::size_t i = begin; i < end; i += 8) {
                std::uint32_t words[2];
                std::memcpy(words, &wire[i], 8);
                checksum += std::uint64_t(words[0]) * 31 + words[1];
            }
            begin = end;
        }
        out.decode_ns = std::min(out.decode_ns, seconds_since(start) * 1e9 / double(w.spikes));
        if (checksum == 42) std::printf(" "); // keep the loop
    }
    return out;
}

// One-spike messages as point_to_point.hpp's wire_message sends them with OpenMPI: the item
// in the MPI tag (spike_item_tag_base + item), the bytes encode_single with the 4 tag bits
// (relayed, interval mod 8) and the offset; each decoded alone.
result measure_messages(const workload& w, int repeats) {
    const spike_codec codec(w.steps);
    constexpr unsigned tag_bits = 4;
    constexpr std::size_t slot = spike_codec::max_single_bytes;
    std::vector<unsigned char> wire(w.spikes * slot);
    std::vector<unsigned char> sizes(w.spikes);
    std::vector<int> mpi_tags(w.spikes);
    result out;
    for (int rep = 0; rep < repeats; ++rep) {
        auto start = seconds_clock::now();
        std::size_t bytes = 0, i = 0;
        for (const auto& block: w.blocks) {
            for (const auto& s: block) {
                const auto tag = static_cast<std::uint32_t>(i & 14); // a phase-one message's tag
                mpi_tags[i] = spike_item_tag_base + static_cast<int>(s.item);
                sizes[i] =
                    static_cast<unsigned char>(codec.encode_single({0, s.offset}, 1, tag_bits, tag, &wire[i * slot]));
                bytes += sizes[i++];
            }
        }
        out.encode_ns = std::min(out.encode_ns, seconds_since(start) * 1e9 / double(w.spikes));
        out.bytes_per_spike = double(bytes) / double(w.spikes);
        std::uint64_t checksum = 0, n = 0;
        start = seconds_clock::now();
        for (i = 0; i < w.spikes; ++i) {
            wire_spike s = codec.decode_single(&wire[i * slot], sizes[i], 1, tag_bits);
            s.item = static_cast<std::uint32_t>(mpi_tags[i] - spike_item_tag_base);
            checksum += std::uint64_t(s.item) * 31 + s.offset;
            ++n;
        }
        out.decode_ns = std::min(out.decode_ns, seconds_since(start) * 1e9 / double(w.spikes));
        std::uint64_t expected = 0;
        for (const auto& block: w.blocks) {
            for (const auto& s: block) expected += std::uint64_t(s.item) * 31 + s.offset;
        }
        if (n != w.spikes || checksum != expected) {
            std::fprintf(stderr, "spike codec: one-spike messages decoded %llu spikes, checksum mismatch\n",
                         (unsigned long long)n);
            std::exit(1);
        }
    }
    return out;
}

// 16-byte messages: the spike_message (gid, phase, sub-interval, step) copied in and out.
result measure_full_messages(const workload& w, int repeats) {
    std::vector<unsigned char> wire(w.spikes * 16);
    result out;
    for (int rep = 0; rep < repeats; ++rep) {
        auto start = seconds_clock::now();
        std::size_t i = 0;
        for (const auto& block: w.blocks) {
            for (const auto& s: block) {
                const std::uint32_t head[4] = {s.item, 1, 0, 0};
                const std::int64_t step = s.offset;
                std::memcpy(&wire[i * 16], head, 8);
                std::memcpy(&wire[i * 16 + 8], &step, 8);
                ++i;
            }
        }
        out.encode_ns = std::min(out.encode_ns, seconds_since(start) * 1e9 / double(w.spikes));
        out.bytes_per_spike = 16;
        std::uint64_t checksum = 0;
        start = seconds_clock::now();
        for (i = 0; i < w.spikes; ++i) {
            std::uint32_t gid;
            std::int64_t step;
            std::memcpy(&gid, &wire[i * 16], 4);
            std::memcpy(&step, &wire[i * 16 + 8], 8);
            checksum += std::uint64_t(gid) * 31 + std::uint64_t(step);
        }
        out.decode_ns = std::min(out.decode_ns, seconds_since(start) * 1e9 / double(w.spikes));
        if (checksum == 42) std::printf(" "); // keep the loop
    }
    return out;
}

// Routed buckets (routed_bucket_codec.hpp) at P = 16 on the default grid (direct, [16]) with
// the default budget of 1,024 items: at most 64 items per bucket (15 send buckets and a
// receive buffer). A bucket holds what the sending rank emits for one destination, in
// emission order: the rank's spikes of an interval as the blocks above (cell order, N cells
// at r Hz; every spike has targets on every rank, as with thousands of synapses a cell)
// cut into buckets of 64, the last one of the interval sent when the interval ends; cells
// round robin over the ranks (gid = local index * P + rank, the default distribution).
// Per item and hop: the encode at send and the decode on arrival, against the item as it
// is (routed_item.hpp: ceil((bits(P - 1) + bits(P N - 1) + bits(2M - 1)) / 8) bytes).
// The routed exchange's end of delivery, as far as the codec's part goes: a checksum of
// what arrives.
struct checksum_arrivals final: routed_arrivals {
    std::uint64_t sum = 0;
    void arrive(const wire_spike* gid_and_offset, std::size_t count) override {
        for (std::size_t k = 0; k < count; ++k)
            sum += std::uint64_t(gid_and_offset[k].item) * 31 + gid_and_offset[k].offset;
    }
};

struct routed_result {
    result coded;
    // At the destination: the codec's delivery (deliver: gid and step mod 2M without items;
    // decode into items where a bucket is not packed) against what an item as it is costs
    // there (routed_item_format::fields, which the uncoded exchange calls on every item).
    double deliver_ns = 1e300, item_arrival_ns = 1e300;
    std::size_t item_bytes = 0, bucket_items = 0;
    double mean_bucket_items = 0, packed_share = 0; // of the buckets sent in the packed pair form
    int ranks = 0;
};

routed_result measure_routed(const workload& emitted, int repeats, std::uint64_t seed) {
    constexpr int ranks = 16, sender = 3;
    constexpr std::size_t bucket_items = 64;
    const distribution cells(distribution_scheme::round_robin, static_cast<std::uint32_t>(emitted.cells * ranks), ranks,
                             1);
    const routed_item_format format(ranks, emitted.cells * ranks, emitted.steps);
    const routed_bucket_codec codec(format, cells);
    checksum_arrivals arrivals;
    const routed_bucket_codec delivering(format, cells, &arrivals);
    const std::size_t item_bytes = format.bytes();
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> destination(0, ranks - 2);
    std::vector<std::vector<unsigned char>> items; // one bucket's items each
    std::vector<std::size_t> counts;
    std::vector<int> receivers; // each bucket's destination: the next hop on a direct grid
    std::uint64_t expected = 0;
    step_type interval_start = 0;
    for (const auto& block: emitted.blocks) {
        int to = destination(rng);
        to += to >= sender ? 1 : 0;
        for (std::size_t first = 0; first < block.size(); first += bucket_items) {
            const std::size_t n = std::min(bucket_items, block.size() - first);
            std::vector<unsigned char> bucket(n * item_bytes);
            for (std::size_t k = 0; k < n; ++k) {
                const wire_spike s = block[first + k];
                const gid_type gid = cells.gid_of(sender, s.item);
                format.encode(to, gid, interval_start + s.offset, &bucket[k * item_bytes]);
                expected +=
                    std::uint64_t(gid) * 31 + (interval_start + s.offset) % format.period() + std::uint64_t(to) * 7;
            }
            items.push_back(std::move(bucket));
            counts.push_back(n);
            receivers.push_back(to);
        }
        interval_start += emitted.steps;
    }
    const std::size_t buckets = items.size();
    const std::size_t n = emitted.spikes;
    // Each bucket's message buffer (as the router's: room for the largest message and the
    // encoder's slack, allocated once) and its message's size.
    std::vector<std::vector<unsigned char>> wire(buckets);
    for (std::size_t b = 0; b < buckets; ++b)
        wire[b].resize(codec.max_message_bytes(counts[b]) + message_codec::encode_slack);
    std::vector<std::size_t> wire_size(buckets);
    // Every bucket decoded after the one before (room for a full bucket at the end), timed
    // as one loop and checked after it (a clock read per bucket cost more than a small
    // bucket's decode).
    std::vector<std::size_t> first_item(buckets + 1, 0);
    for (std::size_t b = 0; b < buckets; ++b) first_item[b + 1] = first_item[b] + counts[b];
    std::vector<unsigned char> decoded((first_item[buckets] + bucket_items) * item_bytes);
    std::vector<std::size_t> decoded_counts(buckets);
    routed_result out;
    out.item_bytes = item_bytes;
    out.bucket_items = bucket_items;
    out.mean_bucket_items = double(n) / double(buckets);
    out.ranks = ranks;
    for (int rep = 0; rep < repeats; ++rep) {
        auto start = seconds_clock::now();
        std::size_t bytes = 0;
        for (std::size_t b = 0; b < buckets; ++b) {
            wire_size[b] = codec.encode(items[b].data(), counts[b], sender, receivers[b], wire[b].data());
            bytes += wire_size[b];
        }
        out.coded.encode_ns = std::min(out.coded.encode_ns, seconds_since(start) * 1e9 / double(n));
        out.coded.bytes_per_spike = double(bytes) / double(n);
        std::size_t packed = 0; // the message's first bits 1, 1 (routed_bucket_codec.hpp)
        for (const auto& message: wire) packed += (message[0] & 3) == 3 ? 1 : 0;
        out.packed_share = double(packed) / double(buckets);
        std::uint64_t checksum = 0;
        start = seconds_clock::now();
        for (std::size_t b = 0; b < buckets; ++b) {
            decoded_counts[b] = codec.decode(wire[b].data(), wire_size[b], sender, receivers[b],
                                             &decoded[first_item[b] * item_bytes], bucket_items);
        }
        out.coded.decode_ns = std::min(out.coded.decode_ns, seconds_since(start) * 1e9 / double(n));
        for (std::size_t b = 0; b < buckets; ++b) {
            if (decoded_counts[b] != counts[b]) {
                std::fprintf(stderr, "spike codec: a routed bucket decoded to %zu items\n", decoded_counts[b]);
                std::exit(1);
            }
            for (std::size_t k = 0; k < counts[b]; ++k) {
                const unsigned char* item = &decoded[(first_item[b] + k) * item_bytes];
                const wire_spike f = format.fields(item);
                checksum += std::uint64_t(f.item) * 31 + f.offset + std::uint64_t(format.destination(item)) * 7;
            }
        }
        if (checksum != expected) {
            std::fprintf(stderr, "spike codec: routed buckets checksum mismatch\n");
            std::exit(1);
        }
        arrivals.sum = 0;
        std::uint64_t undelivered = 0; // checksum of the buckets decoded into items instead
        start = seconds_clock::now();
        for (std::size_t b = 0; b < buckets; ++b) {
            if (delivering.deliver(wire[b].data(), wire_size[b], sender, receivers[b], bucket_items) > 0) continue;
            const std::size_t count = delivering.decode(wire[b].data(), wire_size[b], sender, receivers[b],
                                                        &decoded[first_item[b] * item_bytes], bucket_items);
            for (std::size_t k = 0; k < count; ++k) {
                const wire_spike f = format.fields(&decoded[(first_item[b] + k) * item_bytes]);
                undelivered += std::uint64_t(f.item) * 31 + f.offset;
            }
        }
        out.deliver_ns = std::min(out.deliver_ns, seconds_since(start) * 1e9 / double(n));
        std::uint64_t as_they_are = 0;
        start = seconds_clock::now();
        for (std::size_t b = 0; b < buckets; ++b) {
            for (std::size_t k = 0; k < counts[b]; ++k) {
                const wire_spike f = format.fields(&items[b][k * item_bytes]);
                as_they_are += std::uint64_t(f.item) * 31 + f.offset;
            }
        }
        out.item_arrival_ns = std::min(out.item_arrival_ns, seconds_since(start) * 1e9 / double(n));
        if (arrivals.sum + undelivered != as_they_are) {
            std::fprintf(stderr, "spike codec: routed deliveries checksum mismatch\n");
            std::exit(1);
        }
    }
    return out;
}

} // namespace

int main(int argc, char** argv) {
    std::size_t spikes = 4000000;
    int repeats = 5;
    double rate_hz = 5.0;
    std::vector<std::uint64_t> cell_counts = {1000, 10000, 100000, 1000000};
    std::vector<std::uint32_t> step_counts = {15, 100};
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string a = argv[i];
        if (a == "--spikes")
            spikes = std::strtoull(argv[i + 1], nullptr, 10);
        else if (a == "--repeats")
            repeats = std::atoi(argv[i + 1]);
        else if (a == "--rate-hz")
            rate_hz = std::atof(argv[i + 1]);
        else if (a == "--cells")
            cell_counts = {std::strtoull(argv[i + 1], nullptr, 10)};
        else if (a == "--steps")
            step_counts = {static_cast<std::uint32_t>(std::strtoul(argv[i + 1], nullptr, 10))};
        else {
            std::fprintf(stderr, "unknown option %s\n", a.c_str());
            return 2;
        }
    }
    std::printf("{\"spikes_per_case\": %zu, \"repeats\": %d, \"rate_hz\": %g, \"dt_ms\": 0.1, \"cases\": [", spikes,
                repeats, rate_hz);
    bool first = true;
    for (std::uint64_t cells: cell_counts) {
        for (std::uint32_t steps: step_counts) {
            const workload w = make_workload(cells, steps, rate_hz, spikes, cells * 131 + steps, false);
            const result coded = measure_codec(w, repeats);
            const result in_order =
                measure_codec(make_workload(cells, steps, rate_hz, spikes, cells * 131 + steps, true), repeats);
            const routed_result routed = measure_routed(
                make_workload(cells, steps, rate_hz, spikes, cells * 17 + steps, true), repeats, cells * 17 + steps);
            const result entries = measure_entries(w, repeats);
            const result messages = measure_messages(w, repeats);
            const result full_messages = measure_full_messages(w, repeats);
            std::printf("%s\n  {\"cells_per_rank\": %llu, \"steps_per_interval\": %u, \"spikes_per_block\": %.2f, "
                        "\"coded\": {\"bytes_per_spike\": %.4f, \"encode_ns\": %.3f, \"decode_ns\": %.3f}, "
                        "\"coded_cell_order\": {\"bytes_per_spike\": %.4f, \"encode_ns\": %.3f, \"decode_ns\": %.3f}, "
                        "\"routed_buckets\": {\"ranks\": %d, \"bucket_items\": %zu, \"mean_bucket_items\": %.2f, "
                        "\"item_bytes\": %zu, \"packed_share\": %.4f, "
                        "\"bytes_per_item\": %.4f, \"encode_ns\": %.3f, \"decode_ns\": %.3f, \"deliver_ns\": %.3f, "
                        "\"item_arrival_ns\": %.3f}, "
                        "\"entries\": {\"bytes_per_spike\": %.1f, \"encode_ns\": %.3f, \"decode_ns\": %.3f}, "
                        "\"messages\": {\"bytes_per_spike\": %.4f, \"encode_ns\": %.3f, \"decode_ns\": %.3f}, "
                        "\"full_messages\": {\"bytes_per_spike\": %.1f, \"encode_ns\": %.3f, \"decode_ns\": %.3f}}",
                        first ? "" : ",", (unsigned long long)cells, steps, double(w.spikes) / double(w.blocks.size()),
                        coded.bytes_per_spike, coded.encode_ns, coded.decode_ns, in_order.bytes_per_spike,
                        in_order.encode_ns, in_order.decode_ns, routed.ranks, routed.bucket_items,
                        routed.mean_bucket_items, routed.item_bytes, routed.packed_share, routed.coded.bytes_per_spike,
                        routed.coded.encode_ns, routed.coded.decode_ns, routed.deliver_ns, routed.item_arrival_ns,
                        entries.bytes_per_spike, entries.encode_ns, entries.decode_ns, messages.bytes_per_spike,
                        messages.encode_ns, messages.decode_ns, full_messages.bytes_per_spike, full_messages.encode_ns,
                        full_messages.decode_ns);
            first = false;
        }
    }
    std::printf("\n]}\n");
    return 0;
}
