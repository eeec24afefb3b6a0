#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "spikex/connections/relay_plan.hpp"
#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/dryrun/exchange_counts.hpp"
#include "spikex/engine/interval_schedule.hpp"
#include "spikex/exchange/alltoall_sections.hpp"
#include "spikex/exchange/point_to_point.hpp"
#include "spikex/exchange/routed_bucket_codec.hpp"
#include "spikex/exchange/routed_item.hpp"
#include "spikex/exchange/spike_codec.hpp"
#include "spikex/instrument/counter_names.hpp"
#include "spikex/route/process_grid.hpp"
#include "spikex/route/route_table.hpp"
#include "spikex/route/router.hpp"

namespace spikex {

std::vector<sync_row> sync_rows(const std::vector<step_type>& stops, step_type m, int subintervals) {
    // engine::run_until, once per stop: a synchronisation at every boundary of the
    // interval rule; a call ending before what is due synchronises once more.
    const interval_schedule schedule(m, subintervals);
    std::vector<sync_row> rows;
    step_type step = 0, exchanged = 0;
    for (step_type stop: stops) {
        while (step < stop) {
            const step_type boundary = schedule.next_boundary(step);
            step = std::min(boundary, stop);
            if (step == boundary) {
                const step_type due = schedule.due(step);
                rows.push_back({step, due});
                exchanged = due;
            }
        }
        if (step > exchanged) {
            rows.push_back({step, step});
            exchanged = step;
        }
    }
    return rows;
}

namespace {

constexpr std::size_t allgather_header = 4;

// Capacity of a std::vector after resize(n) / push_back growth (libstdc++: a resize
// beyond the capacity allocates max(2 size, n); push_back doubles from 1).
struct vector_growth {
    double size = 0, capacity = 0;
    void resize(double n) {
        if (n > capacity) capacity = std::max(2 * size, n);
        size = n;
    }
    // spike_codec::encode appending a block of n bytes (in either mode it resizes with 8 bytes
    // of slack, then cuts them).
    void append_block(double n) {
        if (n == 0) return;
        resize(size + n + 8);
        size -= 8;
    }
    void push_to(double n) { // push_back until size n (from an emptied vector)
        while (capacity < n) capacity = std::max(1.0, 2 * capacity);
        size = n;
    }
};

// Per-rank counters of the current row, folded into the run totals and the per-row
// maximum and sum over sampled ranks at every row end.
class tally {
public:
    tally(exchange_counts& out, std::vector<std::string> names, std::size_t ranks):
        out_(out), names_(std::move(names)), current_(names_.size(), std::vector<double>(ranks, 0.0)) {
        for (const auto& n: names_) {
            out_.per_rank[n].assign(ranks, 0.0);
            out_.row_max[n];
            out_.row_sum[n];
        }
    }
    void add(int counter, std::size_t k, double v) { current_[counter][k] += v; }
    void add_all(int counter, double v) {
        for (auto& x: current_[counter]) x += v;
    }
    void end_row() {
        for (std::size_t c = 0; c < names_.size(); ++c) {
            auto& values = current_[c];
            auto& total = out_.per_rank[names_[c]];
            double most = 0, sum = 0;
            for (std::size_t k = 0; k < values.size(); ++k) {
                total[k] += values[k];
                most = std::max(most, values[k]);
                sum += values[k];
                values[k] = 0;
            }
            out_.row_max[names_[c]].push_back(most);
            out_.row_sum[names_[c]].push_back(sum);
        }
    }

private:
    exchange_counts& out_;
    std::vector<std::string> names_;
    std::vector<std::vector<double>> current_;
};

// The spike train cut into the emission windows of the rows: row i holds the spikes
// emitted at steps [rows[i-1].step, rows[i].step).
std::vector<std::vector<spike>> spikes_by_row(const std::vector<sync_row>& rows, const std::vector<gid_type>& gids,
                                              const std::vector<step_type>& steps, std::uint32_t cells) {
    std::vector<std::vector<spike>> out(rows.size());
    for (std::size_t i = 0; i < gids.size(); ++i) {
        if (gids[i] >= cells)
            throw user_error(spikex::format("spike train: gid {} is not a cell of the network", gids[i]));
        auto it = std::upper_bound(rows.begin(), rows.end(), steps[i],
                                   [](step_type s, const sync_row& r) { return s < r.step; });
        if (it == rows.end() || steps[i] < 0) {
            throw user_error(spikex::format("spike train: a spike at step {} lies outside the run", steps[i]));
        }
        out[it - rows.begin()].push_back({gids[i], steps[i]});
    }
    return out;
}

// ---- allgather ---------------------------------------------------------------------

} // namespace

namespace {
// Bits of a block of n spikes spread evenly over items x steps, as the spike wire codec
// codes it: sorted gaps of about items * steps / n (Rice: floor(log2 gap) + 2 bits each)
// after the long header, or packed at the item space's width after the short one,
// whichever is smaller.
double spread_block_bits(double n, double items, double steps) {
    const double gap = std::max(1.0, items * steps / n);
    const double gaps = spike_codec::long_header_bits + n * (std::floor(std::log2(gap)) + 2.0);
    const auto bits = [](double range) {
        return double(spike_codec::bits_for(std::uint64_t(std::max(range, 1.0)) - 1));
    };
    return std::min(gaps, spike_codec::short_header_bits + n * std::max(8.0, bits(items) + bits(steps)));
}
} // namespace

void count_allgather(count_view& v) {
    // allgather.cpp: per row, every rank's spikes as one block of the spike wire codec (or
    // 8-byte entries); the fixed block carries slots x e bytes of it, the rest overflows.
    const int P = v.ranks();
    const auto m = static_cast<std::uint32_t>(v.part.min_delay());
    const int slots = static_cast<int>(v.options.integer("allgather_slots"));
    const bool compressed = v.options.text("compress") != "false";
    const double e = compressed ? 2 : 8;
    const double payload = slots * e;
    const double block = allgather_header + payload;
    const spike_codec codec(m);
    enum { messages, bytes, received_bytes, rounds, overflow_rounds, sent, received, matched, wire };
    tally t(v.out,
            {counter::messages_sent, counter::bytes_sent, counter::bytes_received, counter::rounds,
             counter::overflow_rounds, counter::spikes_sent, counter::spikes_received, counter::spikes_matched,
             counter::wire_bytes},
            v.sampled());
    std::vector<std::vector<wire_spike>> blocks(P);
    std::vector<double> length(P, 0);
    std::vector<int> touched;
    std::vector<unsigned char> scratch;
    vector_growth joined; // every rank joins the same overflowing blocks
    std::vector<vector_growth> pending(v.sampled()), wire_list(v.sampled()), coded(v.sampled()),
        overflow_receive(v.sampled());
    for (const auto& row: v.rows) {
        touched.clear();
        for (const auto& s: row) {
            int r = v.rank_of(s.gid);
            if (blocks[r].empty()) touched.push_back(r);
            blocks[r].push_back({v.part.cells().local_of(s.gid), static_cast<std::uint32_t>(s.step % m)});
            for (auto k: v.part.receivers(s.gid)) t.add(matched, k, 1);
        }
        double overflow_bytes = 0;
        std::sort(touched.begin(), touched.end()); // unpack() joins overflowing blocks in rank order
        for (int r: touched) {
            scratch.clear();
            length[r] = compressed ? double(codec.encode(blocks[r], v.part.cells().count(r), scratch))
                                   : double(blocks[r].size()) * e;
            overflow_bytes += std::max(0.0, length[r] - payload);
            if (length[r] > payload) joined.resize(length[r]);
        }
        const bool overflow = overflow_bytes > 0;
        for (std::size_t k = 0; k < v.sampled(); ++k) {
            const int r = v.part.sampled()[k];
            const double c = double(blocks[r].size());
            const double extra = std::max(0.0, length[r] - payload);
            t.add(messages, k, 1 + (overflow && extra > 0 ? 1 : 0));
            t.add(bytes, k, block + (overflow ? extra : 0));
            t.add(received_bytes, k, P * block + (overflow ? overflow_bytes : 0));
            t.add(rounds, k, overflow ? 2 : 1);
            t.add(overflow_rounds, k, overflow ? 1 : 0);
            t.add(sent, k, c);
            t.add(received, k, double(row.size()));
            t.add(wire, k, length[r]);
            pending[k].push_to(c);
            if (compressed) wire_list[k].resize(c);
            if (compressed) { // allgather.cpp pack(): cleared, then one block appended
                coded[k].size = 0;
                coded[k].append_block(length[r]);
            } else {
                coded[k].resize(length[r]);
            }
            if (overflow) overflow_receive[k].resize(overflow_bytes);
            pending[k].size = 0;
        }
        for (int r: touched) {
            blocks[r].clear();
            length[r] = 0;
        }
        t.end_row();
    }
    auto& send_capacity = v.out.per_rank[counter::send_buffer_bytes];
    auto& receive_capacity = v.out.per_rank[counter::receive_buffer_bytes];
    for (std::size_t k = 0; k < v.sampled(); ++k) {
        send_capacity.push_back(block + coded[k].capacity + pending[k].capacity * sizeof(spike) +
                                wire_list[k].capacity * sizeof(wire_spike));
        receive_capacity.push_back(P * block + overflow_receive[k].capacity + joined.capacity);
    }
    v.out.properties[counter::compressed] = compressed;
    v.out.properties[counter::entry_bytes] = e;
    v.out.properties[counter::allgather_slots] = slots;
    v.out.properties[counter::wire_exact] = true;
    v.out.properties[counter::receive_buffer_bytes] = P * block;
    v.out.properties[counter::partners] = P - 1;
}

namespace {

// ---- alltoall, alltoallv -----------------------------------------------------------

void count_directed(count_view& v, bool fixed_sections) {
    // alltoall's section bounds (alltoallv has none).
    const auto min_entries = static_cast<std::uint32_t>(fixed_sections ? v.options.integer("alltoall_min_entries") : 1);
    const auto max_entries = static_cast<std::uint32_t>(fixed_sections ? v.options.integer("alltoall_max_entries") : 1);
    const int P = v.ranks();
    const bool sorted = v.part.sorted();
    const auto m = static_cast<std::uint32_t>(v.part.min_delay());
    const spike_codec codec(m);
    auto weight = [&](std::uint32_t connections) { return sorted ? 1.0 : double(connections); };
    // The coded block of one rank pair is exact when the receiver's locations are known:
    // the sorted layout (location = index of the source among the receiver's sources) and
    // sampled ranks on both sides. Its items are the receiver's numbering of its locations
    // per sender (connections/sender_numbering.hpp): a location's index among those whose
    // source lives on the sender, in the sender's local order, the item space their count.
    // Otherwise the codec's size for n keys spread evenly over the pair's share of the
    // receiver's location space x M, an estimate (wire_exact = false).
    const std::size_t S = v.sampled();
    std::vector<std::vector<std::uint32_t>> pair_index(sorted ? S : 0); // per sampled receiver: per source
    std::vector<std::vector<std::uint32_t>> pair_count(sorted ? S : 0); // per sampled receiver: per sampled sender
    for (std::size_t i = 0; sorted && i < S; ++i) {
        const auto& sources = v.part.receive(i).sources;
        pair_index[i].resize(sources.size());
        pair_count[i].assign(S, 0);
        // per sender, in the order of its local indices (sender_numbering)
        std::vector<std::size_t> order;
        for (std::size_t j = 0; j < sources.size(); ++j) {
            if (v.part.sample_index(v.part.cells().rank_of(sources[j])) >= 0) order.push_back(j);
        }
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return v.part.cells().local_of(sources[a]) < v.part.cells().local_of(sources[b]);
        });
        for (std::size_t j: order)
            pair_index[i][j] = pair_count[i][v.part.sample_index(v.part.cells().rank_of(sources[j]))]++;
    }
    auto exact = [&](int r) { return sorted && v.part.sample_index(r) >= 0; };
    auto item_of = [&](int r, gid_type gid) {
        const auto i = static_cast<std::size_t>(v.part.sample_index(r));
        const auto& sources = v.part.receive(i).sources;
        return pair_index[i][std::lower_bound(sources.begin(), sources.end(), gid) - sources.begin()];
    };
    // directed_exchange: a rank's location space is its source runs (sorted) or connections.
    auto location_count = [&](int r) -> std::uint64_t {
        const auto& side = v.part.receive(v.part.sample_index(r));
        return sorted ? side.sources.size() : side.total_connections;
    };
    const double location_space = double(v.part.connections_drawn()) / P; // unsorted, for estimates
    auto estimated_bytes = [&](int r, double n) {
        const double space = (v.part.sample_index(r) >= 0 ? double(location_count(r)) : location_space) / P;
        return std::ceil(spread_block_bits(n, space, m) / 8.0);
    };
    bool wire_exact = true;
    enum {
        messages,
        bytes,
        received_bytes,
        rounds,
        sent,
        entries_sent,
        entries_received,
        wire,
        overflow_rounds,
        section
    };
    std::vector<std::string> names = {counter::messages_sent,    counter::bytes_sent,  counter::bytes_received,
                                      counter::rounds,           counter::spikes_sent, counter::entries_sent,
                                      counter::entries_received, counter::wire_bytes};
    if (fixed_sections) {
        names.push_back(counter::overflow_rounds);
        names.push_back(counter::section_entries);
        if (max_entries < min_entries) {
            throw user_error("exchange.alltoall_max_entries must be >= exchange.alltoall_min_entries");
        }
    }
    tally t(v.out, names, v.sampled());
    alltoall_sections sections(min_entries, max_entries);
    std::uint32_t largest_ever = 0;
    std::uint64_t most_section_bytes = 0;
    std::vector<double> fill(P, 0.0), coded(P, 0.0);
    std::vector<std::vector<wire_spike>> blocks(P);
    std::vector<unsigned char> scratch;
    std::vector<int> touched;
    std::vector<vector_growth> receive_buffer(v.sampled());
    // Per-destination send lists (pending_ in directed_exchange): largest fill per pair.
    const bool pair_fills = double(P) * double(v.sampled()) <= 16e6;
    std::vector<std::vector<double>> most_fill(pair_fills ? v.sampled() : 0, std::vector<double>(P, 0.0));
    vector_growth shared; // alltoall: every rank resizes to the same section size
    std::vector<double> received_coded(v.sampled(), 0.0), received_partial(v.sampled(), 0.0);
    std::vector<vector_growth> partial(v.sampled()), encoded(v.sampled());
    for (const auto& row: v.rows) {
        // Send side of each sampled rank: entries and coded bytes per destination.
        std::vector<std::vector<spike>> by_rank(v.sampled());
        for (const auto& sp: row) {
            for (std::size_t j = 0; j < v.part.receivers(sp.gid).size(); ++j) {
                t.add(entries_received, v.part.receivers(sp.gid)[j], weight(v.part.receiver_connections(sp.gid)[j]));
            }
            int k = v.index_of(sp.gid);
            if (k >= 0) by_rank[k].push_back(sp);
        }
        std::uint32_t largest = 0;
        std::fill(received_coded.begin(), received_coded.end(), 0.0);
        std::fill(received_partial.begin(), received_partial.end(), 0.0);
        // alltoall: blocks longer than round 1's section wait in one buffer per receiver
        const double first_bytes = double(sections.entries()) * alltoall_sections::entry_bytes;
        std::vector<double> sent_entries(v.sampled(), 0.0), sent_coded(v.sampled(), 0.0);
        for (std::size_t k = 0; k < v.sampled(); ++k) {
            touched.clear();
            encoded[k].size = 0; // transfer() encodes into one buffer, destinations in rank order
            for (const auto& sp: by_rank[k]) {
                auto ranks = v.part.target_ranks(sp.gid);
                auto conns = v.part.target_connections(sp.gid);
                const auto offset = static_cast<std::uint32_t>(sp.step % m);
                for (std::size_t j = 0; j < ranks.size(); ++j) {
                    const int r = ranks[j];
                    if (fill[r] == 0) touched.push_back(r);
                    fill[r] += weight(conns[j]);
                    sent_entries[k] += weight(conns[j]);
                    if (exact(r)) blocks[r].push_back({item_of(r, sp.gid), offset});
                }
            }
            std::sort(touched.begin(), touched.end());
            for (int r: touched) {
                double length;
                if (exact(r)) {
                    scratch.clear();
                    length = double(codec.encode(blocks[r], pair_count[v.part.sample_index(r)][k], scratch));
                    blocks[r].clear();
                } else {
                    length = estimated_bytes(r, fill[r]);
                    wire_exact = false;
                }
                sent_coded[k] += length;
                encoded[k].append_block(length);
                if (v.part.sample_index(r) >= 0) {
                    received_coded[v.part.sample_index(r)] += length;
                    if (length > first_bytes) received_partial[v.part.sample_index(r)] += length;
                }
                largest = std::max(largest, alltoall_sections::entries_of(static_cast<std::size_t>(length)));
                if (pair_fills) most_fill[k][r] = std::max(most_fill[k][r], fill[r]);
                fill[r] = 0;
            }
            t.add(sent, k, double(by_rank[k].size()));
            t.add(entries_sent, k, sent_entries[k]);
            t.add(wire, k, sent_coded[k]);
        }
        if (!v.part.all_ranks()) wire_exact = false; // blocks from unsampled senders are not counted
        if (fixed_sections) {
            // alltoall.cpp transfer(): round 1 of the header + S entries per section, then
            // exactly the overflow, then adapt S.
            const std::uint32_t s = sections.entries();
            const alltoall_rounds plan = sections.rounds(largest);
            const double first = alltoall_sections::header_bytes + double(s) * alltoall_sections::entry_bytes;
            double n_rounds = 1, section_bytes = first;
            most_section_bytes = std::max<std::uint64_t>(most_section_bytes, static_cast<std::uint64_t>(first));
            if (shared.size < first * P) shared.resize(first * P);
            if (plan.overflow_rounds > 0) {
                const double piece = double(plan.overflow_records) * alltoall_sections::entry_bytes;
                most_section_bytes = std::max<std::uint64_t>(most_section_bytes, static_cast<std::uint64_t>(piece));
                if (shared.size < piece * P) shared.resize(piece * P);
                n_rounds += plan.overflow_rounds;
                section_bytes += plan.overflow_rounds * piece;
            }
            t.add_all(messages, n_rounds);
            t.add_all(rounds, n_rounds);
            t.add_all(overflow_rounds, plan.overflow_rounds);
            t.add_all(bytes, section_bytes * P);
            t.add_all(received_bytes, section_bytes * P);
            t.add_all(section, s);
            largest_ever = std::max(largest_ever, largest);
            sections.adapt(largest);
            for (std::size_t k = 0; k < v.sampled(); ++k) partial[k].resize(received_partial[k]);
        } else {
            t.add_all(messages, 2);
            t.add_all(rounds, 2);
            t.add_all(bytes, 4.0 * P);
            t.add_all(received_bytes, 4.0 * P);
            for (std::size_t k = 0; k < v.sampled(); ++k) {
                t.add(bytes, k, sent_coded[k]);
                t.add(received_bytes, k, received_coded[k]);
                receive_buffer[k].resize(received_coded[k]);
            }
        }
        t.end_row();
    }
    auto& send_capacity = v.out.per_rank[counter::send_buffer_bytes];
    auto& receive_capacity = v.out.per_rank[counter::receive_buffer_bytes];
    if (!fixed_sections) {
        for (std::size_t k = 0; k < v.sampled(); ++k) {
            send_capacity.push_back(encoded[k].capacity);
            receive_capacity.push_back(receive_buffer[k].capacity);
        }
    } else {
        for (std::size_t k = 0; k < v.sampled(); ++k) send_capacity.push_back(shared.capacity + encoded[k].capacity);
        for (std::size_t k = 0; k < v.sampled(); ++k) receive_capacity.push_back(shared.capacity + partial[k].capacity);
        v.out.properties[counter::final_section_entries] = sections.entries();
        v.out.properties[counter::largest_section_entries] = largest_ever;
        v.out.properties[counter::receive_buffer_bytes] = double(most_section_bytes) * P;
    }
    v.out.properties[counter::wire_exact] = wire_exact;
    // Target table: one entry per (cell, target rank) sorted, per connection unsorted.
    auto& targets = v.out.per_rank[counter::target_entries];
    targets.assign(v.sampled(), 0.0);
    for (std::size_t k = 0; k < v.sampled(); ++k) {
        for (gid_type g: v.part.cells().gids_of(v.part.sampled()[k])) {
            for (auto c: v.part.target_connections(g)) targets[k] += weight(c);
        }
    }
    // pending_: one list per destination, emptied (not freed) every interval.
    auto& lists = v.out.per_rank[counter::pending_buffer_bytes];
    lists.assign(v.sampled(), 0.0);
    for (std::size_t k = 0; pair_fills && k < v.sampled(); ++k) {
        for (double f: most_fill[k]) {
            vector_growth g;
            g.push_to(f);
            lists[k] += g.capacity * sizeof(wire_spike);
        }
    }
    v.out.properties[counter::partners] = P - 1;
    v.out.properties[counter::section_exact] = v.part.all_ranks();
}

} // namespace

