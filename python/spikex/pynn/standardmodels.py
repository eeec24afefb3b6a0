"""PyNN's standard cell types, synapse types and current sources on spikex's models.

Translations are PyNN's units to NEST's (spikex's models take NEST's names and units):
nF -> pF, nA -> pA and uS -> nS (x 1000), and pyNN.nest's derived g_L = cm / tau_m. ``spikex_model`` names the spikex model; ``variable_map``
the spikex state variable of a PyNN recordable. Anything PyNN defines that is not here is
refused by name (``__init__.py``), never replaced by something else.
"""

from __future__ import annotations

from pyNN.standardmodels import build_translations, cells, electrodes, synapses

from . import simulator


class IF_curr_alpha(cells.IF_curr_alpha):
    __doc__ = cells.IF_curr_alpha.__doc__
    translations = build_translations(
        ("v_rest", "E_L"),
        ("v_reset", "V_reset"),
        ("cm", "C_m", 1000.0),
        ("tau_m", "tau_m"),
        ("tau_refrac", "t_ref"),
        ("tau_syn_E", "tau_syn_ex"),
        ("tau_syn_I", "tau_syn_in"),
        ("v_thresh", "V_th"),
        ("i_offset", "I_e", 1000.0),
    )
    variable_map = {"v": "V_m", "isyn_exc": "I_syn_ex", "isyn_inh": "I_syn_in"}
    scale_factors = {"v": 1.0, "isyn_exc": 0.001, "isyn_inh": 0.001}
    spikex_model = "iaf_psc_alpha"
    weight_scale = 1.0  # synapse translations already give pA


class IF_curr_exp(cells.IF_curr_exp):
    __doc__ = cells.IF_curr_exp.__doc__
    translations = IF_curr_alpha.translations
    variable_map = IF_curr_alpha.variable_map
    scale_factors = IF_curr_alpha.scale_factors
    spikex_model = "iaf_psc_exp"
    weight_scale = 1.0


class IF_curr_delta(cells.IF_curr_delta):
    __doc__ = cells.IF_curr_delta.__doc__
    differences = "weights in mV (jumps of V), as pyNN.nest"
    # the alpha cell's, without synaptic time constants (inputs are jumps of V)
    translations = {k: v for k, v in IF_curr_alpha.translations.items() if not k.startswith("tau_syn")}
    variable_map = {"v": "V_m"}
    scale_factors = {"v": 1.0}
    spikex_model = "iaf_psc_delta"
    weight_scale = 1e-3  # weights are jumps of V in mV: undo the synapse's nA -> pA


class IF_cond_exp(cells.IF_cond_exp):
    __doc__ = cells.IF_cond_exp.__doc__
    differences = "inhibitory weights negated, as pyNN.nest does; traces within 1e-6 of pyNN.nest's (`test_pynn_cond_exp.py`)"
    # pyNN.nest's translations: g_L = cm / tau_m (nS from nF / ms), conductances in nS.
    translations = build_translations(
        ("v_rest", "E_L"),
        ("v_reset", "V_reset"),
        ("cm", "C_m", 1000.0),
        ("tau_m", "g_L", "cm/tau_m*1000.0", "C_m/g_L"),
        ("tau_refrac", "t_ref"),
        ("tau_syn_E", "tau_syn_ex"),
        ("tau_syn_I", "tau_syn_in"),
        ("v_thresh", "V_th"),
        ("i_offset", "I_e", 1000.0),
        ("e_rev_E", "E_ex"),
        ("e_rev_I", "E_in"),
    )
    variable_map = {"v": "V_m", "gsyn_exc": "g_ex", "gsyn_inh": "g_in"}
    scale_factors = {"v": 1.0, "gsyn_exc": 0.001, "gsyn_inh": 0.001}
    spikex_model = "iaf_cond_exp"
    weight_scale = 1.0  # uS -> nS by the synapse translation; inhibitory: projections.py


