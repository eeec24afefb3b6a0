// Exchange "multisend" — Hines, Kumar & Schürmann 2011, sections Multisend, MPI
// point-to-point and Multisend method variations (DCMF_Multicast on Blue Gene/P; here its
// MPI_Isend form, which the paper also measured).
//
// Algorithm: at set-up every cell learns the ranks that hold its targets
//   (connections/target_ranks.hpp). When a cell fires, the spike (a 2-4 byte wire_message:
//   interval number mod 8, relayed or not, step within the interval, local index or gid) goes at once to each of those
//   ranks with MPI_Isend (own targets are delivered directly). Receivers MPI_Iprobe/MPI_Recv every step and buffer
//   arrivals per sub-interval; at every (sub-)interval end the conservation loop runs MPI_Allreduce of (sent, received)
//   up to the due sub-interval until the totals are equal (exchange/point_to_point.hpp). exchange.subintervals = 2: a
//   spike of sub-interval A need only arrive by the end of B. exchange.phases = 2: two-phase relay — the source sends
//   to ~sqrt(F) relays, each relay forwards to the rest of its group in the following sub-interval (at once with one
//   sub-interval) (connections/relay_plan.hpp).
// Cost per interval (P ranks, N cells, rate r, interval T = M dt, F = remote target ranks
//   of a cell, F ~ (P-1)(1 - (1 - 1/P)^K) for K random inputs per cell): N r T F messages of
//   2-4 bytes in total, N r T F / P sent and received per rank on average (two-phase: the
//   same total, but a source rank initiates only ~sqrt(F) per spike and relays the rest);
//   k (sub-intervals) MPI_Allreduce of 2 int64 per interval, more when spikes are still in
//   flight (conservation iterations). No step grows with P when F is bounded by K.
// Memory: target-rank lists (8 bytes per (cell, target rank)), relay lists (two-phase),
//   exchange.max_pending_sends in-flight requests (48 bytes each), arrival buffers, the
//   source lookup.
// Ordering: none — messages arrive in any order; the engine delivers each step's inputs in
//   canonical order (source gid, connection index), so spikes are identical to allgather.
#include "spikex/exchange/point_to_point.hpp"

namespace spikex {
namespace {

class multisend_exchange final: public message_exchange {
public:
    using message_exchange::message_exchange;
    std::string name() const override { return "multisend"; }
};

} // namespace

void count_point_to_point(count_view& view); // dryrun/exchange_counts.cpp

method_entry multisend_method() {
    return {
        .name = "multisend",
        .description = "each spike sent at once with MPI_Isend to the ranks holding its targets, conservation loop of "
                       "MPI_Allreduce per (sub-)interval; one or two sub-intervals, one or two phases (Hines et al. "
                       "2011, sections Multisend, MPI point-to-point)",
        .capabilities = point_to_point_capabilities(),
        .options = {subintervals_option(), phases_option(), max_pending_sends_option(), source_lookup_option()},
        .variants = {{{{"subintervals", std::int64_t{2}}}},
                     {{{"phases", std::int64_t{2}}}},
                     {{{"subintervals", std::int64_t{2}}, {"phases", std::int64_t{2}}}},
                     {{{"max_pending_sends", std::int64_t{1}}}}},
        .make =
            [](const option_reader& o) {
                point_to_point_options p = read_point_to_point_options(o);
                p.phases = static_cast<int>(o.integer("phases"));
                p.max_pending_sends = static_cast<int>(o.integer("max_pending_sends"));
                return std::make_unique<multisend_exchange>(p);
            },
        .count = count_point_to_point,
        .cost_formula = "point_to_point",
        .docs_page = "multisend",
    };
}

} // namespace spikex
