#pragma once
// The ODE layer: one step h of a cell's state y' = f(y) for models without exact
// propagators (conductance-based, exponential, Hodgkin-Huxley), by an embedded
// Runge-Kutta pair with error control, Boost.Odeint's Cash-Karp 5(4) (docs/dev/ode.md).
//
// As NEST's GSL loop does for its models: the step is covered by sub-steps of the cell's
// own size, which the controller shrinks on a rejected sub-step and grows after an easy
// one; the last sub-step is clipped to end at h, and the size proposed after it is kept
// for the cell's next step (and in checkpoints). Everything depends on the cell's own
// state only, so the result is the same on every layout.
#include <array>
#include <cmath>
#include <cstddef>

#include <boost/numeric/odeint/stepper/controlled_runge_kutta.hpp>
#include <boost/numeric/odeint/stepper/controlled_step_result.hpp>
#include <boost/numeric/odeint/stepper/runge_kutta_cash_karp54.hpp>

namespace spikex::ode {

// Error control per sub-step: max_i |error_i| / (absolute + relative * |y_i|) <= 1.
struct tolerances {
    double absolute = 1e-3; // NEST's for its GSL models (mV, nS, pA alike)
    double relative = 0.0;
};

// Sub-steps below this fraction of h mean the system cannot be integrated (NEST's
// numerical-instability error): advance() returns false.
inline constexpr double smallest_substep_fraction = 1e-10;

template <std::size_t N>
class adaptive_integrator {
public:
    using state = std::array<double, N>;

// The stepper's scratch arrays are copied before their first use: GCC sees values that
// are never read.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
    explicit adaptive_integrator(tolerances t = {}): controller_(error_checker(t.absolute, t.relative, 1.0, 0.0)) {}
#pragma GCC diagnostic pop

    // Advances y from 0 to h; `substep` is the cell's sub-step size (start: h), updated.
    // derivative(y, dydt) gives f. False when the sub-step collapses (y is then partial).
    template <class Derivative>
    bool advance(const Derivative& derivative, state& y, double h, double& substep) {
        auto system = [&](const state& x, state& dxdt, double) { derivative(x, dxdt); };
        double t = 0.0;
        while (t < h) {
            double dt = substep < h - t ? substep : h - t;
            const bool last = dt >= h - t;
            double t_try = t;
            const auto result = controller_.try_step(system, y, t_try, dt);
            substep = dt; // the controller's proposal, after success or failure
            if (result == boost::numeric::odeint::success) t = last ? h : t_try;
            if (!(substep > smallest_substep_fraction * h)) return false;
        }
        return true;
    }

private:
    using stepper = boost::numeric::odeint::runge_kutta_cash_karp54<state>;
    using controlled = boost::numeric::odeint::controlled_runge_kutta<stepper>;
    using error_checker = typename controlled::error_checker_type;
    controlled controller_;
};

} // namespace spikex::ode