class IF_cond_alpha(cells.IF_cond_alpha):
    __doc__ = cells.IF_cond_alpha.__doc__
    differences = "inhibitory weights negated, as pyNN.nest does"
    translations = IF_cond_exp.translations  # pyNN.nest's, the same as IF_cond_exp's
    variable_map = IF_cond_exp.variable_map
    scale_factors = IF_cond_exp.scale_factors
    spikex_model = "iaf_cond_alpha"
    weight_scale = 1.0


class Izhikevich(cells.Izhikevich):
    __doc__ = cells.Izhikevich.__doc__
    differences = "weights in mV (pyNN.nest's receptor_scale); the same spikes as NEST"
    translations = build_translations(
        ("a", "a"), ("b", "b"), ("c", "c"), ("d", "d"), ("i_offset", "I_e", 1000.0)
    )
    variable_map = {"v": "V_m", "u": "U_m"}
    scale_factors = {"v": 1.0, "u": 1.0}
    spikex_model = "izhikevich"
    weight_scale = 1e-3  # weights are jumps of V in mV (pyNN.nest's receptor_scale)


class HH_cond_exp(cells.HH_cond_exp):
    __doc__ = cells.HH_cond_exp.__doc__
    differences = "the same spikes and traces as NEST's (`hh_cond_exp_traub` is bit-identical to NEST 3.10's)"
    translations = build_translations(  # pyNN.nest's
        ("gbar_Na", "g_Na", 1000.0),
        ("gbar_K", "g_K", 1000.0),
        ("g_leak", "g_L", 1000.0),
        ("cm", "C_m", 1000.0),
        ("v_offset", "V_T"),
        ("e_rev_Na", "E_Na"),
        ("e_rev_K", "E_K"),
        ("e_rev_leak", "E_L"),
        ("e_rev_E", "E_ex"),
        ("e_rev_I", "E_in"),
        ("tau_syn_E", "tau_syn_ex"),
        ("tau_syn_I", "tau_syn_in"),
        ("i_offset", "I_e", 1000.0),
    )
    variable_map = {"v": "V_m", "gsyn_exc": "g_ex", "gsyn_inh": "g_in", "m": "Act_m", "n": "Act_n", "h": "Inact_h"}
    scale_factors = {"v": 1.0, "gsyn_exc": 0.001, "gsyn_inh": 0.001, "m": 1.0, "n": 1.0, "h": 1.0}
    spikex_model = "hh_cond_exp_traub"
    weight_scale = 1.0


class IF_cond_exp_gsfa_grr(cells.IF_cond_exp_gsfa_grr):
    __doc__ = cells.IF_cond_exp_gsfa_grr.__doc__
    differences = "inhibitory weights negated, as pyNN.nest does; traces bit-identical to NEST's"
    translations = {  # pyNN.nest's: IF_cond_exp's and the adaptation's
        **IF_cond_exp.translations,
        **build_translations(
            ("tau_sfa", "tau_sfa"), ("e_rev_sfa", "E_sfa"), ("q_sfa", "q_sfa"),
            ("tau_rr", "tau_rr"), ("e_rev_rr", "E_rr"), ("q_rr", "q_rr"),
        ),
    }  # fmt: skip
    variable_map = {"v": "V_m", "gsyn_exc": "g_ex", "gsyn_inh": "g_in", "g_rr": "g_rr", "g_sfa": "g_sfa"}
    scale_factors = {"v": 1.0, "gsyn_exc": 0.001, "gsyn_inh": 0.001, "g_rr": 0.001, "g_sfa": 0.001}
    spikex_model = "iaf_cond_exp_sfa_rr"
    weight_scale = 1.0


