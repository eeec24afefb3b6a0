"""Configuration: every bad input is rejected by `spikex run` with exit status 2 and one
line naming the key, the value and what is allowed; no traceback, no output files. And
the registry itself: defaults, overrides, normalisation, generated docs."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from conftest import REPO, run_cli, write_config
from spikex import config as registry
from spikex.errors import ConfigError
from spikex.methods import EXCHANGE_METHODS

GOOD = """
[simulation]
tstop_ms = 20.0

[network]
cells = 64
indegree = 10
indegree_spread = 2
"""

# (case, TOML text or None for GOOD, --set overrides, extra CLI args, text stderr must hold)
BAD_INPUTS = [
    (
        "unknown key",
        "[network]\ncelss = 64\n",
        (),
        (),
        ["network.celss = 64", "unknown key", "allowed in [network]:", "cells"],
    ),
    (
        "unknown section",
        "[netwrok]\ncells = 64\n",
        (),
        (),
        ["[netwrok]", "unknown section", "[network]"],
    ),
    (
        "unknown key by --set",
        None,
        ("network.foo=1",),
        (),
        ["network.foo = 1", "unknown key", "indegree"],
    ),
    (
        "wrong type",
        '[network]\ncells = "many"\n',
        (),
        (),
        ['network.cells = "many"', "must be an integer >= 1"],
    ),
    (
        "bool is not an integer",
        "[network]\ncells = true\n",
        (),
        (),
        ["network.cells = true", "must be an integer >= 1"],
    ),
    (
        "negative cells",
        None,
        ("network.cells=-5",),
        (),
        ["network.cells = -5", "must be an integer >= 1"],
    ),
    (
        "delay shorter than dt",
        "[network]\ndelay_ms = 0.01\n",
        (),
        (),
        ["network.delay_ms = 0.01", "delay shorter than dt", ">= simulation.dt_ms = 0.025"],
    ),
    (
        "unknown method",
        None,
        ("exchange.method=carrier_pigeon",),
        (),
        ['exchange.method = "carrier_pigeon"', 'must be one of "allgather"'],
    ),
    (
        "unknown distribution",
        None,
        ("distribution.scheme=by_mood",),
        (),
        ['distribution.scheme = "by_mood"', '"round_robin", "consecutive", "random_shuffle"'],
    ),
    ("zero dt", None, ("simulation.dt_ms=0",), (), ["simulation.dt_ms = 0", "> 0"]),
    ("negative tstop", None, ("simulation.tstop_ms=-1",), (), ["simulation.tstop_ms = -1", ">= 0"]),
    (
        "seed too large",
        None,
        ("simulation.seed=4294967296",),
        (),
        ["simulation.seed = 4294967296", "<= 4294967295"],
    ),
    ("not finite", None, ("network.weight=nan",), (), ["network.weight = nan", "a number"]),
    (
        "intervals reversed",
        None,
        ("network.interval_fire.invl_high_ms=10",),
        (),
        [
            "network.interval_fire.invl_high_ms = 10.0",
            ">= network.interval_fire.invl_low_ms = 20.0",
        ],
    ),
    (
        "zero burst factor",
        None,
        ("network.burst.factor=0",),
        (),
        ["network.burst.factor = 0", "> 0"],
    ),
    (
        "indegree above cells - 1",
        None,
        ("network.indegree=80",),
        (),
        ["network.indegree = 80", "must be <= 62"],
    ),
    (
        "adjacent indegree above cells - 1",
        None,
        ("network.connectivity=adjacent", "network.indegree=64"),
        (),
        ["network.indegree = 64", "cells - 1 = 63"],
    ),
    (
        "compress not a choice",
        None,
        ('exchange.compress="yes"',),
        (),
        ['exchange.compress = "yes"', '"auto", true, false'],
    ),
    ("section set as a key", None, ("network.burst=1",), (), ["network.burst", "is a section"]),
    ("malformed --set", None, ("network.cells",), (), ["--set", "KEY=VALUE"]),
    ("invalid TOML", "[network\ncells = 3\n", (), (), ["invalid TOML"]),
    ("zero threads", None, (), ("--threads", "0"), ["--threads", "between 1 and 1024"]),
    ("zero ranks", None, (), ("--np", "0"), ["--np", ">= 1"]),
    ("unknown option", None, (), ("--bogus",), ["--bogus", "spikex run --help"]),
]


@pytest.mark.parametrize(
    ("text", "overrides", "extra", "expected"),
    [case[1:] for case in BAD_INPUTS],
    ids=[case[0] for case in BAD_INPUTS],
)
def test_bad_input_exits_2_with_one_line(tmp_path, text, overrides, extra, expected):
    config = write_config(tmp_path, textwrap.dedent(text if text is not None else GOOD))
    outdir = tmp_path / "out"
    args = ["run", str(config), "-o", str(outdir), *extra]
    for override in overrides:
        args += ["--set", override]
    done = run_cli(args, timeout=60)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("spikex: ")
    for fragment in expected:
        assert fragment in lines[0]
    assert "Traceback" not in done.stderr + done.stdout
    assert not outdir.exists(), "a rejected run must not create its output directory"
    assert sorted(path.name for path in tmp_path.iterdir()) == [config.name]


def test_missing_config_file_exits_2(tmp_path):
    done = run_cli(["run", str(tmp_path / "nope.toml"), "-o", str(tmp_path / "out")], timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"spikex: config error: {tmp_path / 'nope.toml'}: configuration file not found"
    ]


def test_good_input_runs(tmp_path):
    config = write_config(tmp_path, GOOD)
    done = run_cli(["run", str(config), "-o", str(tmp_path / "out")], timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(tmp_path / "out"), "stdout holds only the output directory"
    assert done.stderr == "", "no progress bar off a terminal"
    assert (tmp_path / "out" / "summary.json").exists()
    assert [path.name for path in tmp_path.iterdir() if path.name.startswith(".spikex-tmp")] == []


# ---- the registry --------------------------------------------------------------------


def test_defaults_fill_every_key():
    resolved = registry.resolve({})
    for key in registry.REGISTRY:
        assert registry.get(resolved, key.path) == key.default
    assert registry.validate(resolved) == resolved


def test_each_section_module_holds_its_own_keys_rules_and_checks():
    """config/<section>.py is replaceable on its own (exchange.py will be generated)."""
    from spikex.config.registry import CROSS_CHECKS, SECTION_MODULES

    for module in SECTION_MODULES:
        sections = set(module.SECTION_DOCS)
        assert sections, module.__name__
        assert all(key.section in sections for key in module.REGISTRY), module.__name__
        assert isinstance(module.CROSS_RULES, tuple) and isinstance(module.CROSS_CHECKS, tuple)
    assert sum(len(module.REGISTRY) for module in SECTION_MODULES) == len(registry.KEYS)
    assert len(CROSS_CHECKS) == sum(len(module.CROSS_CHECKS) for module in SECTION_MODULES)
    exchange = {module.__name__: module for module in SECTION_MODULES}["spikex.config.exchange"]
    assert {key.section for key in exchange.REGISTRY} == {"exchange"}


def test_contract_keys_and_defaults():
    expected = {
        "simulation.tstop_ms": 200.0, "simulation.dt_ms": 0.025, "simulation.seed": 1,
        "network.model": "interval_fire", "network.cells": 8192, "network.indegree": 1000,
        "network.indegree_spread": 100, "network.connectivity": "random",
        "network.delay_ms": 1.0, "network.weight": 0.0, "network.weight_spread": 0.0,
        "network.burst.groups": 0, "network.burst.factor": 5.0, "network.burst.period_ms": 50.0,
        "network.interval_fire.tau_ms": 5.0, "network.interval_fire.invl_low_ms": 20.0,
        "network.interval_fire.invl_high_ms": 40.0, "distribution.scheme": "round_robin",
        "exchange.method": "allgather", "record.spikes": True,
        "exchange.allgather_slots": 10, "exchange.compress": "auto",
        "exchange.source_lookup": "dense", "exchange.measure_wait": True,
    }  # fmt: skip
    # The contract's keys keep their defaults; issues may add keys, never drop these.
    defaults = {path: key.default for path, key in registry.KEYS.items()}
    assert {path: defaults.get(path) for path in expected} == expected


@pytest.mark.parametrize(
    ("text", "value"),
    [("4096", 4096), ("0.5", 0.5), ("true", True), ("adjacent", "adjacent"),
     ('"auto"', "auto"), ("1e3", 1000.0), (" 7 ", 7)],
)  # fmt: skip
def test_override_values_are_toml_or_bare_strings(text, value):
    path, parsed = registry.parse_override(f"network.cells={text}")
    assert path == "network.cells"
    assert parsed == value and type(parsed) is type(value)


def test_overrides_do_not_modify_their_input():
    base = registry.resolve({})
    changed = registry.apply_overrides(base, ["network.burst.groups=8"])
    assert registry.get(changed, "network.burst.groups") == 8
    assert registry.get(base, "network.burst.groups") == 0


def test_validate_turns_integers_into_floats_for_float_keys():
    resolved = registry.validate(registry.resolve({"simulation": {"tstop_ms": 100}}))
    assert resolved["simulation"]["tstop_ms"] == 100.0
    assert isinstance(resolved["simulation"]["tstop_ms"], float)


def test_config_error_is_a_one_line_value_error():
    error = ConfigError("network.cells", "a\nb", "must be an integer >= 1")
    assert isinstance(error, ValueError)
    assert "\n" not in str(error)
    assert str(ConfigError("network.cells", -5, "must be an integer >= 1")) == (
        "config error: network.cells = -5: must be an integer >= 1"
    )


def test_route_dims_depend_on_ranks():
    config = registry.resolve(
        {
            "network": {"cells": 512, "indegree": 10, "indegree_spread": 2},
            "exchange": {"method": "routed", "route_dims": [2, 2]},
        }
    )
    with pytest.raises(ConfigError, match=r"exchange\.route_dims"):
        registry.validate(config, ranks=5)
    registry.validate(config, ranks=4)


@pytest.mark.parametrize("method", sorted(EXCHANGE_METHODS))
def test_every_registered_method_is_accepted(method):
    registry.validate(registry.resolve({"exchange": {"method": method}}))


@pytest.mark.parametrize("name", ["hines2011_demo.toml", "hines2011_table3.toml", "brunel_populations.toml"])
@pytest.mark.parametrize("ranks", [1, 2, 4])
def test_examples_are_valid(name, ranks):
    registry.resolved_config(REPO / "examples" / name, ranks=ranks)


def test_table3_variants_are_valid():
    path = REPO / "examples" / "hines2011_table3.toml"
    for overrides in (
        ["network.burst.groups=8"],
        ["network.connectivity=adjacent"],
        ["distribution.scheme=consecutive", "network.burst.groups=8"],
        ["distribution.scheme=random_shuffle", "network.connectivity=adjacent"],
    ):
        registry.resolved_config(path, overrides, ranks=4)


def test_docs_are_generated_from_the_registry():
    docs = Path(REPO / "docs" / "user" / "config.md").read_text(encoding="utf-8")
    assert docs == registry.describe(), (
        "docs/user/config.md is stale: python -m spikex.config --markdown > docs/user/config.md"
    )
    for key in registry.REGISTRY:
        assert f"`{key.name}`" in docs
