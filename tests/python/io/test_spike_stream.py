"""SpikeStream: the spike file written chunk by chunk during a run is the file
write_sonata_spikes writes at the end, its running hash is spikes_sha256, and resume
from a checkpoint keeps exactly the recorded rows or says in one line what is wrong."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import textwrap

import h5py
import numpy as np
import pytest
import spikex as sx
from spikex.io import spike_stream
from spikex.io.output import canonical_order, spikes_sha256, write_sonata_spikes
from spikex.io.spike_stream import SpikeStream

DT_MS = 0.025
POPULATIONS = [
    sx.Population(0, 50, "interval_fire", "A"),
    sx.Population(50, 30, "interval_fire", "B"),
    sx.Population(80, 20, "interval_fire", "silent"),  # never spikes: an empty group
]


def random_spikes(seed: int, count: int, steps: int = 2000, gids: int = 80):
    """``count`` distinct (step, gid) spikes in canonical order."""
    rng = np.random.default_rng(seed)
    keys = np.unique(rng.integers(0, steps * gids, size=count))
    step, gid = keys // gids, keys % gids
    order = canonical_order(step, gid)
    return step[order].astype(np.int64), gid[order].astype(np.int64)


def chunks(steps, gids, boundaries):
    """The spikes cut into consecutive time windows [b_k, b_k+1)."""
    edges = np.searchsorted(steps, boundaries, side="left")
    starts = np.concatenate([[0], edges])
    stops = np.concatenate([edges, [steps.size]])
    return [(steps[a:b], gids[a:b]) for a, b in zip(starts, stops, strict=True)]


def contents(path) -> dict:
    """Every group and dataset of an HDF5 file: attributes, dtype, values."""
    found = {}

    def visit(name, item):
        attrs = {key: item.attrs[key] for key in item.attrs}
        if isinstance(item, h5py.Dataset):
            found[name] = (attrs, item.dtype, item[()].tolist())
        else:
            found[name] = (attrs,)

    with h5py.File(path, "r") as spikes_file:
        spikes_file.visititems(visit)
    return found


def reference_file(tmp_path, populations, steps, gids, name="reference.h5"):
    path = tmp_path / name
    write_sonata_spikes(path, populations, gids, steps * DT_MS)
    return path


def stream_file(path, populations, pieces, dt_ms=DT_MS) -> SpikeStream:
    with SpikeStream(path, populations, dt_ms) as stream:
        for piece_steps, piece_gids in pieces:
            stream.append(piece_steps, piece_gids)
    return stream


@pytest.mark.parametrize("seed", (1, 2, 3))
def test_chunks_give_the_file_and_hash_of_write_sonata_spikes(tmp_path, seed):
    steps, gids = random_spikes(seed, 3000)
    rng = np.random.default_rng(seed)
    boundaries = np.sort(rng.integers(0, 2000, size=6))  # some windows may be empty
    stream = stream_file(tmp_path / "stream.h5", POPULATIONS, chunks(steps, gids, boundaries))
    reference = reference_file(tmp_path, POPULATIONS, steps, gids)
    assert contents(tmp_path / "stream.h5") == contents(reference)
    assert stream.sha256() == spikes_sha256(steps, gids)
    assert stream.rows == steps.size
    expected = {
        pop.name: int(np.count_nonzero((gids >= pop.first_gid) & (gids < pop.stop_gid)))
        for pop in POPULATIONS
    }
    assert stream.population_rows == stream.population_counts == expected
    assert expected["silent"] == 0
    with h5py.File(tmp_path / "stream.h5", "r") as spikes_file:
        node_ids = spikes_file["spikes/A/node_ids"]
        assert node_ids.maxshape == (None,) and node_ids.chunks is not None


def test_empty_chunks_and_one_population_by_name(tmp_path):
    steps, gids = random_spikes(4, 500)
    empty = np.zeros(0, dtype=np.int64)
    pieces = [(empty, empty), *chunks(steps, gids, [100, 100, 900]), (empty, empty)]
    stream = stream_file(tmp_path / "stream.h5", "cells", pieces)
    reference = reference_file(tmp_path, "cells", steps, gids)
    assert contents(tmp_path / "stream.h5") == contents(reference)
    assert stream.sha256() == spikes_sha256(steps, gids)
    assert stream.population_rows == {"cells": steps.size}


@pytest.mark.parametrize("populations", ("cells", POPULATIONS), ids=("by_name", "populations"))
def test_an_empty_run(tmp_path, populations):
    empty = np.zeros(0, dtype=np.int64)
    stream = stream_file(tmp_path / "stream.h5", populations, [])
    reference = reference_file(tmp_path, populations, empty, empty)
    assert contents(tmp_path / "stream.h5") == contents(reference)
    assert stream.sha256() == hashlib.sha256(b"").hexdigest() and stream.rows == 0


def test_sha256_goes_on_after_being_read(tmp_path):
    steps, gids = random_spikes(5, 400)
    with SpikeStream(tmp_path / "stream.h5", POPULATIONS, DT_MS) as stream:
        for k, (piece_steps, piece_gids) in enumerate(chunks(steps, gids, [500, 1000, 1500])):
            stream.append(piece_steps, piece_gids)
            done = sum(piece.size for piece, _ in chunks(steps, gids, [500, 1000, 1500])[: k + 1])
            assert stream.sha256() == spikes_sha256(steps[:done], gids[:done])


# ---- resume ------------------------------------------------------------------------------


def crowded_spikes(seed: int):
    """Random spikes plus steps where a whole population fires (more rows than a block)."""
    steps, gids = random_spikes(seed, 2500)
    crowd_steps = np.repeat([300, 301, 1200], 50)
    crowd_gids = np.tile(np.arange(50), 3)
    all_steps = np.concatenate([steps, crowd_steps])
    all_gids = np.concatenate([gids, crowd_gids])
    keys = np.unique(all_steps * 100 + all_gids)
    return keys // 100, keys % 100


@pytest.mark.parametrize("block_rows", (1, 7, 64, 1 << 20))
def test_resume_keeps_the_checkpoint_rows_and_goes_on_to_the_uninterrupted_hash(
    tmp_path, block_rows
):
    steps, gids = crowded_spikes(6)
    pieces = chunks(steps, gids, [250, 700, 1100, 1600])
    source = tmp_path / "killed.h5"
    stream = SpikeStream(source, POPULATIONS, DT_MS)
    for piece in pieces[:3]:
        stream.append(*piece)
    stream.flush()
    checkpoint = (stream.population_rows, stream.sha256())
    kept = sum(piece[0].size for piece in pieces[:3])
    stream.append(*pieces[3])  # written after the checkpoint: must be dropped
    stream.flush()
    stream.close()
    source_bytes = source.read_bytes()

    resumed = SpikeStream.resume(
        source, *checkpoint, tmp_path / "resumed.h5", POPULATIONS, DT_MS, block_rows=block_rows
    )
    assert resumed.rows == kept and resumed.population_rows == checkpoint[0]
    assert resumed.sha256() == checkpoint[1] == spikes_sha256(steps[:kept], gids[:kept])
    resumed.flush()
    prefix = reference_file(tmp_path, POPULATIONS, steps[:kept], gids[:kept], "prefix.h5")
    assert contents(tmp_path / "resumed.h5") == contents(prefix)
    assert source.read_bytes() == source_bytes, "the source is only read"

    with pytest.raises(ValueError, match="before the last row of an earlier chunk"):
        resumed.append(pieces[2][0][-2:], pieces[2][1][-2:])  # before the checkpoint's end
    for piece in pieces[3:]:
        resumed.append(*piece)
    resumed.close()
    assert resumed.sha256() == spikes_sha256(steps, gids)
    assert contents(tmp_path / "resumed.h5") == contents(
        reference_file(tmp_path, POPULATIONS, steps, gids)
    )


def test_resume_from_a_process_killed_after_a_flush(tmp_path):
    steps, gids = random_spikes(7, 2000)
    np.save(tmp_path / "steps.npy", steps)
    np.save(tmp_path / "gids.npy", gids)
    script = tmp_path / "killed.py"
    script.write_text(
        textwrap.dedent(f"""
        import os, signal, sys
        import numpy as np
        from spikex.io.spike_stream import SpikeStream
        steps, gids = np.load({str(tmp_path / "steps.npy")!r}), np.load({str(tmp_path / "gids.npy")!r})
        stream = SpikeStream({str(tmp_path / "killed.h5")!r}, "cells", {DT_MS})
        half = steps.size // 2
        stream.append(steps[:half], gids[:half])
        stream.flush()
        print(stream.population_rows["cells"], stream.sha256(), flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == -9, done.stderr
    rows, sha = done.stdout.split()
    resumed = SpikeStream.resume(
        tmp_path / "killed.h5", {"cells": int(rows)}, sha, tmp_path / "resumed.h5", "cells", DT_MS
    )
    resumed.append(steps[int(rows) :], gids[int(rows) :])
    resumed.close()
    assert resumed.sha256() == spikes_sha256(steps, gids)


@pytest.mark.parametrize("dt_ms", (0.025, 0.1, 0.01, 0.125, 1.0 / 3.0))
def test_steps_up_to_2_pow_40_survive_the_timestamps(tmp_path, dt_ms):
    rng = np.random.default_rng(8)
    steps = np.unique(
        np.concatenate([rng.integers(0, 2**40, size=100_000), [0, 1, 2**40 - 1, 2**40]])
    )
    assert np.array_equal(np.rint(steps * dt_ms / dt_ms).astype(np.int64), steps)
    gids = steps % 7
    stream = stream_file(
        tmp_path / "far.h5", "cells", [(steps[:600], gids[:600]), (steps[600:], gids[600:])], dt_ms
    )
    resumed = SpikeStream.resume(
        tmp_path / "far.h5",
        stream.population_rows,
        stream.sha256(),
        tmp_path / "resumed.h5",
        "cells",
        dt_ms,
        block_rows=4096,
    )
    resumed.close()
    assert resumed.sha256() == spikes_sha256(steps, gids)


# ---- what resume refuses ------------------------------------------------------------------


@pytest.fixture
def checkpointed(tmp_path):
    """A flushed source file, its checkpoint (rows, hash) and its bytes."""
    steps, gids = random_spikes(9, 600)
    stream = stream_file(tmp_path / "source.h5", POPULATIONS, chunks(steps, gids, [1000]))
    return tmp_path / "source.h5", stream.population_rows, stream.sha256()


def refused(source, rows, sha, target, populations=POPULATIONS, dt_ms=DT_MS) -> str:
    with pytest.raises(ValueError) as caught:
        SpikeStream.resume(source, rows, sha, target, populations, dt_ms)
    message = str(caught.value)
    assert "\n" not in message and str(source) in message, message
    assert not target.exists(), "a refused resume leaves no file"
    return message


def test_resume_refuses_a_missing_file(tmp_path, checkpointed):
    _, rows, sha = checkpointed
    assert "no such file" in refused(tmp_path / "nope.h5", rows, sha, tmp_path / "new.h5")


def test_resume_refuses_a_file_that_is_not_hdf5(tmp_path, checkpointed):
    _, rows, sha = checkpointed
    text = tmp_path / "spikes.h5"
    text.write_text("not a spike file\n")
    assert "not a readable HDF5 file" in refused(text, rows, sha, tmp_path / "new.h5")


def test_resume_refuses_a_missing_population(tmp_path, checkpointed):
    source, rows, sha = checkpointed
    others = [*POPULATIONS, sx.Population(100, 5, "interval_fire", "late")]
    message = refused(source, {**rows, "late": 0}, sha, tmp_path / "new.h5", others)
    assert "population late is missing" in message


def test_resume_refuses_fewer_rows_than_recorded(tmp_path, checkpointed):
    source, rows, sha = checkpointed
    message = refused(source, {**rows, "A": rows["A"] + 1}, sha, tmp_path / "new.h5")
    assert f"population A has {rows['A']} spikes, fewer than the {rows['A'] + 1}" in message


def test_resume_refuses_a_hash_mismatch(tmp_path, checkpointed):
    source, rows, sha = checkpointed
    before = source.read_bytes()
    message = refused(source, {**rows, "B": rows["B"] - 1}, sha, tmp_path / "new.h5")
    assert "the checkpoint recorded" in message and sha[:16] in message
    assert source.read_bytes() == before


def test_resume_refuses_another_time_step_and_its_own_source(tmp_path, checkpointed):
    source, rows, sha = checkpointed
    message = refused(source, rows, sha, tmp_path / "new.h5", dt_ms=0.03)
    assert "is not a whole step of dt_ms = 0.03" in message
    before = source.read_bytes()
    with pytest.raises(ValueError, match="cannot resume into the same file"):
        SpikeStream.resume(source, rows, sha, source, POPULATIONS, DT_MS)
    assert source.read_bytes() == before


# ---- append checks its caller --------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second", "message"),
    [
        (([5, 4], [0, 0]), None, r"row 1 \(4, 0\) comes after \(5, 0\)"),
        (([5, 5], [3, 2]), None, r"row 1 \(5, 2\) comes after \(5, 3\)"),
        (
            ([5, 6], [0, 0]),
            ([4], [1]),
            r"\(4, 1\), before the last row of an earlier chunk \(6, 0\)",
        ),
        (
            ([5, 6], [0, 9]),
            ([6], [8]),
            r"\(6, 8\), before the last row of an earlier chunk \(6, 9\)",
        ),
        (([5], [100]), None, "gid 100 belongs to no population"),
        (([5.0], [1]), None, "steps must be integers"),
        (([-1], [1]), None, "negative step -1"),
    ],
)
def test_append_refuses_spikes_out_of_order(tmp_path, first, second, message):
    with SpikeStream(tmp_path / "stream.h5", POPULATIONS, DT_MS) as stream:
        with pytest.raises(ValueError, match=message):
            stream.append(np.array(first[0]), np.array(first[1]))
            if second is not None:
                stream.append(np.array(second[0]), np.array(second[1]))
        assert stream.rows == (len(first[0]) if second is not None else 0)


