"""The routed exchange (software routing over a logical grid) gives the same spikes as
allgather on 1-8 ranks with every cell distribution, whatever the grid shape or budget;
it never buffers more than its budget; bad grids and budgets are one-line errors.

To keep the suite fast, each rank count is one SPMD job (spikex.Network.from_config, as
`spikex run` does) that runs the three distributions and that rank count's extra grid
variants one after another; `spikex run` itself is exercised by the reference, one
routed run and the error cases."""

from __future__ import annotations

import json
import tomllib

import pytest
from conftest import SMALL_NETWORK, marked, run_cli, run_config, run_spmd, several_ranks

ROUTED = "exchange.method=routed"
DISTRIBUTIONS = ("round_robin", "consecutive", "random_shuffle")
# Extra (name, overrides) per rank count: hypercube, ragged rows and planes, the smallest
# budget (one item per bucket: every hop is a message), with buckets coded as blocks
# (compress = true; the default codes only items wider than this network's 3 bytes) and
# without.
CODED = "exchange.compress=true"
VARIANTS = {
    4: [("uncompressed", ("exchange.route_dims=[2, 2]", "exchange.compress=false"))],
    5: [("ragged_3d", ("exchange.route_dims=[2, 2, 2]", CODED))],
    6: [("budget_6", ("exchange.route_dims=[3, 2]", "exchange.route_budget=6", CODED))],
    7: [("ragged_row", ("exchange.route_dims=[4, 2]", CODED))],
    8: [("hypercube", ("exchange.route_dims=hypercube", CODED))],
}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """allgather on one rank: the spikes every method must reproduce."""
    from conftest import write_config

    directory = tmp_path_factory.mktemp("reference")
    return run_config(write_config(directory), directory / "out", 1)


def run_cases(ranks: int, cases: list[tuple[str, tuple[str, ...]]], directory) -> dict[str, dict]:
    """Runs every (name, overrides) case in one job on `ranks` ranks; rank 0's summaries."""
    config = tomllib.loads(SMALL_NETWORK)
    script = f"""
        import json
        import spikex as sx
        from spikex import _core

        summaries = {{}}
        for name, sets in {json.dumps(cases)}:
            net = sx.Network.from_config({json.dumps(config)}, overrides=sets)
            summaries[name] = net.simulate({config["simulation"]["tstop_ms"]}).summary
        if _core.comm_rank() == 0:
            with open("summaries.json", "w") as out:
                json.dump(summaries, out)
    """
    done = run_spmd(script, ranks, directory)
    assert done.returncode == 0, done.stderr
    return json.loads((directory / "summaries.json").read_text())


@pytest.mark.slow
@pytest.mark.parametrize("ranks", marked(range(1, 9), mpi_if=several_ranks))
def test_same_spikes_as_allgather(reference, tmp_path, ranks):
    cases = [(d, (ROUTED, f"distribution.scheme={d}")) for d in DISTRIBUTIONS]
    cases += [(name, (ROUTED, *sets)) for name, sets in VARIANTS.get(ranks, [])]
    summaries = run_cases(ranks, cases, tmp_path)
    for name, summary in summaries.items():
        assert summary["method"] == "routed", name
        assert summary["ranks"] == ranks
        assert summary["spikes_total"] == reference["spikes_total"], name
        assert summary["spikes_sha256"] == reference["spikes_sha256"], name
        assert summary["events_delivered"] == reference["events_delivered"], name
        exchange = summary["exchange"]
        # every spike copy reached its rank (verify_conservation checked it per rank too)
        assert exchange["spikes_received"] == exchange["items_sent"], name
        assert exchange["route_buffer_high_water"] <= exchange["route_budget"], name
        if ranks > 1:
            assert exchange["messages_sent"] > 0, name
            # items of destination, gid and step mod 2M bit-packed (routed_item.hpp), 3 bytes:
            # as they are by default (compress = "auto") and with compress = false; with
            # compress = true each bucket coded as one block of the spike wire codec
            # (routed_bucket_codec.hpp): fewer bytes than the items, every hop counted
            assert exchange["entry_bytes"] == 3, name
            if CODED not in dict(cases)[name]:
                assert exchange["compressed"] == 0, name
                assert exchange["bytes_sent"] == exchange["entry_bytes"] * exchange["hops"], name
            else:
                assert exchange["compressed"] == 1, name
                # (a one-item bucket, budget_6, may take up to a byte more: the block's header)
                extra = 1 if name == "budget_6" else 0
                assert (
                    0
                    < exchange["bytes_sent"]
                    < (exchange["entry_bytes"] + extra) * exchange["hops"]
                ), name
            assert exchange["wire_bytes"] == exchange["bytes_sent"], name
            assert exchange["wire_spikes"] == exchange["hops"], name
    if ranks == 8:  # auto, budget 1024: routing does not pay yet, direct buckets of 128
        exchange = summaries["round_robin"]["exchange"]
        assert (exchange["route_dimensions"], exchange["route_dim_0"]) == (1, 8)
        assert exchange["route_bucket_capacity"] == 1024 // 8
        assert exchange["forwarded"] == 0
    for name, _ in VARIANTS.get(ranks, []):
        exchange = summaries[name]["exchange"]
        assert exchange["forwarded"] > 0, name
        if name == "budget_6":
            assert exchange["route_bucket_capacity"] == 1
            assert exchange["messages_sent"] == exchange["hops"]
            assert exchange["route_buffer_high_water"] <= 6


