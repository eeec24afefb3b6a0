"""The conformance suite, Python side: every method of the C++ exchange registry and every
variant it declares (tests/mpi/test_conformance.cpp is the C++ side, which also shows that
a deliberately incomplete method fails).

For P = 1, 2, 3, 4 one SPMD job runs all of them on a network with non-zero, mixed-sign
weights (the Python API, the code path of ``spikex run``; the engine verifies conservation
at the end of every run). Checked per method and variant: the same ``spikes_sha256`` as
allgather, spikes sent = received, the dry run's counters equal the real run's, a cost
formula in the time model, a docs page, a complete registry entry, and a bad value of each
of its options exits 2 naming the key. Nothing here lists methods by hand.
"""

from __future__ import annotations

import pytest
from conftest import REPO, run_cli, write_config

from spikex import counters
from spikex.config import KEYS, resolve, validate
from spikex.errors import ConfigError
from spikex.methods import METHODS, all_variant_labels, capability
from spikex.scaling.dryrun import execute_dryrun, plan_dryrun
from spikex.scaling.time_model import COST_FORMULAS
from spikex.scaling.validation import exact_counters, measure_runs

NETWORK = """
[simulation]
tstop_ms = 30.0
seed = 11

[network]
cells = 600
indegree = 60
indegree_spread = 12
weight = 0.0
weight_spread = 0.08

[network.interval_fire]
invl_low_ms = 1.5
invl_high_ms = 6.0
"""
TSTOP_MS = 30.0


LABELS = all_variant_labels()


@pytest.fixture(scope="module", params=(1, 2, 3, 4))
def runs(request, tmp_path_factory):
    ranks = request.param
    directory = tmp_path_factory.mktemp(f"conformance-np{ranks}")
    config = write_config(directory, NETWORK)
    real = measure_runs(config, ranks, LABELS, TSTOP_MS, directory)
    dry = execute_dryrun(plan_dryrun(config, ranks, ",".join(LABELS)))
    return ranks, real, dry


@pytest.mark.mpi
@pytest.mark.slow
def test_every_variant_gives_the_allgather_spikes(runs):
    ranks, real, _ = runs
    reference = real["allgather"]["spikes_sha256"]
    differ = [label for label in LABELS if real[label]["spikes_sha256"] != reference]
    assert not differ, f"P={ranks}: spikes differ from allgather for {differ}"


@pytest.mark.mpi
@pytest.mark.slow
def test_spikes_sent_equal_spikes_received(runs):
    ranks, real, _ = runs
    for label in LABELS:
        counters = real[label]["exchange"]
        caps = METHODS[label.split(":")[0]]["capabilities"]
        # one rank: point-to-point methods deliver everything locally, sending nothing
        assert counters["spikes_sent"] > 0 or (ranks == 1 and not caps["broadcast"]), label
        if caps["broadcast"]:
            # every rank receives every spike
            assert counters["spikes_received"] == counters["spikes_sent"] * ranks, label
        elif caps["presynaptic_targets"]:
            assert counters["entries_sent"] == counters["entries_received"], label
        elif caps["process_grid"]:
            assert counters["items_sent"] == counters["spikes_received"], label
        else:
            assert counters["messages_sent"] == counters["spikes_received"], label


@pytest.mark.mpi
@pytest.mark.slow
def test_counters_are_named_in_the_table(runs):
    ranks, real, dry = runs
    for label in LABELS:
        reported = set(real[label]["exchange"]) | set(dry["methods"][label]["sums"])
        unknown = sorted(name for name in reported if not counters.known(name))
        assert not unknown, f"{label}: counters not in counter_names.hpp: {unknown}"


@pytest.mark.mpi
@pytest.mark.slow
def test_dryrun_counters_equal_real_counters(runs):
    ranks, real, dry = runs
    for label in LABELS:
        sums = dry["methods"][label]["sums"]
        counters = real[label]["exchange"]
        exact = exact_counters(dry["methods"][label])
        compared = [name for name in exact if name in sums and name in counters]
        assert len(compared) >= 3, f"{label}: only {compared} compared"
        if "alltoall" in label and "sort_by_source=false" not in label:
            # sorted layout, every rank counted: the coded blocks are counted exactly
            assert "wire_bytes" in compared, label
        timed = ("messages_sent", "rounds") if capability(label.split(":")[0], "process_grid") else ()
        for name in timed:
            # how a bucket splits into messages depends on timing: a lower bound
            assert sums[name] <= counters[name], f"P={ranks} {label}: {name}"
        for name in compared:
            if name not in timed:
                assert sums[name] == counters[name], f"P={ranks} {label}: {name}"
        if not timed and "rounds" in exact:
            # conservation iterations depend on timing; every other round is predicted
            excluded = dry["methods"][label]["properties"].get("rounds_exclude_conservation_iterations")
            iterations = counters.get("conservation_iterations", 0) if excluded else 0
            assert sums["rounds"] == counters["rounds"] - iterations, f"P={ranks} {label}: rounds"


@pytest.mark.parametrize("method", list(METHODS))
def test_registry_entry_is_complete(method):
    entry = METHODS[method]
    assert entry["problems"] == [], entry["problems"]
    assert entry["cost_formula"] in COST_FORMULAS, f"{method}: no cost formula {entry['cost_formula']!r}"
    page = REPO / "docs" / "methods" / f"{entry['docs_page']}.md"
    assert page.is_file(), f"{method}: no docs page {page}"
    assert f"`{method}`" in page.read_text() or f'"{method}"' in page.read_text(), page


def bad_value(spec: dict) -> object:
    """A value the option refuses."""
    if spec["kind"] in ("int", "float"):
        return spec["minimum"] - 1 if spec["minimum"] is not None else "text"
    if spec["kind"] == "bool":
        return "maybe"
    if spec["kind"] == "grid":
        return [0]
    return "no-such-choice"


@pytest.mark.parametrize("method", list(METHODS))
def test_bad_option_is_refused_naming_the_key(method):
    for spec in METHODS[method]["options"]:
        config = resolve({"exchange": {"method": method, spec["name"]: bad_value(spec)}})
        with pytest.raises(ConfigError) as error:
            validate(config)
        assert f"exchange.{spec['name']}" in str(error.value)
        assert f"exchange.{spec['name']}" in KEYS


@pytest.mark.parametrize("method", list(METHODS))
def test_bad_option_exits_2(tmp_path, method):
    spec = METHODS[method]["options"][0]
    config = write_config(tmp_path, NETWORK)
    value = bad_value(spec)
    text = f'"{value}"' if isinstance(value, str) else str(value)
    done = run_cli(["run", str(config), "--set", f"exchange.method={method}",
                    "--set", f"exchange.{spec['name']}={text}", "-o", str(tmp_path / "out")])  # fmt: skip
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"exchange.{spec['name']}" in lines[0], done.stderr
    assert not (tmp_path / "out" / "summary.json").exists()