class GIF_cond_exp(cells.GIF_cond_exp):
    __doc__ = cells.GIF_cond_exp.__doc__
    differences = "its escape noise from each cell's own stream (the same in law as NEST's, not the same draws)"
    translations = build_translations(  # pyNN.nest's
        ("v_rest", "E_L"), ("cm", "C_m", 1000.0), ("tau_m", "g_L", "cm/tau_m*1000.0", "C_m/g_L"),
        ("tau_refrac", "t_ref"), ("tau_syn_E", "tau_syn_ex"), ("tau_syn_I", "tau_syn_in"), ("e_rev_E", "E_ex"),
        ("e_rev_I", "E_in"), ("v_reset", "V_reset"), ("i_offset", "I_e", 1000.0), ("delta_v", "Delta_V"),
        ("v_t_star", "V_T_star"), ("lambda0", "lambda_0"), ("tau_eta", "tau_stc"), ("tau_gamma", "tau_sfa"),
        ("a_eta", "q_stc", 1000.0), ("a_gamma", "q_sfa"),
    )  # fmt: skip
    variable_map = {"v": "V_m", "gsyn_exc": "g_ex", "gsyn_inh": "g_in", "i_eta": "I_stc", "v_t": "E_sfa"}
    scale_factors = {"v": 1.0, "gsyn_exc": 0.001, "gsyn_inh": 0.001, "i_eta": 0.001, "v_t": 1.0}
    spikex_model = "gif_cond_exp"
    weight_scale = 1.0


_EIF_TRANSLATIONS = build_translations(  # pyNN.nest's
    ("cm", "C_m", 1000.0), ("tau_refrac", "t_ref"), ("v_spike", "V_peak"), ("v_reset", "V_reset"),
    ("v_rest", "E_L"), ("tau_m", "g_L", "cm/tau_m*1000.0", "C_m/g_L"), ("i_offset", "I_e", 1000.0),
    ("a", "a"), ("b", "b", 1000.0), ("delta_T", "Delta_T"), ("tau_w", "tau_w"), ("v_thresh", "V_th"),
    ("e_rev_E", "E_ex"), ("tau_syn_E", "tau_syn_ex"), ("e_rev_I", "E_in"), ("tau_syn_I", "tau_syn_in"),
)  # fmt: skip


class EIF_cond_exp_isfa_ista(cells.EIF_cond_exp_isfa_ista):
    __doc__ = cells.EIF_cond_exp_isfa_ista.__doc__
    differences = "inhibitory weights negated, as pyNN.nest does"
    translations = _EIF_TRANSLATIONS
    variable_map = {"v": "V_m", "gsyn_exc": "g_ex", "gsyn_inh": "g_in", "w": "w"}
    scale_factors = {"v": 1.0, "gsyn_exc": 0.001, "gsyn_inh": 0.001, "w": 0.001}
    spikex_model = "aeif_cond_exp"
    weight_scale = 1.0


class EIF_cond_alpha_isfa_ista(cells.EIF_cond_alpha_isfa_ista):
    __doc__ = cells.EIF_cond_alpha_isfa_ista.__doc__
    differences = "inhibitory weights negated, as pyNN.nest does"
    translations = _EIF_TRANSLATIONS
    variable_map = EIF_cond_exp_isfa_ista.variable_map
    scale_factors = EIF_cond_exp_isfa_ista.scale_factors
    spikex_model = "aeif_cond_alpha"
    weight_scale = 1.0


class SpikeSourcePoisson(cells.SpikeSourcePoisson):
    __doc__ = cells.SpikeSourcePoisson.__doc__
    differences = "feeding one target each and not recorded: `poisson_generator` (every event passed); otherwise events sharing a step merge, with a warning above 0.5 %"
    translations = build_translations(
        ("rate", "rate"),
        ("start", "start"),
        ("duration", "stop", "start+duration", "stop-start"),
    )
    variable_map = {}
    scale_factors = {}
    spikex_model = "spike_source_poisson"


class SpikeSourceArray(cells.SpikeSourceArray):
    __doc__ = cells.SpikeSourceArray.__doc__
    differences = "a time is emitted at the end of its step, as pyNN.nest delivers it; times sharing a step are one spike (a warning); times at or below min_delay are kept (pyNN.nest drops them); an on-grid time stays on its step, where pyNN.nest's t - min_delay can land a rounding error past a grid point and move the spike one step later (70.4 ms with min_delay 0.1); recorded as stamps, pyNN.nest records the given times"
    translations = build_translations(("spike_times", "spike_times"))
    variable_map = {}
    scale_factors = {}
    spikex_model = "spike_source_array"


