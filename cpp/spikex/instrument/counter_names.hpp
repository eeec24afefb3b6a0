#pragma once
// The names of the exchange counters and properties, in one table: every exchange's
// counters() / properties() (exchange/*.cpp), the engine's additions and the dry run
// (dryrun/exchange_counts.cpp) use these constants instead of bare strings; Python sees
// the table as spikex._core.counter_names(). The strings are part of the output format
// (summary.json, compare tables): renaming one is a format change.
//
//   counters    per rank, summed over ranks by the caller
//   properties  of the set-up, the same on every rank (not summed)
//   dry_run     what only the dry run reports (per-rank figures and exactness flags)
// Names that end in a number (route_dim_0, route_dim_1, ...) are built from
// route_dim_prefix.
// "slot" in a name: allgather_slots counts Allgather buffer entries (the code's meaning of
// slot); in the rma names (slots_scanned, rma_slot_spikes, window_bytes_per_slot) it is a
// window cell, the word kept because the names are part of the format.

namespace spikex::counter {

// --- counters
inline constexpr const char* messages_sent = "messages_sent";
inline constexpr const char* bytes_sent = "bytes_sent";
inline constexpr const char* bytes_received = "bytes_received";
inline constexpr const char* rounds = "rounds";
inline constexpr const char* spikes_sent = "spikes_sent";
inline constexpr const char* spikes_received = "spikes_received";
inline constexpr const char* spikes_matched = "spikes_matched";
inline constexpr const char* spikes_local = "spikes_local";
inline constexpr const char* overflow_rounds = "overflow_rounds";
inline constexpr const char* conservation_iterations = "conservation_iterations";
inline constexpr const char* target_rank_entries = "target_rank_entries";
inline constexpr const char* target_entries = "target_entries";
inline constexpr const char* entries_sent = "entries_sent";
inline constexpr const char* entries_received = "entries_received";
inline constexpr const char* init_rounds = "init_rounds";
inline constexpr const char* init_bytes_sent = "init_bytes_sent";
inline constexpr const char* sends_blocked = "sends_blocked";
inline constexpr const char* phase_two_sent = "phase_two_sent";
inline constexpr const char* relayed_spikes = "relayed_spikes";
inline constexpr const char* phase_one_entries = "phase_one_entries";
inline constexpr const char* phase_two_entries = "phase_two_entries";
inline constexpr const char* persistent_requests = "persistent_requests";
inline constexpr const char* persistent_starts = "persistent_starts";
inline constexpr const char* refill_waits = "refill_waits";
inline constexpr const char* slots_scanned = "slots_scanned"; // rma: window cells scanned
inline constexpr const char* ring_full_deferrals = "ring_full_deferrals";
inline constexpr const char* items_sent = "items_sent";
inline constexpr const char* hops = "hops";
inline constexpr const char* forwarded = "forwarded";
inline constexpr const char* full_sends = "full_sends";
inline constexpr const char* flush_sends = "flush_sends";
inline constexpr const char* messages_received = "messages_received";
inline constexpr const char* events_delivered = "events_delivered";
inline constexpr const char* spikes_emitted = "spikes_emitted";
// Entries the arriving spikes made in the engine's delivery ring: one per delay group a
// spike reaches on a rank (a source's connections there with one delay and one synapse
// type; connection_table.hpp), one per connection in the creation-order layout. What a
// spike's delivery costs grows with it (the time model's delivery_group_s).
inline constexpr const char* delivery_groups = "delivery_groups";
// The spike wire codec (exchange/spike_codec.hpp): bytes of encoded spike blocks sent and
// the spikes (or target entries) in them; wire_bytes / wire_spikes is the bytes per spike.
inline constexpr const char* wire_bytes = "wire_bytes";
inline constexpr const char* wire_spikes = "wire_spikes";
// Blocks the codec sorted before coding their gaps: their spikes did not arrive in key order
// (allgather, alltoall, alltoallv; 0 when every block came sorted or was packed).
inline constexpr const char* encoder_sorts = "encoder_sorts";
// summary.json's wire_bytes / wire_spikes (computed by the Python summary).
inline constexpr const char* wire_bytes_per_spike = "wire_bytes_per_spike";

// --- properties
inline constexpr const char* compressed = "compressed";
inline constexpr const char* entry_bytes = "entry_bytes";
inline constexpr const char* allgather_slots = "allgather_slots"; // entries per rank in the Allgather block
inline constexpr const char* sorted_by_source = "sorted_by_source";
inline constexpr const char* init_section_entries = "init_section_entries";
inline constexpr const char* final_section_entries = "final_section_entries";
inline constexpr const char* largest_section_entries = "largest_section_entries";
inline constexpr const char* subintervals = "subintervals";
inline constexpr const char* phases = "phases";
inline constexpr const char* max_target_ranks = "max_target_ranks";
inline constexpr const char* max_pending_sends = "max_pending_sends";
inline constexpr const char* rma_slot_spikes = "rma_slot_spikes"; // entries per rma window cell
inline constexpr const char* route_dimensions = "route_dimensions";
inline constexpr const char* route_ragged = "route_ragged";
inline constexpr const char* route_budget = "route_budget";
inline constexpr const char* route_bucket_capacity = "route_bucket_capacity";
inline constexpr const char* route_max_hops = "route_max_hops";
inline constexpr const char* route_buffer_high_water = "route_buffer_high_water";
inline constexpr const char* steps_per_interval = "steps_per_interval";

inline constexpr const char* route_dim_prefix = "route_dim_"; // + dimension index

// --- dry run only
inline constexpr const char* section_entries = "section_entries";
inline constexpr const char* partners = "partners";
inline constexpr const char* send_buffer_bytes = "send_buffer_bytes";
inline constexpr const char* receive_buffer_bytes = "receive_buffer_bytes";
inline constexpr const char* pending_buffer_bytes = "pending_buffer_bytes";
inline constexpr const char* remote_target_ranks = "remote_target_ranks";
inline constexpr const char* phase_one_ranks = "phase_one_ranks";
inline constexpr const char* relay_group = "relay_group";
inline constexpr const char* window_bytes_per_slot = "window_bytes_per_slot"; // bytes per rma window cell
inline constexpr const char* relay_exact = "relay_exact";
inline constexpr const char* rounds_exclude_conservation_iterations = "rounds_exclude_conservation_iterations";
inline constexpr const char* section_exact = "section_exact";
inline constexpr const char* wire_exact = "wire_exact"; // coded block sizes counted, not estimated
inline constexpr const char* forwarded_exact = "forwarded_exact";
inline constexpr const char* messages_lower_bound = "messages_lower_bound";
inline constexpr const char* ranks = "ranks";
inline constexpr const char* sampled_ranks = "sampled_ranks";

inline constexpr const char* all_counters[] = {
    messages_sent,       bytes_sent,
    bytes_received,      rounds,
    spikes_sent,         spikes_received,
    spikes_matched,      spikes_local,
    overflow_rounds,     conservation_iterations,
    target_rank_entries, target_entries,
    entries_sent,        entries_received,
    init_rounds,         init_bytes_sent,
    sends_blocked,       phase_two_sent,
    relayed_spikes,      phase_one_entries,
    phase_two_entries,   persistent_requests,
    persistent_starts,   refill_waits,
    slots_scanned,       ring_full_deferrals,
    items_sent,          hops,
    forwarded,           full_sends,
    flush_sends,         messages_received,
    events_delivered,    spikes_emitted,
    wire_bytes,          wire_spikes,
    encoder_sorts,       delivery_groups,
};
inline constexpr const char* all_properties[] = {
    compressed,
    entry_bytes,
    allgather_slots,
    sorted_by_source,
    init_section_entries,
    final_section_entries,
    largest_section_entries,
    subintervals,
    phases,
    max_target_ranks,
    max_pending_sends,
    rma_slot_spikes,
    route_dimensions,
    route_ragged,
    route_budget,
    route_bucket_capacity,
    route_max_hops,
    route_buffer_high_water,
    steps_per_interval,
    wire_bytes_per_spike,
};
inline constexpr const char* all_dry_run[] = {
    section_entries,
    partners,
    send_buffer_bytes,
    receive_buffer_bytes,
    pending_buffer_bytes,
    remote_target_ranks,
    phase_one_ranks,
    relay_group,
    window_bytes_per_slot,
    relay_exact,
    rounds_exclude_conservation_iterations,
    section_exact,
    wire_exact,
    forwarded_exact,
    messages_lower_bound,
    ranks,
    sampled_ranks,
};

} // namespace spikex::counter
