"""Outputs in the circuit's terms (spikex.sonata.outputs): one file per report, the
config's spike files and sort order, the simulation's node set, summary.json populations
by node type."""

from __future__ import annotations

import json
import subprocess

import h5py
import numpy as np
import pytest
import spikex as sx
from conftest import REPO, run_cli, run_config
from sonata_circuits import write_circuit
from spikex.io.output import read_sonata_spikes
from spikex.sonata import SonataError

BMTK_PYTHON = REPO / "bench" / "bmtk" / ".venv" / "bin" / "python"
DRIVEN = {"node_overrides": {"I_e": [380.0, 400.0, 450.0, 500.0]}}  # every cell spikes

TYPES = (
    "node_type_id model_type model_template dynamics_params pop_name ei\n"
    "10 point_process nest:iaf_psc_alpha cell.json Scnn1a e\n"
    "11 point_process nest:iaf_psc_alpha fast.json PV i\n"
    "12 point_process nest:iaf_psc_alpha cell.json Rorb e\n"
)


def _reports(**reports) -> dict:
    return {"reports": reports}


def _circuit(tmp_path, **extra):
    return write_circuit(tmp_path, tstop=30.0, simulation_extra=extra, **DRIVEN)


# ---- reports -----------------------------------------------------------------------------


def test_each_report_writes_its_own_file_with_its_cells_and_times(tmp_path):
    path = _circuit(
        tmp_path,
        **_reports(
            v_all={"module": "membrane_report", "variable_name": "V_m"},
            v_some={
                "module": "multimeter_report", "variable_name": ["V_m"], "file_name": "custom",
                "cells": {"population": "cells", "node_id": [1, 3]},
                "start_time": 5.0, "end_time": 15.0, "dt": 0.5,
            },
            off={"module": "membrane_report", "variable_name": "V_m", "enabled": False},
        ),
    )  # fmt: skip
    out = tmp_path / "out"
    summary = run_config(path, out)
    assert not (out / "state.h5").exists() and not (out / "off.h5").exists()
    with h5py.File(out / "v_all.h5") as f:
        assert list(f["report"]) == ["cells"]  # virtual nodes are not reported
        assert f["report/cells/mapping/node_ids"][:].tolist() == [0, 1, 2, 3]
        assert f["report/cells/data"].shape == (300, 4)
        np.testing.assert_allclose(f["report/cells/mapping/time"][:], [0.0, 30.0, 0.1])
    with h5py.File(out / "custom.h5") as f:
        mapping = f["report/cells/mapping"]
        assert mapping["node_ids"][:].tolist() == [1, 3]
        assert mapping["index_pointers"][:].tolist() == [0, 1, 2]
        assert mapping["element_ids"][:].tolist() == [0, 0]
        np.testing.assert_allclose(mapping["time"][:], [5.0, 15.0, 0.5])
        custom = f["report/cells/data"][:]
        assert custom.shape == (20, 2) and f["report/cells/data"].attrs["units"] == "mV"
    # the same values as the Python API's recording, at the report's times
    net = sx.Network.from_sonata(path)
    result = net.simulate(30.0)
    assert result.summary["spikes_sha256"] == summary["spikes_sha256"]
    report = net.sonata.report(result, "v_some")
    np.testing.assert_allclose(report["times_ms"], 5.0 + 0.5 * np.arange(20))
    assert custom.dtype == np.float32  # as SONATA and libsonata want the data
    np.testing.assert_array_equal(report["cells"]["values"].astype(np.float32), custom)
    whole = net.sonata.report(result, "v_all")
    rows = np.searchsorted(whole["times_ms"], report["times_ms"])
    np.testing.assert_array_equal(
        whole["cells"]["values"][rows][:, [1, 3]].astype(np.float32), custom
    )


def test_report_dt_below_the_runs_is_the_runs(tmp_path):
    path = _circuit(tmp_path, **_reports(v={"variable_name": "V_m", "dt": 0.01, "end_time": 1.0}))
    net = sx.Network.from_sonata(path)
    spec = net.sonata.report_specs["v"]
    assert spec.interval_ms == 0.1
    assert net.sonata.report(net.simulate(2.0), "v")["times_ms"].size == 10


