// Exchange "routed" — Garg & Sabharwal, sections 4.1-4.3 (aggregation and dimension-
// ordered software routing over a logical process grid), applied to spike exchange.
//
// Algorithm: at set-up every rank learns, for each of its cells, the ranks that hold its
//   targets (target_ranks: one Alltoall + one Alltoallv). A spike (gid, step) becomes one
//   item per target rank (exchange/routed_item.hpp: destination rank, gid and step mod 2M
//   bit-packed, 3 bytes up to P * N * 2M = 2^24), put into the route library's bucket of
//   its next-hop router; a bucket travels as one block of the spike wire codec, or as it
//   is (routed_bucket_codec::wanted: by default only items wider than 3 bytes are coded;
//   exchange.compress = true or false decides for every width). poll() feeds spikes in
//   each step and routes what arrives (full buckets leave at once, overlapping the
//   interval's computation). At the interval
//   end synchronize() flushes; routers forward hop by hop (<= d hops) until a termination
//   wave shows every item delivered. Each rank delivers what reaches it: source lookup,
//   deliver_source.
// Cost per interval (S = N r M dt spikes, k target ranks per spike, grid D_0 x ... x
//   D_{d-1}, h = sum_i (1 - 1/D_i) mean hops, c = floor(budget / sum_i D_i) items per
//   bucket, e = bytes of an item in a coded bucket): S k items, e S k h / P bytes sent per
//   rank; per rank at least one message to each partner with traffic (<= sum_i (D_i - 1)
//   partners, not P - 1) and >= S k h / (P c) messages; 1 or more 16-byte non-blocking
//   allreduces (termination waves, "rounds").
// Memory: the route budget (item bytes x budget of buckets, plus their coded messages), the route table (2 P bytes),
//   target ranks (8 bytes per (cell, target rank) pair), the source lookup, pending spikes.
// Ordering: none; the engine sorts each step's deliveries into canonical order. Items of
//   the next interval may be delivered early (while this rank is still synchronizing).
#include <cstdlib>
#include <cstring>

#include "spikex/connections/source_lookup.hpp"
#include "spikex/connections/target_ranks.hpp"
#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/exchange/method_registry.hpp"
#include "spikex/exchange/routed_bucket_codec.hpp"
#include "spikex/exchange/routed_item.hpp"
#include "spikex/instrument/counter_names.hpp"
#include "spikex/instrument/stopwatch.hpp"
#include "spikex/route/router.hpp"

namespace spikex {
namespace {

constexpr int route_tag = 21000;

class routed_exchange;

// The router's item handlers, inlined into its loops (route/router.hpp): the destination
// is the item's tag (routed_item.hpp); delivery hands each item to the exchange.
struct item_destination {
    const routed_item_format* format;
    int operator()(const unsigned char* item) const { return format->destination(item); }
};
struct item_delivery {
    routed_exchange* exchange;
    void operator()(const unsigned char* items, std::size_t count) const;
};
using spike_router = router<item_destination, item_delivery>;

struct routed_options {
    std::string route_dims = "auto";  // "auto" | "hypercube" | "[4, 2]"
    std::int64_t route_budget = 1024; // items buffered per rank
    std::string source_lookup = "dense";
    std::string compress = "auto";                    // "auto" | "true" | "false": routed_bucket_codec::wanted
    double route_message_hops = default_message_hops; // route_dims = auto: a message's cost in hops
};

class routed_exchange final: public spike_exchange, public routed_arrivals {
public:
    explicit routed_exchange(routed_options options): options_(std::move(options)) {}
    std::string name() const override { return "routed"; }

    void setup(const exchange_setup& s) override {
        comm_ = &s.comm;
        cells_ = &s.cells;
        my_rank_ = s.comm.rank();
        // Checked identically on every rank before the first collective.
        grid_ = make_process_grid(s.comm.size(), options_.route_dims, "exchange.route_dims", options_.route_budget, 1,
                                  options_.route_message_hops);
        std::string problem = budget_problem(grid_, options_.route_budget);
        if (!problem.empty()) {
            throw user_error(spikex::format("exchange.route_budget = {}: {}", options_.route_budget, problem));
        }
        budget_ = options_.route_budget;
        measure_wait_ = s.measure_wait;
        targets_ = target_ranks::build(s.comm, s.cells, s.table.sources());
        lookup_ = make_source_lookup(options_.source_lookup, s.table.sources(), s.cells.cells());
        sent_to_.assign(s.comm.size(), 0);
        format_ = routed_item_format(s.comm.size(), s.cells.cells(), s.steps_per_interval);
        router_.reset(); // before the codec it uses
        bucket_codec_.reset();
        if (routed_bucket_codec::wanted(options_.compress, format_, s.cells))
            bucket_codec_ = std::make_unique<routed_bucket_codec>(format_, s.cells, this);
        router_options route{format_.bytes(), budget_, route_tag};
        route.codec = bucket_codec_.get();
        router_ = std::make_unique<spike_router>(s.comm, grid_, route, item_destination{&format_}, item_delivery{this});
    }