void count_alltoall(count_view& v) { count_directed(v, true); }
void count_alltoallv(count_view& v) { count_directed(v, false); }

namespace {

// ---- multisend, persistent, rma ----------------------------------------------------

std::size_t remote_count(std::span<const int> ranks, int me) {
    return ranks.size() - (std::binary_search(ranks.begin(), ranks.end(), me) ? 1 : 0);
}

void static_point_to_point(count_view& v, int phases, std::unordered_map<gid_type, std::vector<relay_group>>& plans) {
    auto& entries = v.out.per_rank[counter::target_rank_entries];
    auto& one = v.out.per_rank[counter::phase_one_entries];
    auto& two = v.out.per_rank[counter::phase_two_entries];
    auto& partners = v.out.per_rank[counter::partners];
    entries.assign(v.sampled(), 0.0);
    one.assign(v.sampled(), 0.0);
    two.assign(v.sampled(), 0.0);
    partners.assign(v.sampled(), 0.0);
    auto& fanout = v.out.per_cell[counter::remote_target_ranks];
    std::vector<int> remote, partner_list;
    for (std::size_t k = 0; k < v.sampled(); ++k) {
        const int me = v.part.sampled()[k];
        partner_list.clear();
        for (gid_type g: v.part.cells().gids_of(me)) {
            auto ranks = v.part.target_ranks(g);
            entries[k] += double(ranks.size());
            remote.clear();
            for (int r: ranks) {
                if (r != me) remote.push_back(r);
            }
            if (!remote.empty()) fanout.push_back(double(remote.size()));
            partner_list.insert(partner_list.end(), remote.begin(), remote.end());
            if (phases == 1) {
                one[k] += double(remote.size());
                continue;
            }
            auto& groups = plans[g] = split_relay_groups(remote, g, v.seed);
            one[k] += double(groups.size());
            if (!groups.empty()) v.out.per_cell[counter::phase_one_ranks].push_back(double(groups.size()));
            for (const auto& grp: groups) {
                v.out.per_cell[counter::relay_group].push_back(double(grp.members.size()));
                int q = v.part.sample_index(grp.relay);
                if (q >= 0) two[q] += double(grp.members.size());
                partner_list.insert(partner_list.end(), grp.members.begin(), grp.members.end());
            }
        }
        std::sort(partner_list.begin(), partner_list.end());
        partners[k] = double(std::unique(partner_list.begin(), partner_list.end()) - partner_list.begin());
    }
}

} // namespace

