"""The Allgather exchange: overflow rounds, the spike wire codec and source lookups change how
spikes travel, never which spikes there are."""

from __future__ import annotations

import pytest
from conftest import marked, run_config, several_ranks

# Every test here runs simulations of a few seconds (or needs a module fixture that does).
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    from conftest import write_config

    directory = tmp_path_factory.mktemp("baseline")
    return run_config(write_config(directory), directory / "out", 1)


@pytest.mark.parametrize("ranks", marked((1, 2, 4), mpi_if=several_ranks))
def test_one_slot_overflows_and_gives_the_same_spikes(baseline, small_config, tmp_path, ranks):
    summary = run_config(small_config, tmp_path / "out", ranks, ("exchange.allgather_slots=1",))
    assert summary["spikes_sha256"] == baseline["spikes_sha256"]
    exchange = summary["exchange"]
    assert exchange["overflow_rounds"] > 0, "one slot per rank must overflow into Allgatherv"
    assert exchange["rounds"] > baseline["exchange"]["rounds"]


@pytest.mark.mpi
def test_large_buffer_never_overflows(baseline, small_config, tmp_path):
    summary = run_config(small_config, tmp_path / "out", 2, ("exchange.allgather_slots=4000",))
    assert summary["exchange"]["overflow_rounds"] == 0
    assert summary["spikes_sha256"] == baseline["spikes_sha256"]


@pytest.mark.mpi
@pytest.mark.parametrize("compress", ("true", "false"))
def test_compressed_and_full_entries_agree(baseline, small_config, tmp_path, compress):
    summary = run_config(small_config, tmp_path / "out", 2, (f"exchange.compress={compress}",))
    assert summary["spikes_sha256"] == baseline["spikes_sha256"]
    assert summary["exchange"]["compressed"] == (compress == "true")
    assert summary["exchange"]["entry_bytes"] == (2 if compress == "true" else 8)


@pytest.mark.mpi
def test_coded_at_any_cells_per_rank(baseline, small_config, tmp_path):
    # 400 cells on 1 rank: more than the old 2-byte format's 256, coded all the same.
    one = run_config(small_config, tmp_path / "one", 1, ("exchange.compress=true",))
    assert one["exchange"]["compressed"] is True
    assert one["spikes_sha256"] == baseline["spikes_sha256"]
    full = run_config(small_config, tmp_path / "full", 1, ("exchange.compress=false",))
    exchange, full_exchange = one["exchange"], full["exchange"]
    assert exchange["wire_spikes"] == full_exchange["wire_spikes"] == one["spikes_total"]
    assert full_exchange["wire_bytes_per_spike"] == 8
    assert exchange["wire_bytes_per_spike"] <= 3
    assert exchange["wire_bytes"] == pytest.approx(exchange["wire_bytes_per_spike"] * exchange["wire_spikes"])


@pytest.mark.mpi
@pytest.mark.parametrize("lookup", ("dense", "hash", "sorted"))
def test_every_source_lookup_gives_the_same_spikes(baseline, small_config, tmp_path, lookup):
    summary = run_config(small_config, tmp_path / "out", 3, (f"exchange.source_lookup={lookup}",))
    assert summary["spikes_sha256"] == baseline["spikes_sha256"]


@pytest.mark.mpi
def test_bytes_follow_the_formula(small_config, tmp_path):
    """Each rank contributes 4 + slots * 2 bytes per interval, plus its overflow."""
    summary = run_config(small_config, tmp_path / "out", 2, ("exchange.allgather_slots=4000",))
    intervals = 100.0 / 1.0  # tstop / min delay
    per_rank_block = 4 + 4000 * 2
    assert summary["exchange"]["bytes_sent"] == 2 * intervals * per_rank_block
    assert summary["exchange"]["spikes_sent"] == summary["spikes_total"]