class SpikeSourceGamma(cells.SpikeSourceGamma):
    __doc__ = cells.SpikeSourceGamma.__doc__
    differences = "NEST's process in law (other random numbers); `start` and `duration` work (pyNN.nest refuses them)"
    translations = build_translations(  # pyNN.nest's, with start and stop
        ("alpha", "gamma_shape"),
        ("beta", "rate", "beta/alpha", "gamma_shape * rate"),
        ("start", "start"),
        ("duration", "stop", "start+duration", "stop-start"),
    )
    variable_map, scale_factors = {}, {}
    spikex_model = "spike_source_gamma"


class SpikeSourcePoissonRefractory(cells.SpikeSourcePoissonRefractory):
    __doc__ = cells.SpikeSourcePoissonRefractory.__doc__
    differences = SpikeSourceGamma.differences
    translations = build_translations(
        ("rate", "rate"),
        ("tau_refrac", "dead_time"),
        ("start", "start"),
        ("duration", "stop", "start+duration", "stop-start"),
    )
    variable_map, scale_factors = {}, {}
    spikex_model = "spike_source_poisson_refractory"


class StaticSynapse(synapses.StaticSynapse):
    __doc__ = synapses.StaticSynapse.__doc__
    translations = build_translations(("weight", "weight", 1000.0), ("delay", "delay"))

    def _get_minimum_delay(self):
        return simulator.state.min_delay


def _alpha_from_a_minus(**parameters):
    """NEST's alpha = A_minus / A_plus (A_minus itself when A_plus is 0: then alpha does
    nothing, and keeping A_minus lets it be read back)."""
    a_plus = parameters["A_plus"]
    return parameters["A_minus"] if a_plus == 0 else parameters["A_minus"] / a_plus


def _a_minus_from_alpha(**parameters):
    learning_rate = parameters["lambda"]
    return parameters["alpha"] if learning_rate == 0 else parameters["alpha"] * learning_rate


class STDPMechanism(synapses.STDPMechanism):
    """Spike-pair STDP: spikex's ``stdp_synapse`` (NEST's, as in pyNN.nest). The whole
    delay is dendritic; the rule's parameters are the same for every connection of a
    projection; ``tau_minus`` is set on the postsynaptic cells (docs/models/stdp_synapse.md)."""

    __doc__ = synapses.STDPMechanism.__doc__
    base_translations = build_translations(
        ("weight", "weight", 1000.0),
        ("delay", "delay"),
        ("dendritic_delay_fraction", "dendritic_delay_fraction"),
    )
    spikex_synapse = "stdp_synapse"

    def __init__(self, timing_dependence=None, weight_dependence=None, voltage_dependence=None,
                 dendritic_delay_fraction=1.0, weight=0.0, delay=None):  # fmt: skip
        if dendritic_delay_fraction != 1:
            raise NotImplementedError(
                f"spikex.pynn: STDPMechanism dendritic_delay_fraction = {dendritic_delay_fraction}: only 1 "
                "(the whole delay dendritic, as NEST) is supported"
            )
        if voltage_dependence is not None:
            raise NotImplementedError(
                "spikex.pynn: STDPMechanism voltage_dependence is not supported"
            )
        for component, kinds in (
            (timing_dependence, (SpikePairRule,)),
            (weight_dependence, WEIGHT_DEPENDENCES),
        ):
            if component is not None and not isinstance(component, kinds):
                raise NotImplementedError(
                    f"spikex.pynn: STDP component {type(component).__name__} is not supported (supported: "
                    "SpikePairRule with AdditiveWeightDependence, MultiplicativeWeightDependence, "
                    "AdditivePotentiationMultiplicativeDepression or GutigWeightDependence)"
                )
        if timing_dependence is None or weight_dependence is None:
            raise NotImplementedError(
                "spikex.pynn: STDPMechanism needs a timing and a weight dependence"
            )
        super().__init__(timing_dependence, weight_dependence, voltage_dependence, dendritic_delay_fraction,
                         weight, delay)  # fmt: skip

    def _build_translations(self):
        # A copy: PyNN's base class extends the class's own dictionary in place.
        self.translations = dict(self.base_translations)
        for component in (self.timing_dependence, self.weight_dependence):
            self.translations.update(component.translations)

    def _get_minimum_delay(self):
        return simulator.state.min_delay


