#pragma once
// NEST's own integration scheme for its GSL models, for models whose spikes must fall on
// NEST's steps, not only their traces within the error bound (docs/dev/ode.md): Fehlberg's
// embedded Runge-Kutta 4(5) pair (RKF45, the fifth-order solution propagated) under the
// "standard" step-size control that GSL's manual documents.
// Written here from the published method (E. Fehlberg, NASA TR R-315, 1969: the
// coefficients below) and the manual's description of the control; GSL is not used.
//
// Per sub-step of size s, with E = max_i |error_i| / D_i, the bound
//   D_i = absolute + relative (state_weight |y_i| + derivative_weight |s y'_i|)
// (y and y' at the sub-step's end; the manual's a_y and a_dydt; y' only evaluated when
// derivative_weight is not 0: NEST's aeif models, gsl_odeiv_control_yp_new):
//   E > 1.1: rejected, s *= max(0.9 E^(-1/q), 1/5) and tried again from the same state
//   E < 0.5: accepted, the next s *= min(0.9 E^(-1/(q+1)), 5) (never below 1)
//   else:    accepted, s kept                                          (q = 5, as NEST's)
// Three shortcuts leave every trajectory as it is and skip the power (a quarter of a
// conductance-based cell's step): E below 3e-5 gives the cap 5 anyway (0.9 E^(-1/6) > 5.1);
// and where any growth (E < 0.5: a factor of at least 0.9 / 0.5^(1/6) > 1.01) makes the
// next attempt longer than what it may cover, the size is proposed as 5 s, since the
// attempt is clipped to end at h either way and what follows depends on the clipped size
// only: after a sub-step that covered the whole step h (the next step starts with a
// sub-step of h), and after one that is not the step's last but left at most s of it.
// The step h is covered as adaptive_integrator.hpp covers it (and as NEST's update loop
// does): a sub-step longer than what remains of h is clipped to end at h, the size
// proposed after it is the cell's next one, kept per cell and in checkpoints. The same
// interface as adaptive_integrator (a function may act after each accepted sub-step, as
// NEST's aeif models do after each gsl_odeiv_evolve_apply); false when the sub-step
// collapses below tolerances::smallest_substep * h.
//
// whole_step() tries the whole step h on L cells at once (lanes.hpp), the common case of
// a cell whose sub-step has grown to h: per lane, the same operations as advance(), so a
// cell accepted there (accept_whole_step) ends exactly where advance() would have taken
// it; a rejected one (E > 1.1) runs advance() from its unchanged state. substeps() tries a
// sub-step of each lane's own size, for callers that run advance()'s loop on L cells at
// once with next_attempt(), settle() and collapsed(), as advance_cells() does.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>

#include "spikex/models/ode/adaptive_integrator.hpp"
#include "spikex/models/ode/lanes.hpp"

namespace spikex::ode {

template <std::size_t N>
class rkf45_integrator {
public:
    using state = std::array<double, N>;
    template <std::size_t L>
    using state_lanes = std::array<lanes<L>, N>;

    explicit rkf45_integrator(tolerances t = {}): tolerances_(t) {}

    // Advances y from 0 to h; `substep` is the cell's sub-step size (start: h), updated.
    // derivative(y, dydt) gives f. False when the sub-step collapses (y is then partial).
    template <class Derivative>
    bool advance(const Derivative& derivative, state& y, double h, double& substep) const {
        return advance(derivative, y, h, substep, [](state&) {});
    }

    // The same, calling after_substep(y) after every accepted sub-step with the state at
    // its end; it may change y (a reset), and the next sub-step starts from what it left.
    // The derivative may read what after_substep changes (a refractory flag): every
    // sub-step evaluates it afresh from its start.
    template <class Derivative, class AfterSubstep>
    bool advance(const Derivative& derivative, state& y, double h, double& substep,
                 AfterSubstep&& after_substep) const {
        double t = 0.0;
        while (t < h) {
            const state y0 = y;
            for (;;) {
                const attempt a = next_attempt(t, h, substep);
                state error{};
                step(derivative, y, a.s, error);
                if (settle(scaled_error(derivative, y, a.s, error), a, h, t, substep)) break;
                y = y0; // rejected: again from the sub-step's start, smaller
                if (collapsed(substep, h)) return false;
            }
            after_substep(y);
        }
        return true;
    }

