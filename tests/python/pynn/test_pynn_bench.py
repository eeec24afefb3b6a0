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
        assert set(runs) == {*bench_pynn.SIMULATORS, "measured"}
        assert runs["measured"]["date"] and len(runs["measured"]["load_average"]) == 3


def test_entries_from_one_full_run_keep_its_date():
    """A file written by a full run (one date at the top) read for --only: every entry gets
    that date, so that the page still says when each was measured after one is replaced."""
    old = {"date": "D", "load_average": [1.0, 2.0, 3.0],
           "benchmarks": {"a": {"nest": {}, "spikex": {}},
                          "b": {"nest": {}, "spikex": {}, "measured": {"date": "E", "load_average": [4.0, 5.0, 6.0]}}}}  # fmt: skip
    out = bench_pynn.with_dates(old)
    assert out["benchmarks"]["a"]["measured"] == {"date": "D", "load_average": [1.0, 2.0, 3.0]}
    assert out["benchmarks"]["b"]["measured"]["date"] == "E"
    assert "date" not in out


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