class SpikePairRule(synapses.SpikePairRule):
    __doc__ = synapses.SpikePairRule.__doc__
    translations = build_translations(
        ("tau_plus", "tau_plus"),
        ("tau_minus", "tau_minus"),  # a parameter of the postsynaptic cell
        ("A_plus", "lambda"),
        ("A_minus", "alpha", _alpha_from_a_minus, _a_minus_from_alpha),
    )
    possible_models = {"stdp_synapse"}


class TsodyksMarkramSynapse(synapses.TsodyksMarkramSynapse):
    __doc__ = synapses.TsodyksMarkramSynapse.__doc__
    translations = build_translations(  # pyNN.nest's
        ("weight", "weight", 1000.0),
        ("delay", "delay"),
        ("U", "U"),
        ("tau_rec", "tau_rec"),
        ("tau_facil", "tau_fac"),
    )
    spikex_synapse = "tsodyks_synapse"

    def _get_minimum_delay(self):
        return simulator.state.min_delay


class SimpleStochasticSynapse(synapses.SimpleStochasticSynapse):
    __doc__ = synapses.SimpleStochasticSynapse.__doc__
    translations = build_translations(("weight", "weight", 1000.0), ("delay", "delay"), ("p", "p_transmit"))  # pyNN.nest's
    spikex_synapse = "bernoulli_synapse"

    def _get_minimum_delay(self):
        return simulator.state.min_delay


class MultiQuantalSynapse(synapses.MultiQuantalSynapse):
    __doc__ = synapses.MultiQuantalSynapse.__doc__
    translations = build_translations(  # pyNN.nest's
        ("weight", "weight", 1000.0), ("delay", "delay"), ("U", "U"), ("n", "n"), ("tau_rec", "tau_rec"),
        ("tau_facil", "tau_fac"),
    )  # fmt: skip
    spikex_synapse = "quantal_stp_synapse"

    def _get_minimum_delay(self):
        return simulator.state.min_delay


class StochasticTsodyksMarkramSynapse(synapses.StochasticTsodyksMarkramSynapse):
    __doc__ = synapses.StochasticTsodyksMarkramSynapse.__doc__
    translations = build_translations(  # pyNN.nest's
        ("weight", "weight", 1000.0), ("delay", "delay"), ("U", "U"), ("tau_rec", "tau_rec"), ("tau_facil", "tau_fac"),
    )  # fmt: skip
    spikex_synapse = "stochastic_stp_synapse"

    def _get_minimum_delay(self):
        return simulator.state.min_delay


def _no_w_min(kind: str, w_min) -> None:
    if w_min != 0:
        raise NotImplementedError(
            f"spikex.pynn: {kind} w_min = {w_min}: only 0 is supported (as in NEST)"
        )


_WEIGHT_BOUNDS = build_translations(("w_max", "Wmax", 1000.0), ("w_min", "w_min"))


def _fixed_mu_dependence(base, mu_plus: float, mu_minus: float):
    """PyNN's weight dependence `base` as stdp_synapse with fixed exponents (NEST's
    translation: additive mu = 0, multiplicative mu = 1), w_min = 0 only."""

    def __init__(self, w_min=0.0, w_max=1.0):
        _no_w_min(base.__name__, w_min)
        base.__init__(self, w_min, w_max)

    return type(base.__name__, (base,), {
        "__doc__": base.__doc__, "__init__": __init__, "translations": _WEIGHT_BOUNDS,
        "possible_models": {"stdp_synapse"}, "extra_parameters": {"mu_plus": mu_plus, "mu_minus": mu_minus},
    })  # fmt: skip


AdditiveWeightDependence = _fixed_mu_dependence(synapses.AdditiveWeightDependence, 0.0, 0.0)
MultiplicativeWeightDependence = _fixed_mu_dependence(
    synapses.MultiplicativeWeightDependence, 1.0, 1.0
)
AdditivePotentiationMultiplicativeDepression = _fixed_mu_dependence(
    synapses.AdditivePotentiationMultiplicativeDepression, 0.0, 1.0
)


