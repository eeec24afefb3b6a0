"""A restore reads only the rows of its rank's cells and puts them into the engine in
bounded pieces (issue 56), and still gives the spikes of the run that never stopped.

* Serial, with an engine stand-in that owns a block of gids: every owned row arrives
  exactly once with the checkpoint's values, no other row arrives, each piece stays within
  its bound, and the plastic weights are read only from HDF5 chunks that hold owned rows.
* Under MPI: a checkpoint written on 2 ranks restores on P' = 1, 2, 3, 4 ranks x 1 or 2
  threads in pieces of a few values (one target's weights, one cell's state at a time)
  with the spikes, events, state samples and exact weights of the uninterrupted run; and
  on 4 ranks each rank reads less than half the checkpoint, to verify it and to restore.
* The SHA-256 of each block of a rank file is in the manifest: a corrupt block is found.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest
import spikex as sx
from read_volume_script import CONFIG as READ_VOLUME_CONFIG
from spikex.io import checkpoint as ckpt
from spikex.launch.launcher import child_environment, mpiexec_command
from spikex.version import __version__

HERE = Path(__file__).resolve().parent
RESUME = HERE / "resume_script.py"
READS = HERE / "read_volume_script.py"
# The network read_volume_script.py saves and restores, without its consecutive distribution.
HPC_STDP = {key: value for key, value in READ_VOLUME_CONFIG.items() if key != "distribution"}


class StandIn:
    """What restore_state asks of an engine, for a rank that owns gids [low, high)."""

    def __init__(self, low: int, high: int):
        self.low, self.high = low, high
        self.cells: dict[int, np.ndarray] = {}
        self.weights: dict[int, np.ndarray] = {}
        self.cell_pieces: list[int] = []
        self.weight_pieces: list[int] = []
        self.finished = None

    def owns(self, gids):
        return ((gids >= self.low) & (gids < self.high)).astype(np.uint8)

    def import_begin(self, step):
        self.step = step

    def import_cells(self, model, gids, values):
        width = values.size // gids.size
        self.cell_pieces.append(values.size)
        for gid, row in zip(gids, values.reshape(-1, width), strict=True):
            assert int(gid) not in self.cells
            self.cells[int(gid)] = row.copy()

    def import_weights(self, targets, counts, digests, values, sites):
        self.weight_pieces.append(values.size)
        at = 0
        for target, count in zip(targets, counts, strict=True):
            assert int(target) not in self.weights
            self.weights[int(target)] = values[at : at + count].copy()
            at += count
        assert at == values.size

    def import_finish(self, rows, error=""):
        assert error == ""
        self.finished = rows


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A 1-rank checkpoint of hpc_benchmark with STDP after 30 ms, and its columns."""
    net = sx.Network.from_config(HPC_STDP)
    net.simulate(30.0)
    path = net.save(tmp_path_factory.mktemp("saved"))
    return path, {name: np.asarray(v) for name, v in net._engine.export_state().items()}