void count_point_to_point(count_view& v) {
    const bool rma = v.method.capabilities.rma_windows;
    const bool persistent = v.method.capabilities.persistent_requests;
    const int phases = v.method.has_option("phases") ? static_cast<int>(v.options.integer("phases")) : 1;
    const int window_cell_spikes = rma ? static_cast<int>(v.options.integer("rma_slot_spikes")) : 0;
    enum {
        messages,
        bytes,
        received_bytes,
        rounds,
        sent,
        received,
        matched,
        local,
        phase_two,
        relayed,
        requests,
        deferrals,
        scanned,
        iterations
    };
    std::vector<std::string> names = {counter::messages_sent,       counter::bytes_sent,
                                      counter::bytes_received,      counter::rounds,
                                      counter::spikes_sent,         counter::spikes_received,
                                      counter::spikes_matched,      counter::spikes_local,
                                      counter::phase_two_sent,      counter::relayed_spikes,
                                      counter::persistent_requests, counter::ring_full_deferrals,
                                      counter::slots_scanned,       counter::conservation_iterations};
    tally t(v.out, names, v.sampled());
    std::unordered_map<gid_type, std::vector<relay_group>> plans;
    static_point_to_point(v, phases, plans);
    // Message sizes (point_to_point.hpp wire_message and rma_entry_bytes): from the
    // source rank the sender's cells are the item space, from a relay all cells. The item
    // travels in the MPI tag when all cells fit it; the ranks counted are not running, so
    // the bound is OpenMPI's (2^31 - 1), the library spikex is built and tested with.
    const spike_codec codec(static_cast<std::uint32_t>(v.part.min_delay()));
    const bool item_in_tag = items_fit_tag(v.part.cells().cells(), openmpi_max_tag);
    auto direct_bytes = [&](gid_type g) {
        return rma ? double(rma_entry_bytes(codec))
                   : double(wire_message_bytes(codec, v.part.cells().count(v.rank_of(g)), item_in_tag));
    };
    const double relayed_bytes = double(wire_message_bytes(codec, v.part.cells().cells(), item_in_tag));

    // rma: window cells of each sampled rank = its sources held by other ranks.
    std::vector<double> window_cells(v.sampled(), 0.0);
    for (std::size_t k = 0; k < v.sampled(); ++k) {
        for (gid_type g: v.part.receive(k).sources) window_cells[k] += v.rank_of(g) != v.part.sampled()[k];
    }
    std::unordered_map<gid_type, std::uint32_t> fired_in_row;
    std::vector<char> recorded(v.part.cells().cells(), 0);
    for (std::size_t i = 0; i < v.rows.size(); ++i) {
        fired_in_row.clear();
        for (const auto& sp: v.rows[i]) {
            const int me = v.rank_of(sp.gid);
            for (auto k: v.part.receivers(sp.gid)) {
                if (v.part.sampled()[k] != me) {
                    t.add(received, k, 1);
                    t.add(matched, k, 1);
                    // bytes received: as sent directly; relayed copies are corrected below
                    t.add(received_bytes, k, direct_bytes(sp.gid));
                } else {
                    t.add(local, k, 1);
                }
            }
            const int k = v.part.sample_index(me);
            if (k < 0) continue;
            auto ranks = v.part.target_ranks(sp.gid);
            const double remote = double(remote_count(ranks, me));
            if (remote > 0) ++fired_in_row[sp.gid];
            if (phases == 1) {
                t.add(messages, k, remote);
                t.add(bytes, k, remote * direct_bytes(sp.gid));
                if (persistent && remote > 0 && !recorded[sp.gid]) {
                    recorded[sp.gid] = 1;
                    t.add(requests, k, remote);
                }
                continue;
            }
            const auto& groups = plans[sp.gid];
            t.add(messages, k, double(groups.size()));
            t.add(bytes, k, double(groups.size()) * direct_bytes(sp.gid));
            for (const auto& grp: groups) {
                for (int member: grp.members) {
                    const int m = v.part.sample_index(member);
                    if (m >= 0) t.add(received_bytes, m, relayed_bytes - direct_bytes(sp.gid));
                }
                int q = v.part.sample_index(grp.relay);
                if (q < 0 || grp.members.empty()) continue;
                const double n = double(grp.members.size());
                t.add(relayed, q, 1);
                t.add(phase_two, q, n);
                t.add(messages, q, n);
                t.add(bytes, q, n * relayed_bytes);
            }
        }
        // One MPI_Allreduce per synchronisation that has something due (rma: always),
        // plus, for rma, one round per ring's worth of deferred spikes.
        double extra = 0;
        if (rma) {
            for (const auto& [g, n]: fired_in_row) {
                if (n <= std::uint32_t(window_cell_spikes)) continue;
                const std::uint32_t excess = n - window_cell_spikes;
                t.add(deferrals, v.index_of(g), excess);
                extra = std::max(extra, double((excess + window_cell_spikes - 1) / window_cell_spikes));
            }
            t.add_all(rounds, 1 + extra);
            t.add_all(iterations, extra);
            if (v.ranks() > 1) {
                for (std::size_t k = 0; k < v.sampled(); ++k) t.add(scanned, k, (1 + extra) * window_cells[k]);
            }
        } else if (v.out.rows[i].due > 0) {
            t.add_all(rounds, 1);
        }
        t.end_row();
    }
    // Every message is one spike on the wire (multisend counts spikes_sent = messages).
    v.out.per_rank[counter::spikes_sent] = v.out.per_rank[counter::messages_sent];
    for (auto* m: {&v.out.per_rank, &v.out.row_max, &v.out.row_sum}) {
        (*m)[counter::wire_spikes] = (*m)[counter::messages_sent];
        (*m)[counter::wire_bytes] = (*m)[counter::bytes_sent];
    }
    v.out.row_max[counter::spikes_sent] = v.out.row_max[counter::messages_sent];
    v.out.row_sum[counter::spikes_sent] = v.out.row_sum[counter::messages_sent];
    if (persistent) {
        v.out.per_rank[counter::persistent_starts] = v.out.per_rank[counter::messages_sent];
    }
    if (rma) v.out.properties[counter::window_bytes_per_slot] = double(rma_entry_bytes(codec)) * window_cell_spikes;
    v.out.properties[counter::relay_exact] = v.part.all_ranks() || phases == 1;
    v.out.properties[counter::rounds_exclude_conservation_iterations] = !rma;
    for (const char* drop:
         rma ? std::vector<const char*>{counter::phase_two_sent, counter::relayed_spikes, counter::persistent_requests}
             : std::vector<const char*>{counter::ring_full_deferrals, counter::slots_scanned,
                                        counter::conservation_iterations}) {
        v.out.per_rank.erase(drop);
        v.out.row_max.erase(drop);
        v.out.row_sum.erase(drop);
    }
    if (!persistent) {
        v.out.per_rank.erase(counter::persistent_requests);
        v.out.row_max.erase(counter::persistent_requests);
        v.out.row_sum.erase(counter::persistent_requests);
    }
}