    void spike_emitted(gid_type gid, step_type step) override { pending_.push_back({gid, step}); }
    bool works_between_boundaries() const override { return true; } // poll routes every step
    void resume_at(step_type s) override {
        spike_exchange::resume_at(s);
        reference_step_ = s; // the step items are decoded around
    }

    void poll(spike_sink& sink) override {
        sink_ = &sink;
        feed();
        router_->progress();
        sink_ = nullptr;
    }

protected:
    void exchange_interval(step_type step, step_type, spike_sink& sink) override {
        reference_step_ = step;
        sink_ = &sink;
        while (!feed()) router_->progress();
        router_->finish();
        sink_ = nullptr;
    }

public:
    void verify_conservation() override {
        // Items meant for each rank, summed over senders, against what each rank received.
        std::vector<std::int64_t> meant(sent_to_.begin(), sent_to_.end());
        comm_->allreduce_sum(meant.data(), static_cast<int>(meant.size()));
        std::int64_t wrong = std::abs(meant[my_rank_] - static_cast<std::int64_t>(received_)) +
                             static_cast<std::int64_t>(pending_.size());
        std::int64_t worst = comm_->allreduce_max(wrong);
        high_water_ = comm_->allreduce_max(static_cast<std::int64_t>(router_->counters().buffered_high_water));
        if (worst != 0) {
            throw internal_error(
                spikex::format("routed: items meant for rank {} ({}) != items received ({}), or spikes left "
                               "unsent; worst difference over ranks {}",
                               my_rank_, meant[my_rank_], received_, worst));
        }
    }

    std::map<std::string, double> counters() const override {
        if (!router_)
            return {{counter::messages_sent, 0.0}, {counter::bytes_sent, 0.0}, {counter::rounds, 0.0}}; // before set-up
        const auto& c = router_->counters();
        return {{counter::messages_sent, double(c.messages_sent)},
                {counter::bytes_sent, double(c.bytes_sent)},
                {counter::rounds, double(c.waves)},
                {counter::spikes_sent, double(spikes_sent_)},
                {counter::items_sent, double(c.items_injected)},
                {counter::spikes_received, double(received_)},
                {counter::spikes_matched, double(received_)},
                {counter::spikes_local, double(spikes_local_)}, // of spikes_received
                {counter::hops, double(c.items_sent)},
                {counter::forwarded, double(c.items_forwarded)},
                {counter::full_sends, double(c.full_sends)},
                {counter::flush_sends, double(c.flush_sends)},
                {counter::messages_received, double(c.messages_received)},
                // every hop's bucket messages, per item they carry (routed_bucket_codec.hpp)
                {counter::wire_bytes, double(c.bytes_sent)},
                {counter::wire_spikes, double(c.items_sent)}};
    }

    std::map<std::string, double> properties() const override {
        if (!router_) return {};
        std::map<std::string, double> out = {{counter::route_dimensions, double(grid_.dimensions())},
                                             {counter::route_ragged, grid_.ragged() ? 1.0 : 0.0},
                                             {counter::route_budget, double(budget_)},
                                             {counter::route_bucket_capacity, double(router_->bucket_capacity())},
                                             {counter::route_max_hops, double(grid_.max_hops())},
                                             {counter::route_buffer_high_water, double(high_water_)},
                                             {counter::entry_bytes, double(format_.bytes())},
                                             {counter::compressed, bucket_codec_ ? 1.0 : 0.0}};
        for (int i = 0; i < grid_.dimensions(); ++i)
            out[counter::route_dim_prefix + std::to_string(i)] = double(grid_.dim(i));
        return out;
    }