def test_chunks_may_share_a_step_in_gid_order(tmp_path):
    with SpikeStream(tmp_path / "stream.h5", "cells", DT_MS) as stream:
        stream.append(np.array([5, 6]), np.array([0, 3]))
        stream.append(np.array([6, 6]), np.array([4, 9]))
    assert stream.sha256() == spikes_sha256(np.array([5, 6, 6, 6]), np.array([0, 3, 4, 9]))


def test_chunks_larger_than_a_block_are_checked_whole_before_anything_is_written(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(spike_stream, "CHUNK_ROWS", 8)  # blocks and HDF5 chunks of 8 rows
    steps, gids = random_spikes(10, 300)
    stream = stream_file(tmp_path / "stream.h5", POPULATIONS, chunks(steps, gids, [700, 1400]))
    reference = reference_file(tmp_path, POPULATIONS, steps, gids)
    assert contents(tmp_path / "stream.h5") == contents(reference)
    assert stream.sha256() == spikes_sha256(steps, gids)
    for row in (8, 13):  # at a block boundary, inside the second block
        bad = steps.copy()
        bad[row] = bad[row - 1] - 1
        with SpikeStream(tmp_path / "bad.h5", POPULATIONS, DT_MS) as refused_stream:
            with pytest.raises(ValueError, match=rf"row {row} \({bad[row]}, "):
                refused_stream.append(bad[:20], gids[:20])
            assert refused_stream.rows == 0 and refused_stream.sha256() == spikes_sha256([], [])
        with h5py.File(tmp_path / "bad.h5", "r") as written:
            assert written["spikes/A/node_ids"].shape == (0,)