def test_a_rank_gets_its_rows_once_in_bounded_pieces_read_from_their_chunks(saved, monkeypatch):
    path, columns = saved
    checkpoint = ckpt.open_checkpoint(path, __version__)
    cells = int(columns["cells/iaf_psc_alpha/gid"].max()) + 1
    low, high = cells // 4, cells // 2  # a quarter of the cells, as a consecutive rank would own
    reads: list[tuple[str, int, int]] = []
    original = h5py.Dataset.read_direct

    def recording(self, dest, source_sel=None, dest_sel=None):
        if source_sel is not None:
            span = source_sel if isinstance(source_sel, slice) else source_sel[0]
            reads.append((self.name, int(span.start), int(span.stop)))
        return original(self, dest, source_sel, dest_sel)

    monkeypatch.setattr(h5py.Dataset, "read_direct", recording)
    limit = 64
    engine = StandIn(low, high)
    ckpt.restore_state(checkpoint, engine, piece_values=limit)

    gids, values = columns["cells/iaf_psc_alpha/gid"], columns["cells/iaf_psc_alpha/values"]
    width = values.size // gids.size
    owned = [k for k, g in enumerate(gids) if low <= g < high]
    assert sorted(engine.cells) == sorted(int(gids[k]) for k in owned)
    for k in owned:
        np.testing.assert_array_equal(
            engine.cells[int(gids[k])], values[k * width : (k + 1) * width]
        )

    targets, counts = columns["plastic/weight/target"], columns["plastic/weight/count"]
    weights = columns["plastic/weight/value"]
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    mine = [k for k, t in enumerate(targets) if low <= t < high]
    assert mine and sorted(engine.weights) == sorted(int(targets[k]) for k in mine)
    for k in mine:
        np.testing.assert_array_equal(
            engine.weights[int(targets[k])], weights[starts[k] : starts[k] + counts[k]]
        )

    # Bounded pieces: many of them, none beyond the bound plus one row.
    chunk = ckpt.SEGMENT_CHUNK
    assert len(engine.weight_pieces) > 3 and len(engine.cell_pieces) > 3
    assert max(engine.weight_pieces) <= limit + int(counts.max())
    assert max(engine.cell_pieces) <= limit + width
    # The weights were read only from chunks that hold weights of owned targets.
    wanted = set()
    for k in mine:
        wanted.update(range(starts[k] // chunk, (starts[k] + counts[k] - 1) // chunk + 1))
    spans = [(a, b) for name, a, b in reads if name == "/plastic/weight/value"]
    touched = {c for a, b in spans for c in range(a // chunk, (b - 1) // chunk + 1)}
    assert spans and touched <= wanted
    assert sum(b - a for a, b in spans) < weights.size / 2
    # Everything else went in at the end: this rank's histories, every presynaptic trace.
    rows = engine.finished
    assert set(rows["plastic/post/gid"].tolist()) <= set(range(low, high))
    assert rows["plastic/pre/source"].size == columns["plastic/pre/source"].size


def test_a_checkpoint_with_large_chunks_restores_in_pieces(tmp_path, monkeypatch):
    """Checkpoints written before the weights had small chunks (all 65,536 values) restore
    in pieces too, with the spikes of the uninterrupted run."""
    config = {**HPC_STDP, "record": {"spikes": True}}
    whole = sx.Network.from_config(config).simulate(60.0).summary
    net = sx.Network.from_config(config)
    net.simulate(25.0)
    monkeypatch.setattr(ckpt, "SEGMENT_CHUNK", 1 << 16)
    path = net.save(tmp_path)
    with h5py.File(path / "rank-00000.h5", "r") as source:
        assert source["plastic/weight/value"].chunks[0] > 1 << 10
    monkeypatch.setenv(ckpt.PIECE_VALUES_VARIABLE, "5")
    resumed = sx.Network.load(path)
    summary = resumed.simulate(35.0).summary
    assert summary["spikes_total"] > 100
    assert (summary["spikes_sha256"], summary["events_delivered"]) == (
        whole["spikes_sha256"],
        whole["events_delivered"],
    )


def run(
    ranks: int, script: Path, args: list[str], threads: int = 1, env: dict | None = None
) -> list[str]:
    done = subprocess.run(
        mpiexec_command(ranks, [sys.executable, str(script), *args]), capture_output=True, text=True,
        timeout=300, check=False, env={**child_environment(threads=threads), **(env or {})},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return [
        line.split(maxsplit=1)[1] for line in done.stdout.splitlines() if line.startswith("RESULT")
    ]


@pytest.mark.mpi
@pytest.mark.slow
def test_tiny_pieces_restore_on_every_layout(tmp_path):
    """Saved on 2 ranks; restored one cell state and one target's weights at a time on
    P' = 1..4 ranks x T = 1, 2 threads: the uninterrupted run's spikes, events, state
    samples and exact final weights."""
    layout = ["allgather", "1", "round_robin"]
    whole = run(1, RESUME, ["hpc_stdp", *layout, "150"])
    assert int(whole[0].split()[1]) > 1000, "the network must be alive"
    run(2, RESUME, ["hpc_stdp", "alltoall", "1", "round_robin", "150", f"save:60.0:{tmp_path}"])
    tiny = {ckpt.PIECE_VALUES_VARIABLE: "3"}
    for ranks, threads, distribution in [(1, 2, "round_robin"), (2, 1, "consecutive"), (3, 2, "random_shuffle"),
                                         (4, 1, "round_robin"), (4, 2, "consecutive")]:  # fmt: skip
        args = ["hpc_stdp", "allgather", str(threads), distribution, "150", f"resume:{tmp_path}"]
        assert run(ranks, RESUME, args, threads, tiny) == whole, (ranks, threads, distribution)


@pytest.mark.mpi
@pytest.mark.slow
def test_each_of_four_ranks_reads_less_than_half_the_checkpoint(tmp_path):
    """Consecutive cells: a rank's rows lie together in the rank files, so it reads its own
    quarter of the plastic weights and the key columns, not the whole checkpoint."""
    (result,) = run(1, READS, ["save", str(tmp_path), "1"])
    total = json.loads(result)["bytes"]
    (result,) = run(4, READS, ["restore", str(tmp_path), "4"])
    read, verify = json.loads(result)["read_bytes"], json.loads(result)["verify_bytes"]
    assert len(read) == 4 and max(read) < total / 2, (read, total)
    # The SHA-256 checks are shared too: all blocks checked once, a quarter by each rank.
    assert sum(verify) >= total and max(verify) < total / 2, (verify, total)


def test_a_corrupt_block_is_found_by_the_rank_that_checks_it(tmp_path, monkeypatch):
    monkeypatch.setattr(ckpt, "HASH_BLOCK", 1 << 12)
    net = sx.Network.from_config(HPC_STDP)
    net.simulate(10.0)
    path = net.save(tmp_path)
    manifest = json.loads((path / ckpt.MANIFEST_FILE).read_text())
    (entry,) = manifest["files"]
    assert entry["block_bytes"] == 1 << 12 and len(entry["block_sha256"]) == -(
        -entry["bytes"] // (1 << 12)
    )
    ckpt.open_checkpoint(path, __version__)  # intact
    file = path / entry["name"]
    data = bytearray(file.read_bytes())
    data[3 * (1 << 12) + 17] ^= 0x40  # a byte of the fourth block
    file.write_bytes(bytes(data))
    with pytest.raises(ckpt.CheckpointError, match="rank-00000.h5: checksum mismatch"):
        ckpt.open_checkpoint(path, __version__)
    # A manifest without block hashes (written before spikex had them): whole files are checked.
    for entry in manifest["files"]:
        del entry["block_bytes"], entry["block_sha256"]
    (path / ckpt.MANIFEST_FILE).write_text(json.dumps(manifest))
    with pytest.raises(ckpt.CheckpointError, match="rank-00000.h5: checksum mismatch"):
        ckpt.open_checkpoint(path, __version__)
    data[3 * (1 << 12) + 17] ^= 0x40
    file.write_bytes(bytes(data))
    ckpt.open_checkpoint(path, __version__)  # intact again
