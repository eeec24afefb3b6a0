// Cells of several models on one rank (or thread): one group per block of consecutive
// local cells of one model. With round_robin and consecutive distributions local gids
// ascend, so each population is one block of local indices (consecutive populations of
// one model share one); random_shuffle mixes them into more, shorter blocks. A network of
// one model is one block and gets that model's group itself, with no indirection.
#include <algorithm>
#include <utility>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/models/model_registry.hpp"

namespace spikex {
namespace {

struct block {
    local_index begin, end; // rank-local indices
    std::unique_ptr<cell_group> cells;
    bool takes_input = true; // false: a device or spike source (never a connection's target)
};

class composite_group final: public cell_group {
public:
    explicit composite_group(std::vector<block> blocks): blocks_(std::move(blocks)) {
        // One block that takes input (the cells beside their Poisson generators): every
        // target is in it, so synaptic input goes there whole, without looking at targets.
        const auto receivers =
            std::count_if(blocks_.begin(), blocks_.end(), [](const block& b) { return b.takes_input; });
        if (receivers == 1)
            only_receiver_ =
                std::find_if(blocks_.begin(), blocks_.end(), [](const block& b) { return b.takes_input; })->cells.get();
    }

    void begin_step(step_type n, spike_output& out) override {
        for (auto& b: blocks_) b.cells->begin_step(n, out);
    }

    // Connections [begin, end) in canonical order: handed on in runs of one block, order
    // kept (each target's inputs stay in their order; targets of different blocks are
    // independent).
    void deliver(step_type n, const local_index* targets, const double* weights, std::uint32_t begin, std::uint32_t end,
                 spike_output& out) override {
        if (only_receiver_) return only_receiver_->deliver(n, targets, weights, begin, end, out);
        for_each_block_run(targets, begin, end, [&](cell_group& cells, std::uint32_t c, std::uint32_t run_end) {
            cells.deliver(n, targets, weights, c, run_end, out);
        });
    }

    void deliver_port(std::uint32_t port, step_type n, const local_index* targets, const double* weights,
                      std::uint32_t begin, std::uint32_t end, spike_output& out) override {
        if (only_receiver_) return only_receiver_->deliver_port(port, n, targets, weights, begin, end, out);
        for_each_block_run(targets, begin, end, [&](cell_group& cells, std::uint32_t c, std::uint32_t run_end) {
            cells.deliver_port(port, n, targets, weights, c, run_end, out);
        });
    }

    void deliver_uniform(step_type n, const local_index* targets, std::uint32_t count, double weight,
                         spike_output& out) override {
        if (only_receiver_) return only_receiver_->deliver_uniform(n, targets, count, weight, out);
        for_each_block_run(targets, 0, count, [&](cell_group& cells, std::uint32_t c, std::uint32_t run_end) {
            cells.deliver_uniform(n, targets + c, run_end - c, weight, out);
        });
    }

    void deliver_uniform_port(std::uint32_t port, step_type n, const local_index* targets, std::uint32_t count,
                              double weight, spike_output& out) override {
        if (only_receiver_) return only_receiver_->deliver_uniform_port(port, n, targets, count, weight, out);
        for_each_block_run(targets, 0, count, [&](cell_group& cells, std::uint32_t c, std::uint32_t run_end) {
            cells.deliver_uniform_port(port, n, targets + c, run_end - c, weight, out);
        });
    }

    // 2-byte targets handed on as they are (a block's group reads them directly where it can).
    void deliver_narrow(step_type n, const narrow_target* targets, const double* weights, std::uint32_t begin,
                        std::uint32_t end, spike_output& out) override {
        if (only_receiver_) return only_receiver_->deliver_narrow(n, targets, weights, begin, end, out);
        for_each_block_run(targets, begin, end, [&](cell_group& cells, std::uint32_t c, std::uint32_t run_end) {
            cells.deliver_narrow(n, targets, weights, c, run_end, out);
        });
    }

    void deliver_uniform_narrow(step_type n, const narrow_target* targets, std::uint32_t count, double weight,
                                spike_output& out) override {
        if (only_receiver_) return only_receiver_->deliver_uniform_narrow(n, targets, count, weight, out);
        for_each_block_run(targets, 0, count, [&](cell_group& cells, std::uint32_t c, std::uint32_t run_end) {
            cells.deliver_uniform_narrow(n, targets + c, run_end - c, weight, out);
        });
    }

