"""Per-interval instrumentation (record.timeline): timeline.h5 beside summary.json, rows
whose sums are the run totals, and the paper's rank-0 / mean / max computation time.
Also the configuration rules of the point-to-point keys."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import run_cli, run_config
from spikex.io.timeline import FLOAT_COLUMNS, INTEGER_COLUMNS, TIMELINE_FILE, read_timeline

CASES = {
    "allgather": (2, ("exchange.method=allgather",)),
    "multisend": (3, ("exchange.method=multisend", "exchange.subintervals=2", "exchange.phases=2")),
    "rma": (2, ("exchange.method=rma",)),
}


@pytest.mark.mpi
@pytest.mark.slow
@pytest.mark.parametrize("method", tuple(CASES))
def test_timeline_rows_sum_to_the_run_totals(small_config, tmp_path, method):
    ranks, sets = CASES[method]
    summary = run_config(small_config, tmp_path / "out", ranks, (*sets, "record.timeline=true"))
    timeline = read_timeline(tmp_path / "out" / TIMELINE_FILE)
    rows = timeline["step"].shape[1]
    for name in (*INTEGER_COLUMNS, *FLOAT_COLUMNS):
        assert timeline[name].shape == (ranks, rows), name
    assert timeline["attrs"]["method"] == method
    assert summary["timeline"]["rows"] == rows and summary["timeline"]["ranks"] == ranks

    # one row per synchronisation, every rank at the same steps; 100 intervals of 1 ms (an
    # end of a run_until call mid-way through an interval's deliveries adds a row at the
    # same step with a later `due`)
    assert (timeline["step"] == timeline["step"][0]).all()
    assert (timeline["due"] == timeline["due"][0]).all()
    step, due = timeline["step"][0], timeline["due"][0]
    assert np.all((np.diff(step) > 0) | ((np.diff(step) == 0) & (np.diff(due) > 0)))
    assert np.all(due <= step)
    assert timeline["step"][0, -1] == 4000
    expected_rows = 100 if summary["exchange"].get("subintervals", 1) == 1 else 200
    assert rows >= expected_rows

    exchange = summary["exchange"]
    assert timeline["rounds"].sum() == exchange["rounds"]
    assert (
        timeline["spikes_generated"].sum() == exchange["spikes_emitted"] == summary["spikes_total"]
    )
    assert timeline["spikes_sent"].sum() == exchange["spikes_sent"]
    assert timeline["spikes_received"].sum() == exchange["spikes_received"]
    totals = summary["timeline"]["totals"]
    for name, total in totals.items():
        assert total == pytest.approx(timeline[name].sum(), rel=1e-9, abs=1e-12), name

    # Tables 1-2: computation time of rank 0, mean and max over ranks
    per_rank = timeline["compute_s"].sum(axis=1)
    computation = summary["computation_s"]
    assert computation["rank0"] == pytest.approx(per_rank[0], rel=1e-9)
    assert computation["max"] == pytest.approx(per_rank.max(), rel=1e-9)
    assert computation["mean"] == pytest.approx(per_rank.mean(), rel=1e-9)
    assert summary["time_s"]["compute"] == pytest.approx(per_rank.max(), rel=1e-9)
    assert summary["time_s"]["send"] == pytest.approx(
        timeline["send_s"].sum(axis=1).max(), rel=1e-9
    )

    # computation + waiting + exchange: measured inside each row's wall-clock span
    parts = timeline["compute_s"] + timeline["wait_s"] + timeline["exchange_s"]
    assert np.all(parts <= timeline["wall_s"] + 1e-6)
    assert np.all(timeline["send_s"] <= timeline["compute_s"] + timeline["exchange_s"] + 1e-6)
    assert parts.sum() >= 0.5 * timeline["wall_s"].sum()
    if method != "allgather":
        assert (timeline["rounds"][:, timeline["due"][0] > 0] >= 1).all(), (
            "a conservation check per end"
        )


def test_no_timeline_by_default(small_config, tmp_path):
    summary = run_config(small_config, tmp_path / "out", 1, ("exchange.method=multisend",))
    assert not (tmp_path / "out" / TIMELINE_FILE).exists()
    assert "timeline" not in summary
    assert set(summary["computation_s"]) == {"rank0", "mean", "max"}
    assert summary["config"]["record"]["timeline"] is False


@pytest.mark.parametrize(
    "overrides,expected",
    [
        (("exchange.phases=2",), ("exchange.phases", "multisend")),
        (("exchange.method=rma", "exchange.phases=2"), ("exchange.phases", "'rma'")),
        (("exchange.subintervals=2",), ("exchange.subintervals", "multisend, persistent, rma")),
        (
            ("exchange.subintervals=3", "exchange.method=multisend"),
            ("exchange.subintervals", "<= 2"),
        ),
        (
            ("exchange.method=persistent", "exchange.subintervals=2", "simulation.dt_ms=1.0"),
            ("exchange.subintervals", "at least 2 steps"),
        ),
        (("exchange.max_pending_sends=0",), ("exchange.max_pending_sends", ">= 1")),
        (("exchange.rma_slot_spikes=0",), ("exchange.rma_slot_spikes", ">= 1")),
        (("record.timeline=1",), ("record.timeline", "true or false")),
    ],
)
def test_invalid_point_to_point_settings_exit_2(small_config, tmp_path, overrides, expected):
    args = ["run", str(small_config), "-o", str(tmp_path / "out")]
    for override in overrides:
        args += ["--set", override]
    done = run_cli(args, timeout=60)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    for fragment in expected:
        assert fragment in lines[0], lines[0]