    // advance()'s pieces, for callers that interleave several cells' sub-steps (lanes):
    // from t, try next_attempt(); settle() its error E: true when accepted (t and the
    // cell's sub-step advanced), false when rejected (sub-step shrunk: try again from the
    // state before the attempt, unless collapsed()).
    struct attempt {
        double s;  // the sub-step's size
        bool last; // clipped to end at h
    };
    static attempt next_attempt(double t, double h, double substep) {
        const double remaining = h - t;
        const bool last = substep > remaining;
        return {last ? remaining : substep, last};
    }
    static bool settle(double E, const attempt& a, double h, double& t, double& substep) {
        const double t_next = a.last ? h : t + a.s;
        if (E > 1.1) {
            const double shrunk = std::max(0.9 / std::pow(E, 1.0 / order), 0.2) * a.s;
            if (shrunk < a.s && t_next + shrunk != t_next) {
                substep = shrunk;
                return false;
            }
            substep = a.s;
        } else {
            // the header's shortcuts: the next attempt clipped whatever the growth
            substep = next_substep(E, a.s, a.s == h || (!a.last && !(a.s < h - t_next)));
        }
        t = t_next;
        return true;
    }
    bool collapsed(double substep, double h) const { return !(substep > tolerances_.smallest_substep * h); }

    // advance() for the cells begin .. end - 1, L side by side: each lane runs advance()'s
    // loop for one cell (its own sub-steps), the lanes' sub-steps computed together
    // (substeps()) and their control too (settle()'s arithmetic per lane, in vector
    // registers, the powers too where wide_vectors(): control_powers()). A
    // lane whose cell has reached h takes the next cell. Every cell sees the operations
    // advance() would give it, so it ends in the same state.
    // `cells` (a model's group, or an adapter over it) provides:
    //   state& state(c), double& substep(c)   the cell's state and sub-step size (read when
    //                        a lane takes the cell, written when it has reached h)
    //   void load(l, c)      lane l now holds cell c: set its inputs (I_stim, ...) and flags
    //   void derivative(const state_lanes<L>& y, state_lanes<L>& f)   on all lanes, reading
    //                        what load set (an idle lane's values are unused)
    //   optionally void after_substeps(state_lanes<L>& y, const lane_mask<L>& accepted,
    //                        const std::array<std::size_t, L>& cell)   advance()'s
    //                        after_substep on the lanes whose sub-step was accepted (their
    //                        state at its end; it may change it and the lanes' flags)
    //   void collapsed(c)    the sub-step vanished (advance() would return false; the
    //                        cell's state is its last accepted sub-step's end)
    template <std::size_t L, class Cells>
    void advance_cells(Cells& cells, std::size_t begin, std::size_t end, double h) const {
        if constexpr (L == 8) {
            if (wide_vectors()) return advance_cells_wide<L>(cells, begin, end, h);
        }
        advance_cells_here<L>(cells, begin, end, h);
    }

    // advance_cells compiled for AVX-512 (lanes of 8 in one register): flatten inlines the
    // whole step, right-hand side included, into this clone. Exact IEEE operations and no
    // contraction, so the same results as the baseline clone.
    template <std::size_t L, class Cells>
    [[gnu::target("avx512f,fma"), gnu::flatten]] void advance_cells_wide(Cells& cells, std::size_t begin,
                                                                         std::size_t end, double h) const {
        advance_cells_here<L>(cells, begin, end, h);
    }

