#pragma once
// The ODE layer: one step h of a cell's state y' = f(y) for models without exact
// propagators (conductance-based, exponential, Hodgkin-Huxley), by an embedded
// Runge-Kutta pair with error control, Boost.Odeint's Cash-Karp 5(4) (docs/dev/ode.md).
//
// As NEST's GSL loop does for its models: the step is covered by sub-steps of the cell's
// own size, which the controller shrinks on a rejected sub-step and grows after an easy
// one; the last sub-step is clipped to end at h, and the size proposed after it is kept
// for the cell's next step (and in checkpoints). Everything depends on the cell's own
// state only, so the result is the same on every layout. A model that acts between
// sub-steps (NEST's aeif models detect V >= V_peak, reset and adapt there) passes a
// function that sees, and may change, the state after each accepted sub-step.
#include <array>
#include <cmath>
#include <cstddef>

#include <boost/numeric/odeint/stepper/controlled_runge_kutta.hpp>
#include <boost/numeric/odeint/stepper/controlled_step_result.hpp>
#include <boost/numeric/odeint/stepper/runge_kutta_cash_karp54.hpp>

namespace spikex::ode {

// Sub-steps below this fraction of h mean the system cannot be integrated (NEST's
// numerical-instability error): advance() returns false.
inline constexpr double smallest_substep_fraction = 1e-10;

// Error control per sub-step of size dt, with y and y' at its start:
//   max_i |error_i| / (absolute + relative * (state_weight * |y_i| + derivative_weight * dt * |y'_i|)) <= 1,
// GSL's "standard" control with its a_y and a_dydt (Boost.Odeint's a_x and a_dxdt); and
// the collapse: a proposed sub-step not above smallest_substep * h ends advance() (false).
struct tolerances {
    double absolute = 1e-3; // iaf_cond_exp's in NEST (GSL's y control, 1e-3 absolute; mV, nS, pA alike)
    double relative = 0.0;
    double state_weight = 1.0;
    double derivative_weight = 0.0;
    // 0: only a vanished sub-step is a collapse (a model whose sub-steps legitimately
    // shrink by many orders of magnitude, as the aeif models' at a spike).
    double smallest_substep = smallest_substep_fraction;
};

template <std::size_t N>
class adaptive_integrator {
public:
    using state = std::array<double, N>;

// The stepper's scratch arrays are copied before their first use: GCC sees values that
// are never read.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
    explicit adaptive_integrator(tolerances t = {}):
        controller_(error_checker(t.absolute, t.relative, t.state_weight, t.derivative_weight)),
        smallest_substep_(t.smallest_substep) {}
#pragma GCC diagnostic pop

    // Advances y from 0 to h; `substep` is the cell's sub-step size (start: h), updated.
    // derivative(y, dydt) gives f. False when the sub-step collapses (y is then partial).
    template <class Derivative>
    bool advance(const Derivative& derivative, state& y, double h, double& substep) {
        return advance(derivative, y, h, substep, [](state&) {});
    }

    // The same, calling after_substep(y) after every accepted sub-step with the state at
    // its end; it may change y (a reset), and the next sub-step starts from what it left.
    // The derivative may read what after_substep changes (a refractory flag): every
    // sub-step evaluates it afresh from its start (no derivative is carried over).
    template <class Derivative, class AfterSubstep>
    bool advance(const Derivative& derivative, state& y, double h, double& substep, AfterSubstep&& after_substep) {
        auto system = [&](const state& x, state& dxdt, double) { derivative(x, dxdt); };
        double t = 0.0;
        while (t < h) {
            double dt = substep < h - t ? substep : h - t;
            const bool last = dt >= h - t;
            double t_try = t;
            const auto result = controller_.try_step(system, y, t_try, dt);
            substep = dt; // the controller's proposal, after success or failure
            if (result == boost::numeric::odeint::success) {
                t = last ? h : t_try;
                after_substep(y);
            }
            if (!(substep > smallest_substep_ * h)) return false;
        }
        return true;
    }

private:
    using stepper = boost::numeric::odeint::runge_kutta_cash_karp54<state>;
    using controlled = boost::numeric::odeint::controlled_runge_kutta<stepper>;
    using error_checker = typename controlled::error_checker_type;
    controlled controller_;
    double smallest_substep_; // fraction of h
};

} // namespace spikex::ode