class GutigWeightDependence(synapses.GutigWeightDependence):
    __doc__ = synapses.GutigWeightDependence.__doc__
    translations = build_translations(
        ("w_max", "Wmax", 1000.0),
        ("w_min", "w_min"),
        ("mu_plus", "mu_plus"),
        ("mu_minus", "mu_minus"),
    )
    possible_models = {"stdp_synapse"}

    def __init__(self, w_min=0.0, w_max=1.0, mu_plus=0.5, mu_minus=0.5):
        _no_w_min("GutigWeightDependence", w_min)
        super().__init__(w_min, w_max, mu_plus, mu_minus)


WEIGHT_DEPENDENCES = (
    AdditiveWeightDependence,
    MultiplicativeWeightDependence,
    AdditivePotentiationMultiplicativeDepression,
    GutigWeightDependence,
)
# The native parameters of the rule spikex's stdp_synapse takes (the rest: weight, delay,
# tau_minus of the postsynaptic cell, w_min = 0, dendritic_delay_fraction = 1).
STDP_RULE_PARAMETERS = ("tau_plus", "lambda", "alpha", "mu_plus", "mu_minus", "Wmax")


class _CurrentSource:
    """What spikex's current sources share: native parameters kept here, targets
    remembered at inject_into, and at build a spikex device with its inputs to the local
    targets. NEST's timing as in pyNN.nest: the current reaches the cells one step after
    the device (the connection's delay is dt), so the device's times move one step
    earlier (``_device_params``)."""

    spikex_model = ""

    def __init__(self, **parameters):
        object.__setattr__(self, "_native", {})
        object.__setattr__(self, "_targets", [])
        super().__init__(**parameters)
        native = self.translate(self.parameter_space)
        native.shape = (1,)
        native.evaluate(simplify=True)
        object.__setattr__(self, "_native", self._accepted({k: _native_value(v) for k, v in native.items()}))
        simulator.state.current_sources.append(self)

    def set_native_parameters(self, parameters):
        parameters.shape = (1,)
        parameters.evaluate(simplify=True)
        self._native.update(self._accepted({k: _native_value(v) for k, v in parameters.items()}))
        device = self.__dict__.get("_device")
        if device is None or not simulator.state.change_running([device], self._device_params(simulator.state.dt)):
            simulator.state.changed("changing a current source")

    def record(self):
        raise NotImplementedError(
            f"spikex.pynn: recording a {type(self).__name__}'s current is not supported (record the cells' v "
            "or the injected cells' state instead)"
        )

    def _accepted(self, native: dict) -> dict:
        """Native values as this source keeps them (checked; a subclass may normalise)."""
        return native

    def get_native_parameters(self):
        import numpy as np
        from pyNN.parameters import ParameterSpace

        # lists as arrays (as NEST's GetStatus gives them): PyNN reads source.times[0]
        return ParameterSpace({k: np.asarray(v) if isinstance(v, list) else v for k, v in self._native.items()})

    def inject_into(self, cells):
        targets = [int(c) for c in cells]
        for cell in cells:
            if not cell.celltype.injectable:
                raise TypeError("Can't inject current into a spike source.")
        simulator.state.changed("injecting a current")
        self._targets.extend(targets)

    def _create_in(self, net) -> None:
        if not self._targets:
            return
        dt = simulator.state.dt
        generator = net.create(self.spikex_model, 1, params=self._device_params(dt))
        object.__setattr__(self, "_device", generator.first_gid)
        local = set(net.local_gids().tolist())
        targets = [t for t in self._targets if t in local]
        if targets:
            net.connect(generator.first_gid, targets, weight=1.0, delay_ms=dt, local=True)


def _native_value(value):
    """A native parameter as a float, or a list of floats (PyNN's Sequence)."""
    from pyNN.parameters import Sequence

    if isinstance(value, Sequence):
        return [float(x) for x in value.value]
    if isinstance(value, (list, tuple)) or getattr(value, "ndim", 0) > 0:
        return [float(x) for x in value]
    return float(value)


