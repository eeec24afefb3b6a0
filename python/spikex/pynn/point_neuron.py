"""PyNN's composed cell type, ``PointNeuron(neuron, **receptors)``, on spikex's
multisynapse models, as pyNN.nest builds it: the neuron part (``LIF``, ``AdExp``) and the
post-synaptic responses (``CurrExpPostSynapticResponse``, ``CondAlphaPostSynapticResponse``,
``CondBetaPostSynapticResponse``) choose one model whose receptor ports are the responses in
the alphabetical order of their names (port = index + 1, pyNN.nest's numbering). A
projection's ``receptor_type`` names the response; its connections go through that port.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
from pyNN import errors
from pyNN.parameters import ArrayParameter, ParameterSpace
from pyNN.standardmodels import build_translations, cells, receptors
from lazyarray import larray


class LIF(cells.LIF):
    __doc__ = cells.LIF.__doc__
    differences = "inside a `PointNeuron` only, as in pyNN.nest"
    translations = build_translations(  # pyNN.nest's
        ("v_rest", "E_L"),
        ("v_reset", "V_reset"),
        ("cm", "C_m", 1000.0),
        ("tau_m", "tau_m"),
        ("tau_refrac", "t_ref"),
        ("v_thresh", "V_th"),
        ("i_offset", "I_e", 1000.0),
    )
    variable_map = {"v": "V_m"}
    scale_factors = {"v": 1.0}
    possible_models = ("iaf_psc_exp_multisynapse",)  # pyNN.nest's also has iaf_psc_alpha_multisynapse: no PyNN response uses it


class AdExp(cells.AdExp):
    __doc__ = cells.AdExp.__doc__
    differences = "inside a `PointNeuron` only, as in pyNN.nest"
    translations = build_translations(  # pyNN.nest's
        ("cm", "C_m", 1000.0),
        ("tau_refrac", "t_ref"),
        ("v_spike", "V_peak"),
        ("v_reset", "V_reset"),
        ("v_rest", "E_L"),
        ("tau_m", "g_L", "cm/tau_m*1000.0", "C_m/g_L"),
        ("i_offset", "I_e", 1000.0),
        ("a", "a"),
        ("b", "b", 1000.0),
        ("delta_T", "Delta_T"),
        ("tau_w", "tau_w"),
        ("v_thresh", "V_th"),
    )
    variable_map = {"v": "V_m", "w": "w"}
    scale_factors = {"v": 1.0, "w": 0.001}
    possible_models = ("aeif_cond_alpha_multisynapse", "aeif_cond_beta_multisynapse")


class CurrExpPostSynapticResponse(receptors.CurrExpPostSynapticResponse):
    __doc__ = receptors.CurrExpPostSynapticResponse.__doc__
    translations = build_translations(("locations", "locations"), ("tau_syn", "tau_syn"))
    recordable = ["isyn"]
    variable_map = {"isyn": "I_syn"}
    scale_factors = {"isyn": 0.001}
    possible_models = ("iaf_psc_exp_multisynapse",)


class CondAlphaPostSynapticResponse(receptors.CondAlphaPostSynapticResponse):
    __doc__ = receptors.CondAlphaPostSynapticResponse.__doc__
    translations = build_translations(("locations", "locations"), ("e_syn", "E_rev"), ("tau_syn", "tau_syn"))
    recordable = ["gsyn"]
    variable_map = {"gsyn": "g"}
    scale_factors = {"gsyn": 0.001}
    possible_models = ("aeif_cond_alpha_multisynapse",)


class CondBetaPostSynapticResponse(receptors.CondBetaPostSynapticResponse):
    __doc__ = receptors.CondBetaPostSynapticResponse.__doc__
    translations = build_translations(
        ("locations", "locations"), ("e_syn", "E_rev"), ("tau_rise", "tau_rise"), ("tau_decay", "tau_decay")
    )
    recordable = ["gsyn"]
    variable_map = {"gsyn": "g"}
    scale_factors = {"gsyn": 0.001}
    possible_models = ("aeif_cond_beta_multisynapse",)


AlphaPSR = CondAlphaPostSynapticResponse
BetaPSR = CondBetaPostSynapticResponse


class PointNeuron(cells.PointNeuron):
    __doc__ = cells.PointNeuron.__doc__
    differences = (
        "ports numbered by the responses' names in alphabetical order, as pyNN.nest; each response's "
        "parameters one value for the population (pyNN.nest's restriction); conductance weights stay "
        "positive on every port"
    )
    standard_receptor_type = False
    weight_scale = 1.0  # the synapse translation gives pA or nS
    # Weights are never negated for a port model (pyNN's 'inhibitory' rule is for the
    # weight-sign convention of the two-receptor models).
    has_receptor_ports = True

    def __init__(self, neuron, **post_synaptic_receptors):
        if not hasattr(neuron, "possible_models"):
            raise errors.NoModelAvailableError(
                f"spikex.pynn: PointNeuron of {type(neuron).__name__}: the neuron part must be LIF or AdExp"
            )
        for name, psr in post_synaptic_receptors.items():
            if not hasattr(psr, "possible_models"):
                raise errors.NoModelAvailableError(
                    f"spikex.pynn: PointNeuron receptor {name!r}: {type(psr).__name__} is not supported "
                    "(CurrExpPostSynapticResponse, CondAlphaPostSynapticResponse, CondBetaPostSynapticResponse are)"
                )
        super().__init__(neuron, **post_synaptic_receptors)
        self.spikex_model  # refuses a combination no model implements, at creation

    def get_receptor_type(self, name: str) -> int:
        return self.receptor_types.index(name) + 1

    @property
    def spikex_model(self) -> str:
        models = [
            model
            for model in self.neuron.possible_models
            if all(model in psr.possible_models for psr in self.post_synaptic_receptors.values())
        ]
        if not models:
            kinds = sorted({type(p).__name__ for p in self.post_synaptic_receptors.values()})
            raise errors.NoModelAvailableError(
                f"spikex.pynn: no spikex model for PointNeuron({type(self.neuron).__name__}, {', '.join(kinds)}); "
                "LIF takes CurrExpPostSynapticResponse, AdExp CondAlpha- or CondBetaPostSynapticResponse "
                "(all of one kind)"
            )
        return models[0]

    @property
    def variable_map(self) -> dict[str, str]:
        out = dict(self.neuron.variable_map)
        for name, psr in self.post_synaptic_receptors.items():
            for variable, native in psr.variable_map.items():
                out[f"{name}.{variable}"] = f"{native}_{self.get_receptor_type(name)}"
        return out

    @property
    def native_parameters(self) -> ParameterSpace:
        """The neuron's native parameters and, per response parameter, the list of its
        values over the ports (one list for every cell)."""
        native = self.neuron.native_parameters
        lists = defaultdict(list)
        for name in self.receptor_types:
            for key, value in self.post_synaptic_receptors[name].native_parameters.items():
                if key == "locations":  # a point neuron has no morphology
                    continue
                if not value.is_homogeneous:
                    raise NotImplementedError(
                        f"spikex.pynn: PointNeuron receptor {name!r} parameter {key}: one value for the "
                        "population (as pyNN.nest)"
                    )
                value.shape = (1,)
                lists[key].append(float(np.asarray(value.evaluate(simplify=True)).ravel()[0]))
        native.update(**{key: larray(ArrayParameter(values), dtype=ArrayParameter) for key, values in lists.items()})
        return native

    def reverse_translate(self, native_parameters):
        return self.neuron.reverse_translate(native_parameters)

    def get_native_names(self, *names):
        return self.neuron.get_native_names(*[n for n in names if "." not in n])

    def response_parameter(self, name: str, size: int) -> np.ndarray:
        """A response's parameter in PyNN's units (``"GABAA.e_syn"``), per cell."""
        receptor, parameter = name.split(".", 1)
        if receptor not in self.post_synaptic_receptors:
            raise errors.NonExistentParameterError(name, self, self.get_parameter_names())
        value = self.post_synaptic_receptors[receptor].parameter_space[parameter]
        value.shape = (size,)
        return np.asarray(value.evaluate(simplify=False), dtype=float)


# The parts a PointNeuron is composed of, for the generated table of docs/user/pynn.md.
POINT_NEURON_PARTS = (
    LIF,
    AdExp,
    CurrExpPostSynapticResponse,
    CondAlphaPostSynapticResponse,
    CondBetaPostSynapticResponse,
)
