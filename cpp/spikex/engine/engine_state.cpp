// Checkpoint state of the engine: what export_state writes and import_state reads back on
// any layout (docs/user/checkpoint.md; the plan and its arguments: docs/dev/checkpoint_plan.md).
//
// At a checkpoint (between run_until calls) every spike emitted before step s has been
// exchanged and sits in the delivery rings, and the cells' input sums are zero. The state
// is then: each cell's values (by gid), the spikes whose deliveries are still to come
// (gid, emission step) — re-inserted through this layout's connection table, where the
// bucket sort at delivery restores canonical order whatever the insertion order — the
// plastic weights (per target gid, in the canonical order of their keys), the presynaptic
// traces and short-term states (per source, delay and synapse type: every rank holding one
// has the same bits), the postsynaptic histories (per gid), recorded spikes and samples, and two counters.
#include <algorithm>
#include <limits>
#include <numeric>
#include <unordered_map>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"
#include "spikex/engine/engine.hpp"
#include "spikex/models/model_registry.hpp"

namespace spikex {
namespace {

std::uint64_t mix(std::uint64_t x) { // splitmix64's finaliser
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// This rank's plastic connections by target (local index), each target's inputs in
// (source, delay, synapse, position) order: the same order on every layout, since a
// target's connections of one (source, delay, synapse) keep their creation order in the
// table. The table's groups ascend by (source gid, delay, synapse) and positions by
// creation, so one counting pass by target gives that order (no sort).
struct plastic_inputs {
    std::vector<std::uint32_t> begin;      // per local cell + 1: its inputs [begin[i], begin[i + 1])
    std::vector<std::uint32_t> connection; // position in the table
    std::vector<std::uint32_t> group;      // delay group: (source, delay, synapse)

    plastic_inputs(const connection_table& table, std::size_t cells): begin(cells + 1, 0) {
        if (!table.sorted() || !table.has_plastic()) return;
        target_reader target(table);
        for (std::uint32_t g = 0; g < table.group_count(); ++g) {
            if (table.group(g).synapse == 0) continue;
            for (auto c = table.group(g).begin; c < table.group_end_connection(g); ++c) ++begin[target(c) + 1];
        }
        for (std::size_t i = 0; i < cells; ++i) begin[i + 1] += begin[i];
        connection.resize(begin[cells]);
        group.resize(begin[cells]);
        std::vector<std::uint32_t> next(begin.begin(), begin.end() - 1);
        for (std::uint32_t g = 0; g < table.group_count(); ++g) {
            if (table.group(g).synapse == 0) continue;
            for (auto c = table.group(g).begin; c < table.group_end_connection(g); ++c) {
                const std::uint32_t slot = next[target(c)]++;
                connection[slot] = c;
                group[slot] = g;
            }
        }
    }
    std::uint32_t count(local_index i) const { return begin[i + 1] - begin[i]; }

    // Digest of the keys of cell i's inputs, in order.
    std::uint64_t key_digest(const connection_table& table, local_index i) const {
        std::uint64_t h = 0;
        for (auto k = begin[i]; k < begin[i + 1]; ++k) {
            const delay_group& g = table.group(group[k]);
            h = mix(h ^ (std::uint64_t(table.sources()[g.source_run]) << 32 | g.delay));
            h = mix(h ^ g.synapse);
        }
        return h;
    }
};

std::uint64_t pre_key(gid_type source, std::uint32_t delay, std::uint16_t synapse) {
    return mix(std::uint64_t(source) << 32 | delay) ^ synapse;
}

std::string model_of(const network_spec& spec, gid_type gid) {
    return spec.populations.empty() ? model_without_populations : spec.population_of(gid).model;
}

const std::vector<std::int64_t>& column(const engine_state& rows, const std::string& name) {
    static const std::vector<std::int64_t> none;
    auto it = rows.ints.find(name);
    return it == rows.ints.end() ? none : it->second;
}
const std::vector<double>& real_column(const engine_state& rows, const std::string& name) {
    static const std::vector<double> none;
    auto it = rows.reals.find(name);
    return it == rows.reals.end() ? none : it->second;
}

} // namespace

engine_state engine::export_state() const {
    if (!initialized_ || step_ != exchanged_until_) {
        throw internal_error("export_state: only between two runs (every spike emitted so far exchanged)");
    }
    if (plastic_.active() && table_.sources_released()) {
        throw user_error("checkpoint: connections.keep_sources = false freed the source table that identifies the "
                         "plastic synapses; set it to true to checkpoint this network");
    }
    engine_state out;
    out.ints["step"] = {step_};
    out.ints["max_delay_steps"] = {max_delay_global_};
    out.ints["steps_per_interval"] = {steps_per_interval_};
    // Counters go on where they were: the sums over ranks (rank 0 carries earlier segments).
    out.ints["events_delivered"] = {std::int64_t(events_delivered_ + restored_events_delivered_)};
    out.ints["spikes_emitted"] = {std::int64_t(spikes_emitted_ + restored_spikes_emitted_)};

    // Cells, per model: gid and the model's checkpoint values (row-major).
    for (local_index i = 0; i < local_gids_.size(); ++i) {
        const gid_type gid = local_gids_[i];
        const model_entry& model = find_model(model_of(spec_, gid));
        if (model.checkpoint_state.empty()) continue;
        unsigned t = 0;
        while (i >= parts_[t].end) ++t;
        auto& values = out.reals["cells/" + model.name + "/values"];
        const std::size_t at = values.size();
        values.resize(at + model.checkpoint_state.size());
        parts_[t].cells->save_cell(i, values.data() + at);
        out.ints["cells/" + model.name + "/gid"].push_back(gid);
    }

    // Spikes still in flight: emitted at s - D or later.
    auto& flight_gid = out.ints["inflight/gid"];
    auto& flight_step = out.ints["inflight/step"];
    for (std::size_t k = recent_first_; k < recent_.size(); ++k) {
        if (recent_[k].step < step_ - max_delay_global_) continue;
        flight_gid.push_back(recent_[k].gid);
        flight_step.push_back(recent_[k].step);
    }

    auto& recorded_gid = out.ints["recorded/gid"];
    auto& recorded_step = out.ints["recorded/step"];
    for (const auto& s: recorded_) {
        recorded_gid.push_back(s.gid);
        recorded_step.push_back(s.step);
    }
    for (std::size_t k = 0; k < state_samples_.size(); ++k) {
        const auto& samples = state_samples_[k];
        const std::string prefix = spikex::format("state/{}/", k);
        out.ints[prefix + "gid"].assign(samples.gids.begin(), samples.gids.end());
        out.ints[prefix + "step"].assign(samples.steps.begin(), samples.steps.end());
        out.reals[prefix + "values"] = samples.values;
    }

    if (plastic_.active()) {
        // Every table's columns exist, empty or not (a reader takes them as a whole).
        for (const char* name: {"plastic/pre/source", "plastic/pre/delay", "plastic/pre/synapse",
                                "plastic/pre/last_stamp", "plastic/post/gid", "plastic/post/last",
                                "plastic/post/entries", "plastic/post/entry_stamp", "plastic/post/entry_reads"}) {
            out.ints[name];
        }
        for (const char* name: {"plastic/pre/k_plus", "plastic/pre/x", "plastic/pre/y", "plastic/pre/u",
                                "plastic/post/k_minus", "plastic/post/entry_k_minus"}) {
            out.reals[name];
        }
        // Weights: per target its inputs' weights in key order, with a digest of the keys.
        const plastic_inputs inputs(table_, local_gids_.size());
        auto& targets = out.ints["plastic/weight/target"];
        auto& counts = out.ints["plastic/weight/count"];
        auto& digests = out.ints["plastic/weight/key_digest"];
        auto& weights = out.reals["plastic/weight/value"];
        weights.reserve(inputs.connection.size());
        // With quantal_stp_synapse types, each plastic input's available sites alongside its weight (-1: another type).
        std::vector<std::int64_t>* sites = plastic_.has_quantal() ? &out.ints["plastic/weight/sites"] : nullptr;
        for (local_index i = 0; i < local_gids_.size(); ++i) {
            if (inputs.count(i) == 0) continue;
            targets.push_back(local_gids_[i]);
            counts.push_back(inputs.count(i));
            digests.push_back(std::int64_t(inputs.key_digest(table_, i)));
            for (auto k = inputs.begin[i]; k < inputs.begin[i + 1]; ++k) {
                weights.push_back(table_.weight_of(inputs.group[k], inputs.connection[k]));
                if (!sites) continue;
                const bool quantal = plastic_.quantal(table_.group(inputs.group[k]));
                sites->push_back(
                    quantal ? std::int64_t(plastic_.available_sites(inputs.group[k], inputs.connection[k], table_))
                            : -1);
            }
        }
        for (std::uint32_t g = 0; g < table_.group_count(); ++g) {
            const delay_group& group = table_.group(g);
            if (group.synapse == 0) continue;
            // An STDP group's trace (x, y, u = 0) or a short-term or quantal group's state (k_plus = 0).
            const bool short_term = plastic_.group_state(group);
            const stdp_pre_state pre = short_term ? stdp_pre_state{} : plastic_.pre_state(g);
            const short_term_state st = short_term ? plastic_.short_term_state_of(g) : short_term_state{};
            out.ints["plastic/pre/source"].push_back(table_.sources()[group.source_run]);
            out.ints["plastic/pre/delay"].push_back(group.delay);
            out.ints["plastic/pre/synapse"].push_back(group.synapse);
            out.ints["plastic/pre/last_stamp"].push_back(short_term ? st.last_stamp : pre.last_stamp);
            out.reals["plastic/pre/k_plus"].push_back(pre.k_plus);
            out.reals["plastic/pre/x"].push_back(st.x);
            out.reals["plastic/pre/y"].push_back(st.y);
            out.reals["plastic/pre/u"].push_back(st.u);
        }
        for (local_index i = 0; i < local_gids_.size(); ++i) {
            if (!plastic_.has_history(i)) continue;
            const post_history& h = plastic_.history(i);
            out.ints["plastic/post/gid"].push_back(local_gids_[i]);
            out.ints["plastic/post/last"].push_back(h.last());
            out.reals["plastic/post/k_minus"].push_back(h.k_minus());
            out.ints["plastic/post/entries"].push_back(std::int64_t(h.size()));
            h.for_each_live([&](step_type stamp, double k_minus, std::uint32_t reads) {
                out.ints["plastic/post/entry_stamp"].push_back(stamp);
                out.reals["plastic/post/entry_k_minus"].push_back(k_minus);
                out.ints["plastic/post/entry_reads"].push_back(reads);
            });
        }
    }
    return out;
}

local_index engine::import_local(std::int64_t gid, const char* what) const {
    if (gid < 0 || gid >= std::int64_t(cells_total()) || !owns(static_cast<gid_type>(gid))) {
        throw user_error(spikex::format("checkpoint: {} of gid {}, which is not on rank {}", what, gid, comm_.rank()));
    }
    return cells_->local_of(static_cast<gid_type>(gid));
}

void engine::import_state(const engine_state& rows) {
    const auto& step = column(rows, "step");
    import_begin(step.size() == 1 ? step[0] : -1);
    for (const auto& model: model_registry()) {
        const auto& gids = column(rows, "cells/" + model.name + "/gid");
        if (!gids.empty()) import_cells(model.name, gids, real_column(rows, "cells/" + model.name + "/values"));
    }
    const auto& targets = column(rows, "plastic/weight/target");
    if (!targets.empty() || plastic_.active()) {
        import_weights(targets, column(rows, "plastic/weight/count"), column(rows, "plastic/weight/key_digest"),
                       real_column(rows, "plastic/weight/value"), column(rows, "plastic/weight/sites"));
    }
    import_finish(rows);
}

void engine::import_begin(step_type step) {
    if (!built_ || initialized_) throw internal_error("import_state: only after build() and before init()");
    import_ = std::make_unique<import_progress>();
    import_->step = step;
    if (step < 0) import_->error = "checkpoint: no valid step";
    import_->cell_done.assign(local_gids_.size(), 0);
}

void engine::import_cells(const std::string& model_name, std::span<const std::int64_t> gids,
                          std::span<const double> values) {
    if (!import_) throw internal_error("import_cells: import_begin first");
    if (!import_->error.empty()) return;
    try {
        const auto& models = model_registry();
        auto model = std::find_if(models.begin(), models.end(), [&](const auto& m) { return m.name == model_name; });
        if (model == models.end()) {
            throw user_error(
                spikex::format("checkpoint: cells of model {}, which this spikex does not have", model_name));
        }
        const std::size_t width = model->checkpoint_state.size();
        if (width == 0 || values.size() != gids.size() * width) {
            throw user_error(spikex::format("checkpoint: cells of model {} have {} values for {} cells", model_name,
                                            values.size(), gids.size()));
        }
        for (std::size_t r = 0; r < gids.size(); ++r) {
            const local_index i = import_local(gids[r], "a cell state");
            if (model_of(spec_, local_gids_[i]) != model->name) {
                throw user_error(spikex::format("checkpoint: gid {} is a {} there but a {} in this network", gids[r],
                                                model->name, model_of(spec_, local_gids_[i])));
            }
            if (import_->cell_done[i]++) throw user_error(spikex::format("checkpoint: gid {} appears twice", gids[r]));
            unsigned t = 0;
            while (i >= parts_[t].end) ++t;
            parts_[t].cells->load_cell(i, values.data() + r * width);
            ++import_->cells_seen;
        }
    } catch (const user_error& e) {
        import_->error = e.what();
    }
}

// One piece of plastic weights. Without an index of the table by target (8 B per plastic
// synapse, as much as the weights themselves), each piece visits the plastic connections
// once in table order: a target's inputs come by (source, delay, synapse), then creation
// order, which is the checkpoint's key order, so each takes the next weight of its
// target's row and the key digest is made on the way. A piece of W weights costs one pass
// over the rank's plastic synapses and 4 B per local cell.
void engine::import_weights(std::span<const std::int64_t> targets, std::span<const std::int64_t> counts,
                            std::span<const std::int64_t> digests, std::span<const double> values,
                            std::span<const std::int64_t> sites) {
    if (!import_) throw internal_error("import_weights: import_begin first");
    auto& progress = *import_;
    if (!progress.error.empty()) return;
    try {
        if (!plastic_.active()) {
            if (!targets.empty()) {
                throw user_error("checkpoint: it has plastic synapses ending on this rank's cells, this network none");
            }
            return;
        }
        const std::size_t cells = local_gids_.size();
        if (progress.plastic_begin.empty()) { // per local cell, its plastic inputs (one counting pass)
            progress.plastic_begin.assign(cells + 1, 0);
            target_reader target(table_);
            for (std::uint32_t g = 0; g < table_.group_count(); ++g) {
                if (table_.group(g).synapse == 0) continue;
                for (auto c = table_.group(g).begin; c < table_.group_end_connection(g); ++c) {
                    ++progress.plastic_begin[target(c) + 1];
                }
            }
            for (std::size_t i = 0; i < cells; ++i) progress.plastic_begin[i + 1] += progress.plastic_begin[i];
            progress.weights_done.assign(cells, 0);
            progress.slot.assign(cells, -1);
        }
        if (targets.empty()) return;
        if (counts.size() != targets.size() || digests.size() != targets.size()) {
            throw user_error("checkpoint: the plastic weight table's columns differ in length");
        }
        if (targets.size() > std::size_t(std::numeric_limits<std::int32_t>::max())) {
            throw internal_error("import_weights: too many targets in one piece");
        }
        const bool quantal = plastic_.has_quantal();
        if (quantal && sites.size() != values.size()) {
            throw user_error(
                spikex::format("checkpoint: {} available-site counts (plastic/weight/sites) for {} plastic "
                               "weights: the quantal_stp_synapse state is missing",
                               sites.size(), values.size()));
        }
        // Each row's first weight in `values`, and its target's local index.
        std::vector<std::size_t> first(targets.size());
        std::size_t total = 0;
        for (std::size_t r = 0; r < targets.size(); ++r) {
            const local_index i = import_local(targets[r], "plastic weights");
            const std::uint32_t here = progress.plastic_begin[i + 1] - progress.plastic_begin[i];
            if (progress.weights_done[i] || progress.slot[i] >= 0 || here == 0 || counts[r] != std::int64_t(here)) {
                throw user_error(
                    spikex::format("checkpoint: the plastic inputs of gid {} differ from this network's", targets[r]));
            }
            progress.slot[i] = static_cast<std::int32_t>(r);
            first[r] = total;
            total += here;
        }
        if (total > values.size()) throw user_error("checkpoint: plastic weights are cut short");
        std::vector<std::uint32_t> taken(targets.size(), 0);
        std::vector<std::uint64_t> digest(targets.size(), 0);
        std::string sites_error;
        target_reader target(table_);
        for (std::uint32_t g = 0; g < table_.group_count(); ++g) {
            const delay_group& group = table_.group(g);
            if (group.synapse == 0) continue;
            const std::uint64_t key = std::uint64_t(table_.sources()[group.source_run]) << 32 | group.delay;
            const bool quantal_group = quantal && plastic_.quantal(group);
            double* group_weights = table_.mutable_weights_of_group(g); // connection c's: [c - group.begin]
            for (auto c = group.begin; c < table_.group_end_connection(g); ++c) {
                const std::int32_t r = progress.slot[target(c)];
                if (r < 0) continue;
                const std::size_t k = first[r] + taken[r]++;
                group_weights[c - group.begin] = values[k];
                digest[r] = mix(mix(digest[r] ^ key) ^ group.synapse);
                if (!quantal_group) continue;
                const std::int64_t available = sites[k];
                if (available < 0 || available > std::int64_t(plastic_.sites(group.synapse))) {
                    if (sites_error.empty()) {
                        sites_error = spikex::format("checkpoint: available sites = {} of a quantal_stp_synapse input "
                                                     "of gid {}: must be in [0, n]",
                                                     available, targets[r]);
                    }
                    continue;
                }
                plastic_.set_available_sites(g, c, table_, static_cast<std::uint32_t>(available));
            }
        }
        for (std::size_t r = 0; r < targets.size(); ++r) { // every slot back to -1 before any throw
            const local_index i = cells_->local_of(static_cast<gid_type>(targets[r]));
            progress.slot[i] = -1;
            progress.weights_done[i] = 1;
        }
        if (!sites_error.empty()) throw user_error(sites_error);
        for (std::size_t r = 0; r < targets.size(); ++r) {
            if (std::int64_t(digest[r]) != digests[r]) {
                throw user_error(
                    spikex::format("checkpoint: the plastic inputs of gid {} differ from this network's", targets[r]));
            }
        }
        progress.targets_seen += targets.size();
    } catch (const user_error& e) {
        progress.error = e.what();
    }
}

void engine::import_finish(const engine_state& rows, const std::string& read_error) {
    if (!import_) throw internal_error("import_finish: import_begin first");
    std::unique_ptr<import_progress> progress = std::move(import_);
    // A mismatch found on one rank must stop every rank with its message (as build does).
    std::string error = !read_error.empty() ? read_error : progress->error;
    if (error.empty()) {
        try {
            const step_type s = progress->step;
            // Cells: every local cell of a model with state exactly once.
            std::size_t expected = 0;
            for (local_index i = 0; i < local_gids_.size(); ++i) {
                expected += !find_model(model_of(spec_, local_gids_[i])).checkpoint_state.empty();
            }
            if (progress->cells_seen != expected) {
                throw user_error(spikex::format("checkpoint: {} of this rank's {} cells have a state",
                                                progress->cells_seen, expected));
            }
            for (auto& part: parts_) part.cells->after_load();

            const auto& recorded_gid = column(rows, "recorded/gid");
            const auto& recorded_step = column(rows, "recorded/step");
            for (std::size_t r = 0; r < recorded_gid.size(); ++r) {
                import_local(recorded_gid[r], "a recorded spike");
                recorded_.push_back({static_cast<gid_type>(recorded_gid[r]), recorded_step.at(r)});
            }

            // State samples: the saved columns in this rank's order of recorded cells.
            for (std::size_t k = 0; k < state_samples_.size(); ++k) {
                const std::string prefix = spikex::format("state/{}/", k);
                const auto& gids = column(rows, prefix + "gid");
                const auto& steps = column(rows, prefix + "step");
                const auto& values = real_column(rows, prefix + "values");
                auto& samples = state_samples_[k];
                if (gids.size() != samples.gids.size() || values.size() != gids.size() * steps.size()) {
                    throw user_error(spikex::format("checkpoint: state recording {} has {} cells here, {} in the "
                                                    "checkpoint",
                                                    k, samples.gids.size(), gids.size()));
                }
                std::unordered_map<std::int64_t, std::size_t> column_of;
                for (std::size_t c = 0; c < gids.size(); ++c) column_of[gids[c]] = c;
                samples.steps.assign(steps.begin(), steps.end());
                samples.values.resize(values.size());
                const std::size_t width = gids.size();
                for (std::size_t c = 0; c < width; ++c) {
                    auto it = column_of.find(samples.gids[c]);
                    if (it == column_of.end()) {
                        throw user_error(spikex::format("checkpoint: state recording {} has no samples of gid {}", k,
                                                        samples.gids[c]));
                    }
                    for (std::size_t r = 0; r < steps.size(); ++r) {
                        samples.values[r * width + c] = values[r * width + it->second];
                    }
                }
            }

            if (plastic_.active()) {
                if (progress->plastic_begin.empty()) { // no weights came: count this rank's plastic inputs
                    import_ = std::move(progress);
                    import_weights({}, {}, {}, {}, {});
                    progress = std::move(import_);
                }
                std::size_t with_inputs = 0;
                const auto& begin = progress->plastic_begin;
                for (std::size_t i = 0; i + 1 < begin.size(); ++i) with_inputs += begin[i + 1] > begin[i];
                if (progress->targets_seen != with_inputs) {
                    throw user_error(
                        spikex::format("checkpoint: {} cells of this rank have plastic inputs there, {} here",
                                       progress->targets_seen, with_inputs));
                }
                progress.reset(); // its per-cell vectors are not needed any more
                import_plastic_state(rows);
            }

            const auto& flight_gid = column(rows, "inflight/gid");
            const auto& flight_step = column(rows, "inflight/step");
            resume_in_flight_.clear();
            for (std::size_t r = 0; r < flight_gid.size(); ++r) {
                resume_in_flight_.push_back({static_cast<gid_type>(flight_gid[r]), flight_step.at(r)});
            }
            resume_step_ = s;
            if (comm_.rank() == 0) {
                restored_events_delivered_ = static_cast<std::uint64_t>(column(rows, "events_delivered").at(0));
                restored_spikes_emitted_ = static_cast<std::uint64_t>(column(rows, "spikes_emitted").at(0));
            }
        } catch (const user_error& e) {
            error = e.what();
        } catch (const std::out_of_range&) {
            error = "checkpoint: a column is missing or too short";
        }
    }
    agree_on_error(error);
}

// Presynaptic traces and short-term states, and postsynaptic histories (the weights came
// in pieces before).
void engine::import_plastic_state(const engine_state& rows) {
    // Presynaptic traces: every local plastic group takes its (source, delay, synapse) row.
    const auto& pre_source = column(rows, "plastic/pre/source");
    const auto& pre_delay = column(rows, "plastic/pre/delay");
    const auto& pre_synapse = column(rows, "plastic/pre/synapse");
    const auto& pre_stamp = column(rows, "plastic/pre/last_stamp");
    const auto& pre_k = real_column(rows, "plastic/pre/k_plus");
    const auto& pre_x = real_column(rows, "plastic/pre/x");
    const auto& pre_y = real_column(rows, "plastic/pre/y");
    const auto& pre_u = real_column(rows, "plastic/pre/u");
    std::unordered_multimap<std::uint64_t, std::size_t> pre_rows;
    for (std::size_t r = 0; r < pre_source.size(); ++r) {
        pre_rows.emplace(pre_key(static_cast<gid_type>(pre_source[r]), static_cast<std::uint32_t>(pre_delay.at(r)),
                                 static_cast<std::uint16_t>(pre_synapse.at(r))),
                         r);
    }
    for (std::uint32_t g = 0; g < table_.group_count(); ++g) {
        const delay_group& group = table_.group(g);
        if (group.synapse == 0) continue;
        const gid_type source = table_.sources()[group.source_run];
        bool found = false;
        auto [first, last] = pre_rows.equal_range(pre_key(source, group.delay, group.synapse));
        for (auto it = first; it != last && !found; ++it) {
            const std::size_t r = it->second;
            if (pre_source[r] != source || pre_delay[r] != group.delay || pre_synapse[r] != group.synapse) continue;
            if (!plastic_.group_state(group)) {
                plastic_.set_pre_state(g, {pre_k.at(r), pre_stamp.at(r)});
            } else if (r < pre_x.size() && r < pre_y.size() && r < pre_u.size()) {
                plastic_.set_short_term_state(g, {pre_x[r], pre_y[r], pre_u[r], pre_stamp.at(r), 0.0});
            } else {
                throw user_error(spikex::format("checkpoint: no short-term state (plastic/pre/x, y, u) of source gid "
                                                "{} (delay {} steps): written by a spikex without short-term synapses",
                                                source, group.delay));
            }
            found = true;
        }
        if (!found) {
            throw user_error(spikex::format("checkpoint: no presynaptic trace of source gid {} (delay {} steps)",
                                            source, group.delay));
        }
    }

    // Postsynaptic histories.
    const auto& post_gid = column(rows, "plastic/post/gid");
    const auto& post_last = column(rows, "plastic/post/last");
    const auto& post_k = real_column(rows, "plastic/post/k_minus");
    const auto& post_entries = column(rows, "plastic/post/entries");
    const auto& entry_stamp = column(rows, "plastic/post/entry_stamp");
    const auto& entry_k = real_column(rows, "plastic/post/entry_k_minus");
    const auto& entry_reads = column(rows, "plastic/post/entry_reads");
    std::size_t entry = 0;
    for (std::size_t r = 0; r < post_gid.size(); ++r) {
        const bool here =
            post_gid[r] >= 0 && post_gid[r] < std::int64_t(cells_total()) && owns(static_cast<gid_type>(post_gid[r]));
        const local_index i = here ? cells_->local_of(static_cast<gid_type>(post_gid[r])) : 0;
        if (!here || !plastic_.has_history(i)) {
            throw user_error(
                spikex::format("checkpoint: a spike history of gid {}, which has no plastic inputs here", post_gid[r]));
        }
        const auto n = static_cast<std::size_t>(post_entries.at(r));
        if (entry + n > entry_stamp.size() || entry + n > entry_k.size() || entry + n > entry_reads.size()) {
            throw user_error("checkpoint: spike histories are cut short");
        }
        std::vector<post_history::entry> entries;
        for (std::size_t k = entry; k < entry + n; ++k) {
            entries.push_back({entry_stamp[k], entry_k[k], static_cast<std::uint32_t>(entry_reads[k])});
        }
        plastic_.set_history(i, post_history(post_k.at(r), post_last.at(r), std::move(entries)));
        entry += n;
    }
}

void engine::restore_in_flight() {
    const step_type s = resume_step_;
    step_ = exchanged_until_ = s;
    exchange_->resume_at(s);
    // The spikes of this rank's cells stay in flight for its next checkpoint.
    for (const auto& sp: resume_in_flight_) {
        if (owns(sp.gid)) recent_.push_back(sp);
    }
    std::sort(recent_.begin(), recent_.end(), [](const spike& a, const spike& b) { return a.step < b.step; });
    if (table_.sorted()) {
        for (const auto& sp: resume_in_flight_) {
            const auto& sources = table_.sources();
            auto it = std::lower_bound(sources.begin(), sources.end(), sp.gid);
            if (it == sources.end() || *it != sp.gid) continue; // no target here
            const auto run = static_cast<std::uint32_t>(it - sources.begin());
            for (auto g = table_.group_begin(run); g < table_.group_begin(run + 1); ++g) {
                const step_type arrival = sp.step + table_.group(g).delay;
                if (arrival >= s) push_delivery(g, arrival, sp.step);
            }
        }
    } else {
        std::unordered_map<gid_type, std::vector<step_type>> emitted;
        for (const auto& sp: resume_in_flight_) emitted[sp.gid].push_back(sp.step);
        for (std::uint32_t c = 0; c < table_.size(); ++c) {
            auto it = emitted.find(table_.source_of(c));
            if (it == emitted.end()) continue;
            for (step_type e: it->second) {
                const step_type arrival = e + table_.delay_of(c);
                if (arrival >= s) push_delivery(c, arrival, e);
            }
        }
    }
    resume_in_flight_ = {};
    resume_step_ = -1;
}

} // namespace spikex
