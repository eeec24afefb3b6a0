#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <limits>
#include <optional>

#include <sys/mman.h>
#include <unistd.h>

#include "spikex/connections/connection_table.hpp"
#include "spikex/core/errors.hpp"
#include "spikex/core/for_each_thread.hpp"
#include "spikex/core/format.hpp"

namespace spikex {
namespace {

constexpr std::uint64_t no_key = ~std::uint64_t{0};
// Keys use 63 bits; a key word with this bit set names a source's list of keys instead.
constexpr std::uint64_t several_keys = std::uint64_t{1} << 63;
constexpr std::uint16_t max_receptor = 0x7fff; // 15 bits above delay and synapse

// Groups are ordered by receptor port, then delay, then synapse type, inside a source run
// (every network without ports has port 0: by delay, then synapse type).
std::uint64_t group_key(const built_connection& c) {
    return (std::uint64_t{c.receptor} << 48) | (std::uint64_t{c.delay} << 16) | c.synapse;
}
std::uint32_t key_delay(std::uint64_t key) { return static_cast<std::uint32_t>(key >> 16); }
std::uint16_t key_synapse(std::uint64_t key) { return static_cast<std::uint16_t>(key & 0xffff); }
std::uint16_t key_receptor(std::uint64_t key) { return static_cast<std::uint16_t>((key >> 48) & max_receptor); }

template <class T, class A>
std::size_t capacity_bytes(const std::vector<T, A>& v) {
    return v.capacity() * sizeof(T);
}

template <class T, class A>
void free_vector(std::vector<T, A>& v) {
    std::vector<T, A>().swap(v);
}

// Gives the whole memory pages inside [begin, end) back to the system (an array that
// will not be read again, freed later): its resident size shrinks while it is copied.
void release_pages(const void* begin, const void* end) {
    const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
    const std::uintptr_t first = (reinterpret_cast<std::uintptr_t>(begin) + page - 1) / page * page;
    const std::uintptr_t last = reinterpret_cast<std::uintptr_t>(end) / page * page;
    if (first < last) madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

// Where the placing pass puts each connection of one build part (one placement per part:
// the counts of its own targets' inputs). Most sources have one (delay, synapse)
// key: one counter per source, turned into a cursor. A source with several keys (an
// excitatory source with plastic E->E and static E->I synapses; a source whose delays
// are drawn: one key per delay value) gets counters for its keys instead, so that its
// groups come out in key order and in creation order within each, without a
// per-connection key or a sort. Those counters are a row per source, indexed by the
// key's number among the part's keys (a direct look-up, a cache line per source when
// there are few keys), or, when rows would take more room than the connections
// themselves (many keys, few per source), a list of (key, counter) per source.
// One per build part, each on its own cache lines (alignas): its counters change with every
// connection, and two threads' objects sharing a line made each pass a third slower.
class alignas(64) placement {
public:
    placement(std::uint32_t space, std::uint64_t rows_budget):
        slot_(space), rows_budget_(rows_budget), rows_mode_(rows_budget > 0) {}

    // Counting pass: one connection of source s with key k. `id`: k's number among the
    // thread's keys once known (no_id before): a run of one key looks it up once, not at
    // every connection of a source with several keys.
    void count(std::uint32_t s, std::uint64_t k, std::uint32_t& id) {
        ++counted_;
        ++slot_[s].cursor;
        std::uint64_t& sk = slot_[s].key;
        if (sk == k) return;
        if (sk == no_key) {
            sk = k;
            return;
        }
        if ((sk & several_keys) && rows_mode_ && id != no_id) { // a known key of a source's row
            const std::uint64_t at = (sk & ~several_keys) * stride_ + id;
            ++row_counter_[at];
            row_present_[at] = 1;
            return;
        }
        count_another_key(s, k, id);
    }

    // The rest of count, out of line (the common case above stays small enough to inline).
    [[gnu::noinline]] void count_another_key(std::uint32_t s, std::uint64_t k, std::uint32_t& id) {
        std::uint64_t& sk = slot_[s].key;
        if (!(sk & several_keys)) { // a second key: every earlier connection had the first
            const std::uint64_t first = sk;
            const std::uint32_t earlier = slot_[s].cursor - 1;
            if (rows_mode_) {
                const std::uint32_t id = key_id(first); // before the row: numbering may widen rows
                sk = several_keys | new_row();
                add_to_row(sk & ~several_keys, id, earlier);
            } else {
                lists_.push_back({{first, earlier}});
                sk = several_keys | (lists_.size() - 1);
            }
        }
        if (rows_mode_) {
            if (id == no_id) id = key_id(k);
            add_to_row(sk & ~several_keys, id, 1);
            // Rows of 5 bytes per entry: at most about 20 bytes per connection counted (the
            // connections' own table is 10-16), or 80 MB (the default budget) while few are.
            // Only rows that grew can break this (counting more only relaxes it): the
            // inline path above, which adds no row, need not check.
            if (row_entries_ > 4 * counted_ + rows_budget_) rows_to_lists();
        } else {
            add_to_list(sk & ~several_keys, k);
        }
    }

    // Appends the keys counted for source s.
    void keys(std::uint32_t s, std::vector<std::uint64_t>& out) const {
        const std::uint64_t sk = slot_[s].key;
        if (sk == no_key) return;
        if (!(sk & several_keys)) {
            out.push_back(sk);
            return;
        }
        const std::uint64_t index = sk & ~several_keys;
        if (rows_mode_) {
            const char* present = row_present_.data() + index * stride_;
            for (std::uint32_t id = 0; id < ids_.size(); ++id)
                if (present[id]) out.push_back(ids_[id]);
            return;
        }
        for (const auto& e: lists_[index]) out.push_back(e.key);
    }

    // Turns the counter of (source s, key k) into the position of its first connection,
    // and notes where its first weight goes (no_slot: its group keeps none per
    // connection); returns the count (0 when none was counted here).
    std::uint32_t start(std::uint32_t s, std::uint64_t k, std::uint64_t position, std::uint32_t weight_slot) {
        const std::uint64_t sk = slot_[s].key;
        if (sk == no_key) return 0;
        if (!(sk & several_keys)) {
            if (sk != k) return 0;
            const std::uint32_t count = slot_[s].cursor;
            slot_[s].cursor = static_cast<std::uint32_t>(position);
            if (!weight_cursor_.empty()) weight_cursor_[s] = weight_slot;
            return count;
        }
        const std::uint64_t index = sk & ~several_keys;
        if (rows_mode_) {
            const auto id = find_id(k);
            if (id == no_id || !row_present_[index * stride_ + id]) return 0;
            std::uint32_t& counter = row_counter_[index * stride_ + id];
            const std::uint32_t count = counter;
            counter = static_cast<std::uint32_t>(position);
            if (!row_slot_.empty()) row_slot_[index * stride_ + id] = weight_slot;
            return count;
        }
        for (auto& e: lists_[index]) {
            if (e.key != k) continue;
            const std::uint32_t count = e.counter;
            e.counter = static_cast<std::uint32_t>(position);
            e.weight_slot = weight_slot;
            return count;
        }
        return 0;
    }
    // Weight slots are noted (start) only after this.
    void note_weight_slots() {
        weight_cursor_.assign(slot_.size(), no_slot);
        if (rows_mode_) row_slot_.assign(row_counter_.size(), no_slot);
    }

    // Placing pass: the position of the next connection of source s with key k (after
    // start); `id` as for count.
    std::uint32_t take(std::uint32_t s, std::uint64_t k, std::uint32_t& id) {
        const std::uint64_t sk = slot_[s].key;
        if (!(sk & several_keys)) return slot_[s].cursor++;
        const std::uint64_t index = sk & ~several_keys;
        if (rows_mode_) {
            if (id == no_id) id = find_id(k);
            return row_counter_[index * stride_ + id]++;
        }
        for (auto& e: lists_[index]) {
            if (e.key == k) return e.counter++;
        }
        throw internal_error("connection table: a connection's key was not counted");
    }
    // The same, with the slot of its weight (no_slot when its group keeps none).
    std::uint32_t take(std::uint32_t s, std::uint64_t k, std::uint32_t& id, std::uint32_t& weight_slot) {
        const std::uint64_t sk = slot_[s].key;
        if (!(sk & several_keys)) {
            std::uint32_t& slot = weight_cursor_[s];
            weight_slot = slot;
            if (slot != no_slot) ++slot;
            return slot_[s].cursor++;
        }
        const std::uint64_t index = sk & ~several_keys;
        if (rows_mode_) {
            if (id == no_id) id = find_id(k);
            const std::uint64_t at = index * stride_ + id;
            std::uint32_t& slot = row_slot_[at];
            weight_slot = slot;
            if (slot != no_slot) ++slot;
            return row_counter_[at]++;
        }
        for (auto& e: lists_[index]) {
            if (e.key != k) continue;
            weight_slot = e.weight_slot;
            if (e.weight_slot != no_slot) ++e.weight_slot;
            return e.counter++;
        }
        throw internal_error("connection table: a connection's key was not counted");
    }

    bool any_several_keys() const { return rows_ > 0 || !lists_.empty(); }
    static constexpr std::uint32_t no_slot = ~std::uint32_t{0};
    static constexpr std::uint32_t no_id = ~std::uint32_t{0};

private:
    struct key_counter {
        std::uint64_t key;
        std::uint32_t counter;
        std::uint32_t weight_slot = no_slot;
    };

    std::uint64_t new_row() {
        const std::uint64_t row = rows_++;
        row_counter_.resize(rows_ * stride_, 0);
        row_present_.resize(rows_ * stride_, 0);
        row_entries_ = rows_ * stride_;
        return row;
    }
    void add_to_row(std::uint64_t row, std::uint32_t id, std::uint32_t count) {
        const std::uint64_t at = row * stride_ + id;
        row_counter_[at] += count;
        row_present_[at] = 1;
    }
    void add_to_list(std::uint64_t index, std::uint64_t k) {
        auto& list = lists_[index];
        auto it = std::find_if(list.begin(), list.end(), [k](const key_counter& e) { return e.key == k; });
        if (it == list.end())
            list.push_back({k, 1});
        else
            ++it->counter;
    }

    // The thread's number of key k, given on first sight (rows widen when needed).
    std::uint32_t key_id(std::uint64_t k) {
        const std::uint32_t found = find_id(k);
        if (found != no_id) return found;
        const auto id = static_cast<std::uint32_t>(ids_.size());
        ids_.push_back(k);
        if (2 * ids_.size() > slots_.size()) {                                           // rehash at half full
            slots_.assign(std::bit_ceil(std::max<std::size_t>(64, 4 * ids_.size())), 0); // masks need 2^k
            for (std::uint32_t j = 0; j < ids_.size(); ++j) insert_slot(ids_[j], j);
        } else {
            insert_slot(k, id);
        }
        if (ids_.size() > stride_) widen_rows();
        return id;
    }
    std::uint32_t find_id(std::uint64_t k) const {
        if (slots_.empty()) return no_id;
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t h = hash(k) & mask;; h = (h + 1) & mask) {
            const std::uint32_t v = slots_[h];
            if (v == 0) return no_id;
            if (ids_[v - 1] == k) return v - 1;
        }
    }
    void insert_slot(std::uint64_t k, std::uint32_t id) {
        const std::size_t mask = slots_.size() - 1;
        std::size_t h = hash(k) & mask;
        while (slots_[h] != 0) h = (h + 1) & mask;
        slots_[h] = id + 1;
    }
    static std::size_t hash(std::uint64_t k) { return static_cast<std::size_t>((k * 0x9E3779B97F4A7C15u) >> 20); }

    void widen_rows() {
        const std::uint32_t wider = stride_ * 2;
        std::vector<std::uint32_t> counter(rows_ * wider, 0);
        std::vector<char> present(rows_ * wider, 0);
        for (std::uint64_t r = 0; r < rows_; ++r) {
            std::copy_n(row_counter_.begin() + r * stride_, stride_, counter.begin() + r * wider);
            std::copy_n(row_present_.begin() + r * stride_, stride_, present.begin() + r * wider);
        }
        row_counter_.swap(counter);
        row_present_.swap(present);
        stride_ = wider;
        row_entries_ = rows_ * stride_;
    }
    // Rows would outgrow the connections: each row becomes a list of its keys, for good.
    void rows_to_lists() {
        lists_.assign(rows_, {});
        for (std::uint64_t r = 0; r < rows_; ++r)
            for (std::uint32_t id = 0; id < ids_.size(); ++id)
                if (row_present_[r * stride_ + id]) lists_[r].push_back({ids_[id], row_counter_[r * stride_ + id]});
        rows_mode_ = false;
        std::vector<std::uint32_t>().swap(row_counter_);
        std::vector<char>().swap(row_present_);
        rows_ = 0;
        row_entries_ = 0;
    }

    std::vector<std::uint32_t> weight_cursor_; // per source: next weight slot (only when noted)
    // Per source, together (each connection reads both at a random source: one cache miss,
    // not two): its key, or several_keys | row or list; its count, then next position.
    struct source_slot {
        std::uint64_t key = no_key;
        std::uint32_t cursor = 0;
    };
    std::vector<source_slot> slot_;
    std::uint64_t counted_ = 0;
    std::uint64_t rows_budget_;
    // Rows (rows_mode_): counters of row r and key number j at r * stride_ + j. Rows start
    // as wide as two keys and widen as keys come: the STDP hpc_benchmark's excitatory
    // sources have two (plastic to E, static to I), and rows of 16 (576 KB of counters,
    // read at a random source per connection in both passes) no longer fit the L2 cache
    // beside the rest: its build took 0.1-0.2 s longer.
    bool rows_mode_;
    std::uint64_t rows_ = 0, row_entries_ = 0;
    std::uint32_t stride_ = 2;
    std::vector<std::uint32_t> row_counter_, row_slot_;
    std::vector<char> row_present_;
    std::vector<std::uint64_t> ids_;   // the thread's keys by number
    std::vector<std::uint32_t> slots_; // open addressing: number + 1, 0 empty
    // Lists (after rows_to_lists).
    std::vector<std::vector<key_counter>> lists_;
};

// Lays the table out from the threads' counts: sources in gid order, keys in order within
// a source, and within each group the threads' runs in thread order; the counters become
// cursors. A group for which keeps_weights(source, key) holds gets the next slots of the
// weight array, in the same order (weight_slots: whether the parts note them). Reports
// every source run (source gid) and group (key, where each thread's run begins, then where
// the group ends; its first weight slot or placement::no_slot) in table order; returns the
// number of weight slots.
template <typename Keeps, typename Run, typename Group>
std::uint64_t lay_out(std::vector<placement>& parts, std::uint32_t space, Keeps&& keeps_weights, Run&& source_run,
                      Group&& group) {
    std::uint64_t position = 0, weight_position = 0;
    std::vector<std::uint64_t> keys;
    std::vector<std::uint32_t> runs(parts.size() + 1);
    for (std::uint32_t s = 0; s < space; ++s) {
        keys.clear();
        for (const auto& part: parts) part.keys(s, keys);
        if (keys.empty()) continue;
        if (keys.size() > 1) {
            std::sort(keys.begin(), keys.end());
            keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        }
        source_run(s);
        for (auto k: keys) {
            const bool keeps = keeps_weights(s, k);
            const std::uint64_t group_weights = weight_position;
            for (std::size_t t = 0; t < parts.size(); ++t) {
                runs[t] = static_cast<std::uint32_t>(position);
                const auto slot = keeps ? static_cast<std::uint32_t>(weight_position) : placement::no_slot;
                const std::uint32_t count = parts[t].start(s, k, position, slot);
                position += count;
                if (keeps) weight_position += count;
            }
            runs.back() = static_cast<std::uint32_t>(position);
            group(k, runs, keeps ? static_cast<std::uint32_t>(group_weights) : placement::no_slot);
        }
    }
    return weight_position;
}

// The placing pass's uniform runs, held a chunk at a time and then placed by blocks of
// sources. Placing writes each connection's target at its source's cursor: thousands of
// sources' runs fill at once, one cache line each, more lines than the L2 cache holds (the
// STDP hpc_benchmark: 20,000), so most writes waited for their line. A block's runs fit,
// and each source's connections keep their order (the chunk is partitioned stably, and
// chunks are placed in order).
class staged_placing {
public:
    staged_placing(std::uint32_t space, std::size_t chunk):
        chunk_(chunk),
        shift_(std::max(7, int(std::bit_width(space)) - 10)),
        start_((std::size_t{space} >> shift_) + 2) {} // buffers grow with what is staged

