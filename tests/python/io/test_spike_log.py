"""The spike log: its bytes are the rows spikes_sha256 hashes, it counts spikes per
population, a resume keeps exactly a checkpoint's rows of a log cut short or run on (and
says in one line what is wrong), and write_sonata makes the file write_sonata_spikes
makes."""

from __future__ import annotations

import hashlib

import h5py
import numpy as np
import pytest
from spikex.api.population import Population
from spikex.io.output import canonical_order, spikes_sha256, write_sonata_spikes
from spikex.io.spike_log import ROW_BYTES, SpikeLog, write_sonata

DT_MS = 0.1
POPULATIONS = [Population(0, 30, "iaf_psc_exp", "E"), Population(30, 20, "iaf_psc_delta", "I")]


def random_spikes(seed: int, count: int = 3000):
    rng = np.random.default_rng(seed)
    steps, gids = rng.integers(0, 5000, count), rng.integers(0, 50, count)
    keys = np.unique(steps * 100 + gids)
    return keys // 100, keys % 100


def logged(path, steps, gids, cuts=(700, 1900)) -> SpikeLog:
    log = SpikeLog(path, POPULATIONS)
    for part in np.split(np.arange(steps.size), list(cuts)):
        log.append(steps[part], gids[part])
    return log


def test_the_log_is_the_hashed_rows_and_counts_every_population(tmp_path):
    steps, gids = random_spikes(1)
    log = logged(tmp_path / "log", steps, gids)
    log.flush()
    assert log.sha256() == spikes_sha256(steps, gids)
    assert hashlib.sha256((tmp_path / "log").read_bytes()).hexdigest() == log.sha256()
    assert log.population_rows == {"E": int((gids < 30).sum()), "I": int((gids >= 30).sum())}
    log.close()


def test_append_refuses_spikes_out_of_order(tmp_path):
    log = SpikeLog(tmp_path / "log", POPULATIONS)
    log.append(np.array([5, 6]), np.array([0, 3]))
    with pytest.raises(ValueError, match="out of canonical order"):
        log.append(np.array([6]), np.array([2]))
    with pytest.raises(ValueError, match="out of canonical order"):
        log.append(np.array([8, 7]), np.array([0, 0]))
    log.close()


@pytest.mark.parametrize("extra", [0, 1000])
def test_resume_keeps_the_checkpoint_rows_and_goes_on_to_the_uninterrupted_hash(tmp_path, extra):
    """A log that ran on after its checkpoint (extra rows) or stopped there."""
    steps, gids = random_spikes(2)
    kept = 1200
    log = logged(tmp_path / "old", steps[: kept + extra], gids[: kept + extra], cuts=(500, kept))
    log.close()
    reference = (kept, spikes_sha256(steps[:kept], gids[:kept]))
    before = (tmp_path / "old").read_bytes()
    resumed = SpikeLog.resume(tmp_path / "old", *reference, tmp_path / "new", POPULATIONS)
    assert (tmp_path / "old").read_bytes() == before, "the stopped run's log is only read"
    assert resumed.rows == kept
    resumed.append(steps[kept:], gids[kept:])
    assert resumed.sha256() == spikes_sha256(steps, gids)
    resumed.close()


def test_resume_refuses_what_does_not_match(tmp_path):
    steps, gids = random_spikes(3)
    logged(tmp_path / "old", steps, gids).close()
    sha = spikes_sha256(steps[:1000], gids[:1000])
    with pytest.raises(ValueError, match="no such file"):
        SpikeLog.resume(tmp_path / "missing", 1000, sha, tmp_path / "new", POPULATIONS)
    with pytest.raises(ValueError, match=f"fewer than the {steps.size + 1}"):
        SpikeLog.resume(tmp_path / "old", steps.size + 1, sha, tmp_path / "new", POPULATIONS)
    data = bytearray((tmp_path / "old").read_bytes())
    # A step far off breaks the order; a gid's lowest bit keeps it (equal gids may follow).
    for byte, bit, match in ((7, 0x40, "corrupt"), (8, 0x01, "the checkpoint recorded")):
        changed = bytearray(data)
        changed[ROW_BYTES * 10 + byte] ^= bit
        (tmp_path / "bad").write_bytes(bytes(changed))
        with pytest.raises(ValueError, match=match):
            SpikeLog.resume(tmp_path / "bad", 1000, sha, tmp_path / "new", POPULATIONS)
    assert not (tmp_path / "new").exists(), "a refused resume leaves no file"


def test_write_sonata_makes_the_file_of_write_sonata_spikes(tmp_path):
    steps, gids = random_spikes(4)
    log = logged(tmp_path / "log", steps, gids)
    log.close()
    write_sonata(tmp_path / "log", log.rows, tmp_path / "streamed.h5", POPULATIONS, DT_MS)
    order = canonical_order(steps, gids)
    write_sonata_spikes(tmp_path / "whole.h5", POPULATIONS, gids[order], steps[order] * DT_MS)
    with h5py.File(tmp_path / "streamed.h5") as a, h5py.File(tmp_path / "whole.h5") as b:
        for pop in POPULATIONS:
            for name in ("node_ids", "timestamps"):
                assert np.array_equal(a[f"spikes/{pop.name}/{name}"][()], b[f"spikes/{pop.name}/{name}"][()])
            assert dict(a[f"spikes/{pop.name}"].attrs) == dict(b[f"spikes/{pop.name}"].attrs)