class DCSource(_CurrentSource, electrodes.DCSource):
    """A constant current from ``start`` to ``stop`` (nA, ms) into the cells it is injected
    into: a spikex ``dc_generator`` with NEST's timing (PyNN's pyNN.nest does the same)."""

    __doc__ = electrodes.DCSource.__doc__
    differences = "NEST's timing, as pyNN.nest; amplitude changes after `run()` apply from then on"
    translations = build_translations(
        ("amplitude", "amplitude", 1000.0),
        ("start", "start"),
        ("stop", "stop"),
    )
    spikex_model = "dc_generator"

    def _device_params(self, dt: float) -> dict:
        start = max(0.0, self._native["start"] - dt)
        stop = max(start, self._native["stop"] - dt)
        return {"amplitude": self._native["amplitude"], "start": start, "stop": stop}


class StepCurrentSource(_CurrentSource, electrodes.StepCurrentSource):
    """A piecewise constant current (nA) changing at ``times`` (ms): a spikex
    ``step_current_generator`` with pyNN.nest's timing (times one step earlier, times
    before dt moved to dt, rounded to the grid, the last amplitude of a repeated step)."""

    __doc__ = electrodes.StepCurrentSource.__doc__
    differences = (
        "pyNN.nest's timing: times one step earlier on a one-step delay, early times moved to dt, "
        "rounded to the grid"
    )
    translations = build_translations(
        ("amplitudes", "amplitude_values", 1000.0),
        ("times", "amplitude_times"),
    )
    spikex_model = "step_current_generator"

    def _accepted(self, native: dict) -> dict:
        """Times checked (not negative, increasing: ValueError as PyNN's backends), rounded
        to the grid, and of several times on one step the last kept, as PyNN's backends
        report them (``source.times``)."""
        import numpy as np

        if "amplitude_times" not in native:
            return native
        times = np.asarray(native["amplitude_times"], dtype=float)
        amplitudes = np.asarray(native.get("amplitude_values", self._native.get("amplitude_values", [])), dtype=float)
        if times.size != amplitudes.size:
            raise ValueError("StepCurrentSource: times and amplitudes must have the same length")
        if times.size and np.min(times) < 0:
            raise ValueError("Step current cannot accept negative timestamps.")
        if times.size > 1 and np.min(np.diff(times)) <= 0:
            raise ValueError("Step current timestamps should be monotonically increasing.")
        dt = simulator.state.dt
        steps = np.rint(times / dt).astype(np.int64)
        last = np.append(steps[1:] != steps[:-1], True) if steps.size else steps.astype(bool)
        return {**native, "amplitude_times": (steps[last] * dt).tolist(), "amplitude_values": amplitudes[last].tolist()}

    def _device_params(self, dt: float) -> dict:
        import numpy as np

        times = np.asarray(self._native["amplitude_times"], dtype=float)
        amplitudes = np.asarray(self._native["amplitude_values"], dtype=float)
        times = np.maximum(times - dt, 0.0)
        last_early = np.searchsorted(times, dt + 1e-9 * dt, side="right") - 1
        if last_early >= 0:  # the latest change at or before dt applies from dt on
            times[last_early] = dt
            times, amplitudes = times[last_early:], amplitudes[last_early:]
        steps = np.rint(times / dt).astype(np.int64)
        keep = np.append(steps[1:] != steps[:-1], True) if steps.size else steps.astype(bool)
        return {
            "amplitude_times": (steps[keep] * dt).tolist(),
            "amplitude_values": amplitudes[keep].tolist(),
        }


class ACSource(_CurrentSource, electrodes.ACSource):
    """A sine current (nA, Hz, degrees) from ``start`` to ``stop``: a spikex
    ``ac_generator`` (NEST's recurrence) with pyNN.nest's timing and phase correction."""

    __doc__ = electrodes.ACSource.__doc__
    differences = "pyNN.nest's timing and phase correction; cannot change after `run()` (its sine runs on)"
    translations = build_translations(
        ("amplitude", "amplitude", 1000.0),
        ("start", "start"),
        ("stop", "stop"),
        ("frequency", "frequency"),
        ("offset", "offset", 1000.0),
        ("phase", "phase"),
    )
    spikex_model = "ac_generator"

    def _device_params(self, dt: float) -> dict:
        n = self._native
        start = max(0.0, n["start"] - dt)
        # pyNN.nest's phase: the sine is zero-phased at the given start, not at time 0
        phase = n["phase"] - 360.0 * n["frequency"] * n["start"] / 1000.0
        return {"amplitude": n["amplitude"], "offset": n["offset"], "frequency": n["frequency"],
                "phase": phase, "start": start, "stop": max(start, n["stop"] - dt)}  # fmt: skip