// ---- routed ------------------------------------------------------------------------

void count_routed(count_view& v) {
    const int P = v.ranks();
    const std::int64_t budget = v.options.integer("route_budget");
    process_grid grid = make_process_grid(P, v.options.text("route_dims"), "exchange.route_dims", budget, 1,
                                          v.options.real("route_message_hops"));
    std::string problem = budget_problem(grid, budget);
    if (!problem.empty()) throw user_error(spikex::format("exchange.route_budget = {}: {}", budget, problem));
    const routed_item_format format(P, v.part.cells().cells(), v.part.min_delay());
    const double routed_item_bytes = double(format.bytes());
    const double capacity = double(bucket_capacity(grid, router_options{format.bytes(), budget}));
    const bool per_pair = P <= 4096;
    // Buckets travel as coded blocks (routed_bucket_codec.hpp) whose size depends on which
    // items share a bucket, i.e. on timing. Estimated per (rank, next hop) pair and
    // interval from the items' owner-major indices, destinations and steps: its n items
    // split into ceil(n / capacity) buckets of equal size, each spanning the pair's item
    // range, its destinations and an equal share of its steps; a bucket's bits are the
    // codec's gaps for keys spread evenly over its form's spaces (or packed, when
    // smaller), of the smallest form: plain, framed, or (when every item is the sender's
    // and bound for the next hop, as on a direct grid) the pair form; but the packed pair
    // form wherever it fits and stays within 3 bytes an item, as the encoder chooses.
    // Full plain buckets when pairs are not counted.
    const distribution& cells = v.part.cells();
    const bool coded = routed_bucket_codec::wanted(v.options.text("compress"), format, cells);
    const double period = double(format.period());
    const std::uint64_t per_rank = cells.max_count();
    const std::uint64_t item_space = per_rank * std::uint64_t(P), offset_space = std::uint64_t(format.period()) * P;
    const double frame_bits =
        2.0 + 2.0 * (spike_codec::bits_for(item_space - 1) + spike_codec::bits_for(offset_space - 1));
    // sender_cells > 0: the pair forms fit, their item space the sender's cells, the steps
    // spanning `steps`.
    auto bucket_bytes = [&](double n, double item_range, double offset_range, double sender_cells, double steps) {
        if (sender_cells > 0) {
            const double packed = routed_bucket_codec::packed_pair_header_bits(format.period()) +
                                  n * routed_bucket_codec::packed_pair_entry_bits(
                                          std::uint64_t(sender_cells), std::uint64_t(std::max(1.0, std::ceil(steps))));
            if (std::ceil(packed / 8.0) <= routed_target_item_bytes * n) return std::ceil(packed / 8.0);
        }
        double bits = std::min(2.0 + spread_block_bits(n, double(item_space), double(offset_space)),
                               frame_bits + spread_block_bits(n, item_range, offset_range));
        if (sender_cells > 0) bits = std::min(bits, 2.0 + spread_block_bits(n, sender_cells, period));
        return std::ceil(bits / 8.0);
    };
    struct pair_traffic {
        std::uint32_t items = 0;
        std::uint64_t item_low = ~std::uint64_t{0}, item_high = 0;
        int destination_low = std::numeric_limits<int>::max(), destination_high = 0;
        step_type step_low = std::numeric_limits<step_type>::max(), step_high = 0;
        bool senders_own_for_next_hop = true;
    };
    auto pair_bytes = [&](int sender, const pair_traffic& p) { // its items over ceil(n / capacity) buckets
        const double n = p.items, buckets = std::ceil(n / capacity);
        const double steps = double(p.step_high - p.step_low + 1) / buckets;
        const double offset_range = double(p.destination_high - p.destination_low) * period + std::ceil(steps);
        const double sender_cells = p.senders_own_for_next_hop ? double(cells.count(sender)) : 0.0;
        return buckets *
               bucket_bytes(n / buckets, double(p.item_high - p.item_low + 1), offset_range, sender_cells, steps);
    };
    const double hop_bytes = coded
                                 ? bucket_bytes(capacity, double(item_space), double(offset_space), 0.0, 0.0) / capacity
                                 : routed_item_bytes;
    enum { items, sent, received, local, hops, forwarded, messages, bytes, rounds };
    tally t(v.out,
            {counter::items_sent, counter::spikes_sent, counter::spikes_received, counter::spikes_local, counter::hops,
             counter::forwarded, counter::messages_sent, counter::bytes_sent, counter::rounds},
            v.sampled());
    std::unordered_map<std::uint64_t, pair_traffic> pair_items;
    for (const auto& row: v.rows) {
        pair_items.clear();
        for (const auto& sp: row) {
            const int me = v.rank_of(sp.gid);
            for (auto k: v.part.receivers(sp.gid)) {
                t.add(received, k, 1);
                if (v.part.sampled()[k] == me) t.add(local, k, 1); // its own: delivered as it is fed
            }
            const int k = v.part.sample_index(me);
            if (k < 0) continue;
            t.add(sent, k, 1);
            for (int target: v.part.target_ranks(sp.gid)) {
                t.add(items, k, 1);
                for (int at = me; at != target;) {
                    route_hop hop = next_hop(grid, at, target);
                    int x = v.part.sample_index(at);
                    if (x >= 0) {
                        t.add(hops, x, 1);
                        if (!(coded && per_pair)) t.add(bytes, x, hop_bytes);
                        if (per_pair) {
                            pair_traffic& p = pair_items[static_cast<std::uint64_t>(at) * P + hop.rank];
                            ++p.items;
                            const std::uint64_t owner_major = std::uint64_t(me) * per_rank + cells.local_of(sp.gid);
                            p.item_low = std::min(p.item_low, owner_major);
                            p.item_high = std::max(p.item_high, owner_major);
                            p.destination_low = std::min(p.destination_low, target);
                            p.destination_high = std::max(p.destination_high, target);
                            p.step_low = std::min(p.step_low, sp.step);
                            p.step_high = std::max(p.step_high, sp.step);
                            p.senders_own_for_next_hop &= at == me && hop.rank == target;
                        }
                    }
                    if (hop.rank != target) {
                        int y = v.part.sample_index(hop.rank);
                        if (y >= 0) t.add(forwarded, y, 1);
                    }
                    at = hop.rank;
                }
            }
        }
        // Lower bound of messages: every (rank, next hop) pair with traffic sends at least
        // ceil(items / bucket capacity) buckets in the interval.
        for (const auto& [key, p]: pair_items) {
            const int x = v.part.sample_index(static_cast<int>(key / P));
            t.add(messages, x, std::ceil(p.items / capacity));
            if (coded) t.add(bytes, x, pair_bytes(static_cast<int>(key / P), p));
        }
        t.add_all(rounds, 1); // at least one termination wave per interval
        t.end_row();
    }
    v.out.properties[counter::route_dimensions] = grid.dimensions();
    for (int i = 0; i < grid.dimensions(); ++i)
        v.out.properties[counter::route_dim_prefix + std::to_string(i)] = grid.dim(i);
    v.out.properties[counter::route_ragged] = grid.ragged();
    v.out.properties[counter::route_bucket_capacity] = capacity;
    v.out.properties[counter::route_max_hops] = grid.max_hops();
    v.out.properties[counter::partners] = grid.buckets() - grid.dimensions() - (grid.ragged() ? 1 : 0);
    v.out.properties[counter::messages_lower_bound] = per_pair;
    v.out.properties[counter::forwarded_exact] = v.part.all_ranks();
    v.out.properties[counter::wire_exact] = !coded;
    v.out.properties[counter::compressed] = coded;
    v.out.properties[counter::entry_bytes] = routed_item_bytes; // an item as it is (routed.cpp)
    for (auto* m: {&v.out.per_rank, &v.out.row_max, &v.out.row_sum}) {
        (*m)[counter::wire_spikes] = (*m)[counter::hops];
        (*m)[counter::wire_bytes] = (*m)[counter::bytes_sent];
    }
}

