#include <algorithm>
#include <bit>
#include <cmath>

#include "spikex/connections/connection_table.hpp"
#include "spikex/connections/relay_plan.hpp"
#include "spikex/dryrun/memory_model.hpp"
#include "spikex/exchange/point_to_point.hpp"
#include "spikex/instrument/counter_names.hpp"
#include "spikex/route/process_grid.hpp"

namespace spikex {
namespace {

// Capacity of a vector filled by push_back from empty (libstdc++ doubles from 1).
double grown(double n) { return n <= 0 ? 0.0 : double(std::bit_ceil(static_cast<std::uint64_t>(n))); }

double lookup_bytes(const std::string& kind, double sources, double cells) {
    if (kind == "hash") return 2.0 * sizeof(std::uint32_t) * grown(std::max(16.0, 2 * sources));
    if (kind == "sorted") return sources * sizeof(gid_type);
    return cells * sizeof(std::uint32_t); // dense
}

double value(const exchange_counts& c, const char* name, std::size_t k) {
    auto it = c.per_rank.find(name);
    return it == c.per_rank.end() ? 0.0 : it->second[k];
}

// Byte targets' pages on a rank (an estimate: the partition does not keep the targets).
// A delay group's m connections to targets spread over the rank's `cells` touch, on
// average, D = B (1 - (1 - 1/B)^m) of its B blocks of 256 cells, in order: D - 1 new
// pages within the group, and one where it begins unless it begins in the block where
// the group before it ended (about 1/B of the time). One block: a single page.
double expected_pages(const virtual_partition::receive_side& side, double cells) {
    const double blocks = std::max(1.0, std::ceil(cells / double(1u << target_page_bits)));
    double pages = 1;
    for (std::size_t j = 0; j < side.sources.size(); ++j) {
        const double groups = std::max(1.0, double(side.groups[j]));
        const double per_group = double(side.connections[j]) / groups;
        const double touched = blocks * (1.0 - std::pow(1.0 - 1.0 / blocks, per_group));
        pages += groups * (touched - 1.0 + (1.0 - 1.0 / blocks));
    }
    return pages;
}

} // namespace

std::map<std::string, std::vector<double>> memory_model(const virtual_partition& part, const exchange_counts& counts,
                                                        const option_values& given) {
    const method_entry& method = find_exchange_method(counts.method);
    const option_reader options(method.options, given);
    const auto& can = method.capabilities;
    const bool directed = can.presynaptic_targets;
    const bool p2p = can.point_to_point;
    const bool allgather = can.broadcast;
    const std::string lookup_kind = method.has_option("source_lookup") ? options.text("source_lookup") : "";
    const int phases = method.has_option("phases") ? static_cast<int>(options.integer("phases")) : 1;
    const bool sorted = part.sorted() || !directed;
    const double P = part.ranks();
    const double N = part.cells().cells();
    std::map<std::string, std::vector<double>> out;
    for (std::size_t k = 0; k < part.sampled().size(); ++k) {
        const int me = part.sampled()[k];
        const auto& side = part.receive(k);
        const double n = double(side.total_connections);
        const double source_runs = double(side.sources.size());
        const double cells = part.cells().count(me);

        // Postsynaptic tier (connection_table.hpp).
        double connections, sources;
        if (sorted) {
            // 2-byte targets on a rank whose cells allow them, or byte targets with pages
            // where there are few pages (connection_table.hpp).
            const double wide_bytes =
                cells <= double(narrow_target_limit) ? sizeof(narrow_target) : sizeof(local_index);
            const double pages = expected_pages(side, cells);
            const bool bytes = pages * double(min_connections_per_page) <= n;
            connections = n * ((bytes ? 1 : wide_bytes) + sizeof(double)) + (bytes ? pages * sizeof(target_page) : 0) +
                          grown(source_runs + 1) * sizeof(std::uint32_t) +
                          grown(side.delay_groups + 1) * sizeof(delay_group);
            if (side.mixed_delays) connections += n * sizeof(std::uint32_t) + source_runs;
            sources = grown(source_runs) * sizeof(gid_type);
        } else { // creation order: every array filled by push_back
            connections = grown(n) * (sizeof(local_index) + sizeof(double) + sizeof(std::uint32_t));
            sources = grown(n) * sizeof(gid_type);
        }
        out["connections"].push_back(connections);
        out["sources"].push_back(sources);

        // Presynaptic side and buffers.
        double targets = 0, lookup = 0, receive = 0, exchange = 0;
        double entries = 0; // (cell, target rank) pairs
        for (gid_type g: part.cells().gids_of(me)) entries += double(part.target_ranks(g).size());
        const double target_ranks_bytes = (cells + 1) * 4 + entries * 8 + 2 * P * 4;
        if (directed) {
            targets =
                (cells + 1) * sizeof(std::uint32_t) + value(counts, counter::target_entries, k) * sizeof(std::uint64_t);
            receive = value(counts, counter::receive_buffer_bytes, k);
            // + per receiver, its locations from this rank (the codec's item space for it)
            exchange = value(counts, counter::send_buffer_bytes, k) + value(counts, counter::pending_buffer_bytes, k) +
                       P * sizeof(std::uint32_t);
            // sender_numbering: every location, and where each sending rank's begin
            lookup = ((sorted ? source_runs : n) + P + 1) * sizeof(std::uint32_t);
        } else if (allgather) {
            lookup = lookup_bytes(lookup_kind, source_runs, N);
            receive = value(counts, counter::receive_buffer_bytes, k);
            exchange = value(counts, counter::send_buffer_bytes, k);
        } else if (p2p) {
            lookup = lookup_bytes(lookup_kind, source_runs, N); // "sorted": its one copy of the sources
            // target_ranks + remote offsets, local source runs, remote ranks (reserved for every
            // target-rank entry: exchange/point_to_point.cpp)
            targets = target_ranks_bytes + (cells + 1) * 4 + cells * 4 + entries * 4;
            if (phases == 2) {
                targets += (cells + 1) * 4 + (source_runs + 1) * 4 +
                           grown(value(counts, counter::phase_one_entries, k)) * 4 +
                           value(counts, counter::phase_two_entries, k) * 4;
            }
            if (can.rma_windows && P > 1) {
                double remote_sources = 0;
                for (gid_type g: side.sources) remote_sources += part.cells().rank_of(g) != me;
                const auto entry = rma_entry_bytes(spike_codec(static_cast<std::uint32_t>(part.min_delay())));
                out["window"].push_back(remote_sources * double(entry) * double(options.integer("rma_slot_spikes")));
            }
        } else if (can.process_grid) {
            process_grid grid =
                make_process_grid(part.ranks(), options.text("route_dims"), "exchange.route_dims",
                                  options.integer("route_budget"), 1, options.real("route_message_hops"));
            const double partners = grid.buckets() - grid.dimensions() - (grid.ragged() ? 1 : 0);
            lookup = lookup_bytes(lookup_kind, source_runs, N) + 2 * P + 2 * grown(partners) * sizeof(int);
            targets = target_ranks_bytes;
        }
        out["lookup_tables"].push_back(lookup);
        if (!allgather) out["targets"].push_back(targets);
        if (directed || allgather) {
            out["receive_buffers"].push_back(receive);
            out["exchange_buffers"].push_back(exchange);
        }
    }
    return out;
}

} // namespace spikex
