#include "spikex/route/process_grid.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <tuple>

#include "spikex/core/errors.hpp"
#include "spikex/core/format.hpp"

namespace spikex {

process_grid::process_grid(int ranks, std::vector<int> dims): ranks_(ranks), dims_(std::move(dims)) {
    std::string problem = grid_problem(ranks_, dims_);
    if (!problem.empty()) throw user_error(spikex::format("grid {}: {}", dims_text(dims_), problem));
    positions_ = 1;
    for (int d: dims_) positions_ *= d;
}

void process_grid::coords(int rank, int* out) const {
    for (std::size_t i = 0; i < dims_.size(); ++i) {
        out[i] = rank % dims_[i];
        rank /= dims_[i];
    }
}

std::vector<int> process_grid::coords(int rank) const {
    std::vector<int> out(dims_.size());
    coords(rank, out.data());
    return out;
}

int process_grid::rank_at(const int* c) const {
    std::int64_t index = 0;
    for (std::size_t i = dims_.size(); i-- > 0;) index = index * dims_[i] + c[i];
    return index < ranks_ ? static_cast<int>(index) : -1;
}

int process_grid::buckets() const {
    int sum = 0;
    for (int d: dims_) sum += d;
    return sum + (ragged() ? 1 : 0);
}

int process_grid::max_hops() const {
    int d = dimensions();
    return ragged() && d >= 3 ? d + 1 : d;
}

std::string process_grid::text() const { return dims_text(dims_); }

std::string dims_text(const std::vector<int>& dims) {
    std::string out = "[";
    for (std::size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + std::to_string(dims[i]);
    return out + "]";
}

namespace {

// The range of rank counts a shape fits: all planes but the last full, the last non-empty.
void fitting_ranks(const std::vector<int>& dims, std::int64_t& lowest, std::int64_t& highest) {
    std::int64_t plane = 1;
    for (std::size_t i = 0; i + 1 < dims.size(); ++i) plane *= dims[i];
    highest = plane * dims.back();
    lowest = dims.back() == 1 ? plane : plane * (dims.back() - 1) + 1;
}

} // namespace

std::string grid_problem(int ranks, const std::vector<int>& dims) {
    if (ranks < 1) return "needs at least one rank";
    if (dims.empty()) return "needs at least one dimension";
    std::int64_t product = 1;
    for (int d: dims) {
        if (d < 1) return "every dimension must be >= 1";
        product *= d;
        if (product > std::numeric_limits<int>::max()) return "too many grid positions";
    }
    std::int64_t lowest, highest;
    fitting_ranks(dims, lowest, highest);
    if (ranks < lowest || ranks > highest) {
        std::string fits = lowest == highest ? spikex::format("exactly {} ranks", lowest)
                                             : spikex::format("{} to {} ranks", lowest, highest);
        return spikex::format("fits {} (only the last dimension may be incomplete), not {}; \"auto\" gives {}", fits,
                              ranks, dims_text(auto_dims(ranks)));
    }
    return "";
}

std::vector<int> hypercube_dims(int ranks) {
    if (ranks < 1 || (ranks & (ranks - 1)) != 0) return {};
    std::vector<int> dims;
    for (int p = ranks; p > 1; p /= 2) dims.push_back(2);
    if (dims.empty()) dims.push_back(1);
    return dims;
}

namespace {

// Extra cost of a ragged shape, which h ignores: descents (and detours) from the last plane
// and its uneven load. A full shape of nearly the same cost is preferred.
constexpr double ragged_premium = 0.05;

struct shape_score {
    int over_budget;                  // 1: fewer items than buckets (the router refuses it)
    double cost;                      // modelled cost per item, in units of one hop
    int dims, ragged, spread, rising; // tie-breaks: rising = last dim above the one before
    auto key() const { return std::tuple(over_budget, cost, dims, ragged, spread, rising); }
};

// Per item: h hops (h = sum_i (1 - 1/D_i) for a uniform destination), each costing one
// hop plus its share of a message, 1/c, with c = budget / buckets items per message and
// buckets = lanes * sum_i (D_i - 1) send buckets + one receive buffer per channel (router.cpp).
shape_score score(const std::vector<int>& dims, int ranks, std::int64_t budget, int lanes, double message_hops) {
    std::int64_t product = 1;
    int sends = 0;
    double hops = 0;
    for (int d: dims) {
        product *= d;
        sends += d - 1;
        hops += 1.0 - 1.0 / d;
    }
    int ragged = product > ranks ? 1 : 0;
    const double buckets = double(lanes) * sends + double(dims.size()) + ragged; // a ragged grid: one more channel
    double cost = hops * (1.0 + message_hops * buckets / static_cast<double>(budget));
    if (ragged) cost *= 1.0 + ragged_premium;
    cost = std::round(cost * 1e9) / 1e9; // equal costs tie exactly
    auto [low, high] = std::minmax_element(dims.begin(), dims.end());
    int rising = dims.size() > 1 && dims.back() > dims[dims.size() - 2] ? 1 : 0;
    // budget_problem (router.cpp): one item per bucket with one lane (the router drops lanes first)
    const int over_budget = sends + static_cast<std::int64_t>(dims.size()) + ragged > budget ? 1 : 0;
    return {over_budget, cost, static_cast<int>(dims.size()), ragged, *high - *low, rising};
}

// Lower dims non-increasing, each >= 2, product < ranks; the last dim = ceil(ranks /
// product) >= 2 makes the shape fit (ragged when it does not divide).
void search(int ranks, std::int64_t budget, int lanes, double message_hops, std::vector<int>& lower,
            std::int64_t product, std::vector<int>& best, shape_score& best_score) {
    int last = static_cast<int>((ranks + product - 1) / product);
    if (last >= 2 || lower.empty()) {
        lower.push_back(std::max(last, 1));
        shape_score s = score(lower, ranks, budget, lanes, message_hops);
        if (best.empty() || s.key() < best_score.key()) {
            best = lower;
            best_score = s;
        }
        lower.pop_back();
    }
    int largest = lower.empty() ? ranks : lower.back();
    for (int d = 2; d <= largest && product * d < ranks; ++d) {
        lower.push_back(d);
        search(ranks, budget, lanes, message_hops, lower, product * d, best, best_score);
        lower.pop_back();
    }
}

} // namespace

std::vector<int> auto_dims(int ranks, std::int64_t budget, int lanes, double message_hops) {
    if (ranks <= 1) return {1};
    std::vector<int> lower, best;
    shape_score best_score{};
    search(ranks, std::max<std::int64_t>(budget, 1), std::max(lanes, 1), std::max(message_hops, 0.0), lower, 1, best,
           best_score);
    return best;
}

process_grid make_process_grid(int ranks, const std::string& text, const std::string& key, std::int64_t budget,
                               int lanes, double message_hops) {
    auto fail = [&](const std::string& why) -> process_grid {
        throw user_error(spikex::format("{} = \"{}\": {}", key, text, why));
    };
    std::string lowered;
    for (char ch: text) lowered += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (lowered == "auto") return process_grid(ranks, auto_dims(ranks, budget, lanes, message_hops));
    if (lowered == "hypercube") {
        auto dims = hypercube_dims(ranks);
        if (dims.empty()) {
            return fail(spikex::format("a hypercube needs a power-of-two number of ranks, not {}; use \"auto\" "
                                       "(gives {}) or explicit dims",
                                       ranks, dims_text(auto_dims(ranks))));
        }
        return process_grid(ranks, dims);
    }
    std::vector<int> dims;
    bool readable = true;
    std::int64_t value = -1; // the number being read, -1 between numbers
    for (char ch: text) {
        if (std::isdigit(static_cast<unsigned char>(ch))) {
            value = (value < 0 ? 0 : value) * 10 + (ch - '0');
            if (value > std::numeric_limits<int>::max()) return fail("dimension too large");
            continue;
        }
        if (!(ch == ' ' || ch == ',' || ch == 'x' || ch == 'X' || ch == '[' || ch == ']')) {
            readable = false;
            break;
        }
        if (value >= 0) dims.push_back(static_cast<int>(value));
        value = -1;
    }
    if (value >= 0) dims.push_back(static_cast<int>(value));
    if (!readable || dims.empty()) {
        return fail("must be \"auto\", \"hypercube\" or a list of dimension sizes such as [4, 2] or 4x2");
    }
    std::string problem = grid_problem(ranks, dims);
    if (!problem.empty()) throw user_error(spikex::format("{} = {}: {}", key, dims_text(dims), problem));
    return process_grid(ranks, dims);
}

} // namespace spikex
