"""PyNN's PointNeuron on spikex.pynn against pyNN.nest (NEST 3.10): one script
(bench/nest/pynn_point_neuron.py, after PyNN's examples/multi_synapse.py and
monolith_vs_composed.py) under both backends: LIF with three CurrExpPostSynapticResponses,
AdExp with four alpha and with two beta conductances, spike trains through every receptor
(by name: ports in the names' alphabetical order, as pyNN.nest numbers them). The same
spikes; the responses' currents and conductances and v agree to within rounding (the
models' own NEST tests bound them: tests/python/nest_validation/test_nest_psc_multisynapse.py,
test_nest_aeif*.py). Without NEST and PyNN in NEST's environment the test skips (fails
under CI)."""

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
SCRIPT = REPO / "bench" / "nest" / "pynn_point_neuron.py"
KINDS = ["lif", "adexp_alpha", "adexp_beta"]


@pytest.fixture(scope="module")
def both():
    require_nest(_pynn_in_nest_reason())
    nest = run_exact.run_nest_script(SCRIPT, args=["nest", *KINDS])
    assert nest.returncode == 0, nest.stderr[-2000:]
    mine = subprocess.run([sys.executable, str(SCRIPT), "spikex", *KINDS], capture_output=True, text=True,
                          check=False, timeout=300, stdin=subprocess.DEVNULL)  # fmt: skip
    assert mine.returncode == 0, mine.stderr[-2000:]
    return json.loads(nest.stdout.strip().splitlines()[-1]), json.loads(mine.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("kind", KINDS)
def test_same_spikes_and_traces(both, kind):
    theirs, mine = both
    names = sorted(k for k in theirs if k.startswith(kind + "."))
    assert names == sorted(k for k in mine if k.startswith(kind + "."))
    for a, b in zip(theirs[f"{kind}.spikes"], mine[f"{kind}.spikes"], strict=True):  # the same steps
        assert len(a) == len(b) and np.allclose(a, b, rtol=0, atol=1e-9), (a, b)
    assert sum(len(s) for s in mine[f"{kind}.spikes"]) > 0
    for name in names:
        if name.endswith(".spikes"):
            continue
        a, b = np.asarray(theirs[name]), np.asarray(mine[name])
        assert a.shape == b.shape, name
        assert np.ptp(a) > 0, f"{name} never moves: the input did not arrive"
        scale = max(1.0, float(np.max(np.abs(a))))
        np.testing.assert_allclose(b, a, rtol=0, atol=1e-9 * scale, err_msg=name)
