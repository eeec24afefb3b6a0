"""The Potjans & Diesmann microcircuit: derived numbers against NEST's published formulas
(computed here independently), bad configuration values, and a small network end to end
(the same spikes on 1 and 2 ranks)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import REPO, run_cli, run_config, write_config
from spikex.config import get as config_get
from spikex.config import resolved_config
from spikex.models import microcircuit as mc

FULL = (20683, 5834, 21915, 5479, 4850, 1065, 14395, 2948)
L23E, L23I, L4E, L4I, L5E, L5I, L6E, L6I = range(8)

# 2 % of the neurons (1,544) with full in-degrees would need 6 M synapses; k_scaling 0.1 keeps
# it at 0.6 M so that a run takes seconds.
SMALL_MICROCIRCUIT = """
[simulation]
dt_ms = 0.1
tstop_ms = 100.0
seed = 3

[network]
model = "microcircuit"
n_scaling = 0.02
k_scaling = 0.1
"""


def derived(*sets: str) -> mc.Microcircuit:
    config = resolved_config(
        {"simulation": {"dt_ms": 0.1}, "network": {"model": "microcircuit"}}, sets, ranks=1
    )
    return mc.derive(config, config_get)


def total_synapses(p: float, n_target: int, n_source: int) -> float:
    # P(a pair stays unconnected after K draws) = (1 - 1/(Nt Ns))^K = 1 - p
    return math.log1p(-p) / math.log1p(-1.0 / (n_target * n_source))


def total_synapses_as_nest(p: float, n_target: int, n_source: int) -> float:
    # helpers.py's expression, whose log((NN - 1)/NN) loses ~1e-8 relative: the rounded
    # numbers NEST connects can differ by one from the exact ones.
    product = float(n_target * n_source)
    return math.log(1.0 - p) / math.log((product - 1.0) / product)


def psp_peak_mV(psc_pA: float, c_m=250.0, tau_m=10.0, tau_syn=0.5, dt=1e-4, t_end=10.0) -> float:
    """Peak of the membrane response to J exp(-t/tau_syn), integrated exactly step by step."""
    steps = int(t_end / dt)
    v, i, peak = 0.0, psc_pA, 0.0
    decay_m, decay_s = math.exp(-dt / tau_m), math.exp(-dt / tau_syn)
    # exact propagator of dv/dt = -v/tau_m + i/C_m, di/dt = -i/tau_syn
    coupling = tau_m * tau_syn / (c_m * (tau_m - tau_syn)) * (decay_m - decay_s)
    for _ in range(steps):
        v = v * decay_m + i * coupling
        i *= decay_s
        peak = max(peak, v)
    return peak


# ---- derived numbers -----------------------------------------------------------------


def test_psc_of_a_015_mV_psp_is_87_8_pA():
    unit = mc.psc_over_psp(250.0, 10.0, 0.5)
    assert 0.15 * unit == pytest.approx(87.8085, abs=5e-4)
    assert psp_peak_mV(0.15 * unit) == pytest.approx(0.15, rel=1e-5)
    assert psp_peak_mV(0.3 * mc.psc_over_psp(200.0, 20.0, 2.0), 200.0, 20.0, 2.0) == pytest.approx(
        0.3, rel=1e-5
    )


def test_full_scale_sizes_and_synapse_numbers():
    net = derived()
    assert net.sizes.tolist() == list(FULL) and net.sizes.sum() == 77169
    n = np.array(FULL)
    expected = np.array(
        [[total_synapses(mc.CONN_PROBS[i, j], n[i], n[j]) for j in range(8)] for i in range(8)]
    )
    assert np.all(np.abs(net.synapses - expected) <= 1.0)
    as_nest = [
        [round(total_synapses_as_nest(mc.CONN_PROBS[i, j], n[i], n[j])) for j in range(8)]
        for i in range(8)
    ]
    assert net.synapses.tolist() == as_nest
    assert net.synapses.sum() == pytest.approx(2.9888e8, rel=1e-4)  # "about 3e8"
    # L23E <- L23E: about 2,200 inputs per neuron
    assert net.synapses[L23E, L23E] / FULL[L23E] == pytest.approx(2199.86, abs=0.01)
    assert net.synapses[L5I, L5I] == round(total_synapses(0.3158, 1065, 1065))
    assert net.synapses[L23E, L23E] == 45499805  # exact: 45,499,805.5
    assert net.synapses[L23E, L5I] == 0  # p = 0: no connection set


def test_scaling_of_numbers():
    net = derived("network.n_scaling=0.1", "network.k_scaling=0.5")
    assert net.sizes.tolist() == [round(x * 0.1) for x in FULL]
    full = derived().synapses
    # total numbers scale with both (in-degree with k only), from the full-size K
    ratio = net.synapses[full > 1000] / full[full > 1000]
    assert np.allclose(ratio, 0.05, rtol=1e-3)
    assert net.poisson_rates_hz.tolist() == [8.0 * round(k * 0.5) for k in mc.K_EXT]


def test_weights_and_delays():
    net = derived()
    w = 0.15 * mc.psc_over_psp(250.0, 10.0, 0.5)
    assert net.weights_pA[L4E, L23E] == pytest.approx(w)
    assert net.weights_pA[L23E, L4E] == pytest.approx(2 * w)  # L4E -> L23E doubled
    assert net.weights_pA[L6E, L4I] == pytest.approx(-4 * w)
    assert net.weights_pA[L23E, L4I] == pytest.approx(-4 * w)  # only E <- L4E doubled
    assert net.weight_ext_pA == pytest.approx(w)
    assert net.delays_ms[:, 0::2].tolist() == [[1.5] * 4] * 8
    assert net.delays_ms[:, 1::2].tolist() == [[0.75] * 4] * 8
    assert net.delay_low_ms == pytest.approx(0.1)  # the shortest delay is one step
    assert net.poisson and np.all(net.dc_pA == 0.0)
    assert net.poisson_rates_hz[L6E] == 8.0 * 2900


def test_dc_input_replaces_the_poisson_mean():
    net = derived('network.input="dc"')
    w = 0.15 * mc.psc_over_psp(250.0, 10.0, 0.5)
    # mean of K_ext Poisson trains of rate nu through exp. PSCs: K nu w tau_syn
    expected = [k * 8.0 * w * 0.5e-3 for k in mc.K_EXT]
    assert net.dc_pA.tolist() == pytest.approx(expected)
    assert net.dc_pA[L23E] == pytest.approx(561.97, abs=0.01)
    assert not net.poisson and np.all(net.poisson_rates_hz == 0.0)


@pytest.mark.parametrize("background", ["poisson", "dc"])
def test_k_scaling_keeps_the_mean_input(background):
    """Mean input per neuron (recurrent at the full-scale rates + background + DC) does not
    depend on k_scaling; weights grow by 1/sqrt(k)."""
    k = 0.25
    full, scaled = (
        derived(f'network.input="{background}"'),
        derived(f'network.input="{background}"', f"network.k_scaling={k}"),
    )
    assert scaled.weights_pA == pytest.approx(full.weights_pA * 2.0)
    assert scaled.weight_ext_pA == pytest.approx(full.weight_ext_pA * 2.0)

    def mean_input_pA(net):
        indegree = net.synapses / (np.array(FULL)[:, None] * 1.0)  # n_scaling 1
        recurrent = (net.weights_pA * indegree * mc.FULL_MEAN_RATES).sum(axis=1) * 0.5e-3
        background = net.poisson_rates_hz * net.weight_ext_pA * 0.5e-3
        return recurrent + background + net.dc_pA

    assert mean_input_pA(scaled) == pytest.approx(mean_input_pA(full), rel=2e-3)


def test_initial_potentials():
    original = derived('network.v0="original"')
    assert original.v0_mean.tolist() == [-58.0] * 8 and original.v0_std.tolist() == [10.0] * 8
    optimized = derived()  # NEST 3.10's default
    assert optimized.v0_mean[L23E] == -68.28 and optimized.v0_std[L6I] == 4.48


def test_thalamic_input():
    assert derived().thalamus is None
    th = derived("network.thalamic_input=true").thalamus
    w = 0.15 * mc.psc_over_psp(250.0, 10.0, 0.5)
    assert th.neurons == 902 and th.weight_pA == pytest.approx(w)
    expected = [round(total_synapses_as_nest(p, 902, n)) for p, n in zip(mc.CONN_PROBS_TH, FULL)]
    assert th.synapses.tolist() == expected
    assert th.synapses[L4E] / FULL[L4E] == pytest.approx(0.0983 * 902, rel=0.06)
    # n_scaling changes neither the thalamic neurons nor their synapses (NEST 3.10)
    scaled = derived(
        "network.thalamic_input=true", "network.n_scaling=0.1", "network.k_scaling=0.25"
    ).thalamus
    assert scaled.neurons == 902
    assert scaled.synapses.tolist() == [round(x * 0.25) for x in expected]
    assert scaled.weight_pA == pytest.approx(2 * w)


def test_thalamic_trains_are_poisson_in_the_pulse_and_reproducible():
    th = derived("network.thalamic_input=true", "network.microcircuit.th_duration_ms=1000").thalamus
    trains = mc.thalamic_spike_times(th, 0.1, 5)
    again = mc.thalamic_spike_times(th, 0.1, 5)
    assert all(np.array_equal(a, b) for a, b in zip(trains, again))
    assert not np.array_equal(
        np.concatenate(trains), np.concatenate(mc.thalamic_spike_times(th, 0.1, 6))
    )
    spikes = np.concatenate(trains)
    # emission steps (start, stop] of the generator, stamped one step later, then NEST's
    # 1 ms generator -> parrot delay; on the grid
    assert spikes.min() == pytest.approx(700.2 + 1.0) and spikes.max() == pytest.approx(
        1700.1 + 1.0
    )
    assert np.allclose(spikes / 0.1, np.round(spikes / 0.1), atol=1e-6)
    assert all(np.unique(train).size == train.size for train in trains)  # once per step
    rate = spikes.size / 902 / 1.0
    assert rate == pytest.approx(120.0 * (1 - 0.006), rel=0.02)


def test_dc_stimulus():
    assert derived().dc_stimulus is None
    stim = derived("network.microcircuit.dc_stim=true").dc_stimulus
    assert stim.amplitude_pA.tolist() == pytest.approx([0.3 * k for k in mc.K_EXT])
    assert (stim.start_ms, stim.stop_ms) == (650.0, 750.0)


def test_model_page_tables_follow_the_constants():
    page = (REPO / "docs" / "models" / "microcircuit.md").read_text(encoding="utf-8")
    assert mc.parameter_tables_markdown() in page, (
        "docs/models/microcircuit.md is stale: paste microcircuit.parameter_tables_markdown()"
    )


# ---- end to end -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_config(tmp_path_factory):
    return write_config(tmp_path_factory.mktemp("mc"), SMALL_MICROCIRCUIT, "mc.toml")


@pytest.fixture(scope="module")
def one_rank(small_config, tmp_path_factory):
    return run_config(small_config, tmp_path_factory.mktemp("one") / "out", 1)


@pytest.mark.slow
def test_small_microcircuit_runs_with_named_populations(one_rank):
    net = derived("network.n_scaling=0.02", "network.k_scaling=0.1")
    populations = one_rank["populations"]
    for name, size in zip(mc.POPULATIONS, net.sizes):
        assert populations[name]["cells"] == size and populations[name]["model"] == "iaf_psc_exp"
        assert populations[name]["recorded_cells"] == size
        assert populations[name]["spikes"] > 0, f"{name} is silent"
    generators = [pop for pop in populations.values() if pop["model"] == "poisson_generator"]
    assert len(generators) == 8 and all(pop["recorded_cells"] == 0 for pop in generators)
    neurons = int(net.sizes.sum())
    assert (
        one_rank["synapses"] == net.synapses.sum()
    )  # recurrent only: device inputs are not synapses
    rate = one_rank["spikes_total"] / neurons / 0.1
    assert 0.5 < rate < 50.0, f"mean rate {rate:.2f} Hz"


# Every input kind: thalamic spike sources, DC background, DC stimulus generators.
ALL_INPUTS = (
    "network.thalamic_input=true",
    "network.microcircuit.th_start_ms=40",
    'network.input="dc"',
    "network.microcircuit.dc_stim=true",
    "network.microcircuit.dc_stim_start_ms=20",
)


@pytest.mark.slow
@pytest.mark.mpi
@pytest.mark.parametrize(
    "ranks,sets",
    [
        (2, ("simulation.threads=2",)),
        (3, ('distribution.scheme="random_shuffle"', *ALL_INPUTS)),
    ],
    ids=["2x2", "3-shuffled-all-inputs"],
)
def test_same_spikes_on_several_ranks(small_config, one_rank, tmp_path, ranks, sets):
    reference = one_rank
    if len(sets) > 1:
        reference = run_config(small_config, tmp_path / "one", 1, sets[1:])
        assert reference["spikes_sha256"] != one_rank["spikes_sha256"]
    several = run_config(small_config, tmp_path / "several", ranks, sets)
    assert several["ranks"] == ranks
    assert several["spikes_sha256"] == reference["spikes_sha256"]


@pytest.mark.slow
def test_thalamic_pulse_and_dc_input(small_config, tmp_path):
    import spikex as sx

    sets = [
        "network.thalamic_input=true",
        "network.microcircuit.th_start_ms=40",
        'network.input="dc"',
    ]
    network = sx.Network.from_config(small_config, overrides=sets)
    assert [pop.name for pop in network.populations] == [*mc.POPULATIONS, "thalamus"]
    result = network.simulate(100.0)
    gids, times = result.spikes
    net = derived(*sets, "network.n_scaling=0.02", "network.k_scaling=0.1")
    l4 = (gids >= net.sizes[:2].sum()) & (gids < net.sizes[:4].sum())
    before = np.count_nonzero(l4 & (times >= 30.0) & (times < 40.0))
    during = np.count_nonzero(l4 & (times >= 41.0) & (times < 51.0))
    assert during > 3 * max(before, 1), (before, during)
    assert gids.max() < net.sizes.sum(), "only the neurons are recorded"


# ---- bad input -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "sets,words",
    [
        (("network.n_scaling=0.0004",), ["network.n_scaling", "too small", "L5I"]),
        (("network.n_scaling=0",), ["network.n_scaling", "> 0"]),
        (("network.k_scaling=-1",), ["network.k_scaling", "> 0"]),
        (('network.input="spikes"',), ["network.input", '"poisson"', '"dc"']),
        (('network.v0="best"',), ["network.v0", '"optimized"', '"original"']),
        (("network.microcircuit.g=1.0",), ["network.microcircuit.g", "<= 0"]),
        (("network.microcircuit.th_neurons=0",), ["network.microcircuit.th_neurons", ">= 1"]),
        (("network.thalamic_input=1",), ["network.thalamic_input", "true or false"]),
    ],
)
def test_bad_input_is_one_clear_line(tmp_path, sets, words):
    config = write_config(tmp_path, SMALL_MICROCIRCUIT, "mc.toml")
    args = ["run", str(config), "-o", str(tmp_path / "bad")]
    for item in sets:
        args += ["--set", item]
    done = run_cli(args)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    for word in words:
        assert word in done.stderr
    assert not (tmp_path / "bad" / "summary.json").exists()
