#include <algorithm>
#include <cmath>
#include <limits>

#include "spikex/connections/relay_plan.hpp"
#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/core/random.hpp"

namespace spikex {

std::uint32_t integer_sqrt(std::uint32_t n) {
    auto r = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(n)));
    while (r * r > n) --r;
    while ((r + 1) * (r + 1) <= n) ++r;
    return static_cast<std::uint32_t>(r);
}

std::vector<relay_group> split_relay_groups(std::span<const int> targets, gid_type gid, std::uint32_t seed) {
    std::vector<relay_group> groups;
    const auto n = static_cast<std::uint32_t>(targets.size());
    if (n == 0) return groups;
    const std::uint32_t size = std::max<std::uint32_t>(1, integer_sqrt(n));
    const std::uint32_t count = (n + size - 1) / size;
    const std::uint32_t base = n / count, extra = n % count;
    random_stream stream(seed, gid, purpose::relay);
    std::uint32_t at = 0;
    groups.resize(count);
    for (std::uint32_t g = 0; g < count; ++g) {
        const std::uint32_t len = base + (g < extra ? 1 : 0);
        const std::uint32_t pick = stream.next_below(len);
        auto& group = groups[g];
        group.relay = targets[at + pick];
        group.members.reserve(len - 1);
        for (std::uint32_t k = 0; k < len; ++k) {
            if (k != pick) group.members.push_back(targets[at + k]);
        }
        at += len;
    }
    return groups;
}

relay_plan relay_plan::build(context& comm, const distribution& cells, const target_ranks& targets,
                             const std::vector<gid_type>& sources, std::uint32_t seed) {
    const int ranks = comm.size();
    const int me = comm.rank();
    const auto local = static_cast<std::uint32_t>(targets.cells());

    // 1-2. Groups of every local cell; phase-one lists; records for the relays:
    //      [gid, member count, members...] as uint32 words.
    relay_plan plan;
    plan.one_offsets_.assign(local + 1, 0);
    std::vector<std::vector<std::uint32_t>> outgoing(ranks);
    std::vector<int> remote;
    for (local_index i = 0; i < local; ++i) {
        remote.clear();
        for (int r: targets.of(i)) {
            if (r != me) remote.push_back(r);
        }
        const gid_type gid = cells.gid_of(me, i);
        for (auto& group: split_relay_groups(remote, gid, seed)) {
            plan.one_ranks_.push_back(group.relay);
            if (group.members.empty()) continue;
            auto& words = outgoing[group.relay];
            words.push_back(gid);
            words.push_back(static_cast<std::uint32_t>(group.members.size()));
            for (int m: group.members) words.push_back(static_cast<std::uint32_t>(m));
        }
        std::sort(plan.one_ranks_.begin() + plan.one_offsets_[i], plan.one_ranks_.end());
        plan.one_offsets_[i + 1] = static_cast<std::uint32_t>(plan.one_ranks_.size());
    }

    // 3. Send each relay its records.
    std::vector<std::uint32_t> send_words(ranks), recv_words(ranks);
    std::vector<int> send_bytes(ranks), send_displs(ranks), recv_bytes(ranks), recv_displs(ranks);
    std::vector<std::uint32_t> send;
    const std::size_t limit = static_cast<std::size_t>(std::numeric_limits<int>::max()) / sizeof(std::uint32_t);
    for (int r = 0; r < ranks; ++r) {
        if (send.size() + outgoing[r].size() > limit) throw user_error("relay plan: more than 2^31 bytes to send");
        send_words[r] = static_cast<std::uint32_t>(outgoing[r].size());
        send_displs[r] = static_cast<int>(send.size() * sizeof(std::uint32_t));
        send_bytes[r] = static_cast<int>(outgoing[r].size() * sizeof(std::uint32_t));
        send.insert(send.end(), outgoing[r].begin(), outgoing[r].end());
        std::vector<std::uint32_t>().swap(outgoing[r]);
    }
    comm.alltoall(send_words.data(), sizeof(std::uint32_t), recv_words.data());
    std::size_t received = 0;
    for (int r = 0; r < ranks; ++r) {
        if (received + recv_words[r] > limit) throw user_error("relay plan: more than 2^31 bytes to receive");
        recv_displs[r] = static_cast<int>(received * sizeof(std::uint32_t));
        recv_bytes[r] = static_cast<int>(recv_words[r] * sizeof(std::uint32_t));
        received += recv_words[r];
    }
    std::vector<std::uint32_t> words(received);
    comm.alltoallv(send.data(), send_bytes, send_displs, words.data(), recv_bytes, recv_displs);

    // 4. Phase-two lists by source run (counting sort over the records).
    plan.two_offsets_.assign(sources.size() + 1, 0);
    struct record {
        std::uint32_t run, at, count;
    };
    std::vector<record> records;
    for (std::size_t k = 0; k < words.size();) {
        if (k + 2 > words.size() || k + 2 + words[k + 1] > words.size()) {
            throw internal_error("relay plan: truncated record");
        }
        gid_type gid = words[k];
        auto it = std::lower_bound(sources.begin(), sources.end(), gid);
        if (it == sources.end() || *it != gid) {
            throw internal_error(
                spikex::format("relay plan: rank {} relays gid {} but holds none of its targets", me, gid));
        }
        auto run = static_cast<std::uint32_t>(it - sources.begin());
        records.push_back({run, static_cast<std::uint32_t>(k + 2), words[k + 1]});
        plan.two_offsets_[run + 1] += words[k + 1];
        k += 2 + words[k + 1];
    }
    for (std::size_t s = 0; s < sources.size(); ++s) plan.two_offsets_[s + 1] += plan.two_offsets_[s];
    plan.two_ranks_.resize(plan.two_offsets_.back());
    std::vector<std::uint32_t> fill(plan.two_offsets_.begin(), plan.two_offsets_.end() - 1);
    for (const auto& rec: records) {
        for (std::uint32_t m = 0; m < rec.count; ++m)
            plan.two_ranks_[fill[rec.run]++] = static_cast<int>(words[rec.at + m]);
    }
    return plan;
}

} // namespace spikex
