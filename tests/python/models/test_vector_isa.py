"""The conductance-based and HH models computed eight cells per AVX-512 register (with the
vector exp) give the same spikes and membrane traces as the baseline clone with libm's exp
per cell (SPIKEX_VECTOR_ISA=baseline): docs/dev/ode.md, "Cells side by side". So do
iaf_psc_exp's update clones and the Poisson drive's Philox columns (core/lane_isa.hpp),
which every model here gets from its poisson_generator. So do interval_fire's inputs eight
at a time (models/interval_fire_lanes.hpp)."""

import json
import os
import subprocess
import sys

import pytest

import spikex

MODELS = [
    "iaf_psc_exp",
    "iaf_cond_exp",
    "iaf_cond_alpha",
    "iaf_cond_exp_sfa_rr",
    "aeif_cond_exp",
    "aeif_cond_alpha",
    "hh_cond_exp_traub",
    "hh_psc_alpha",
    "gif_cond_exp",
    "glif_cond",
]

SCRIPT = """
import hashlib, json, sys
import numpy as np
import spikex as sx
from spikex import _core
out = {"isa": _core.vector_isa()}
for model in sys.argv[1:]:
    net = sx.Network(dt_ms=0.1, seed=3)
    cells = net.create(model, 60)
    drive = net.create("poisson_generator", 1, params={"rate": 9000.0})
    psc = model.startswith(("hh_psc", "iaf_psc"))
    strong = 12.0 if model.startswith(("aeif", "hh_cond")) else 3.0
    ports = {"receptor": 1} if model == "glif_cond" else {}  # its first port excitatory
    inhibitory = {"receptor": 2} if model == "glif_cond" else {}
    sign = 1.0 if model == "glif_cond" else -1.0  # glif_cond: weights >= 0, the port decides
    net.connect_rule("all_to_all", drive, cells, weight=60.0 if psc else strong, delay_ms=0.1, **ports)
    net.connect_rule("fixed_indegree", cells[0:48], cells, indegree=10, weight=20.0 if psc else 1.0, delay_ms=1.5,
                     **ports)
    net.connect_rule("fixed_indegree", cells[48:60], cells, indegree=3, weight=sign * (60.0 if psc else 4.0),
                     delay_ms=0.8, **inhibitory)
    net.record_spikes(cells)
    net.record_state(cells[0:6], "V_m", interval_ms=0.1)
    r = net.simulate(300.0)
    trace = np.ascontiguousarray(np.asarray(r.states[0]["values"], dtype=np.float64))
    out[model] = {"spikes": int(len(r.spike_steps)), "sha": r.spikes_sha256,
                  "trace": hashlib.sha256(trace.tobytes()).hexdigest()}
print(json.dumps(out))
"""


# interval_fire with weights that move and fire cells, bursts, and multapses (a cell met
# twice among eight inputs): its inputs eight at a time against one at a time.
INTERVAL_FIRE_SCRIPT = """
import json
import spikex as sx
from spikex import _core
net = sx.Network(dt_ms=0.025, seed=5)
cells = net.create("interval_fire", 3000, params={"burst_groups": 3, "burst_period_ms": 40.0})
net.connect_rule("fixed_indegree", cells[0:2400], cells, indegree=300, weight=0.004, delay_ms=1.0)
net.connect_rule("fixed_indegree", cells[2400:3000], cells, indegree=100, weight=-0.01, delay_ms=0.5)
net.record_spikes(cells)
r = net.simulate(300.0)
print(json.dumps({"isa": _core.vector_isa(), "spikes": int(len(r.spike_steps)), "sha": r.spikes_sha256}))
"""


def cpu_has_avx512() -> bool:
    with open("/proc/cpuinfo") as cpuinfo:
        return any(line.startswith("flags") and " avx512f" in line for line in cpuinfo)


def run(isa: str, script: str = SCRIPT, *arguments: str) -> dict:
    env = dict(os.environ, SPIKEX_VECTOR_ISA=isa, OMP_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-c", script, *arguments], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.slow
def test_wide_and_baseline_clones_agree_bit_for_bit():
    baseline = run("baseline", SCRIPT, *MODELS)
    wide = run("auto", SCRIPT, *MODELS)
    assert baseline.pop("isa") == "baseline"
    isa = wide.pop("isa")
    if isa == "baseline":
        assert not cpu_has_avx512(), "AVX-512 here, but the vector exp disagreed with std::exp at start-up"
        pytest.skip("this CPU has no AVX-512: only the baseline clone runs")
    for model in MODELS:
        assert baseline[model]["spikes"] > 50, (model, baseline[model])
        assert wide[model] == baseline[model], model


@pytest.mark.slow
def test_interval_fire_inputs_eight_at_a_time_give_the_baseline_spikes():
    baseline = run("baseline", INTERVAL_FIRE_SCRIPT)
    wide = run("auto", INTERVAL_FIRE_SCRIPT)
    assert baseline.pop("isa") == "baseline"
    if wide.pop("isa") == "baseline":
        assert not cpu_has_avx512(), "AVX-512 here, but the vector exp disagreed with std::exp at start-up"
        pytest.skip("this CPU has no AVX-512: only the baseline clone runs")
    assert baseline["spikes"] > 20000, baseline
    assert wide == baseline


def test_vector_isa_names_the_clone():
    assert spikex._core.vector_isa() in ("avx512", "baseline")
