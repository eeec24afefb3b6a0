"""Configuration keys of a model's parameters, made from the model registry: the
``[network.<model>]`` keys of the models a configuration file can name (``network.model``)
take their type, default, range and sentence from the model's parameter specs
(spikex.models.MODELS), so a parameter has one definition wherever it is set."""

from __future__ import annotations

import math

from ..models import MODEL_PARAMETERS, MODELS
from .key import Key


def _sentence(spec: dict) -> str:
    meaning = spec["meaning"][0].upper() + spec["meaning"][1:]
    unit = "" if spec["unit"] in ("", "1") else f" [{spec['unit']}]"
    return f"{meaning}{unit}."


def model_keys(model: str) -> list[Key]:
    """One Key per parameter of `model` that MODEL_PARAMETERS maps to a configuration
    key, in the registry's order."""
    paths = MODEL_PARAMETERS[model]
    keys = []
    for spec in MODELS[model]["parameter_specs"]:
        path = paths.get(spec["name"])
        if path is None:
            continue
        r = spec["range"]
        integer = r["integer"]
        low = r["low"] if math.isfinite(r["low"]) else None
        high = r["high"] if math.isfinite(r["high"]) else None
        keys.append(
            Key(
                path,
                "int" if integer else "float",
                int(spec["default"]) if integer else spec["default"],
                _sentence(spec),
                minimum=(int(low) if integer and low is not None else low),
                maximum=high,
                exclusive_minimum=bool(r["low_open"]) and low is not None,
            )
        )
    return keys
