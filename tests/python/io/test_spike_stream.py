"""SpikeStream: the spike file written chunk by chunk is the file write_sonata_spikes
writes at the end, and its running hash is spikes_sha256."""

from __future__ import annotations

import hashlib

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