@pytest.mark.mpi
@pytest.mark.slow
def test_spikex_run_with_a_ragged_grid(reference, small_config, tmp_path):
    summary = run_config(small_config, tmp_path / "out", 3, (ROUTED, "exchange.route_dims=[2, 2]"))
    assert summary["spikes_sha256"] == reference["spikes_sha256"]
    assert summary["config"]["exchange"]["route_dims"] == [2, 2]
    assert summary["exchange"]["route_ragged"] == 1


@pytest.mark.parametrize(
    "ranks,sets,key",
    [
        (7, ("exchange.route_dims=[4, 4]",), "exchange.route_dims = [4, 4]"),
        (6, ("exchange.route_dims=hypercube",), 'exchange.route_dims = "hypercube"'),
        (4, ("exchange.route_dims=[0, 4]",), "exchange.route_dims = [0, 4]"),
        (8, ("exchange.route_budget=5",), "exchange.route_budget = 5"),
        (4, ("exchange.route_message_hops=-1",), "exchange.route_message_hops = -1"),
    ],
)
def test_bad_grid_or_budget_is_one_line_exit_2(small_config, tmp_path, ranks, sets, key):
    args = [
        "run",
        str(small_config),
        "--np",
        str(ranks),
        "-o",
        str(tmp_path / "out"),
        "--set",
        ROUTED,
    ]
    for item in sets:
        args += ["--set", item]
    done = run_cli(args)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert key in lines[0]
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out" / "summary.json").exists()


def test_auto_grid_weighs_what_a_message_costs(tmp_path):
    # route_dims = auto with the default (a message ~ 10 hops) is direct on 16 ranks; when a
    # message costs 400 hops (a slow network) it routes: fuller buckets, fewer messages.
    from conftest import write_config

    config = write_config(tmp_path)
    dims = {}
    for hops in (10, 400):
        out = tmp_path / f"dry{hops}.json"
        done = run_cli(["model", "dryrun", str(config), "--np", "16", "--method",
                        f"routed:route_message_hops={hops}", "-o", str(out)])  # fmt: skip
        assert done.returncode == 0, done.stderr
        (method,) = json.loads(out.read_text())["methods"].values()
        props = method["properties"]
        dims[hops] = [int(props[f"route_dim_{i}"]) for i in range(int(props["route_dimensions"]))]
    assert dims == {10: [16], 400: [4, 4]}


def test_dryrun_with_a_profile_gives_its_route_message_hops(tmp_path):
    # (send + receive overhead) / (a hop's CPU + the item's bytes over the bandwidth): the
    # value docs/methods/routed.md derives by hand, printed for the routed methods of a
    # dry run with that profile and the items' real size.
    from conftest import REPO, write_config
    from spikex.scaling.time_model import load_profile, route_message_hops

    bgp = load_profile(REPO / "profiles" / "bgp.toml")
    assert route_message_hops(bgp, 4) == 19
    config = write_config(tmp_path)
    out = tmp_path / "dry.json"
    done = run_cli(["model", "dryrun", str(config), "--np", "16", "--method", "routed,allgather",
                    "--profile", str(REPO / "profiles" / "bgp.toml"), "-o", str(out)])  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text())
    item_bytes = result["methods"]["routed"]["properties"]["entry_bytes"]
    expected = route_message_hops(bgp, item_bytes)
    methods = result["predictions"]["bgp"]["methods"]
    assert methods["routed"]["route_message_hops"] == expected
    assert "route_message_hops" not in methods["allgather"]
    assert f"--set exchange.route_message_hops={expected}" in done.stderr


def test_grid_is_checked_only_for_the_routed_method():
    from spikex.config import resolved_config

    config = tomllib.loads(SMALL_NETWORK)
    resolved_config(config, ("exchange.route_dims=[4, 4]",), ranks=2)  # allgather: unused
    with pytest.raises(ValueError, match="exchange.route_dims"):
        resolved_config(config, ("exchange.route_dims=[4, 4]", ROUTED), ranks=2)


def test_python_api_names_the_option():
    import spikex as sx

    with pytest.raises(ValueError, match="route_dims"):
        sx.Network(method="routed", route_dims="diagonal")
    net = sx.Network(method="routed", route_dims=[1], route_budget=64)
    cells = net.create("interval_fire", 50)
    net.connect_rule("random", cells, cells, indegree=10, indegree_spread=0, weight=0.01)
    net.record_spikes(cells)
    result = net.simulate(20.0)
    assert result.summary["exchange"]["route_bucket_capacity"] == 64
