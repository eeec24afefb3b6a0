"""PyNN's TsodyksMarkramSynapse on spikex.pynn against pyNN.nest (NEST 3.10): one script
(bench/nest/pynn_short_term.py, after PyNN's examples/tsodyksmarkram.py) under both
backends. Static, depressing and facilitating projections onto IF_cond_exp cells of
three tau_syn_I (pyNN.nest's tau_psc per target): the same gsyn_inh and v at every step
(both the synapse's weights and iaf_cond_exp's integration are NEST's bit for bit).
Without NEST and PyNN in NEST's environment the test skips (fails under CI)."""

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
SCRIPT = REPO / "bench" / "nest" / "pynn_short_term.py"


@pytest.fixture(scope="module")
def both():
    require_nest(_pynn_in_nest_reason())
    nest = run_exact.run_nest_script(SCRIPT, args=["nest"])
    assert nest.returncode == 0, nest.stderr[-2000:]
    mine = subprocess.run([sys.executable, str(SCRIPT), "spikex"], capture_output=True, text=True, check=False,
                          timeout=300, stdin=subprocess.DEVNULL)  # fmt: skip
    assert mine.returncode == 0, mine.stderr[-2000:]
    return json.loads(nest.stdout.strip().splitlines()[-1]), json.loads(mine.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("label", ["static", "depressing", "facilitating"])
@pytest.mark.parametrize("variable", ["gsyn_inh", "v"])
def test_same_traces(both, label, variable):
    theirs, mine = both
    a, b = np.asarray(theirs[f"{label}.{variable}"]), np.asarray(mine[f"{label}.{variable}"])
    assert a.shape == b.shape and a.shape[1] == 3
    assert np.ptp(a) > 0
    np.testing.assert_allclose(b, a, rtol=0, atol=1e-12)


def test_short_term_plasticity_shapes_the_responses(both):
    _, mine = both
    static = np.asarray(mine["static.gsyn_inh"]).max(axis=0)
    depressing = np.asarray(mine["depressing.gsyn_inh"]).max(axis=0)
    assert np.all(depressing < static)  # U = 0.5 and depression: every response below the static one