@pytest.mark.parametrize(
    ("report", "named"),
    [
        ({"variable_name": "V_m", "dt": 0.25}, "dt = 0.25: must be a whole multiple"),
        ({"variable_name": "V_m", "start_time": 5.0, "end_time": 5.0}, "end_time = 5.0"),
        ({"variable_name": "V_m", "start_time": -1}, "start_time = -1"),
        ({"variable_name": ["V_m", "I_syn_ex"]}, "one variable name per report"),
        ({"variable_name": "g_ex"}, "not a recordable variable of iaf_psc_alpha"),
    ],
)
def test_bad_report_is_named(tmp_path, report, named):
    path = _circuit(tmp_path, **_reports(bad=report))
    with pytest.raises(SonataError, match="reports.bad") as error:
        sx.Network.from_sonata(path)
    assert named in str(error.value) and "\n" not in str(error.value)


def test_two_reports_writing_one_file_are_refused(tmp_path):
    path = _circuit(
        tmp_path,
        **_reports(
            a={"variable_name": "V_m", "file_name": "v.h5"},
            b={"variable_name": "V_m", "file_name": "v"},
        ),
    )
    with pytest.raises(SonataError, match="file_name = 'v.h5': report 'a' writes that file too"):
        sx.Network.from_sonata(path)