    // place(source, key, id, shared) as the placing pass's place_one.
    template <typename Place>
    void add(const uniform_run& run, Place& place) {
        for (std::size_t done = 0; done < run.count;) {
            if (entries_.size() == chunk_) flush(place);
            const auto r = static_cast<std::uint32_t>(runs_.size());
            runs_.push_back({run.shared, group_key(run.shared), placement::no_id});
            const std::size_t count = std::min(run.count - done, chunk_ - entries_.size());
            for (std::size_t j = done; j < done + count; ++j) entries_.push_back({run.sources[j], r});
            done += count;
        }
    }

    template <typename Place>
    void flush(Place& place) {
        if (entries_.empty()) return;
        std::fill(start_.begin(), start_.end(), 0);
        if (sorted_.size() < entries_.size()) sorted_.resize(entries_.size());
        for (const auto& e: entries_) ++start_[(e.source >> shift_) + 1];
        for (std::size_t b = 1; b < start_.size(); ++b) start_[b] += start_[b - 1];
        for (const auto& e: entries_) sorted_[start_[e.source >> shift_]++] = e;
        for (std::size_t k = 0; k < entries_.size(); ++k) {
            const entry& e = sorted_[k];
            staged_run& r = runs_[e.run];
            place(e.source, r.key, r.id, r.shared);
        }
        entries_.clear();
        runs_.clear();
    }

private:
    std::size_t chunk_;
    struct entry {
        std::uint32_t source;
        std::uint32_t run; // in runs_
    };
    struct staged_run {
        built_connection shared;
        std::uint64_t key;
        std::uint32_t id; // the key's number, once looked up (placement::take)
    };
    int shift_; // a block: 2^shift_ sources (at least 128; at most 1,024 blocks)
    std::vector<std::uint32_t> start_;
    std::vector<entry> entries_, sorted_;
    std::vector<staged_run> runs_;
};

// What the counting pass learns besides the counts, per thread, then for the rank.
struct alignas(64) pass_summary { // one per build part, on its own line (see placement)
    std::uint64_t connections = 0;
    std::uint32_t min_delay = std::numeric_limits<std::uint32_t>::max();
    std::uint32_t max_delay = 0;
    bool plastic = false;
    local_index targets_end = 0;

