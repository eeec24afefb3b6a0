"""The renewal spike sources against NEST 3.10's generators, statistically: runs both
sides of every case of spike_source_trains_cases.py (NEST: nest_spike_source_trains.py,
one generator per parrot neuron) and compares spike counts, interval means, CVs, minimum
intervals, interval distributions (two-sample Kolmogorov-Smirnov) and the first and last
spike steps. The realizations differ (NEST's random numbers are not spikex's); the laws
are the same. Writes the table into docs/validation/nest.md::

    python bench/nest/spike_source_trains_stats.py      # ~1 min (NEST ~40 s)

tests/python/nest_validation/test_nest_spike_source_trains.py runs the same and checks
the agreement."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from spike_source_trains_cases import CASES, DT


def trains(cell: np.ndarray, step: np.ndarray, cells: int) -> list[np.ndarray]:
    """Each cell's spike steps, a step once (NEST's parrot repeats a spike of multiplicity
    m; spikex emits one)."""
    return [np.unique(step[cell == c]) for c in range(cells)]


def run_nest(seed: int = 12345, names: list[str] | None = None) -> dict[str, list[np.ndarray]]:
    import run_exact

    with tempfile.TemporaryDirectory() as tmp:
        output = Path(tmp) / "nest_trains.npz"
        done = run_exact.run_nest_script(
            HERE / "nest_spike_source_trains.py",
            timeout=900,
            args=[str(output), str(seed), *(names or [])],
        )
        if done.returncode != 0:
            raise RuntimeError(done.stdout[-2000:] + done.stderr[-4000:])
        data = np.load(output)
        return {
            n: trains(data[f"{n}/cell"], data[f"{n}/step"], CASES[n][4]) for n in (names or CASES)
        }


def run_spikex(seed: int = 1, names: list[str] | None = None) -> dict[str, list[np.ndarray]]:
    import spikex as sx

    out = {}
    for name in names or CASES:
        _, _, model, params, cells, t_sim = CASES[name]
        net = sx.Network(dt_ms=DT, seed=seed)
        pop = net.create(model, cells, params=params)
        net.record_spikes(pop)
        result = net.simulate(t_sim)
        out[name] = trains(result.spikes[0] - pop.first_gid, result.spike_steps, cells)
    return out


def intervals(steps: list[np.ndarray]) -> np.ndarray:
    return np.concatenate([np.diff(t) for t in steps]) if steps else np.zeros(0, dtype=np.int64)


def summary(steps: list[np.ndarray]) -> dict:
    isi = intervals(steps)
    count = int(sum(len(t) for t in steps))
    nonempty = [t for t in steps if len(t)]
    return {
        "spikes": count,
        "intervals": isi,
        "mean_isi_ms": float(isi.mean() * DT) if isi.size else float("nan"),
        "cv": float(isi.std(ddof=1) / isi.mean()) if isi.size > 1 else float("nan"),
        "min_isi_steps": int(isi.min()) if isi.size else -1,
        "first": int(min(t[0] for t in nonempty)) if nonempty else -1,
        "last": int(max(t[-1] for t in nonempty)) if nonempty else -1,
    }


def ks_p(a: np.ndarray, b: np.ndarray) -> float:
    from scipy import stats

    return float(stats.ks_2samp(a, b).pvalue)


def table(spikex: dict, nest: dict) -> str:
    lines = [
        "| case | spikes spikex / NEST | mean ISI ms | CV of ISIs | min ISI steps | first, last step | KS p |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, ours in spikex.items():
        a, b = summary(ours), summary(nest[name])
        lines.append(
            f"| `{name}` | {a['spikes']:,} / {b['spikes']:,} | {a['mean_isi_ms']:.3f} / {b['mean_isi_ms']:.3f} | "
            f"{a['cv']:.4f} / {b['cv']:.4f} | {a['min_isi_steps']} / {b['min_isi_steps']} | "
            f"{a['first']}, {a['last']} / {b['first']}, {b['last']} | {ks_p(a['intervals'], b['intervals']):.2f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    from report import update_section

    text = table(run_spikex(), run_nest())
    print(text)
    update_section("spike_source_trains", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
