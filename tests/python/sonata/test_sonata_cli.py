"""`spikex run simulation_config.json`, `[network] sonata` in a TOML, and bad circuits:
exit status 2 with one line naming the file and what is wrong."""

from __future__ import annotations

import numpy as np
import pytest
import spikex as sx
from conftest import run_cli, run_config
from sonata_circuits import copy_example
from spikex.io.output import read_sonata_spikes

SHORT = ("simulation.tstop_ms=300",)


def test_run_writes_spikes_per_sonata_population_with_node_ids(tmp_path):
    path = copy_example(tmp_path)
    summary = run_config(path, tmp_path / "out", sets=SHORT)
    assert summary["config"]["simulation"]["dt_ms"] == 0.01  # run.dt
    assert set(summary["populations"]) == {"internal", "external"}
    node_ids, _ = read_sonata_spikes(tmp_path / "out" / "spikes.h5", "internal")
    assert node_ids.size == summary["spikes_total"] > 0 and node_ids.max() < 300
    net = sx.Network.from_sonata(path)
    result = net.simulate(300.0)
    assert result.summary["spikes_sha256"] == summary["spikes_sha256"]
    gids = result.spikes[0]
    np.testing.assert_array_equal(
        np.sort(gids - net.sonata.populations["internal"].first_gid), np.sort(node_ids)
    )


def test_run_defaults_to_the_configs_output_dir(tmp_path):
    path = copy_example(tmp_path)
    done = run_cli(["run", str(path), "--set", "simulation.tstop_ms=20"])
    assert done.returncode == 0, done.stderr
    assert (path.parent / "output" / "spikes.h5").is_file()


@pytest.mark.slow
def test_toml_names_the_circuit(tmp_path):
    path = copy_example(tmp_path)
    toml = path.parent / "run.toml"
    toml.write_text(
        '[simulation]\ntstop_ms = 300.0\ndt_ms = 0.01\n\n[network]\nsonata = "simulation_config.json"\n'
    )
    by_toml = run_config(toml, tmp_path / "toml")
    by_json = run_config(path, tmp_path / "json", sets=SHORT)
    assert by_toml["spikes_sha256"] == by_json["spikes_sha256"]


@pytest.fixture(scope="module")
def one_rank(tmp_path_factory):
    """The example on one rank (allgather): the reference of the multi-rank runs."""
    directory = tmp_path_factory.mktemp("one")
    return run_config(copy_example(directory), directory / "out", sets=SHORT)


@pytest.mark.mpi
@pytest.mark.slow
@pytest.mark.parametrize(
    ("ranks", "method", "scheme"),
    [
        (2, "allgather", "random_shuffle"),
        (3, "alltoall", "consecutive"),
        (4, "allgather", "round_robin"),
    ]
    + [
        (3, method, "random_shuffle")
        for method in ("alltoallv", "multisend", "persistent", "rma", "routed")
    ],
)
def test_same_spikes_on_any_ranks_and_method(tmp_path, one_rank, ranks, method, scheme):
    path = copy_example(tmp_path)
    sets = (*SHORT, f"exchange.method={method}", f"distribution.scheme={scheme}")
    summary = run_config(path, tmp_path / "out", ranks=ranks, sets=sets)
    assert summary["ranks"] == ranks and summary["connections"] == one_rank["connections"] == 48432
    assert summary["spikes_sha256"] == one_rank["spikes_sha256"]


def _bad_manifest(path):
    circuit = path.parent / "circuit_config.json"
    circuit.write_text(
        circuit.read_text().replace("$NETWORK_DIR/internal_nodes.h5", "$NET_DIR/internal_nodes.h5")
    )
    return "$NET_DIR"


def _unknown_model(path):
    types = path.parent / "network" / "internal_node_types.csv"
    types.write_text(types.read_text().replace("nest:iaf_psc_alpha", "nest:glif_psc"))
    return "glif_psc"


def _missing_file(path):
    (path.parent / "network" / "internal_internal_edges.h5").unlink()
    return "internal_internal_edges.h5"


def _missing_column(path):
    types = path.parent / "network" / "internal_node_types.csv"
    lines = [line.split() for line in types.read_text().splitlines()]
    types.write_text("\n".join(" ".join(fields[1:]) for fields in lines) + "\n")  # no node_type_id
    return "node_type_id"


@pytest.mark.parametrize("spoil", [_bad_manifest, _unknown_model, _missing_file, _missing_column])
def test_bad_circuit_exits_2_with_one_line(tmp_path, spoil):
    path = copy_example(tmp_path)
    named = spoil(path)
    done = run_cli(["run", str(path), "-o", str(tmp_path / "out")])
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and named in lines[0], done.stderr
    assert not (tmp_path / "out" / "summary.json").exists()


def test_missing_config_exits_2(tmp_path):
    done = run_cli(["run", str(tmp_path / "simulation_config.json")])
    assert done.returncode == 2
    assert "simulation_config.json" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_toml_naming_a_missing_circuit_exits_2(tmp_path):
    toml = tmp_path / "run.toml"
    toml.write_text('[network]\nsonata = "nowhere/circuit_config.json"\n')
    done = run_cli(["run", str(toml)])
    assert done.returncode == 2 and "network.sonata" in done.stderr, done.stderr
    assert "nowhere/circuit_config.json" in done.stderr


def test_run_writes_each_report_into_its_own_file(tmp_path):
    import h5py

    path = copy_example(tmp_path)
    (path.parent / "node_sets.json").write_text(
        '{"recorded_cells": {"population": "internal", "node_id": [0, 7]}}'
    )
    run_config(path, tmp_path / "out", sets=("simulation.tstop_ms=20",))
    assert not (tmp_path / "out" / "state.h5").exists()  # no stand-in any more
    with h5py.File(tmp_path / "out" / "membrane_potential.h5") as f:
        assert f["report/internal/mapping/node_ids"][:].tolist() == [0, 7]
        assert f["report/internal/data"].shape == (2000, 2)
        assert f["report/internal/data"].attrs["variable"] == "V_m"
        np.testing.assert_allclose(f["report/internal/mapping/time"][:], [0.0, 20.0, 0.01])


@pytest.mark.mpi
@pytest.mark.slow
def test_error_found_by_one_rank_ends_the_run_with_one_line(tmp_path):
    import h5py

    # each rank reads the edges of its own cells: only the rank owning edge 20000's target
    # sees its bad source; every rank stops with that rank's message
    path = copy_example(tmp_path)
    with h5py.File(path.parent / "network" / "internal_internal_edges.h5", "a") as f:
        sources = f["edges/internal_to_internal/source_node_id"]
        values = sources[:]
        values[20000] = 999
        sources[:] = values
    done = run_cli(["run", str(path), "--np", "2", "-o", str(tmp_path / "out")])
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "edge 20000: source_node_id = 999" in lines[0], done.stderr
