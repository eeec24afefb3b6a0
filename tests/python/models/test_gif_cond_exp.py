"""gif_cond_exp through the Python API: kernel lists for every cell or one per cell reach
their cells, a bad list is refused naming the model, the key, the value and the cell, and
the escape noise is each cell's own (the same spikes on 1 and 2 threads, other spikes with
another seed). Layouts (ranks, methods, distributions) and checkpoints:
tests/python/networks/users_network.py; NEST: tests/python/nest_validation/test_nest_gif_cond_exp.py."""

from __future__ import annotations

import numpy as np
import pytest

import spikex as sx

# A sharp threshold (Delta_V tiny): a spike the first step V passes V_T, no randomness.
SHARP = {"Delta_V": 1e-6, "V_T_star": -50.0, "I_e": 200.0, "tau_stc": [10.0, 100.0], "q_stc": [20.0, 5.0]}


def test_kernel_lists_reach_their_cells():
    net = sx.Network(dt_ms=0.1, seed=1)
    jumps = [0.0, 5.0, 20.0]
    cells = net.create("gif_cond_exp", 3, params={**SHARP, "tau_sfa": [50.0], "q_sfa": [[q] for q in jumps]})
    net.record_state(cells, "E_sfa")
    net.record_state(cells, "I_stc")
    net.record_spikes(cells)
    result = net.simulate(30.0)
    threshold, current = (s["values"] for s in result.states)
    gids, steps = result.spikes[0], result.spike_steps
    for k, q in enumerate(jumps):
        first = steps[gids == cells.first_gid + k].min()  # the same step for all: the kernels act after it
        assert threshold[first, k] == -50.0 and current[first, k] == 0.0
        assert threshold[first + 1, k] == pytest.approx(-50.0 + q, abs=1e-12)
        assert current[first + 1, k] == pytest.approx(25.0, abs=1e-12)  # one list for every cell
    assert np.sum(gids == cells.first_gid + 2) < np.sum(gids == cells.first_gid)  # the larger jump adapts more


@pytest.mark.parametrize(
    ("lists", "words"),
    [
        ({"tau_stc": [5.0, -1.0], "q_stc": [1.0, 2.0]}, "gif_cond_exp parameter tau_stc = -1: must be > 0 ms (cell"),
        ({"tau_sfa": [5.0, 7.0], "q_sfa": [1.0]}, "tau_sfa and q_sfa (cell"),
        ({"tau_stc": [5.0] * 9, "q_stc": [1.0] * 9}, "tau_stc (cell"),
    ],
)
def test_a_bad_list_is_refused_naming_model_key_and_cell(lists, words):
    net = sx.Network(dt_ms=0.1)
    net.create("gif_cond_exp", 2, params=lists)
    with pytest.raises(ValueError, match="gif_cond_exp") as error:
        net.simulate(1.0)
    assert words in str(error.value)


def _noisy_network(threads: int, seed: int) -> str:
    net = sx.Network(dt_ms=0.1, seed=seed, threads=threads)
    cells = net.create(
        "gif_cond_exp",
        40,
        params={
            "I_e": sx.uniform(100.0, 160.0),
            "Delta_V": 2.0,
            "lambda_0": 20.0,
            "V_T_star": -40.0,
            "tau_stc": [10.0, 100.0],
            "q_stc": [20.0, 5.0],
        },
    )
    drive = net.create("poisson_generator", 1, params={"rate": 3000.0})
    net.connect_rule("all_to_all", drive, cells, weight=1.0, delay_ms=0.5)
    net.connect_rule("fixed_indegree", cells, cells, indegree=5, weight=sx.uniform(-3.0, 2.0), delay_ms=1.0)
    net.record_spikes(cells)
    result = net.simulate(300.0)
    assert result.summary["spikes_total"] > 200
    return result.summary["spikes_sha256"]


def test_the_escape_noise_is_each_cells_own():
    one = _noisy_network(threads=1, seed=5)
    assert _noisy_network(threads=2, seed=5) == one
    assert _noisy_network(threads=1, seed=6) != one


def test_kernel_lists_change_between_runs_as_in_nest():
    """NEST keeps a cell's kernels by position when its lists change (a new one starts at 0)."""
    net = sx.Network(dt_ms=0.1, seed=1)
    cells = net.create("gif_cond_exp", 2, params={**SHARP, "tau_stc": [10.0], "q_stc": [20.0]})
    net.record_state(cells, "I_stc")
    before = net.simulate(20.0).states[0]["values"][-1]
    assert before[0] == before[1] > 0.0
    net.set(cells[0:1], tau_stc=[10.0, 50.0], q_stc=[20.0, 7.0])
    after = net.simulate(0.1).states[0]["values"][-1]
    assert after[0] == after[1] == pytest.approx(before[0] * np.exp(-0.1 / 10.0), rel=1e-12)
    with pytest.raises(ValueError, match='gif_cond_exp: state variable "E_sfa" cannot be set'):
        net.set(cells, E_sfa=-40.0)
    net.set(cells, V_m=-80.0)
    assert net.get(cells, "V_m").tolist() == [-80.0, -80.0]