    // `count` connections that differ from c only in their source.
    void add(const built_connection& c, std::size_t count = 1) {
        connections += count;
        min_delay = std::min(min_delay, c.delay);
        max_delay = std::max(max_delay, c.delay);
        plastic = plastic || c.synapse != 0;
        targets_end = std::max<local_index>(targets_end, c.target + 1);
    }
    void add(const pass_summary& other) {
        connections += other.connections;
        min_delay = std::min(min_delay, other.min_delay);
        max_delay = std::max(max_delay, other.max_delay);
        plastic = plastic || other.plastic;
        targets_end = std::max(targets_end, other.targets_end);
    }
};

// Whether each source's static connections carry one weight, seen in the counting pass
// (one per build part, merged). Then its static delay groups keep one weight each from the
// start instead of one per connection (share_uniform_weights does it afterwards when the
// weights come only with the placing pass): the 8 bytes per connection are never
// allocated, which is most of the build's peak for networks of projections with constant
// weights. Plastic connections keep a weight each; where all of a source's plastic
// connections start from one weight, the placing pass leaves theirs to a streamed fill
// afterwards (an 8-byte store at a random place per connection: a fifth of the STDP
// hpc_benchmark's build).
class alignas(64) source_weights { // one per build part, on its own line (see placement)
public:
    explicit source_weights(std::uint32_t space): first_(space, unseen), plastic_first_(space, unseen) {}

