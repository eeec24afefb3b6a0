"""NESTML models on spikex against NESTML's own Python stand-alone target (issue 57's
validation; bench/nestml_standalone.py has the whole table): the same input, the same
spike steps, V_m equal for an exact model and within the stand-alone's SciPy RK45
tolerance (rtol 1e-3) for a numerical one."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("pynestml")
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from nestml_standalone import compare  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("loaded_models_forgotten")]


@pytest.mark.parametrize(
    "model, v_tolerance_mV",
    [("iaf_psc_exp_neuron", 1e-9), ("aeif_cond_exp_neuron", 0.07)],  # 0.07: rtol 1e-3 of |V_m| ~ 70 mV
)
def test_spikex_and_the_standalone_target_agree(nestml_build_cache, tmp_path, model, v_tolerance_mV):
    row = compare(model, nestml_build_cache, tmp_path, 100.0)
    assert row["first_change_step"]["spikex"] == row["first_change_step"]["standalone"]  # input aligned
    assert len(row["spikes"]["spikex"]) > 0
    assert row["spikes"]["spikex"] == row["spikes"]["standalone"]
    assert row["v_max_abs_difference_mV"] <= v_tolerance_mV
