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
// The step h is covered as adaptive_integrator.hpp covers it (and as NEST's update loop
// does): a sub-step longer than what remains of h is clipped to end at h, the size
// proposed after it is the cell's next one, kept per cell and in checkpoints. The same
// interface as adaptive_integrator (a function may act after each accepted sub-step, as
// NEST's aeif models do after each gsl_odeiv_evolve_apply); false when the sub-step
// collapses below tolerances::smallest_substep * h.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>

#include "spikex/models/ode/adaptive_integrator.hpp"

namespace spikex::ode {

template <std::size_t N>
class rkf45_integrator {
public:
    using state = std::array<double, N>;

    explicit rkf45_integrator(tolerances t = {}): tolerances_(t) {}

    // Advances y from 0 to h; `substep` is the cell's sub-step size (start: h), updated.
    // derivative(y, dydt) gives f. False when the sub-step collapses (y is then partial).
    template <class Derivative>
    bool advance(const Derivative& derivative, state& y, double h, double& substep) {
        return advance(derivative, y, h, substep, [](state&) {});
    }

    // The same, calling after_substep(y) after every accepted sub-step with the state at
    // its end; it may change y (a reset), and the next sub-step starts from what it left.
    // The derivative may read what after_substep changes (a refractory flag): every
    // sub-step evaluates it afresh from its start.
    template <class Derivative, class AfterSubstep>
    bool advance(const Derivative& derivative, state& y, double h, double& substep, AfterSubstep&& after_substep) {
        double t = 0.0;
        while (t < h) {
            const double remaining = h - t;
            const state y0 = y;
            for (;;) {
                const bool last = substep > remaining;
                const double s = last ? remaining : substep;
                step(derivative, y, s);
                const double t_next = last ? h : t + s;
                const double E = scaled_error(derivative, y, s);
                if (E > 1.1) {
                    const double shrunk = std::max(0.9 / std::pow(E, 1.0 / order), 0.2) * s;
                    if (shrunk < s && t_next + shrunk != t_next) { // rejected: again from y0
                        y = y0;
                        substep = shrunk;
                        if (!(substep > tolerances_.smallest_substep * h)) return false;
                        continue;
                    }
                    substep = s;
                } else if (E < 0.5) {
                    substep = std::max(std::min(0.9 / std::pow(E, 1.0 / (order + 1.0)), 5.0), 1.0) * s;
                } else {
                    substep = s;
                }
                t = t_next;
                break;
            }
            after_substep(y);
        }
        return true;
    }

private:
    static constexpr double order = 5.0; // the propagated solution's order (q above)

    // One Fehlberg step of size s from y (in place), its error estimate in error_.
    template <class Derivative>
    void step(const Derivative& f, state& y, double s) {
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
        f(y, k1_);
        for (std::size_t i = 0; i < N; ++i) tmp_[i] = y[i] + a21 * s * k1_[i];
        f(tmp_, k2_);
        for (std::size_t i = 0; i < N; ++i) tmp_[i] = y[i] + s * (a31 * k1_[i] + a32 * k2_[i]);
        f(tmp_, k3_);
        for (std::size_t i = 0; i < N; ++i) tmp_[i] = y[i] + s * (a41 * k1_[i] + a42 * k2_[i] + a43 * k3_[i]);
        f(tmp_, k4_);
        for (std::size_t i = 0; i < N; ++i)
            tmp_[i] = y[i] + s * (a51 * k1_[i] + a52 * k2_[i] + a53 * k3_[i] + a54 * k4_[i]);
        f(tmp_, k5_);
        for (std::size_t i = 0; i < N; ++i)
            tmp_[i] = y[i] + s * (a61 * k1_[i] + a62 * k2_[i] + a63 * k3_[i] + a64 * k4_[i] + a65 * k5_[i]);
        f(tmp_, k6_);
        for (std::size_t i = 0; i < N; ++i) {
            y[i] += s * (b1 * k1_[i] + b3 * k3_[i] + b4 * k4_[i] + b5 * k5_[i] + b6 * k6_[i]);
            error_[i] = s * (e1 * k1_[i] + e3 * k3_[i] + e4 * k4_[i] + e5 * k5_[i] + e6 * k6_[i]);
        }
    }

    // E: the largest error over its component's bound (a NaN component is passed over, so a
    // diverging state is accepted and the model's own check reports it). y: the sub-step's
    // end, s its size.
    template <class Derivative>
    double scaled_error(const Derivative& f, const state& y, double s) {
        const tolerances& t = tolerances_;
        double E = std::numeric_limits<double>::min();
        if (t.derivative_weight == 0.0 && t.state_weight == 1.0) {
            for (std::size_t i = 0; i < N; ++i) {
                const double r = std::abs(error_[i]) / (t.relative * std::abs(y[i]) + t.absolute);
                E = r > E ? r : E;
            }
            return E;
        }
        f(y, end_derivative_);
        for (std::size_t i = 0; i < N; ++i) {
            const double bound = t.relative * (t.state_weight * std::abs(y[i]) +
                                               t.derivative_weight * std::abs(s * end_derivative_[i])) +
                                 t.absolute;
            const double r = std::abs(error_[i]) / bound;
            E = r > E ? r : E;
        }
        return E;
    }

    tolerances tolerances_;
    state k1_{}, k2_{}, k3_{}, k4_{}, k5_{}, k6_{}, tmp_{}, error_{}, end_derivative_{}; // scratch, no cell state
};

} // namespace spikex::ode
