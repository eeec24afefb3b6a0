#pragma once
// route: the logical process grid of Garg & Sabharwal, section 4.2 ("arranging the
// processors into a logical grid topology").
//
// Algorithm: P ranks are placed on a d-dimensional grid D_0 x ... x D_{d-1}, rank =
//   c_0 + D_0 (c_1 + D_1 (c_2 + ...)): coordinate 0 varies fastest. When P is not a product
//   of the dims, only the last dimension is incomplete: planes c_{d-1} < D_{d-1} - 1 are
//   full and the last plane ("ragged") holds the remaining ranks in order, so any P works,
//   primes included. A rank's partners (its routers) are the ranks that differ from it in
//   exactly one coordinate: at most sum_i (D_i - 1) of them instead of P - 1.
// Shapes: an explicit list ("[4, 2]", "4x2", "4,2"); "hypercube" = all dims 2 (P a power
//   of two); "auto" = the balanced shape of least modelled cost per item, h (1 + 10 B / b):
//   h = sum_i (1 - 1/D_i) mean hops, each costing one routing hop plus its share of a
//   message of b / B items (b = budget, B = buckets = sum_i D_i, + 1 when ragged), a message
//   costing ~10 hops (the paper: 1,270+ cycles per MPI call, ~128 per routing hop); ragged
//   shapes pay 5% more (descents, uneven last plane), so full ones win near-ties. With
//   b = 1024: direct ([P]) up to 128 ranks, [16, 16] for 256, [32, 32] for 1024,
//   [32, 32, 32] for 32768 (the paper's own choice), [16, 16, 16, 16] for 65536.
// Messages and bytes: none (pure arithmetic). Memory: d ints.
// Ordering guarantee: not applicable; the grid is identical on every rank.
#include <cstdint>
#include <string>
#include <vector>

namespace spikex {

class process_grid {
public:
    process_grid() = default;
    // Throws user_error when `dims` does not fit `ranks` (see grid_problem).
    process_grid(int ranks, std::vector<int> dims);

    int ranks() const { return ranks_; }
    int dimensions() const { return static_cast<int>(dims_.size()); }
    const std::vector<int>& dims() const { return dims_; }
    int dim(int i) const { return dims_[i]; }
    std::int64_t positions() const { return positions_; } // product of the dims
    bool ragged() const { return ranks_ < positions_; }   // last plane incomplete
    int last_plane() const { return dims_.back() - 1; }

    // Coordinates of `rank` (0 <= rank < ranks), written into `out` (size dimensions()).
    void coords(int rank, int* out) const;
    std::vector<int> coords(int rank) const;
    // Rank at `coords`, or -1 if that position is beyond the last rank (ragged plane).
    int rank_at(const int* coords) const;
    int rank_at(const std::vector<int>& coords) const { return rank_at(coords.data()); }

    // Receive channels of the router: one per dimension, plus the descent channel of a
    // ragged grid (route_table.hpp).
    int channels() const { return dimensions() + (ragged() ? 1 : 0); }
    // Buckets a rank may hold: at most sum_i (D_i - 1) send buckets and channels() receive
    // buffers = sum_i D_i (+ 1 when ragged). The paper's X + Y + Z.
    int buckets() const;
    // Longest route in hops: d on a full grid (and on any 1- or 2-dimensional one), d + 1
    // on a ragged grid of 3 or more dimensions (route_table.hpp explains the detour).
    int max_hops() const;

    std::string text() const; // "[4, 2]"

private:
    int ranks_ = 1;
    std::vector<int> dims_{1};
    std::int64_t positions_ = 1;
};

// Why `dims` does not fit `ranks`, or "" when it does: every dim >= 1, and the ranks fill
// all planes but the last, which holds at least one rank.
std::string grid_problem(int ranks, const std::vector<int>& dims);

// A shape from its text: "auto", "hypercube", or an explicit list of dims ("[4, 2]",
// "4x2", "4,2", "4 2"). Throws user_error "KEY = TEXT: reason" (one line); `key` names
// the option for the message (route.dims, --dims).
// `budget` (items per rank) and `lanes` (send buckets per partner, router_options::lanes)
// only matter for "auto".
// `message_hops`: what one message costs in routing hops of one item, for "auto".
// The papers' machines: MPI calls of 1,270+ cycles (Garg & Sabharwal, section 5.2) against
// about 128 cycles of routing per hop (section 6.2).
inline constexpr double default_message_hops = 10.0;
process_grid make_process_grid(int ranks, const std::string& text, const std::string& key, std::int64_t budget = 1024,
                               int lanes = 1, double message_hops = default_message_hops);

// The shape of least modelled cost per item: hops, each with its share of a message (a
// message costing message_hops hops), whose bucket holds budget / (lanes * sum_i (D_i - 1)
// + dims) items, as the router sizes them.
std::vector<int> auto_dims(int ranks, std::int64_t budget = 1024, int lanes = 1,
                           double message_hops = default_message_hops);
std::vector<int> hypercube_dims(int ranks);          // empty when ranks is not a power of two
std::string dims_text(const std::vector<int>& dims); // "[4, 2]"

} // namespace spikex