    void add(std::uint32_t source, std::uint16_t synapse, double weight) {
        const auto bits = std::bit_cast<std::uint64_t>(weight);
        std::uint64_t& first = (synapse != 0 ? plastic_first_ : first_)[source];
        if (first == unseen)
            first = bits;
        else if (first != bits)
            first = mixed;
    }
    // Folds the other threads' into parts[0].
    static void merge(std::vector<source_weights>& parts) {
        auto& into = parts.front();
        for (std::size_t t = 1; t < parts.size(); ++t) {
            fold(into.first_, parts[t].first_);
            fold(into.plastic_first_, parts[t].plastic_first_);
        }
    }
    bool uniform(std::uint32_t source) const { return first_[source] != mixed; }
    double of(std::uint32_t source) const { return std::bit_cast<double>(first_[source]); }
    // Per source: its plastic connections' one starting weight, or NaN (none, or several).
    std::vector<double> plastic_uniform() const {
        std::vector<double> weight(plastic_first_.size(), std::numeric_limits<double>::quiet_NaN());
        for (std::size_t s = 0; s < weight.size(); ++s)
            if (plastic_first_[s] != unseen && plastic_first_[s] != mixed)
                weight[s] = std::bit_cast<double>(plastic_first_[s]);
        return weight;
    }

private:
    static void fold(std::vector<std::uint64_t>& into, const std::vector<std::uint64_t>& other) {
        for (std::size_t s = 0; s < into.size(); ++s) {
            if (other[s] == unseen) continue;
            if (into[s] == unseen)
                into[s] = other[s];
            else if (into[s] != other[s])
                into[s] = mixed;
        }
    }
    // NaN payloads no weight has (weights are checked finite).
    static constexpr std::uint64_t unseen = 0x7ff4'5350'494b'4558ull;
    static constexpr std::uint64_t mixed = 0x7ff4'5350'494b'4559ull;
    std::vector<std::uint64_t> first_, plastic_first_; // static, plastic
};

} // namespace

void connection_visitor::operator()(const uniform_run& run) const {
    if (run.count == 0) return;
    if (visit_uniform_) {
        visit_uniform_(run);
        return;
    }
    constexpr std::size_t chunk = 256; // stays in the L1 cache between here and the receiver
    built_connection expanded[chunk];
    for (std::size_t done = 0; done < run.count; done += chunk) {
        const std::size_t count = std::min(chunk, run.count - done);
        for (std::size_t j = 0; j < count; ++j) {
            expanded[j] = run.shared;
            expanded[j].source = run.sources[done + j];
        }
        visit_(expanded, count);
    }
}

connection_table::connection_table(const std::vector<built_connection>& conns, bool sort_by_source,
                                   std::vector<local_index> thread_first, bool narrow_targets,
                                   std::uint64_t key_rows_budget) {
    // Any gids: number the distinct sources densely for the build, then put the gids back.
    std::vector<gid_type> distinct;
    if (sort_by_source) {
        distinct.reserve(conns.size());
        for (const auto& c: conns) distinct.push_back(c.source);
        std::sort(distinct.begin(), distinct.end());
        distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    }
    table_shape shape{static_cast<std::uint32_t>(distinct.size()), std::move(thread_first)};
    shape.narrow_targets = narrow_targets;
    shape.byte_targets = narrow_targets;
    shape.key_rows_budget = key_rows_budget;
    connection_producer produce = [&](const connection_visitor& visit, target_range targets, bool) {
        for (built_connection c: conns) {
            if (!targets.holds(c.target)) continue;
            if (sort_by_source) {
                c.source = static_cast<gid_type>(std::lower_bound(distinct.begin(), distinct.end(), c.source) -
                                                 distinct.begin());
            }
            visit(c);
        }
    };
    *this = connection_table(produce, shape, sort_by_source);
    for (auto& s: source_run_gid_) s = distinct[s];
}

connection_table::connection_table(const connection_producer& produce, const table_shape& shape, bool sort_by_source):
    sorted_(sort_by_source) {
    threads_ = shape.thread_first.empty() ? 1u : static_cast<unsigned>(shape.thread_first.size() - 1);
    if (sorted_)
        build_sorted(produce, shape);
    else
        build_creation_order(produce);
}

void connection_table::build_sorted(const connection_producer& produce, const table_shape& shape) {
    // Every pass runs on the rank's threads, part by part, each part a range of targets:
    // a part's connections go into its own run of each group, so no two threads write to
    // one place, and the table is the same whatever the number of threads.
    const std::uint32_t space = shape.source_space;
    const unsigned T = threads_;
    // The passes' parts: each thread's targets in 2 to 16 pieces (as many as keep the parts'
    // counters, 32 bytes per source gid each, within 64 MB, and no more than a thread's
    // fewest targets; one beyond 2^20 source gids or when the targets' range is not given),
    // taken by whichever thread is free. A thread's
    // cells need not have a thread's share of the connections, nor its connections a share
    // of the time (threads are cut by the work per step, thread_work.hpp): in halves, one of
    // the STDP hpc_benchmark's two threads placed alone for the last 0.3 s of its 1.4 s
    // build. Smaller parts also place faster: a part's runs are written a little at a time
    // (each chunk adds about 23 connections to each source's run in the hpc_benchmark), and
    // while the lines a part writes fit the L3 cache (8 MB for a sixteenth of a thread's
    // targets there), a line is not fetched again for each chunk: one thread's build
    // 2.24-2.33 -> 2.07-2.12 s with 8 parts instead of one.
    const bool bounded = !shape.thread_first.empty();
    const std::uint64_t all_parts_bytes = std::uint64_t{32} * space * T;
    std::uint64_t fewest_targets = bounded ? ~std::uint64_t{0} : 1; // no part without targets
    for (unsigned t = 0; bounded && t < T; ++t)
        fewest_targets = std::min<std::uint64_t>(fewest_targets, shape.thread_first[t + 1] - shape.thread_first[t]);
    const auto pieces =
        !bounded || space > (std::uint32_t{1} << 20)
            ? 1u
            : static_cast<unsigned>(std::max<std::uint64_t>(
                  1, std::min(fewest_targets,
                              std::clamp<std::uint64_t>(
                                  (std::uint64_t{64} << 20) / std::max<std::uint64_t>(1, all_parts_bytes), 2, 16))));
    std::vector<target_range> ranges;
    for (unsigned t = 0; t < T; ++t) {
        const local_index first = bounded ? shape.thread_first[t] : 0;
        const local_index end = bounded ? shape.thread_first[t + 1] : target_range{}.end;
        if (pieces == 1) {
            ranges.push_back({first, end});
        } else {
            for (unsigned k = 0; k < pieces; ++k)
                ranges.push_back({static_cast<local_index>(first + std::uint64_t{end - first} * k / pieces),
                                  static_cast<local_index>(first + std::uint64_t{end - first} * (k + 1) / pieces)});
        }
    }
    const std::size_t P = ranges.size();
    // Runs work(p) for every part p on the threads, each thread taking the next part not
    // yet taken.
    const auto for_each_part = [&](auto&& work) {
        std::atomic<std::size_t> next{0};
        for_each_thread(T, [&](unsigned) {
            for (std::size_t p; (p = next.fetch_add(1)) < P;) work(p);
        });
    };

    // Pass 1: connections per source and (delay, synapse) key.
    std::vector<placement> parts(P, placement(space, shape.key_rows_budget));
    std::vector<pass_summary> seen_by(P);
    std::vector<source_weights> weights_by(shape.weights_when_counting ? P : 0, source_weights(space));
    for_each_part([&](std::size_t t) {
        const local_index first = ranges[t].first, end = ranges[t].end;
        // A run at a time (one target's inputs): one call per run, not per connection.
        placement& part = parts[t];
        source_weights* weights = weights_by.empty() ? nullptr : &weights_by[t];
        // `shared`: all of a connection but its source (`source`).
        const auto check = [&](const built_connection& shared) {
            if (shared.target < first || shared.target >= end)
                throw internal_error("connection target of another part");
            if (shared.receptor > max_receptor) throw internal_error("receptor port outside the table's key");
        };
        const auto count_one = [&](std::uint32_t source, std::uint64_t key, std::uint32_t & id,
                                   const built_connection& shared) __attribute__((always_inline)) {
            if (source >= space) throw internal_error("connection source outside the table's source space");
            part.count(source, key, id);
            if (weights) weights->add(source, shared.synapse, shared.weight);
        };
        const connection_visitor count_run(
            [&](const built_connection* run, std::size_t count) {
                for (const built_connection* c = run; c != run + count; ++c) {
                    check(*c);
                    std::uint32_t id = placement::no_id;
                    count_one(c->source, group_key(*c), id, *c);
                    seen_by[t].add(*c);
                }
            },
            [&](const uniform_run& run) {
                check(run.shared);
                const std::uint64_t key = group_key(run.shared);
                std::uint32_t id = placement::no_id;
                for (std::size_t j = 0; j < run.count; ++j) count_one(run.sources[j], key, id, run.shared);
                seen_by[t].add(run.shared, run.count);
            });
        produce(count_run, ranges[t], false);
    });
    pass_summary all;
    for (const auto& part: seen_by) all.add(part);
    const std::uint64_t n = all.connections;
    if (n >= std::numeric_limits<std::uint32_t>::max()) {
        throw user_error(
            spikex::format("one rank would hold {} connections; at most 4,294,967,294 fit: use more ranks", n));
    }
    min_delay_ = n == 0 ? 0 : all.min_delay;
    max_delay_ = all.max_delay;
    has_plastic_ = all.plastic;
    // Static groups of a source whose static connections carry one weight keep that one;
    // every other group keeps a weight per connection (plastic ones change one by one).
    if (!weights_by.empty()) source_weights::merge(weights_by);
    const auto keeps_weights = [&](std::uint32_t source, std::uint64_t key) {
        return weights_by.empty() || key_synapse(key) != 0 || !weights_by.front().uniform(source);
    };
    // The weight slots are noted only when some groups keep weights and others do not.
    bool some_share = false, some_keep = weights_by.empty() && n > 0;
    if (!weights_by.empty()) {
        std::vector<std::uint64_t> keys;
        for (std::uint32_t s = 0; s < space && !(some_share && some_keep); ++s) {
            keys.clear();
            for (const auto& part: parts) part.keys(s, keys);
            for (auto k: keys) (keeps_weights(s, k) ? some_keep : some_share) = true;
        }
    }
    const bool mixed_weights = some_share && some_keep;
    if (mixed_weights)
        for (auto& part: parts) part.note_weight_slots();

    // Source runs and groups in table order; the counters become cursors.
    const std::uint64_t kept_weights = lay_out(
        parts, space, keeps_weights,
        [&](std::uint32_t source) {
            source_run_groups_.push_back(static_cast<std::uint32_t>(groups_.size()));
            source_run_gid_.push_back(source);
        },
        [&](std::uint64_t key, const std::vector<std::uint32_t>& runs, std::uint32_t first_weight) {
            const auto run = static_cast<std::uint32_t>(source_run_gid_.size() - 1);
            groups_.push_back({key_delay(key), runs.front(), run, key_synapse(key), key_receptor(key)});
            if (some_share) {
                const bool shares = first_weight == placement::no_slot;
                group_weight_.push_back(shares ? weights_by.front().of(source_run_gid_.back()) : 0.0);
            }
            if (mixed_weights) weight_first_.push_back(first_weight);
            if (T > 1) // where each thread's first part begins, and the group's end
                for (std::size_t p = 0; p <= P; p += pieces) thread_begin_.push_back(runs[p]);
        });
    source_run_groups_.push_back(static_cast<std::uint32_t>(groups_.size()));
    groups_.push_back({0, static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(source_run_gid_.size()), 0});
    if (T > 1) thread_begin_.insert(thread_begin_.end(), T + 1, static_cast<std::uint32_t>(n));
    if (mixed_weights) weight_first_.push_back(static_cast<std::uint32_t>(kept_weights));
    // Sources whose plastic connections start from one weight: filled after placing.
    const std::vector<double> plastic_weight =
        weights_by.empty() ? std::vector<double>{} : weights_by.front().plastic_uniform();
    const auto fill_later = [&](std::uint32_t source, std::uint16_t synapse) {
        return synapse != 0 && !plastic_weight.empty() && !std::isnan(plastic_weight[source]);
    };
    // Whether the placing pass writes any weight: not when every group that keeps weights is
    // filled later (the STDP hpc_benchmark), and then it need not follow the weight slots either
    // (a cache line less per connection of a source with several groups: 0.2 s of its build).
    bool placing_writes_weights = some_keep;
    if (mixed_weights) {
        placing_writes_weights = false;
        std::vector<std::uint64_t> keys;
        for (std::uint32_t s = 0; s < space && !placing_writes_weights; ++s) {
            keys.clear();
            for (const auto& part: parts) part.keys(s, keys);
            for (auto k: keys)
                placing_writes_weights =
                    placing_writes_weights || (keeps_weights(s, k) && !fill_later(s, key_synapse(k)));
        }
    }
    weights_by.clear(); // the layout holds what it learnt (before the table's arrays grow)
    weights_by.shrink_to_fit();

    // Pass 2: place every connection; creation order survives within each thread's run.
    // Synapse types that keep their connections' index among their target's inputs
    // (stochastic synapses) have every index noted here (all inputs of a target come from
    // the thread that owns it).
    const bool several_keys =
        std::any_of(parts.begin(), parts.end(), [](const placement& p) { return p.any_several_keys(); });
    const auto& indexed = shape.indexed_synapses;
    const bool keep_indices = std::any_of(groups_.begin(), groups_.end() - 1, [&](const delay_group& g) {
        return g.synapse < indexed.size() && indexed[g.synapse];
    });
    std::vector<std::uint32_t> creation_index(keep_indices ? n : 0);
    std::vector<std::uint32_t> inputs_so_far(keep_indices ? all.targets_end : 0, 0);
    // A source with several groups may need a few indices (find_shared_targets): the
    // cursors as they stand now let a third pass place the connections again.
    std::vector<placement> replay;
    if (several_keys && !keep_indices) replay = parts;
    width_ = shape.narrow_targets && all.targets_end <= narrow_target_limit ? 2 : 4;
    size_ = n;
    if (width_ == 2)
        narrow_target_.resize(n);
    else
        target_.resize(n);
    weight_.resize(kept_weights);
    std::atomic<std::size_t> next_part{0};
    for_each_thread(T, [&](unsigned) {
        // Staged unless a target's inputs must be counted in creation order (input indices).
        std::optional<staged_placing> staged;
        if (!keep_indices && shape.placing_chunk > 0) staged.emplace(space, shape.placing_chunk);
        for (std::size_t t; (t = next_part.fetch_add(1)) < P;) {
            placement& part = parts[t];
            // Inlined into both loops (a call per connection cost a tenth of the pass).
            const auto place_one = [&](std::uint32_t source, std::uint64_t key, std::uint32_t & id,
                                       const built_connection& shared) __attribute__((always_inline)) {
                std::uint32_t p, slot = placement::no_slot;
                if (mixed_weights && placing_writes_weights) {
                    p = part.take(source, key, id, slot);
                } else {
                    p = part.take(source, key, id);
                    if (some_keep && !mixed_weights) slot = p; // every group keeps its weights, by position
                }
                if (width_ == 2)
                    narrow_target_[p] = static_cast<narrow_target>(shared.target);
                else
                    target_[p] = shared.target;
                if (slot != placement::no_slot && !fill_later(source, shared.synapse)) weight_[slot] = shared.weight;
                if (keep_indices) creation_index[p] = inputs_so_far[shared.target]++;
            };
            const connection_visitor place_run(
                [&](const built_connection* run, std::size_t count) {
                    if (staged) staged->flush(place_one); // what came before goes first
                    for (const built_connection* c = run; c != run + count; ++c) {
                        std::uint32_t id = placement::no_id;
                        place_one(c->source, group_key(*c), id, *c);
                    }
                },
                [&](const uniform_run& run) {
                    if (staged) {
                        staged->add(run, place_one);
                        return;
                    }
                    const std::uint64_t key = group_key(run.shared);
                    std::uint32_t id = placement::no_id;
                    for (std::size_t j = 0; j < run.count; ++j) place_one(run.sources[j], key, id, run.shared);
                });
            produce(place_run, ranges[t], true);
            if (staged) staged->flush(place_one); // the part's own placement
        }
    });
    free_vector(inputs_so_far);
    parts.clear();
    // Before the weights' first touch (the fill below), so that the 2- or 4-byte targets
    // are gone when the table reaches its full size.
    if (shape.byte_targets) pack_targets();
    starting_weight_.clear();
    if (!plastic_weight.empty()) {
        // On the threads, each over the groups that begin in its share of the plastic connections:
        // this is the first touch of most of the weight array (648 MB for the STDP
        // hpc_benchmark), which costs more than the writing on a virtual machine.
        starting_weight_.assign(group_count(), std::numeric_limits<double>::quiet_NaN());
        for_each_thread(T, [&](unsigned t) {
            for (std::uint32_t g = plastic_share_first_group(t, T), end = plastic_share_first_group(t + 1, T); g < end;
                 ++g) {
                if (groups_[g].synapse == 0) continue;
                const double w = plastic_weight[source_run_gid_[groups_[g].source_run]];
                if (std::isnan(w)) continue;
                const std::uint32_t count = group_end_connection(g) - groups_[g].begin;
                std::fill_n(weight_.begin() + first_weight(g), count, w);
                starting_weight_[g] = w;
            }
        });
    }

    // Weights by position (no group shares yet): share where every group turns out uniform.
    if (!some_share) share_uniform_weights();
    if (keep_indices) keep_input_indices(creation_index, indexed);
    if (!several_keys) return;
    find_shared_targets(all.targets_end);
    if (shared_index_.empty()) return;
    if (keep_indices) {
        for (auto& [c, index]: shared_index_) index = creation_index[c];
        return;
    }
    // Pass 3, only when groups of one source share a target: the index of each connection
    // that needs one, counted as pass 2 would have (an index for every connection would be
    // 4 bytes per connection at the build's peak, for the few a merge orders).
    free_vector(creation_index);
    std::vector<std::uint64_t> wanted((n + 63) / 64, 0);
    for (const auto& entry: shared_index_) wanted[entry.first / 64] |= std::uint64_t{1} << (entry.first % 64);
    inputs_so_far.assign(all.targets_end, 0);
    for_each_part([&](std::size_t t) {
        placement& part = replay[t];
        const connection_visitor::run_function index_run = [&](const built_connection* run, std::size_t count) {
            for (const built_connection* c = run; c != run + count; ++c) {
                std::uint32_t id = placement::no_id;
                const std::uint32_t p = part.take(c->source, group_key(*c), id);
                const std::uint32_t index = inputs_so_far[c->target]++;
                if (!(wanted[p / 64] >> (p % 64) & 1)) continue;
                auto entry =
                    std::lower_bound(shared_index_.begin(), shared_index_.end(), std::make_pair(p, std::uint32_t{0}));
                entry->second = index;
            }
        };
        produce(index_run, ranges[t], false);
    });
}

void connection_table::keep_input_indices(const std::vector<std::uint32_t>& creation_index,
                                          const std::vector<char>& indexed) {
    for (std::uint32_t g = 0; g < group_count(); ++g) {
        if (groups_[g].synapse >= indexed.size() || !indexed[groups_[g].synapse]) continue;
        input_index_.insert(input_index_.end(), creation_index.begin() + groups_[g].begin,
                            creation_index.begin() + groups_[g + 1].begin);
    }
}

bool connection_table::find_connection_index(std::uint32_t c, std::uint32_t& index) const {
    auto it = std::lower_bound(shared_index_.begin(), shared_index_.end(), std::make_pair(c, std::uint32_t{0}));
    if (it == shared_index_.end() || it->first != c) return false;
    index = it->second;
    return true;
}

std::uint32_t connection_table::connection_index(std::uint32_t c) const {
    auto it = std::lower_bound(shared_index_.begin(), shared_index_.end(), std::make_pair(c, std::uint32_t{0}));
    if (it == shared_index_.end() || it->first != c) {
        throw internal_error(spikex::format("connection {} has no index: its target has one input of its source", c));
    }
    return it->second;
}

std::uint32_t connection_table::group_of_connection(std::uint32_t c) const {
    auto it = std::upper_bound(groups_.begin(), groups_.end(), c,
                               [](std::uint32_t x, const delay_group& g) { return x < g.begin; });
    return static_cast<std::uint32_t>(it - groups_.begin()) - 1;
}

void connection_table::share_uniform_weights() {
    // Static synapses whose weights are equal within every delay group (one projection's
    // constant weight): one weight per group instead of one per connection (8 bytes less
    // per synapse). Plastic weights change one by one, so they keep theirs.
    if (has_plastic_ || weight_.empty()) return;
    std::vector<double> per_group(group_count());
    for (std::uint32_t g = 0; g < group_count(); ++g) {
        const auto begin = groups_[g].begin, end = groups_[g + 1].begin;
        for (auto c = begin + 1; c < end; ++c) {
            if (std::bit_cast<std::uint64_t>(weight_[c]) != std::bit_cast<std::uint64_t>(weight_[begin])) return;
        }
        per_group[g] = begin < end ? weight_[begin] : 0.0;
    }
    group_weight_ = std::move(per_group);
    free_vector(weight_);
}

void connection_table::find_shared_targets(local_index targets_end) {
    // Only sources with several groups can have groups meeting one target in one step. Per
    // such source run: which targets occur in more than one of its groups (a stamp per
    // target, no sorting); all their connections from the run will keep their creation
    // index (noted here in position order, the index filled in by the caller). The threads
    // take contiguous ranges of sources with equal shares of the connections read (this
    // pass reads every connection of such sources: a tenth of the STDP hpc_benchmark's
    // build on one thread), each with its own stamps, and their lists join in source order.
    const unsigned T = threads_;
    const std::uint32_t sources = source_count();
    const auto first_connection = [&](std::uint32_t s) { return groups_[group_begin(s)].begin; };
    std::vector<std::uint64_t> read_before(sources + 1, 0); // connections read for earlier sources
    for (std::uint32_t s = 0; s < sources; ++s) {
        const bool several = group_begin(s + 1) - group_begin(s) >= 2;
        read_before[s + 1] = read_before[s] + (several ? first_connection(s + 1) - first_connection(s) : 0);
    }
    std::vector<std::uint32_t> source_begin(T + 1, sources);
    source_begin[0] = 0;
    for (unsigned t = 1; t < T; ++t) {
        const std::uint64_t share = read_before[sources] * t / T; // the first source past it
        source_begin[t] = static_cast<std::uint32_t>(
            std::lower_bound(read_before.begin(), read_before.end() - 1, share) - read_before.begin());
    }
    source_run_shares_.assign(sources, 0);
    std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> found(T);
    for_each_thread(T, [&](unsigned t) {
        constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();
        std::vector<std::uint32_t> stamp(targets_end, none), first_group(targets_end, 0);
        std::vector<char> several_groups(targets_end, 0);
        auto& mine = found[t];
        std::vector<std::pair<local_index, local_index>> spans; // [lowest, highest] target per group
        for (std::uint32_t s = source_begin[t]; s < source_begin[t + 1]; ++s) {
            if (group_begin(s + 1) - group_begin(s) < 2) continue;
            // Groups whose target spans do not overlap share no target (the usual case: one
            // group per target population, as the hpc_benchmark's E->E and E->I). A
            // streamed min/max, where the stamps would write at random.
            spans.clear();
            for (auto g = group_begin(s); g < group_begin(s + 1); ++g) {
                const auto begin = groups_[g].begin, end = group_end_connection(g);
                if (begin == end) continue;
                local_index lowest = ~local_index{0}, highest = 0;
                for_target_pieces(begin, end, [&](const auto* targets, local_index base, auto first, auto last) {
                    for (auto c = first; c < last; ++c) {
                        lowest = std::min<local_index>(lowest, base + targets[c]);
                        highest = std::max<local_index>(highest, base + targets[c]);
                    }
                });
                spans.emplace_back(lowest, highest);
            }
            std::sort(spans.begin(), spans.end());
            bool overlap = false;
            for (std::size_t k = 1; k < spans.size(); ++k) overlap = overlap || spans[k].first <= spans[k - 1].second;
            if (!overlap) continue;
            target_reader target(*this);
            for (auto g = group_begin(s); g < group_begin(s + 1); ++g) {
                for (auto c = groups_[g].begin; c < group_end_connection(g); ++c) {
                    const local_index target_cell = target(c);
                    if (stamp[target_cell] != s) {
                        stamp[target_cell] = s, first_group[target_cell] = g, several_groups[target_cell] = 0;
                    } else if (first_group[target_cell] != g) {
                        several_groups[target_cell] = 1;
                    }
                }
            }
            const std::uint32_t first = first_connection(s), last = first_connection(s + 1);
            target_reader again(*this);
            for (auto c = first; c < last; ++c) {
                if (!several_groups[again(c)]) continue;
                mine.emplace_back(c, 0);
                source_run_shares_[s] = 1;
            }
        }
    });
    for (auto& mine: found) shared_index_.insert(shared_index_.end(), mine.begin(), mine.end());
    if (shared_index_.empty()) free_vector(source_run_shares_);
    shared_index_.shrink_to_fit();
}

void connection_table::build_creation_order(const connection_producer& produce) {
    // One pass over all targets, in creation order (the engine filters by thread).
    min_delay_ = std::numeric_limits<std::uint32_t>::max();
    max_delay_ = 0;
    const connection_visitor append = [&](const built_connection& c) {
        if (c.synapse != 0) {
            throw user_error("connections.sort_by_source = false: plastic synapses need the sorted "
                             "connection layout (sort_by_source = true)");
        }
        if (c.receptor != 0) {
            throw user_error("connections.sort_by_source = false: receptor ports need the sorted "
                             "connection layout (sort_by_source = true)");
        }
        target_.push_back(c.target);
        weight_.push_back(c.weight);
        connection_source_.push_back(c.source);
        connection_delay_.push_back(c.delay);
        min_delay_ = std::min(min_delay_, c.delay);
        max_delay_ = std::max(max_delay_, c.delay);
    };
    produce(append, target_range{}, true);
    size_ = target_.size();
    if (target_.empty()) min_delay_ = 0;
}

const local_index* connection_table::targets_of(std::uint32_t begin, std::uint32_t end,
                                                std::vector<local_index>& scratch) const {
    if (width_ == 4) return target_.data() + begin;
    scratch.resize(end - begin);
    local_index* out = scratch.data() - begin;
    for_target_pieces(begin, end, [&](const auto* targets, local_index base, std::uint32_t first, std::uint32_t last) {
        for (auto c = first; c < last; ++c) out[c] = base + targets[c];
    });
    return scratch.data();
}

namespace {

// The pages of targets [begin, end) (2- or 4-byte): new_page(position, base) wherever a
// target's base differs from the one before (`base`, updated). Runs of equal bases, the
// usual case, are skipped four 2-byte targets at a time (little-endian: a target's high
// byte is its second).
template <class Target, class NewPage>
void find_pages(const Target* targets, std::size_t begin, std::size_t end, local_index& base, NewPage&& new_page) {
    const auto base_of = [](local_index t) { return t >> target_page_bits << target_page_bits; };
    std::size_t c = begin;
    if (c < end && base_of(targets[c]) != base) {
        base = base_of(targets[c]);
        new_page(c, base);
    }
    for (++c; c < end; ++c) {
        if constexpr (sizeof(Target) == 2) {
            std::uint64_t here, before; // targets c..c+3 and c-1..c+2: equal high bytes?
            for (; c + 4 <= end; c += 4) {
                std::memcpy(&here, targets + c, 8);
                std::memcpy(&before, targets + c - 1, 8);
                if ((here ^ before) & 0xff00ff00ff00ff00u) break;
            }
            if (c >= end) break;
        }
        const local_index here = base_of(targets[c]);
        if (here != base) {
            base = here;
            new_page(c, base);
        }
    }
    if (begin < end) base = base_of(targets[end - 1]);
}

} // namespace

std::uint32_t connection_table::plastic_share_first_group(unsigned t, unsigned threads) const {
    const auto groups = static_cast<std::uint32_t>(group_count());
    if (t == 0 || t >= threads) return t == 0 ? 0 : groups;
    const auto plastic_size = [&](std::uint32_t g) -> std::uint64_t {
        return groups_[g].synapse != 0 ? group_end_connection(g) - groups_[g].begin : 0;
    };
    std::uint64_t total = 0;
    for (std::uint32_t g = 0; g < groups; ++g) total += plastic_size(g);
    const std::uint64_t at = total * t / threads; // the first group beginning at or after
    std::uint64_t before = 0;
    for (std::uint32_t g = 0; g < groups; before += plastic_size(g), ++g)
        if (before >= at) return g;
    return groups;
}

void connection_table::pack_targets() {
    // Two passes of the threads over equal shares of the positions, a piece at a time.
    // The first counts the pages, and stops as soon as there are more than pay: at most
    // one per 64 connections (8 bytes each, so at most an eighth of what 1-byte targets
    // save; and the delivery goes a page at a time, so shorter pages cost more in calls:
    // Hines et al.'s benchmark, 31 connections per page, simulated 7-13 % slower). A
    // sparse table keeps its 2 or 4 bytes.
    // The second writes the low bytes into the new array and the pages where its share's
    // pages begin, giving the old array's memory back as it goes (the table never holds both
    // arrays in full: for a static network they are the table, so that would be its peak).
    if (width_ == 1 || size_ == 0) return;
    const unsigned T = threads_;
    const std::size_t n = size_;
    const auto share_begin = [&](unsigned t) { return n * t / T; };
    const std::size_t pages_that_pay = n / min_connections_per_page;
    constexpr std::size_t piece = std::size_t{1} << 20;
    const auto to_bytes = [&](const auto* targets) {
        // The base before each share, read before any memory is given back.
        std::vector<local_index> base_before(T, ~local_index{0});
        for (unsigned t = 1; t < T; ++t) {
            if (share_begin(t) > 0)
                base_before[t] = targets[share_begin(t) - 1] >> target_page_bits << target_page_bits;
        }
        std::vector<std::size_t> pages_before(T + 1, 0);
        std::atomic<std::size_t> counted{0};
        for_each_thread(T, [&](unsigned t) {
            local_index base = base_before[t];
            for (std::size_t from = share_begin(t), end = share_begin(t + 1); from < end; from += piece) {
                std::size_t pages = 0;
                find_pages(targets, from, std::min(end, from + piece), base,
                           [&](std::size_t, local_index) { ++pages; });
                pages_before[t + 1] += pages;
                if (counted.fetch_add(pages) + pages > pages_that_pay) return;
            }
        });
        if (counted.load() > pages_that_pay) return false;
        for (unsigned t = 0; t < T; ++t) pages_before[t + 1] += pages_before[t];
        page_.resize(pages_before[T]);
        byte_target_.resize(n);
        for_each_thread(T, [&](unsigned t) {
            local_index base = base_before[t];
            std::size_t k = pages_before[t];
            for (std::size_t from = share_begin(t), end = share_begin(t + 1); from < end; from += piece) {
                const std::size_t to = std::min(end, from + piece);
                // Through plain pointers: a byte store may alias anything, vector members too.
                std::uint8_t* __restrict bytes = byte_target_.data();
                const auto* __restrict wide = targets;
                for (std::size_t c = from; c < to; ++c) bytes[c] = static_cast<std::uint8_t>(wide[c]);
                find_pages(targets, from, to, base, [&](std::size_t c, local_index page_base) {
                    page_[k++] = {static_cast<std::uint32_t>(c), page_base};
                });
                release_pages(targets + from, targets + to);
            }
        });
        return true;
    };
    if (!(width_ == 2 ? to_bytes(narrow_target_.data()) : to_bytes(target_.data()))) return;
    free_vector(target_);
    free_vector(narrow_target_);
    width_ = 1;
}

void connection_table::release_sources() {
    // The creation-order layout needs every connection's source to order a step's inputs,
    // so only the sorted layout can let its source table go.
    if (!sorted_) return;
    free_vector(source_run_gid_);
    sources_released_ = true;
}

std::size_t connection_table::connection_bytes() const {
    return capacity_bytes(target_) + capacity_bytes(narrow_target_) + capacity_bytes(byte_target_) +
           capacity_bytes(page_) + capacity_bytes(weight_) + capacity_bytes(group_weight_) +
           capacity_bytes(weight_first_) + capacity_bytes(source_run_groups_) + capacity_bytes(groups_) +
           capacity_bytes(thread_begin_) + capacity_bytes(source_run_shares_) +
           shared_index_.capacity() * sizeof(shared_index_[0]) + capacity_bytes(connection_delay_);
}

std::size_t connection_table::source_bytes() const {
    return capacity_bytes(source_run_gid_) + capacity_bytes(connection_source_);
}

} // namespace spikex