    template <std::size_t L, class Cells>
    [[gnu::always_inline]] void advance_cells_here(Cells& cells, std::size_t begin, std::size_t end, double h) const {
        state_lanes<L> y{}, start{}; // each lane's state, and at its sub-step's start
        lanes<L> t = lanes<L>::all(0.0), substep = lanes<L>::all(h);
        lane_mask<L> active{};
        std::array<std::size_t, L> cell{};
        std::size_t next = begin;
        auto take_next_cell = [&](std::size_t l) {
            active.set(l, next < end);
            if (!active.v[l]) return false; // idle: its last values stay, unused
            cell[l] = next++;
            t[l] = 0.0;
            substep[l] = cells.substep(cell[l]);
            const state& y_c = cells.state(cell[l]);
            for (std::size_t k = 0; k < N; ++k) y[k][l] = start[k][l] = y_c[k];
            cells.load(l, cell[l]);
            return true;
        };
        std::size_t busy = 0;
        for (std::size_t l = 0; l < L; ++l) busy += take_next_cell(l);
        const double smallest = tolerances_.smallest_substep * h;
        const lanes<L> h_all = lanes<L>::all(h);
        while (busy > 0) {
            // next_attempt() per lane
            const lanes<L> remaining = h_all - t;
            const lane_mask<L> last = less(remaining, substep); // clipped to end at h
            const lanes<L> s = select(last, remaining, substep);
            const lanes<L> E = substeps(
                [&](const state_lanes<L>& x, state_lanes<L>& f)
                    __attribute__((always_inline)) { cells.derivative(x, f); },
                y, s);
            // settle() per lane, as vector operations, with the powers E^(-1/q) and
            // E^(-1/(q+1)) where the control needs one
            const lane_mask<L> too_large = less(lanes<L>::all(1.1), E), small = less(E, lanes<L>::all(0.5)),
                               capped = less(E, lanes<L>::all(capped_below)), whole = equal(s, h_all);
            const lanes<L> t_next = select(last, h_all, t + s);
            // the next attempt clipped to end at h whatever size is proposed (above s)
            const lane_mask<L> clipped_next = ~last & ~less(s, h_all - t_next);
            const lane_mask<L> shrink_power = active & too_large,
                               grow_power = active & ~too_large & small & ~capped & ~whole & ~clipped_next;
            const lanes<L> power = control_powers(E, shrink_power, grow_power);
            const lanes<L> ratio = 0.9 / power;
            const lanes<L> shrunk = std_max(ratio, 0.2) * s;
            const lane_mask<L> shrinks = too_large & less(shrunk, s) & ~equal(t_next + shrunk, t_next);
            const lanes<L> grown =
                select(small, select(whole | capped | clipped_next, 5.0 * s, std_max(std_min(ratio, 5.0), 1.0) * s), s);
            const lanes<L> proposed = select(too_large, select(shrinks, shrunk, s), grown);
            const lane_mask<L> rejected = active & shrinks, accepted = active & ~shrinks;
            substep = select(active, proposed, substep);
            t = select(accepted, t_next, t);
            const bool any_collapsed = any(rejected & ~less(lanes<L>::all(smallest), proposed));
            const bool any_done = any(accepted & ~less(t, h_all));
            for (std::size_t k = 0; k < N; ++k) y[k] = select(rejected, start[k], y[k]); // again from the start
            if (any_collapsed) {
                for (std::size_t l = 0; l < L; ++l) {
                    if (!rejected.v[l] || substep[l] > smallest) continue;
                    state& y_c = cells.state(cell[l]);
                    for (std::size_t k = 0; k < N; ++k) y_c[k] = start[k][l];
                    cells.collapsed(cell[l]);
                }
            }
            if constexpr (requires { cells.after_substeps(y, accepted, cell); })
                cells.after_substeps(y, accepted, cell);
            for (std::size_t k = 0; k < N; ++k) start[k] = select(accepted, y[k], start[k]);
            if (!any_done) continue;
            for (std::size_t l = 0; l < L; ++l) {
                if (!accepted.v[l] || t[l] < h) continue;
                state& y_c = cells.state(cell[l]);
                for (std::size_t k = 0; k < N; ++k) y_c[k] = y[k][l];
                cells.substep(cell[l]) = substep[l];
                if (!take_next_cell(l)) --busy;
            }
        }
    }

    // One sub-step of each lane's own size s from y (L cells) in place; E per lane.
    template <std::size_t L, class Derivative>
    [[gnu::always_inline]] lanes<L> substeps(const Derivative& derivative, state_lanes<L>& y, const lanes<L>& s) const {
        state_lanes<L> error{};
        step(derivative, y, s, error);
        return scaled_error(derivative, y, s, error);
    }

