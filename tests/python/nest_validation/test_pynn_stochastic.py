"""PyNN's SimpleStochasticSynapse and MultiQuantalSynapse on spikex.pynn against pyNN.nest
(NEST 3.10), in statistics: one script (bench/nest/pynn_stochastic.py, after PyNN's
examples/multiquantal_synapses.py and stochastic_synapses.py) under both backends, 1000
cells per projection. At every spike of the train the mean response per cell (in units of
a static synapse's) agrees within 4.5 standard errors of the difference: the transmission
fraction of p = 0.3, the depressing quantal release initialized as the example does
(Projection.initialize(a=n, u=U): the first spike releases n U = 4 sites on average), and
n = 3 left uninitialized (NEST's initial a = 1 and u = 0.5, which spikex.pynn keeps:
the first spike releases 0.5 sites on average). Without NEST and PyNN in NEST's
environment the test skips (fails under CI)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from conftest import REPO, require_nest
from test_pynn_cond_exp import _pynn_in_nest_reason

sys.path.insert(0, str(REPO / "bench" / "nest"))
import run_exact

pytestmark = pytest.mark.slow  # NEST runs in a subprocess
SCRIPT = REPO / "bench" / "nest" / "pynn_stochastic.py"
CELLS = 1000


@pytest.fixture(scope="module")
def both():
    require_nest(_pynn_in_nest_reason())
    nest = run_exact.run_nest_script(SCRIPT, args=["nest"])
    assert nest.returncode == 0, nest.stderr[-2000:]
    mine = subprocess.run([sys.executable, str(SCRIPT), "spikex"], capture_output=True, text=True, check=False,
                          timeout=300, stdin=subprocess.DEVNULL)  # fmt: skip
    assert mine.returncode == 0, mine.stderr[-2000:]
    return json.loads(nest.stdout.strip().splitlines()[-1]), json.loads(
        mine.stdout.strip().splitlines()[-1]
    )


@pytest.mark.parametrize(
    ("label", "first"), [("stochastic", 0.3), ("depressing", 4.0), ("one_available", 0.5)]
)
def test_mean_response_per_spike_agrees_with_pynn_nest(both, label, first):
    theirs, mine = both
    mean_t, mean_m = np.asarray(theirs[label]["mean"]), np.asarray(mine[label]["mean"])
    var_t, var_m = np.asarray(theirs[label]["var"]), np.asarray(mine[label]["var"])
    assert mean_t.size == mean_m.size == 19
    error = np.sqrt((var_t + var_m) / CELLS)
    assert np.all(np.abs(mean_m - mean_t) <= 4.5 * error + 1e-9), (mean_m, mean_t)
    for mean, var in ((mean_m, var_m), (mean_t, var_t)):  # the first spike's expectation
        assert abs(mean[0] - first) <= 4.5 * np.sqrt(var[0] / CELLS) + 1e-9, (label, mean[0])
    assert np.all(var_m[1:] > 0)  # stochastic, not a fixed fraction