    // Byte targets: handed on where one block receives everything, else widened.
    void deliver_bytes(step_type n, local_index base, const std::uint8_t* targets, const double* weights,
                       std::uint32_t begin, std::uint32_t end, spike_output& out) override {
        if (only_receiver_) return only_receiver_->deliver_bytes(n, base, targets, weights, begin, end, out);
        cell_group::deliver_bytes(n, base, targets, weights, begin, end, out);
    }

    void deliver_uniform_bytes(step_type n, local_index base, const std::uint8_t* targets, std::uint32_t count,
                               double weight, spike_output& out) override {
        if (only_receiver_) return only_receiver_->deliver_uniform_bytes(n, base, targets, count, weight, out);
        cell_group::deliver_uniform_bytes(n, base, targets, count, weight, out);
    }

    void deliver_current(step_type n, local_index cell, double pA) override {
        block_of(cell).cells->deliver_current(n, cell, pA);
    }

    void end_step(step_type n, spike_output& out) override {
        for (auto& b: blocks_) b.cells->end_step(n, out);
    }

    double state(local_index cell, const std::string& variable) const override {
        return block_of(cell).cells->state(cell, variable);
    }

    void set_state(local_index cell, const std::string& variable, double value) override {
        block_of(cell).cells->set_state(cell, variable, value);
    }

    void save_cell(local_index cell, double* values) const override { block_of(cell).cells->save_cell(cell, values); }
    void load_cell(local_index cell, const double* values) override { block_of(cell).cells->load_cell(cell, values); }
    void after_load() override {
        for (auto& b: blocks_) b.cells->after_load();
    }

    std::size_t bytes() const override {
        std::size_t total = blocks_.capacity() * sizeof(block);
        for (const auto& b: blocks_) total += b.cells->bytes();
        return total;
    }

private:
    // Connections [begin, end) in runs whose targets share a block, in order.
    template <typename Target, typename Deliver>
    void for_each_block_run(const Target* targets, std::uint32_t begin, std::uint32_t end, Deliver&& deliver) {
        std::uint32_t c = begin;
        while (c < end) {
            const block& b = block_of(targets[c]);
            std::uint32_t run_end = c + 1;
            while (run_end < end && targets[run_end] >= b.begin && targets[run_end] < b.end) ++run_end;
            deliver(*b.cells, c, run_end);
            c = run_end;
        }
    }

    block& block_of(local_index cell) { return const_cast<block&>(std::as_const(*this).block_of(cell)); }
    const block& block_of(local_index cell) const {
        auto it = std::upper_bound(blocks_.begin(), blocks_.end(), cell,
                                   [](local_index c, const block& b) { return c < b.begin; });
        if (it == blocks_.begin() || cell >= std::prev(it)->end) {
            throw internal_error(spikex::format("cell {} is in no block of this group", cell));
        }
        return *std::prev(it);
    }

    std::vector<block> blocks_;
    cell_group* only_receiver_ = nullptr;
};

} // namespace

std::unique_ptr<cell_group> make_cell_group(const network_spec& spec, const std::vector<gid_type>& local_gids,
                                            local_index first_local) {
    for (const auto& pop: spec.populations) find_model(pop.model); // unknown names fail on every rank
    if (spec.populations.empty()) return find_model(model_without_populations).make(spec, local_gids, first_local);
    // Blocks of consecutive local cells whose populations share a model.
    std::vector<std::pair<std::string, std::pair<std::size_t, std::size_t>>> spans; // model, [begin, end)
    std::size_t i = 0;
    while (i < local_gids.size()) {
        const std::string& model = spec.population_of(local_gids[i]).model;
        std::size_t j = i + 1;
        while (j < local_gids.size() && spec.population_of(local_gids[j]).model == model) ++j;
        spans.push_back({model, {i, j}});
        i = j;
    }
    auto make_block = [&](const std::string& model, std::size_t begin, std::size_t end) {
        std::vector<gid_type> gids(local_gids.begin() + begin, local_gids.begin() + end);
        return find_model(model).make(spec, gids, first_local + static_cast<local_index>(begin));
    };
    if (spans.size() <= 1) {
        const std::string model = spans.empty() ? spec.populations.front().model : spans.front().first;
        return make_block(model, 0, local_gids.size());
    }
    std::vector<block> blocks;
    for (const auto& [model, range]: spans) {
        blocks.push_back({first_local + static_cast<local_index>(range.first),
                          first_local + static_cast<local_index>(range.second),
                          make_block(model, range.first, range.second), find_model(model).kind == model_kind::neuron});
    }
    return std::make_unique<composite_group>(std::move(blocks));
}

} // namespace spikex
