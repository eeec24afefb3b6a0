"""Progress of `spikex run` off a terminal: plain lines with simulated time, wall time,
time left and spikes per second, every --progress-every seconds; a run shorter than one
period prints nothing (stderr stays clean, as the contract says)."""

from __future__ import annotations

import io
import re

import pytest
from conftest import run_cli
from spikex.launch.progress import ProgressLines, ProgressSample

# Long enough for several lines at 0.1 s even on 2 ranks (5,000 ms took 0.15 s there once
# interval_fire's inputs went eight at a time, and printed none).
TSTOP_MS = 30000.0
LINE = re.compile(
    r"^spikex: +[\d.]+ % [\d.]+ / 30000\.0 ms simulated, wall \d+:\d\d:\d\d"
    r"(, left ~\d+:\d\d:\d\d, [\d.e+]+ spikes/s)?$"
)


@pytest.mark.slow
@pytest.mark.parametrize("ranks", [1, pytest.param(2, marks=pytest.mark.mpi)])
def test_a_long_run_off_a_terminal_prints_plain_progress_lines(small_config, tmp_path, ranks):
    done = run_cli(["run", str(small_config), "--np", str(ranks), "--set", f"simulation.tstop_ms={TSTOP_MS:g}",
                    "--progress-every", "0.1", "-o", str(tmp_path / "out")])  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) >= 2 and all(LINE.match(line) for line in lines), done.stderr
    assert lines[-1].startswith("spikex: 100.0 % 30000.0 / 30000.0 ms") and "spikes/s" in lines[-1]


@pytest.mark.slow
def test_a_short_run_and_progress_none_print_nothing(small_config, tmp_path):
    for k, extra in enumerate(([], ["--progress", "none", "--progress-every", "0.1"])):
        done = run_cli(["run", str(small_config), *extra, "-o", str(tmp_path / f"out{k}")])
        assert done.returncode == 0 and done.stderr == ""


def test_lines_report_the_rate_and_the_time_left():
    stream = io.StringIO()
    lines = ProgressLines(100.0, "job", every_s=0.0, stream=stream)
    lines.update(ProgressSample(10.0, 1000))
    lines.update(ProgressSample(55.0, 5500))
    lines.update(ProgressSample(100.0, 10000))
    text = stream.getvalue().splitlines()
    assert text[0].startswith("job:  10.0 % 10.0 / 100.0 ms simulated, wall 0:00:00")
    assert "left ~0:00:00" in text[1] and "spikes/s" in text[1]
    assert text[-1].startswith("job: 100.0 % 100.0 / 100.0 ms")