namespace {
// The engine's delivery ring, whatever the method (engine.cpp deliver_source and
// deliver_connection): a spike reaching a rank adds an entry per delay group of its source
// there, or per connection in the creation-order layout (target-addressed methods with
// connections.sort_by_source = false), in the row whose exchange delivers it.
void count_delivery_groups(count_view& v) {
    const bool per_connection = v.method.capabilities.target_addressed && !v.part.sorted();
    tally t(v.out, {counter::delivery_groups}, v.sampled());
    for (const auto& row: v.rows) {
        for (const auto& s: row) {
            const auto ranks = v.part.receivers(s.gid);
            const auto entries = per_connection ? v.part.receiver_connections(s.gid) : v.part.receiver_groups(s.gid);
            for (std::size_t j = 0; j < ranks.size(); ++j) t.add(0, ranks[j], entries[j]);
        }
        t.end_row();
    }
}
} // namespace

exchange_counts count_exchange(const virtual_partition& partition, const std::string& method,
                               const option_values& options, std::uint32_t seed, const std::vector<gid_type>& gids,
                               const std::vector<step_type>& steps, const std::vector<step_type>& stops) {
    if (gids.size() != steps.size()) throw user_error("spike train: gids and steps differ in length");
    const method_entry& entry = find_exchange_method(method);
    if (std::string problem = foreign_option_problem(method, options); !problem.empty()) throw user_error(problem);
    option_reader reader(entry.options, options);
    const int k = entry.has_option("subintervals") ? static_cast<int>(reader.integer("subintervals")) : 1;
    const step_type m = partition.min_delay();

    exchange_counts out;
    out.method = method;
    out.rows = sync_rows(stops, m, k);
    count_view v{
        partition, entry, std::move(reader), seed, spikes_by_row(out.rows, gids, steps, partition.cells().cells()),
        out};
    entry.count(v);
    if (out.per_rank.empty())
        throw user_error(spikex::format("exchange.method = \"{}\": no dry-run counting rules", method));
    count_delivery_groups(v);
    out.properties[counter::ranks] = partition.ranks();
    out.properties[counter::sampled_ranks] = double(partition.sampled().size());
    out.properties[counter::steps_per_interval] = double(m);
    out.properties[counter::subintervals] = k;
    return out;
}

} // namespace spikex