@pytest.mark.slow
def test_bmtks_reader_reads_the_report_and_the_spikes(tmp_path):
    if not BMTK_PYTHON.exists():
        pytest.skip("BMTK's venv is not set up (scripts/setup_bmtk.sh)")
    path = _circuit(
        tmp_path,
        **_reports(v={"variable_name": "V_m", "cells": {"population": "cells", "node_id": [0, 2]},
                      "start_time": 2.0, "dt": 0.2}),
        output={"output_dir": "output", "spikes_file": "out.h5", "spikes_sort_order": "by_id"},
    )  # fmt: skip
    out = tmp_path / "out"
    run_config(path, out)
    script = f"""
import json
from bmtk.utils.reports import CompartmentReport
from bmtk.utils.reports.spike_trains import SpikeTrains
report = CompartmentReport({str(out / "v.h5")!r}, mode="r")
spikes = SpikeTrains.load({str(out / "out.h5")!r})
frame = spikes.to_dataframe()
print(json.dumps({{
    "node_ids": report.node_ids().tolist(), "tstart": report.tstart(), "dt": report.dt(),
    "variable": report.variable(), "trace": report.data(node_id=2).tolist(),
    "spikes": len(frame), "populations": sorted(set(frame["population"])),
}}))
"""
    done = subprocess.run(
        [str(BMTK_PYTHON), "-c", script], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    read = json.loads(done.stdout.strip().splitlines()[-1])
    assert read["node_ids"] == [0, 2] and read["tstart"] == 2.0 and read["dt"] == 0.2
    assert read["variable"] == "V_m"
    with h5py.File(out / "v.h5") as f:
        np.testing.assert_array_equal(np.ravel(read["trace"]), f["report/cells/data"][:, 1])
    node_ids, _ = read_sonata_spikes(out / "spikes.h5", "cells")
    assert read["spikes"] == node_ids.size > 0 and read["populations"] == ["cells"]


# ---- spikes --------------------------------------------------------------------------------


def test_spikes_file_sorted_by_id_and_csv_beside_spikes_h5(tmp_path):
    path = _circuit(
        tmp_path,
        output={"output_dir": "output", "spikes_file": "out.h5", "spikes_file_csv": "spikes.csv",
                "spikes_sort_order": "node_id"},
    )  # fmt: skip
    out = tmp_path / "out"
    run_config(path, out)
    by_time_ids, by_time = read_sonata_spikes(out / "spikes.h5", "cells")
    assert np.all(np.diff(by_time) >= 0) and by_time.size > 4
    with h5py.File(out / "out.h5") as f:
        group = f["spikes/cells"]
        assert h5py.check_enum_dtype(group.attrs.get_id("sorting").dtype) == {
            "none": 0,
            "by_id": 1,
            "by_time": 2,
        }
        assert group.attrs["sorting"] == 1  # SONATA's enum: by_id
        ids, times = group["node_ids"][:], group["timestamps"][:]
    assert np.all(np.diff(ids.astype(np.int64)) >= 0)
    order = np.lexsort((by_time, by_time_ids))
    np.testing.assert_array_equal(ids, by_time_ids[order])
    np.testing.assert_array_equal(times, by_time[order])
    lines = (out / "spikes.csv").read_text().splitlines()
    assert lines[0] == "timestamps population node_ids" and len(lines) == ids.size + 1
    rows = [line.split() for line in lines[1:]]
    assert [int(r[2]) for r in rows] == ids.tolist() and {r[1] for r in rows} == {"cells"}
    np.testing.assert_array_equal([float(r[0]) for r in rows], times)
    assert not list(out.glob(".*tmp*"))  # written atomically: no temporary left


def test_bad_spikes_sort_order_exits_2_with_one_line(tmp_path):
    path = _circuit(tmp_path, output={"output_dir": "output", "spikes_sort_order": "by_rank"})
    done = run_cli(["run", str(path), "-o", str(tmp_path / "out")])
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "spikes_sort_order = 'by_rank'" in lines[0] and "by_id" in lines[0]


def test_the_simulations_node_set_chooses_whose_spikes_are_recorded(tmp_path):
    path = _circuit(
        tmp_path, node_set="some", node_sets={"some": {"population": "cells", "node_id": [1, 2]}}
    )
    everything = sx.Network.from_sonata(_circuit(tmp_path / "all")).simulate(30.0)
    net = sx.Network.from_sonata(path)
    result = net.simulate(30.0)
    first = net.sonata.populations["cells"].first_gid
    ids = result.spikes[0] - first
    assert set(ids.tolist()) == {1, 2}
    all_ids = everything.spikes[0] - first
    np.testing.assert_array_equal(result.spikes[1], everything.spikes[1][np.isin(all_ids, [1, 2])])
    assert result.summary["populations"]["cells"]["recorded_cells"] == 2
    # and in spikex run's spikes.h5
    run_config(path, tmp_path / "out")
    node_ids, _ = read_sonata_spikes(tmp_path / "out" / "spikes.h5", "cells")
    assert set(node_ids.tolist()) == {1, 2}


# ---- summary.json populations by node type ----------------------------------------------


def _typed(tmp_path, **extra):
    return write_circuit(
        tmp_path, cells=6, tstop=30.0, cell_types=TYPES, cell_type_ids=[10, 11, 10, 12, 11, 10],
        cell_jsons={"fast.json": {"tau_m": 5.0, "C_m": 250.0, "E_L": -70.0, "V_th": -55.0}},
        node_overrides={"I_e": [380.0, 900.0, 450.0, 500.0, 1000.0, 420.0]}, simulation_extra=extra,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("key", "groups"),
    [
        ("node_types", {"cells:10": [0, 2, 5], "cells:11": [1, 4], "cells:12": [3]}),
        ("pop_name", {"cells:PV": [1, 4], "cells:Rorb": [3], "cells:Scnn1a": [0, 2, 5]}),
        ("ei", {"cells:e": [0, 2, 3, 5], "cells:i": [1, 4]}),
    ],
)
def test_summary_populations_by_node_type_or_attribute(tmp_path, key, groups):
    path = _typed(tmp_path, spikex={"summary_populations": key})
    net = sx.Network.from_sonata(path)
    result = net.simulate(30.0)
    populations = result.summary["populations"]
    assert "cells" not in populations and "inputs" in populations
    ids = result.spikes[0] - net.sonata.populations["cells"].first_gid
    for name, members in groups.items():
        entry = populations[name]
        assert entry["cells"] == entry["recorded_cells"] == len(members)
        assert entry["spikes"] == np.isin(ids, members).sum() > 0
        assert entry["population"] == "cells"
        assert entry["rate_hz"] == pytest.approx(entry["spikes"] / (len(members) * 0.03))
    assert set(populations) == {*groups, "inputs"}
    # spikex run counts them from spikes.h5: the same entries
    summary = run_config(path, tmp_path / "out")
    assert {k: v for k, v in summary["populations"].items() if k != "inputs"} == {
        k: v for k, v in populations.items() if k != "inputs"
    }


def test_summary_populations_from_the_api_or_toml_overrides_the_config(tmp_path):
    path = _typed(tmp_path, spikex={"summary_populations": "node_types"})
    net = sx.Network.from_sonata(path, summary_populations="populations")
    assert "cells" in net.simulate(5.0).summary["populations"]
    toml = tmp_path / "run.toml"
    toml.write_text(
        '[simulation]\ntstop_ms = 10.0\ndt_ms = 0.1\n\n[network]\nsonata = "simulation_config.json"\n'
        'sonata_summary_populations = "pop_name"\n'
    )
    summary = run_config(toml, tmp_path / "out")
    assert {"cells:PV", "cells:Rorb", "cells:Scnn1a"} <= set(summary["populations"])


def test_summary_populations_naming_no_attribute_is_refused(tmp_path):
    path = _typed(tmp_path, spikex={"summary_populations": "layer"})
    with pytest.raises(SonataError, match="summary_populations = 'layer'") as error:
        sx.Network.from_sonata(path)
    assert "node_types" in str(error.value) and "\n" not in str(error.value)
