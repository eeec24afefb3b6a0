"""Checkpoints that cannot be used are refused before anything runs: exit status 2, one
line naming the file or key and what is wrong, and nothing is overwritten (the outputs
and checkpoints of the stopped run keep their bytes)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from conftest import run_cli, write_config

RUN = """
[simulation]
tstop_ms = 300.0
seed = 5

[network]
cells = 600
indegree = 40
indegree_spread = 10
weight = 0.01
"""


@pytest.fixture(scope="module")
def stopped_run(tmp_path_factory) -> Path:
    """A finished run with checkpoints every 100 ms (the last one at its end)."""
    directory = tmp_path_factory.mktemp("stopped")
    config = write_config(directory, RUN)
    done = run_cli(["run", str(config), "-o", str(directory / "out"), "--checkpoint-every", "100"])
    assert done.returncode == 0, done.stderr
    return directory / "out"


def snapshot(directory: Path) -> dict[str, str]:
    """Hash of every file under `directory` (to prove nothing changed)."""
    return {
        str(p.relative_to(directory)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def copy_of(run: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "out"
    shutil.copytree(run, copy)
    # The copy's manifests point at the original spike file: point them at the copy's.
    for manifest in copy.glob("checkpoints/ckpt-*/manifest.json"):
        content = json.loads(manifest.read_text())
        content["spikes"]["outdir"] = str(copy)
        manifest.write_text(json.dumps(content))
    latest = copy / "checkpoints" / "latest.json"
    entry = json.loads(latest.read_text())
    entry["manifest_sha256"] = hashlib.sha256(
        (copy / "checkpoints" / entry["checkpoint"] / "manifest.json").read_bytes()
    ).hexdigest()
    latest.write_text(json.dumps(entry))
    return copy


def refused(args: list[str], run: Path) -> str:
    before = snapshot(run)
    done = run_cli(args)
    assert done.returncode == 2, done.stdout + done.stderr
    line = done.stderr.strip()
    assert len(line.splitlines()) == 1 and "Traceback" not in line, line
    assert snapshot(run) == before, "a refused resume changed files"
    return line


def latest_checkpoint(run: Path) -> Path:
    entry = json.loads((run / "checkpoints" / "latest.json").read_text())
    return run / "checkpoints" / entry["checkpoint"]


@pytest.mark.slow
def test_the_checkpoint_of_a_finished_run_resumes_to_a_longer_run(stopped_run, tmp_path):
    copy = copy_of(stopped_run, tmp_path)
    done = run_cli(["run", "--resume", str(copy / "checkpoints"), "--set", "simulation.tstop_ms=500"])
    assert done.returncode == 0, done.stderr
    longer = json.loads((copy / "summary.json").read_text())
    config = write_config(tmp_path, RUN.replace("tstop_ms = 300.0", "tstop_ms = 500.0"), "long.toml")
    assert run_cli(["run", str(config), "-o", str(tmp_path / "long")]).returncode == 0
    whole = json.loads((tmp_path / "long" / "summary.json").read_text())
    assert longer["spikes_sha256"] == whole["spikes_sha256"]
    assert longer["simulated_ms"] == 500.0


def test_a_truncated_file_is_refused(stopped_run, tmp_path):
    copy = copy_of(stopped_run, tmp_path)
    rank_file = latest_checkpoint(copy) / "rank-00000.h5"
    rank_file.write_bytes(rank_file.read_bytes()[:-100])
    line = refused(["run", "--resume", str(copy / "checkpoints")], copy)
    assert "rank-00000.h5: truncated" in line


def test_a_corrupted_byte_is_refused(stopped_run, tmp_path):
    copy = copy_of(stopped_run, tmp_path)
    rank_file = latest_checkpoint(copy) / "rank-00000.h5"
    data = bytearray(rank_file.read_bytes())
    data[len(data) // 2] ^= 0x40
    rank_file.write_bytes(bytes(data))
    line = refused(["run", "--resume", str(copy / "checkpoints")], copy)
    assert "rank-00000.h5: checksum mismatch" in line


def test_another_spikex_version_is_refused(stopped_run, tmp_path):
    copy = copy_of(stopped_run, tmp_path)
    checkpoint = latest_checkpoint(copy)
    manifest = json.loads((checkpoint / "manifest.json").read_text())
    manifest["spikex_version"] = "0.0.1"
    (checkpoint / "manifest.json").write_text(json.dumps(manifest))
    line = refused(["run", "--resume", str(checkpoint)], copy)
    assert "written by spikex 0.0.1" in line
    # Through latest.json, the edited manifest no longer matches its recorded checksum.
    line = refused(["run", "--resume", str(copy / "checkpoints")], copy)
    assert "checksum mismatch" in line


def test_a_key_that_defines_the_network_cannot_change(stopped_run, tmp_path):
    copy = copy_of(stopped_run, tmp_path)
    line = refused(["run", "--resume", str(copy / "checkpoints"), "--set", "network.cells=700"], copy)
    assert "--set network.cells: a resumed run cannot change it" in line


def test_an_impossible_layout_is_refused(stopped_run, tmp_path):
    copy = copy_of(stopped_run, tmp_path)
    line = refused(
        ["run", "--resume", str(copy / "checkpoints"), "--np", "5", "--set", "exchange.method=routed",
         "--set", "exchange.route_dims=[2, 2]"],
        copy,
    )  # fmt: skip
    assert "exchange.route_dims" in line and "on 5 rank(s)" in line


def test_a_missing_spike_log_is_refused(stopped_run, tmp_path):
    copy = copy_of(stopped_run, tmp_path)
    (copy / ".spikes.log").unlink()
    line = refused(["run", "--resume", str(copy / "checkpoints"), "-o", str(tmp_path / "new")], copy)
    assert ".spikes.log: no such file" in line
    assert not (tmp_path / "new" / "summary.json").exists()


def test_not_a_checkpoint(tmp_path):
    tmp_path.joinpath("empty").mkdir()
    line = refused(["run", "--resume", str(tmp_path / "empty")], tmp_path)
    assert "neither a checkpoint" in line


def test_restoring_into_another_network_names_the_key(stopped_run, tmp_path):
    import spikex as sx

    net = sx.Network.from_config(write_config(tmp_path, RUN.replace("seed = 5", "seed = 6")))
    with pytest.raises(ValueError, match="simulation.seed = 5 there, 6 here"):
        net.restore(latest_checkpoint(stopped_run))


def test_plastic_synapses_need_their_source_table(tmp_path):
    config = write_config(tmp_path, "[network]\nmodel = \"hpc_benchmark\"\nscale = 0.02\nplastic = true\n")
    done = run_cli(["run", str(config), "--checkpoint-every", "10", "--set", "connections.keep_sources=false",
                    "-o", str(tmp_path / "out")])  # fmt: skip
    assert done.returncode == 2 and "connections.keep_sources" in done.stderr, done.stderr

    import spikex as sx

    net = sx.Network.from_config(config, ["connections.keep_sources=false", "simulation.tstop_ms=5"])
    net.simulate(2.0)
    with pytest.raises(ValueError, match="keep_sources = false freed the source table"):
        net.save(tmp_path / "checkpoints")


def test_a_script_built_checkpoint_needs_its_script(tmp_path):
    import spikex as sx

    net = sx.Network(dt_ms=0.1)
    cells = net.create("iaf_psc_alpha", 20, params={"I_e": 400.0})
    net.connect_rule("fixed_indegree", cells, cells, indegree=3, weight=50.0, delay_ms=1.0)
    net.simulate(5.0)
    directory = net.save(tmp_path / "checkpoints")
    line = refused(["run", "--resume", str(directory)], tmp_path / "checkpoints")
    assert "written by a Python script" in line and "net.restore" in line
    with pytest.raises(ValueError, match="written by a Python script"):
        sx.Network.load(directory)