    std::map<std::string, double> memory_bytes() const override {
        if (!router_) return {};
        return {{"exchange_buffers",
                 double(router_->memory_bytes() - router_->table().bytes() + pending_.capacity() * sizeof(spike))},
                {"lookup_tables", double((lookup_ ? lookup_->bytes() : 0) + router_->table().bytes())},
                {"targets", double(targets_.bytes())}};
    }

private:
    // Moves pending spikes into the router, one item per target rank, until a bucket is
    // in flight. Returns whether everything went in.
    bool feed() {
        while (next_spike_ < pending_.size()) {
            const spike& s = pending_[next_spike_];
            auto ranks = targets_.of(cells_->local_of(s.gid));
            for (; next_target_rank_ < ranks.size(); ++next_target_rank_) {
                const int destination = ranks[next_target_rank_];
                unsigned char item[spike_codec::max_single_bytes];
                format_.encode(destination, s.gid, s.step, item);
                if (!router_->try_inject(destination, item)) return false;
                ++sent_to_[ranks[next_target_rank_]];
                spikes_local_ += destination == my_rank_; // delivered at once, as it is fed
            }
            next_target_rank_ = 0;
            ++next_spike_;
            ++spikes_sent_;
        }
        pending_.clear();
        next_spike_ = 0;
        return true;
    }

public:
    std::size_t item_bytes() const { return format_.bytes(); }
    void arrive(const unsigned char* item) { arrive_fields(format_.fields(item)); }
    // A packed pair bucket's items, handed over by the codec without items (routed_arrivals).
    void arrive(const wire_spike* gid_and_offset, std::size_t count) override {
        for (std::size_t k = 0; k < count; ++k) arrive_fields(gid_and_offset[k]);
    }

private:
    void arrive_fields(wire_spike gid_and_offset) {
        const gid_type gid = gid_and_offset.item;
        const step_type step = format_.step_of(gid_and_offset.offset, reference_step_);
        ++received_;
        std::uint32_t run = lookup_->find(gid);
        if (run == no_run || sink_ == nullptr) {
            throw internal_error(
                spikex::format("routed: spike of gid {} reached rank {}{}", gid, my_rank_,
                               run == no_run ? ", which holds none of its targets" : " outside poll/synchronize"));
        }
        sink_->deliver_source(run, step);
    }

    const distribution* cells_ = nullptr;
    routed_options options_;
    int my_rank_ = 0;
    process_grid grid_;
    routed_item_format format_;
    std::unique_ptr<routed_bucket_codec> bucket_codec_; // reads format_; used by router_
    std::int64_t budget_ = 1024;
    target_ranks targets_;
    std::unique_ptr<source_lookup> lookup_;
    std::unique_ptr<spike_router> router_;

    std::vector<spike> pending_;
    std::size_t next_spike_ = 0;       // next pending spike to feed
    std::size_t next_target_rank_ = 0; // next of its target ranks
    spike_sink* sink_ = nullptr;
    step_type reference_step_ = 0;

    std::vector<std::uint64_t> sent_to_; // items injected per destination rank
    std::uint64_t received_ = 0, spikes_sent_ = 0, spikes_local_ = 0;
    std::int64_t high_water_ = 0; // max over ranks, known after verify_conservation
};

void item_delivery::operator()(const unsigned char* items, std::size_t count) const {
    const std::size_t bytes = exchange->item_bytes();
    for (std::size_t k = 0; k < count; ++k) exchange->arrive(items + k * bytes);
}

} // namespace

void count_routed(count_view& view); // dryrun/exchange_counts.cpp

method_entry routed_method() {
    return {
        .name = "routed",
        .description = "aggregation and dimension-ordered software routing over a logical process grid: spikes "
                       "travel in buckets through at most d routers, a counting termination wave per interval (Garg "
                       "& Sabharwal, section 4)",
        .capabilities = {.process_grid = true},
        .options = {{.name = "route_dims",
                     .kind = option_kind::grid,
                     .default_value = std::string("auto"),
                     .doc = "Logical process grid, dimension 0 varying fastest; only the last dimension may be "
                            "incomplete. auto: least modelled cost per spike item (docs/methods/routed.md): direct "
                            "([P]) up to 128 ranks with budget 1024, then balanced, e.g. [16, 16]; hypercube: all 2 "
                            "(power-of-two ranks)."},
                    {.name = "route_budget",
                     .kind = option_kind::integer,
                     .default_value = std::int64_t{1024},
                     .doc = "Spike items a rank may buffer (send buckets + receive buffers); each bucket holds budget "
                            "/ (sum of dims) items (Garg & Sabharwal's 1024 / (X + Y + Z)).",
                     .minimum = 1,
                     .maximum = 2147483647},
                    {.name = "route_message_hops",
                     .kind = option_kind::real,
                     .default_value = default_message_hops,
                     .doc = "For route_dims = auto: what one message costs, in routing hops of one item (the papers' "
                            "machines: 10). Your machine's, from a time-model profile: (send_overhead_s + "
                            "receive_overhead_s) / (route_hop_s + item bytes / bandwidth_bytes_per_s) "
                            "(docs/methods/routed.md). Larger values route earlier.",
                     .minimum = 0.0,
                     .maximum = 1e9},
                    source_lookup_option(),
                    compress_option()},
        .variants = {{{{"route_budget", std::int64_t{8}}}}, {{{"compress", false}}}, {{{"compress", true}}}},
        .make =
            [](const option_reader& o) {
                return std::make_unique<routed_exchange>(routed_options{o.text("route_dims"), o.integer("route_budget"),
                                                                        o.text("source_lookup"), o.text("compress"),
                                                                        o.real("route_message_hops")});
            },
        .count = count_routed,
        .cost_formula = "routed",
        .docs_page = "routed",
    };
}

} // namespace spikex
