"""bench/pynn: the page is generated from its JSON, and the runner makes an unchanged
PyNN script (which imports ``pyNN.<simulator>`` by name) run on spikex.pynn."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import REPO

pytest.importorskip("pyNN")
sys.path.insert(0, str(REPO / "bench" / "pynn"))
import run as bench_pynn  # noqa: E402


def test_page_is_generated_from_the_results():
    results = __import__("json").loads(bench_pynn.RESULTS.read_text())
    assert bench_pynn.PAGE.read_text() == bench_pynn.report(results)
    for runs in results["benchmarks"].values():
        assert set(runs) == set(bench_pynn.SIMULATORS)


@pytest.mark.slow
def test_a_script_naming_its_simulator_runs_on_spikex(tmp_path):
    script = tmp_path / "example.py"
    script.write_text(
        "from pyNN.utility import get_script_args\n"
        "name = get_script_args(1)[0]\n"
        "exec('from pyNN.%s import *' % name)\n"
        "setup(timestep=0.1)\n"
        "p = Population(3, IF_curr_exp(i_offset=1.0))\n"
        "p.record('spikes')\n"
        "run(100.0)\n"
        "print('SPIKES', sum(len(t) for t in p.get_data().segments[0].spiketrains), simulator.state.__module__)\n"
        "end()\n"
    )
    done = subprocess.run([sys.executable, str(REPO / "bench" / "pynn" / "as_backend.py"), "spikex", str(script)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("SPIKES")]
    count, module = line.split()[1:]
    assert int(count) > 3 and module == "spikex.pynn.simulator"
    assert "PEAK_RSS_MB" in done.stdout