    // Whether advance() would start a cell with this sub-step by trying the whole step h.
    static bool starts_whole(double substep, double h) { return !(substep < h); }

    // The whole step h from y (L cells, each starting whole) in place; E per lane.
    template <std::size_t L, class Derivative>
    lanes<L> whole_step(const Derivative& derivative, state_lanes<L>& y, double h) const {
        if constexpr (L == 8) {
            if (wide_vectors()) {
                lanes<L> E;
                whole_step_wide<L>(derivative, y, h, E);
                return E;
            }
        }
        return whole_step_here<L>(derivative, y, h);
    }
    // (E by reference: a vector returned by value crosses the clones' calling conventions)
    template <std::size_t L, class Derivative>
    [[gnu::target("avx512f,fma"), gnu::flatten]] void whole_step_wide(const Derivative& derivative, state_lanes<L>& y,
                                                                      double h, lanes<L>& E) const {
        E = whole_step_here<L>(derivative, y, h);
    }
    template <std::size_t L, class Derivative>
    [[gnu::always_inline]] lanes<L> whole_step_here(const Derivative& derivative, state_lanes<L>& y, double h) const {
        state_lanes<L> error{};
        step(derivative, y, h, error);
        return scaled_error(derivative, y, h, error);
    }

    // A lane of whole_step(): true when advance() would have accepted it (the cell's
    // sub-step then updated as advance() does); false: run advance() from the start state.
    static bool accept_whole_step(double E, double h, double& substep) {
        if (E > 1.1) return false; // always rejected: 0.2 h <= shrunk < h
        substep = next_substep(E, h, true);
        return true;
    }

private:
    // std::max(a, b) and std::min(a, b) per lane (a < b ? b : a, b < a ? b : a).
    template <std::size_t L>
    [[gnu::always_inline]] static lanes<L> std_max(const lanes<L>& a, double b) {
        return select(less(a, lanes<L>::all(b)), lanes<L>::all(b), a);
    }
    template <std::size_t L>
    [[gnu::always_inline]] static lanes<L> std_min(const lanes<L>& a, double b) {
        return select(less(lanes<L>::all(b), a), lanes<L>::all(b), a);
    }

    // E^(1/q) where `shrink`, E^(1/(q+1)) where `grow`, 1 elsewhere: std::pow's bits, in
    // vector registers where wide_vectors() (lanes.hpp's wide_pow), else lane by lane.
    template <std::size_t L>
    [[gnu::always_inline]] static lanes<L> control_powers(const lanes<L>& E, const lane_mask<L>& shrink,
                                                          const lane_mask<L>& grow) {
        const lane_mask<L> needed = shrink | grow;
        lanes<L> power = lanes<L>::all(1.0);
        if (!any(needed)) return power;
        if constexpr (L == 8) {
            if (wide_vectors()) {
                // other lanes get 1/2 (any value on the fast path), their result unused
                const lanes<L> exponent =
                    select(shrink, lanes<L>::all(1.0 / order), lanes<L>::all(1.0 / (order + 1.0)));
                return select(needed, wide_pow(select(needed, E, lanes<L>::all(0.5)), exponent), power);
            }
        }
        for (std::size_t l = 0; l < L; ++l) {
            if (shrink.v[l]) power[l] = std::pow(E[l], 1.0 / order);
            if (grow.v[l]) power[l] = std::pow(E[l], 1.0 / (order + 1.0));
        }
        return power;
    }

    static constexpr double order = 5.0;         // the propagated solution's order (q above)
    static constexpr double capped_below = 3e-5; // E below it: the growth is capped at 5

    // The sub-step proposed after an accepted one of size s with error E <= 1.1; clipped:
    // any size above s gives the same next attempt.
    static double next_substep(double E, double s, bool clipped) {
        if (!(E < 0.5)) return s;
        if (clipped || E < capped_below) return 5.0 * s;
        return std::max(std::min(0.9 / std::pow(E, 1.0 / (order + 1.0)), 5.0), 1.0) * s;
    }

