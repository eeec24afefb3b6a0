"""Analytic figures (NEST Figure 1, Garg Tables 2-3) and the time model (issue 8)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from conftest import REPO, run_cli, write_config
from spikex.api.network import Network
from spikex.errors import UserInputError
from spikex.scaling.analytic import (
    GARG_TABLE2,
    GARG_TABLE3,
    garg_table2,
    simulate_bucket_size,
    targets_on_rank,
)
from spikex.scaling.time_model import interval_times, load_profile


def binomial(k: int, n: int, p: float) -> float:
    return math.comb(n, k) * p**k * (1 - p) ** (n - k)


@pytest.mark.parametrize("ranks", (32, 1000, 10_000, 100_000, 1_048_575))
def test_nest_figure1_closed_form(ranks):
    targets = 10_000
    p = targets_on_rank([ranks], targets)
    zero, one = binomial(0, targets, 1 / ranks), binomial(1, targets, 1 / ranks)
    assert p["zero"][0] == pytest.approx(zero, rel=1e-9, abs=1e-300)
    assert p["one"][0] == pytest.approx(one, rel=1e-9, abs=1e-300)
    assert p["zero"][0] + p["one"][0] + p["more"][0] == pytest.approx(1.0)


def test_nest_figure1_regimes_as_the_paper_describes_them():
    p = targets_on_rank([512, 10_000, 100_000])
    assert p["more"][0] > 0.99  # below 10^3 processes: multiple targets on every process
    assert p["one"][1] > 0.35 and p["more"][1] < 0.3  # around 10^4: one target as likely as none
    assert p["zero"][2] > 0.9  # beyond 10^4: overwhelmingly no target


@pytest.mark.parametrize("ranks", (64, 256, 1024))
def test_nest_figure1_on_our_real_connectivity(ranks):
    cells, indegree = 2048, 200
    net = Network.from_config({"network": {"cells": cells, "indegree": indegree, "indegree_spread": 0}})
    one, more, pairs = net.dry_run_partition(ranks).target_pairs()
    measured_zero = 1 - (one + more) / pairs
    # targets are drawn per target cell: a cell's targets on one rank ~ Binomial(N/M, K/(N-1))
    finite = (1 - indegree / (cells - 1)) ** (cells / ranks)
    assert measured_zero == pytest.approx(finite, abs=0.01)
    assert measured_zero == pytest.approx(targets_on_rank([ranks], indegree)["zero"][0], abs=0.03)


def test_garg_table2_from_the_sparsest_cut():
    for ours, printed in zip(garg_table2(), GARG_TABLE2, strict=True):
        assert ours["alpha"] == printed[2]
        assert ours["cpu"] == pytest.approx(printed[3], rel=0.005, abs=0.011)
        assert ours["network"] == pytest.approx(printed[4], rel=0.005, abs=0.011)
        assert ours["bottleneck"] == "network"  # the paper: network-bound at every size


def test_garg_table3_bucket_size_trend():
    sizes = {p: simulate_bucket_size(p, 60_000) for p in (32, 128, 1024, 8192)}
    for p in (32, 128, 1024):
        assert sizes[p] == pytest.approx(GARG_TABLE3[p], rel=0.08)
    # falls as 1 / P while P << 1024 (the fullest of P - 1 buckets holds about twice the
    # mean fill 1024 / P), and to one update per message for P >> 1024
    assert sizes[32] / sizes[128] == pytest.approx(4.0, rel=0.1)
    assert sizes[32] == pytest.approx(2 * 1024 / 32, rel=0.1)
    assert 1.0 <= sizes[8192] < 1.3
    assert sizes[32] > sizes[128] > sizes[1024] > sizes[8192]


def test_profiles_load_and_bad_profiles_name_the_key(tmp_path):
    for name in ("bgp.toml", "local.toml"):
        profile = load_profile(REPO / "profiles" / name)
        assert profile.latency_s > 0 and profile.bandwidth_bytes_per_s > 0
    bad = tmp_path / "bad.toml"
    bad.write_text((REPO / "profiles/bgp.toml").read_text().replace("latency_s = 3.0e-6", 'latency_s = "fast"'))
    with pytest.raises(UserInputError, match="latency_s"):
        load_profile(bad)
    bad.write_text("[cpu]\nwarp_drive_s = 1.0\n")
    with pytest.raises(UserInputError, match="warp_drive_s"):
        load_profile(bad)


CODEC_KEYS = ("encode_spike_s", "decode_spike_s", "route_codec_item_s")


def test_time_model_charges_the_codec_where_spikes_are_coded(tmp_path):
    bgp = load_profile(REPO / "profiles/bgp.toml")
    assert all(getattr(bgp, key) > 0 for key in CODEC_KEYS)
    # A profile written before the codec's costs existed loads, and charges no codec time.
    old = tmp_path / "old.toml"
    text = (REPO / "profiles/bgp.toml").read_text()
    old.write_text("\n".join(l for l in text.splitlines() if not l.startswith(CODEC_KEYS)))
    without = load_profile(old)
    assert all(getattr(without, key) == 0 for key in CODEC_KEYS)
    counts = {
        "spikes_sent": 100.0, "spikes_received": 400.0, "entries_sent": 300.0, "entries_received": 500.0,
        "messages_sent": 700.0, "hops": 900.0, "rounds": 1.0, "bytes_received": 1000.0, "bytes_sent": 800.0,
        "slots_scanned": 50.0, "spikes_matched": 300.0,
    }  # fmt: skip
    encode, decode, item = bgp.encode_spike_s, bgp.decode_spike_s, bgp.route_codec_item_s
    expected = {
        ("allgather", 1): 100 * encode + 400 * decode,
        ("allgather", 0): 0.0,  # compress = false: 8-byte entries, no codec
        ("alltoall", 1): 300 * encode + 500 * decode,
        ("alltoallv", 1): 300 * encode + 500 * decode,
        ("multisend", 1): 700 * encode + 400 * decode,
        ("persistent", 1): 700 * encode + 400 * decode,
        ("rma", 1): 700 * encode + 400 * decode,
        ("routed", 1): 900 * item,
        ("routed", 0): 0.0,
    }
    for (kind, compressed), codec in expected.items():
        method = {
            "method": kind,
            "rows": {"step": [40], "max": {name: [value] for name, value in counts.items()}},
            "properties": {"compressed": compressed, "route_max_hops": 1},
        }
        (charged,) = interval_times(method, 4, bgp)
        (uncharged,) = interval_times(method, 4, without)
        assert charged - uncharged == pytest.approx(codec, rel=1e-9, abs=1e-15), kind


def test_time_model_allgather_delivers_the_matched_spikes_and_skips_the_rest():
    # Every received spike is looked up (scan_entry_s); one whose source has targets here
    # is delivered too (spike_handling_s: lookup and delivery, as a run's receive loop).
    bgp = load_profile(REPO / "profiles/bgp.toml")
    assert bgp.spike_handling_s > bgp.scan_entry_s

    def allgather(matched: float) -> float:
        counts = {"spikes_sent": 100.0, "spikes_received": 400.0, "spikes_matched": matched, "rounds": 1.0,
                  "bytes_received": 1000.0}  # fmt: skip
        method = {"method": "allgather", "rows": {"step": [40], "max": {k: [v] for k, v in counts.items()}},
                  "properties": {"compressed": 0}}  # fmt: skip
        (seconds,) = interval_times(method, 4, bgp)
        return seconds

    assert allgather(300.0) - allgather(0.0) == pytest.approx(300 * (bgp.spike_handling_s - bgp.scan_entry_s))


def test_time_model_charges_the_delivery_groups_beyond_one_a_spike(tmp_path):
    # spike_handling_s covers a delivered spike's lookup and first ring entry; each further
    # delay group of its source costs delivery_group_s; every method, routed too.
    bgp = load_profile(REPO / "profiles/bgp.toml")
    assert bgp.delivery_group_s > 0
    old = tmp_path / "old.toml"  # a profile from before delivery_group_s: charges nothing
    old.write_text("\n".join(line for line in (REPO / "profiles/bgp.toml").read_text().splitlines()
                             if not line.startswith("delivery_group_s")))  # fmt: skip
    assert load_profile(old).delivery_group_s == 0
    counts = {"spikes_sent": 100.0, "spikes_received": 400.0, "spikes_matched": 300.0, "entries_received": 500.0,
              "messages_sent": 700.0, "hops": 900.0, "rounds": 1.0, "bytes_received": 1000.0}  # fmt: skip
    delivered = {"allgather": 300, "alltoall": 500, "alltoallv": 500, "multisend": 400, "persistent": 400,
                 "rma": 400, "routed": 400}  # fmt: skip

    def seconds(kind: str, groups: float | None, **changed: float) -> float:
        rows = {name: [value] for name, value in {**counts, **changed}.items()}
        if groups is not None:
            rows["delivery_groups"] = [groups]
        method = {"method": kind, "rows": {"step": [40], "max": rows},
                  "properties": {"compressed": 0, "route_max_hops": 1}}  # fmt: skip
        (t,) = interval_times(method, 4, bgp)
        return t

    for kind, charged in delivered.items():
        base = seconds(kind, None)  # a dry run from before the counter
        assert seconds(kind, charged) == pytest.approx(base, abs=1e-15), kind  # one group a spike
        assert seconds(kind, charged + 2500.0) - base == pytest.approx(2500 * bgp.delivery_group_s), kind
    # Routed pays each received item's delivery, as the point-to-point methods do (a run
    # delivers what arrives in its exchange phase there; routed was once charged none).
    more = seconds("routed", None, spikes_received=500.0) - seconds("routed", None)
    assert more == pytest.approx(100 * bgp.spike_handling_s)
    # Its own items (spikes_local) are delivered as it feeds them, while it computes: not
    # charged, nor their share of the delivery groups.
    own = seconds("routed", 4000.0, spikes_local=100.0)
    assert seconds("routed", 4000.0) - own == pytest.approx(
        100 * bgp.spike_handling_s + (1000 - 100) * bgp.delivery_group_s)
    nothing_received = seconds("routed", 0.0, spikes_received=0.0)
    assert seconds("routed", 4000.0, spikes_local=400.0) == pytest.approx(nothing_received)


def test_time_model_allgather_grows_about_linearly_with_p(tmp_path):
    config = write_config(tmp_path, "[simulation]\ntstop_ms = 30.0\n[network]\ncells = 512\nindegree = 50\n")
    bgp = load_profile(REPO / "profiles/bgp.toml")
    times = {}
    for ranks in (64, 4096):
        out = tmp_path / f"dry{ranks}.json"
        done = run_cli(["model", "dryrun", str(config), "--np", str(ranks), "--method", "allgather,alltoallv",
                        "--profile", str(REPO / "profiles/bgp.toml"), "-o", str(out)])  # fmt: skip
        assert done.returncode == 0, done.stderr
        result = json.loads(out.read_text())
        assert "bgp" in result["predictions"]
        times[ranks] = {label: sum(interval_times(m, ranks, bgp)) for label, m in result["methods"].items()}
    # the receive buffer (P blocks) and its transfer grow with P; Alltoallv moves only the
    # entries needed, so its bytes do not
    assert times[4096]["allgather"] > 4 * times[64]["allgather"]
    assert result["methods"]["alltoallv"]["sums"]["entries_received"] > 0
    done = run_cli(["model", "predict", str(tmp_path / "dry4096.json"), "--profile", str(REPO / "profiles/bgp.toml")])
    assert done.returncode == 0 and "allgather" in done.stdout


@pytest.mark.slow
def test_cli_model_figures(tmp_path):
    done = run_cli(["model", "figures", "-o", str(tmp_path)])
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "analytic.json").read_text())
    assert len(data["nest_figure1"]) == 16 and len(data["garg_table2"]) == 12
    assert Path(tmp_path / "nest_figure1.png").stat().st_size > 1000


def test_zero_weight_spike_train_does_not_depend_on_connections():
    # docs/scaling.md takes the spike train of the paper-sized dry runs from the same cells
    # without connections; that is only right if interval_fire ignores zero-weight inputs.
    shas = []
    for indegree in (60, 0):
        config = {"simulation": {"tstop_ms": 60.0}, "network": {"cells": 600, "indegree": indegree, "indegree_spread": 0}}
        shas.append(Network.from_config(config).simulate(60.0).summary["spikes_sha256"])
    assert shas[0] == shas[1]


def test_report_states_the_recorded_load_never_a_shared_machine():
    from spikex.scaling.report import garg_section, load_sentence, local_section

    assert load_sentence({"machine": "2026-01-01 00:00 UTC, CPU, 2 cores"}) == (
        "Load average: not recorded for this run."
    )
    old = load_sentence({"machine": "2026-01-01 00:00 UTC, CPU, 2 cores, load 0.6, 1.4, 0.9"})
    assert "0.6, 1.4, 0.9 when the runs started" in old and "not recorded after them" in old
    new = load_sentence(
        {"machine": "x", "load_average": {"start": "0.1, 0.2, 0.3", "after_local_runs": "1.5, 0.9, 0.4"}}
    )
    assert "0.1, 0.2, 0.3 when the runs started" in new and "1.5, 0.9, 0.4 after the last" in new
    local = {"config": "", "ranks": {}}
    text = "\n".join(local_section(local, "local", 4, new))
    assert new in text and "P > 4 are oversubscribed" in text and "shared" not in text
    garg = "\n".join(garg_section(garg_table2(), []))
    assert "calibrated to reproduce the printed columns" in garg


@pytest.mark.slow
def test_fit_profile_takes_spike_handling_from_a_run_on_one_rank(tmp_path):
    # bench/fit_profile.py: the receive loop's cost per spike is a real run's exchange time
    # (one rank: no MPI, the Allgather's receive loop alone) per spike it received.
    import sys

    sys.path.insert(0, str(REPO / "bench"))
    import fit_profile

    loop = fit_profile.measure_receive_loop(tmp_path)
    summary = json.loads((tmp_path / "receive-loop/summary.json").read_text())
    assert summary["ranks"] == 1 and summary["method"] == "allgather"
    assert loop["receive_loop_spikes"] == summary["exchange"]["spikes_received"] > 100_000
    assert loop["spike_handling_s"] == summary["time_s"]["exchange"] / loop["receive_loop_spikes"] > 0