class NoisyCurrentSource(_CurrentSource, electrodes.NoisyCurrentSource):
    """A Gaussian current (nA) redrawn every ``dt`` from ``start`` to ``stop``: a spikex
    ``noise_generator`` (a draw per target from its own stream) with pyNN.nest's timing."""

    __doc__ = electrodes.NoisyCurrentSource.__doc__
    differences = "pyNN.nest's timing; the same statistics, other draws (spikex's streams are per target and layout-free)"
    translations = build_translations(
        ("mean", "mean", 1000.0),
        ("start", "start"),
        ("stop", "stop"),
        ("stdev", "std", 1000.0),
        ("dt", "dt"),
    )
    spikex_model = "noise_generator"

    def _device_params(self, dt: float) -> dict:
        n = self._native
        start = max(0.0, n["start"] - dt)
        return {"mean": n["mean"], "std": n["std"], "dt": n["dt"], "start": start, "stop": max(start, n["stop"] - dt)}


CURRENT_SOURCES = (DCSource, StepCurrentSource, ACSource, NoisyCurrentSource)
# (type, spikex synapse, differences from pyNN.nest) for the generated table.
SYNAPSE_TYPES = (
    (StaticSynapse, "static synapses", ""),
    (
        TsodyksMarkramSynapse,
        "[`tsodyks_synapse`](../models/tsodyks_synapse.md)",
        "as pyNN.nest, `tau_psc` is the target's `tau_syn_E` (`tau_syn_I` on inhibitory projections); one value "
        "of `U`, `tau_rec`, `tau_facil` and `tau_psc` per projection (otherwise refused by name); the weights per "
        "spike are NEST's bit for bit",
    ),
    (
        SimpleStochasticSynapse,
        "[`bernoulli_synapse`](../models/bernoulli_synapse.md)",
        "one value of `p` per projection (otherwise refused by name); which spikes cross are spikex's draws "
        "(the same on any layout), not NEST's: the same law",
    ),
    (
        MultiQuantalSynapse,
        "[`quantal_stp_synapse`](../models/quantal_stp_synapse.md)",
        "one value of `U`, `n`, `tau_rec`, `tau_facil` per projection, and of the initial `a` and `u` "
        "(`Projection.initialize`); as in pyNN.nest `a` starts at 1 unless initialized; spikex's draws, NEST's law",
    ),
    (
        StochasticTsodyksMarkramSynapse,
        "[`stochastic_stp_synapse`](../models/stochastic_stp_synapse.md)",
        "pyNN.nest needs PyNN's NEST extension for it (not in NEST's wheel); spikex runs the extension's algorithm; "
        "one value of `U`, `tau_rec`, `tau_facil` per projection",
    ),
    (
        STDPMechanism,
        "[`stdp_synapse`](../models/stdp_synapse.md)",
        "`SpikePairRule` with the additive, multiplicative, mixed or Gütig weight dependence; `w_min = 0`, "
        "`dendritic_delay_fraction = 1` and one value of each rule parameter per projection, as NEST "
        "(otherwise refused by name)",
    ),
)

STANDARD_CELL_TYPES = (
    IF_curr_alpha,
    IF_curr_exp,
    IF_curr_delta,
    IF_cond_exp,
    IF_cond_alpha,
    Izhikevich,
    HH_cond_exp,
    IF_cond_exp_gsfa_grr,
    GIF_cond_exp,
    EIF_cond_exp_isfa_ista,
    EIF_cond_alpha_isfa_ista,
    SpikeSourcePoisson,
    SpikeSourceArray,
    SpikeSourceGamma,
    SpikeSourcePoissonRefractory,
)