    // One Fehlberg step of size s from y (in place), its error estimate in `error`. T is
    // double (one cell) or lanes<L> (L cells), S double or lanes<L> (a size per cell): the
    // same expressions either way.
    template <class T, class S, class Derivative>
    [[gnu::always_inline]] static void step(const Derivative& f, std::array<T, N>& y, const S& s,
                                            std::array<T, N>& error) {
        // Fehlberg's tableau: nodes 1/4, 3/8, 12/13, 1, 1/2.
        constexpr double a21 = 1.0 / 4.0;
        constexpr double a31 = 3.0 / 32.0, a32 = 9.0 / 32.0;
        constexpr double a41 = 1932.0 / 2197.0, a42 = -7200.0 / 2197.0, a43 = 7296.0 / 2197.0;
        constexpr double a51 = 439.0 / 216.0, a52 = -8.0, a53 = 3680.0 / 513.0, a54 = -845.0 / 4104.0;
        constexpr double a61 = -8.0 / 27.0, a62 = 2.0, a63 = -3544.0 / 2565.0, a64 = 1859.0 / 4104.0,
                         a65 = -11.0 / 40.0;
        // Fifth-order weights, and their differences from the fourth-order ones.
        constexpr double b1 = 16.0 / 135.0, b3 = 6656.0 / 12825.0, b4 = 28561.0 / 56430.0, b5 = -9.0 / 50.0,
                         b6 = 2.0 / 55.0;
        constexpr double e1 = 1.0 / 360.0, e3 = -128.0 / 4275.0, e4 = -2197.0 / 75240.0, e5 = 1.0 / 50.0,
                         e6 = 2.0 / 55.0;
        std::array<T, N> k1{}, k2{}, k3{}, k4{}, k5{}, k6{}, tmp{}; // {}: GCC cannot see f write all
        f(y, k1);
        for (std::size_t i = 0; i < N; ++i) tmp[i] = y[i] + a21 * s * k1[i];
        f(tmp, k2);
        for (std::size_t i = 0; i < N; ++i) tmp[i] = y[i] + s * (a31 * k1[i] + a32 * k2[i]);
        f(tmp, k3);
        for (std::size_t i = 0; i < N; ++i) tmp[i] = y[i] + s * (a41 * k1[i] + a42 * k2[i] + a43 * k3[i]);
        f(tmp, k4);
        for (std::size_t i = 0; i < N; ++i) tmp[i] = y[i] + s * (a51 * k1[i] + a52 * k2[i] + a53 * k3[i] + a54 * k4[i]);
        f(tmp, k5);
        for (std::size_t i = 0; i < N; ++i)
            tmp[i] = y[i] + s * (a61 * k1[i] + a62 * k2[i] + a63 * k3[i] + a64 * k4[i] + a65 * k5[i]);
        f(tmp, k6);
        for (std::size_t i = 0; i < N; ++i) {
            y[i] += s * (b1 * k1[i] + b3 * k3[i] + b4 * k4[i] + b5 * k5[i] + b6 * k6[i]);
            error[i] = s * (e1 * k1[i] + e3 * k3[i] + e4 * k4[i] + e5 * k5[i] + e6 * k6[i]);
        }
    }

    // E: the largest error over its component's bound (a NaN component is passed over, so a
    // diverging state is accepted and the model's own check reports it). y: the sub-step's
    // end, s its size.
    template <class T, class S, class Derivative>
    [[gnu::always_inline]] T scaled_error(const Derivative& f, const std::array<T, N>& y, const S& s,
                                          const std::array<T, N>& error) const {
        const tolerances& t = tolerances_;
        T E = splat<T>(std::numeric_limits<double>::min());
        if (t.derivative_weight == 0.0 && t.state_weight == 1.0) {
            for (std::size_t i = 0; i < N; ++i)
                E = ode::max(ode::abs(error[i]) / (t.relative * ode::abs(y[i]) + t.absolute), E);
            return E;
        }
        std::array<T, N> end_derivative{};
        f(y, end_derivative);
        for (std::size_t i = 0; i < N; ++i) {
            const T bound =
                t.relative * (t.state_weight * ode::abs(y[i]) + t.derivative_weight * ode::abs(s * end_derivative[i])) +
                t.absolute;
            E = ode::max(ode::abs(error[i]) / bound, E);
        }
        return E;
    }

    tolerances tolerances_;
};

} // namespace spikex::ode
