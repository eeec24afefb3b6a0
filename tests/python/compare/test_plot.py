"""`spikex plot`: non-empty PNG and SVG figures of the expected size, from a stored run
and a stored comparison; the per-interval series it plots add up to the run totals."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
from conftest import run_cli, run_config, write_config
from spikex.io.timeline import read_timeline
from spikex.plots.figure_files import STANDARD_INCHES, pixels
from spikex.plots.intervals import figure_pixels, interval_series
from spikex.plots.raster import RASTER_CELLS, shown_cells

SHORT_NETWORK = """
[simulation]
tstop_ms = 50.0
seed = 3

[network]
cells = 300
indegree = 50
indegree_spread = 10
weight_spread = 0.08
"""
RUN_FIGURES = ("raster", "intervals", "breakdown", "memory")
COMPARE_FIGURES = ("raster", "scaling", "breakdown", "memory")


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) from the PNG header."""
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", header[16:24])


def assert_figure(outdir: Path, name: str, size: tuple[int, int]) -> None:
    png, svg = outdir / f"{name}.png", outdir / f"{name}.svg"
    assert png_size(png) == size, name
    assert png.stat().st_size > 5000, f"{png} looks empty"
    text = svg.read_text()
    assert "<svg" in text and len(text) > 5000, f"{svg} looks empty"


@pytest.fixture(scope="module")
def timeline_run(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("plot-run")
    config = write_config(directory, SHORT_NETWORK)
    run_config(config, directory / "run", ranks=2, sets=("record.timeline=true",))
    return directory / "run"


@pytest.fixture(scope="module")
def comparison_dir(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("plot-compare")
    config = write_config(directory, SHORT_NETWORK)
    done = run_cli([
        "compare", str(config), "--methods", "allgather,alltoall", "--np", "1,2",
        "-o", str(directory / "compare"),
    ])  # fmt: skip
    assert done.returncode == 0, done.stderr
    return directory / "compare"


@pytest.mark.mpi
@pytest.mark.slow
def test_plot_of_a_run_writes_every_figure(timeline_run):
    done = run_cli(["plot", str(timeline_run)])
    assert done.returncode == 0, done.stderr
    outdir = timeline_run / "plots"
    written = {Path(line) for line in done.stdout.split()}
    expected = {outdir / f"{name}.{ext}" for name in RUN_FIGURES for ext in ("png", "svg")}
    assert written == expected
    for name in ("raster", "breakdown", "memory"):
        assert_figure(outdir, name, pixels(STANDARD_INCHES))
    assert_figure(outdir, "intervals", figure_pixels(1))


@pytest.mark.mpi
@pytest.mark.slow
def test_plot_writes_where_asked(timeline_run, tmp_path):
    done = run_cli(["plot", str(timeline_run), "-o", str(tmp_path / "figures")])
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "figures" / "raster.png").is_file()


@pytest.mark.mpi
@pytest.mark.slow
def test_interval_series_add_up_to_the_run_totals(timeline_run):
    summary = json.loads((timeline_run / "summary.json").read_text())
    timeline = read_timeline(timeline_run / "timeline.h5")
    series = interval_series(timeline, summary["dt_ms"])
    computation = summary["computation_s"]
    rows = summary["timeline"]["rows"]
    assert all(values.shape == (rows,) for values in series.values())
    assert series["comp_rank0_s"].sum() == pytest.approx(computation["rank0"], rel=1e-9)
    assert series["comp_mean_s"].sum() == pytest.approx(computation["mean"], rel=1e-9)
    # The maximum per interval can only add up to more than the largest rank's total.
    assert series["comp_max_s"].sum() >= computation["max"] * (1 - 1e-9)
    ranks = summary["ranks"]
    assert series["total_mean_s"].sum() * ranks == pytest.approx(
        summary["timeline"]["totals"]["wall_s"], rel=1e-9
    )
    # Every row lies inside the simulation, whose time is the maximum over ranks.
    assert series["total_rank0_s"].sum() <= summary["time_s"]["simulate"]
    assert np.all(np.diff(series["time_ms"]) > 0)
    assert series["time_ms"][-1] == pytest.approx(summary["simulated_ms"])


@pytest.mark.mpi
@pytest.mark.slow
def test_plot_of_a_comparison_adds_scaling_and_notes_the_missing_timeline(comparison_dir):
    done = run_cli(["plot", str(comparison_dir)])
    assert done.returncode == 0, done.stderr
    outdir = comparison_dir / "plots"
    for name in COMPARE_FIGURES:
        assert_figure(outdir, name, pixels(STANDARD_INCHES))
    assert not (outdir / "intervals.png").exists()
    assert "intervals: skipped" in done.stderr and "record.timeline" in done.stderr


@pytest.mark.slow
def test_plot_of_a_directory_without_results_exits_2(tmp_path):
    done = run_cli(["plot", str(tmp_path)])
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "summary.json" in lines[0] and "compare.json" in lines[0]


def test_plot_help():
    done = run_cli(["plot", "--help"])
    assert done.returncode == 0 and "DIRECTORY" in done.stdout


def test_raster_cells_cover_every_burst_group():
    assert np.array_equal(shown_cells(1000, burst_groups=0), np.arange(RASTER_CELLS))
    spread = shown_cells(4096, burst_groups=8)
    assert spread.size == RASTER_CELLS
    groups = set((spread // (4096 // 8)).tolist())
    assert groups == set(range(8))
    assert np.array_equal(shown_cells(100, burst_groups=4), np.arange(100))
