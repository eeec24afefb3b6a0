"""``docs/scaling.md``: the dry run, the time model and their validation, as Markdown."""

from __future__ import annotations

import re
from pathlib import Path

from ..results.published import PUBLISHED
from .validation import HINES_CELLS, NEST_CELLS_PER_RANK, NEST_INDEGREE, SAMPLE_RANKS

HINES_ROWS_1K = [row for row in PUBLISHED["hines2011_table1"].rows if row[2] == "1k"]


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:,.1f}"


def _bytes(value) -> str:
    return "-" if value is None else f"{value:,.0f}"


def _cores(data: dict) -> int:
    """Cores of the machine the runs took (``cores``, or from the ``machine`` line)."""
    if data.get("cores"):
        return int(data["cores"])
    found = re.search(r"(\d+) cores", data.get("machine", ""))
    return int(found.group(1)) if found else 1


def load_sentence(data: dict) -> str:
    """The load the local runs saw, as recorded in validation.json (never assumed)."""
    loads = data.get("load_average") or {}
    start = loads.get("start") or data.get("machine", "").partition(", load ")[2] or None
    after = loads.get("after_local_runs")
    if start is None and after is None:
        return "Load average: not recorded for this run."
    parts = [f"{start} when the runs started" if start else "not recorded when the runs started"]
    parts.append(f"{after} after the last of them" if after else "not recorded after them")
    return "Load average (1, 5, 15 min), from validation.json: " + "; ".join(parts) + "."


def local_section(local: dict, profile_name: str, cores: int, load: str) -> list[str]:
    lines = [
        "## 1. Predictions against runs on this machine (P = 1-16)",
        "",
        "Network (every method, 100 ms):",
        "",
        "```toml",
        local["config"],
        "```",
        "",
        "For each P, one SPMD job ran every method through the Python API (the code path of "
        "`spikex run`), and `spikex model dryrun` counted the same network for the same P "
        "from a one-rank spike train. **Counts**: every counter the dry run predicts is "
        "compared with the summed counters of the run (`summary.json` `exchange`). "
        f"**Time**: exchange time over the run predicted with `profiles/{profile_name}.toml` "
        "against the measured `time_s.exchange` (+ `send` for the point-to-point methods), "
        f"both the maximum over ranks. {load} The machine has {cores} cores: runs with "
        f"P > {cores} are oversubscribed, so measured times include waiting for a core.",
        "",
        "| P | method | counters compared | differing | predicted s | measured s | ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    ratios = []
    one_rank = []  # (predicted, measured) of P = 1
    for ranks, entry in local["ranks"].items():
        for label, row in entry["variants"].items():
            predicted, measured = row.get("predicted_s"), row["measured_s"]
            if int(ranks) == 1:
                one_rank.append((predicted or 0.0, measured))
            ratio = predicted / measured if predicted and measured else None
            if ratio:
                ratios.append((int(ranks), ratio))
            lines.append(
                f"| {ranks} | {label} | {len(row['compared'])} | {', '.join(row['differ']) or 'none'} | "
                f"{predicted:.4f} | {measured:.4f} | {'-' if ratio is None else f'{ratio:.2f}'} |"
            )
    two = [r for p, r in ratios if 1 < p <= cores]
    many = [r for p, r in ratios if p > cores]
    fitting = "P = 2" if cores == 2 else f"P = 2-{cores}"
    lines += [""]
    if two:
        lines.append(
            f"Time, {fitting} (a core per rank): predicted / measured between {min(two):.2f} and "
            f"{max(two):.2f}."
        )
    if one_rank:
        charged = [p * 1e3 for p, _ in one_rank]
        measured = [m * 1e3 for _, m in one_rank]
        sentence = (
            "On one rank there is no MPI: the model charges only the deliveries "
            f"({min(charged):.1f}-{max(charged):.1f} ms over the run; none for `routed`, whose "
            "own items are delivered as they are fed) and the runs measured "
            f"{min(measured):.1f}-{max(measured):.1f} ms."
        )
        if two:
            lines[-1] += " " + sentence
        else:
            lines.append(sentence)
    if many:
        lines.append(
            f"Time, P > {cores} (oversubscribed): between {min(many):.2f} and "
            f"{max(many):.2f} — the model assumes a core per rank; here ranks wait for one, "
            "which the model does not describe. The stated error of the time model on this "
            f"machine is the {fitting} range. "
            "The collective costs of the profile were measured with 0.5 ms of computation "
            "between calls; on a machine busy with other work (see the load above) the same "
            "run's exchange time changes by an order of magnitude between two runs minutes apart."
        )
    lines += ["", "Memory per structure (largest rank), model against measured:", ""]
    lines += ["| P | method | structure | model bytes | measured bytes |", "|---|---|---|---|---|"]
    for ranks, entry in local["ranks"].items():
        if int(ranks) > 4:
            continue
        for label, row in entry["variants"].items():
            for name, m in row["memory"].items():
                lines.append(
                    f"| {ranks} | {label} | {name} | {_bytes(m['model'])} | {_bytes(m['measured'])} |"
                )
    return lines + [""]


def hines_section(papers: dict) -> list[str]:
    rows = papers["hines_table1"]
    if not rows:
        return []
    labels = [k for k in rows[0] if isinstance(rows[0][k], dict)]
    lines = [
        "## 2. Hines et al. 2011, Table 1: where multisend overtakes Allgather",
        "",
        "Table 1 is strong scaling of 2 M cells with 1,000 inputs on 8 K-64 K BG/P cores "
        f"(256 down to 32 cells per core). Here: the paper's rank counts and 1,000 inputs per "
        f"cell — so a cell's fan-out (about 1,000 of P ranks) and the Allgather buffer (P "
        f"blocks) are the paper's — with {HINES_CELLS:,} cells (16 times fewer: 16 down to 2 "
        "cells per rank, so per-rank spike traffic is 16 times lower than the paper's). "
        f"{SAMPLE_RANKS} ranks counted per P. Interval_fire cells with zero weights ignore "
        "their inputs, so the spike train comes from the same cells simulated without "
        "connections (the test suite checks the spikes are identical). Predicted exchange "
        "time per 1 ms interval with `profiles/bgp.toml` (µs, slowest sampled rank):",
        "",
        "| P | cells/rank | " + " | ".join(labels) + " |",
        "|---|---|" + "---|" * len(labels),
    ]
    for row in rows:
        cells = " | ".join(_us(row[k]["exchange_s_per_interval"]) for k in labels)
        lines.append(f"| {row['ranks']:,} | {row['cells_per_rank']:.0f} | {cells} |")
    lines += [
        "",
        "Fan-out and buffers behind it (largest rank):",
        "",
        "| dry-run P | Allgather receive bytes / run | multisend messages / run | cell fan-out (ranks) |",
        "|---|---|---|---|",
    ]
    for row in rows:
        ag, ms = row.get("allgather", {}), row.get("multisend", {})
        lines.append(
            f"| {row['ranks']:,} | {_bytes(ag.get('bytes_received_max'))} | {_bytes(ms.get('messages_max'))} | "
            f"{_bytes(ms.get('fanout_max'))} |"
        )
    lines += [
        "",
        "Published (seconds of run time, 1k connections):",
        "",
        "| cores | Allgather | MPI_ISEND | DCMF_Multicast | Record-Replay |",
        "|---|---|---|---|---|",
    ]
    for row in HINES_ROWS_1K:
        lines.append(f"| {row[0]} | {row[4]} | {row[6]} | {row[8]} | {row[10]} |")
    crossover = _crossover(rows, "allgather", "multisend:phases=2")
    one_phase = _crossover(rows, "allgather", "multisend")
    growth = _growth(rows, "allgather")
    lines += [
        "",
        "Trend and crossover: in the paper Allgather's run time stops falling at 32 K cores and "
        "rises at 64 K, while the multisend methods keep halving; MPI_ISEND (two-phase) "
        "overtakes Allgather between 32 K and 64 K cores. Predicted: Allgather's exchange "
        f"grows {growth:.1f}x over the range while the multisend methods' falls; "
        + (
            f"two-phase multisend's exchange is below Allgather's from P = {crossover:,} on "
            "(earlier than the paper's crossover, as these ranks hold 16 times fewer cells)"
            if crossover
            else "two-phase multisend does not overtake Allgather inside the dry-run range"
        )
        + (
            f"; one-phase multisend (and persistent) from P = {one_phase:,} on."
            if one_phase
            else "."
        ),
        "",
    ]
    return lines


def _crossover(rows: list[dict], a: str, b: str) -> int | None:
    for row in rows:
        if (
            a in row
            and b in row
            and row[b]["exchange_s_per_interval"] < row[a]["exchange_s_per_interval"]
        ):
            return row["ranks"]
    return None


def _growth(rows: list[dict], label: str) -> float:
    first, last = (
        rows[0][label]["exchange_s_per_interval"],
        rows[-1][label]["exchange_s_per_interval"],
    )
    return last / first if first else float("nan")


def nest_section(papers: dict, figure1: list[dict]) -> list[str]:
    rows = papers["nest_weak"]
    lines = [
        "## 3. NEST (Jordan et al. 2018): Allgather (4g) against directed Alltoall (5g)",
        "",
        f"Weak scaling with a fixed number of cells per rank (here {NEST_CELLS_PER_RANK}, "
        f"{NEST_INDEGREE} inputs each); predicted "
        "exchange time per interval with `profiles/bgp.toml` and the receive buffer per rank:",
        "",
        "| P | cells | allgather µs | alltoall µs | alltoallv µs | allgather receive buffer | "
        "alltoall receive buffer | alltoallv receive buffer |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        ag, aa, av = row["allgather"], row["alltoall"], row["alltoallv"]
        lines.append(
            f"| {row['ranks']:,} | {row['cells']:,} | {_us(ag['exchange_s_per_interval'])} | "
            f"{_us(aa['exchange_s_per_interval'])} | {_us(av['exchange_s_per_interval'])} | "
            f"{_bytes(ag['receive_buffer_bytes'])} | {_bytes(aa['receive_buffer_bytes'])} | "
            f"{_bytes(av['receive_buffer_bytes'])} |"
        )
    if len(rows) >= 2:
        first, last = rows[0], rows[-1]
        factor = last["ranks"] // first["ranks"]

        def grows(label: str, key: str) -> float:
            return last[label][key] / first[label][key] if first[label][key] else float("nan")

        lines += [
            "",
            f"From P = {first['ranks']:,} to {last['ranks']:,} ({factor}x): Allgather's time grows "
            f"{grows('allgather', 'exchange_s_per_interval'):.1f}x and its receive buffer "
            f"{grows('allgather', 'receive_buffer_bytes'):.1f}x — linear in P, as the paper "
            "reports for 4g beyond 2,048 processes. Alltoall's time grows "
            f"{grows('alltoall', 'exchange_s_per_interval'):.1f}x and its buffer "
            f"{grows('alltoall', 'receive_buffer_bytes'):.1f}x: with {NEST_CELLS_PER_RANK} cells per "
            "rank a rank has less than one entry for most others, so the P sections of at "
            "least `alltoall_min_entries` records dominate; NEST's constant buffer holds where "
            "entries per rank far exceed P (18,000 neurons per node). Alltoallv's receive "
            f"buffer, exactly the entries needed, grows {grows('alltoallv', 'receive_buffer_bytes'):.1f}x.",
        ]
    lines += [
        "",
        "### NEST Figure 1: targets of a neuron on a random rank",
        "",
        "![NEST Figure 1](scaling/nest_figure1.png)",
        "",
        "Closed form (K = 10^4): the number of a neuron's targets on one rank is Binomial(K, 1/M). "
        "Measured on our real connectivity (4,096 cells, 500 inputs each, fraction of (cell, "
        "rank) pairs), next to the closed form with K = 500:",
        "",
        "| M | 0 measured | 0 closed | 1 measured | 1 closed | >1 measured | >1 closed |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in figure1:
        lines.append(
            f"| {row['ranks']:,} | {row['zero']:.3f} | {row['closed_zero']:.3f} | {row['one']:.3f} | "
            f"{row['closed_one']:.3f} | {row['more']:.3f} | {row['closed_more']:.3f} |"
        )
    lines += [
        "",
        "With few cells per rank the measured curve is the finite-network form "
        "(1 - K/(N-1))^(N/M) rather than (1 - 1/M)^K: targets are drawn per target cell.",
        "",
    ]
    return lines


def garg_section(table2: list[dict], table3: list[dict]) -> list[str]:
    lines = [
        "## 4. Garg & Sabharwal: GUPS bottlenecks and bucket size",
        "",
        "Table 2 from the paper's two bounds (python/spikex/scaling/analytic.py): the CPU "
        "bound (their eq. 1) with t_gu = 104 cycles per update and t_sr = 70 cycles per send "
        "and receive, and the network bound (their eq. 2) from the sparsest cut of the torus "
        "or mesh with b = 44 bytes per update and C = 167.4 MB/s per link. Two constants were "
        "calibrated to reproduce the printed columns, not taken from the hardware: t_sr = 70 "
        "(14 + 54 cycles to send and receive a 32-byte packet, plus 2 added so that the CPU "
        "column comes out) and C = 167.4 MB/s (fitted to the network column; the nominal "
        "1.4 Gb/s = 175 MB/s gives 4.5 % more network GUPS). The agreement below therefore "
        "checks the form of the bounds — the cut (alpha) for each partition shape and the "
        "growth with N — not the constants:",
        "",
        "| N | torus | alpha/C | CPU GUPS | paper | network GUPS | paper | bottleneck |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in table2:
        lines.append(
            f"| {r['nodes']:,} | {r['dims']} | {r['alpha']:g} | {r['cpu']} | {r['cpu_paper']} | "
            f"{r['network']} | {r['network_paper']} | {r['bottleneck']} |"
        )
    lines += [
        "",
        "Table 3, mean bucket size of the baseline code (simulated here, 1,024 pending updates):",
        "",
        "![Garg Table 3](scaling/garg_table3.png)",
        "",
        "| P | simulated | paper | 1024 / P |",
        "|---|---|---|---|",
    ]
    for r in table3:
        lines.append(
            f"| {r['ranks']:,} | {r['simulated']} | {r['paper']} | {r['budget_over_ranks']} |"
        )
    lines += [
        "",
        "The simulation reproduces the published column within 3 %. The bucket size falls as "
        "1/P while P << 1,024 — at about 2 x 1,024 / P, because the bucket sent is the fullest "
        "of P - 1, about twice the mean fill 1,024 / P — and tends to one update per message "
        "for P >> 1,024.",
    ]
    return lines + [""]


def cluster_section(cluster: dict) -> list[str]:
    """Section 5 from bench/results/cluster_time_model.json (bench/cluster_time_model.py)."""
    rates = ", ".join(cluster["rates"])
    lines = [
        "## 5. The time model on a real TCP network (emulated hosts)",
        "",
        f"Generated by `make bench-cluster` (`bench/cluster_time_model.py`) on {cluster['date']}: "
        f"{cluster['machine']}. One machine with {cluster['cores']} cores emulates the hosts: each "
        "host is a network namespace with one veth into a bridge, both directions of every link "
        f"limited by a tbf qdisc ({rates}); MPI runs over real TCP (OpenMPI `btl tcp`), one rank "
        "per host (`" + " ".join(cluster["mpiexec_extra"]) + "`). The hosts share the machine's "
        f"{cluster['cores']} cores: at P > {cluster['cores']} the ranks' computation is "
        "oversubscribed, the links are not.",
        "",
        f"Network: `{cluster['config']}` with "
        + ", ".join(f"`{o}`" for o in cluster["overrides"])
        + ". "
        "Profiles `profiles/netns-<rate>.toml` were fitted from the micro-benchmark "
        "(`bench/fit_profile.py`, bench/cpp/model_parameters.cpp on 2 emulated hosts) only, "
        "before the runs and independent of them. Predicted: `spikex model dryrun` with that "
        "profile, mean over intervals of the slowest rank. Measured: "
        + cluster["measured"]
        + f" ({cluster['repeats']} "
        "repeats, the range in brackets). Per interval, the largest rank's bytes received "
        "(Allgather, Alltoall: the collective's receive buffer; multisend: its one-spike "
        "messages; routed: bytes sent), from the dry run.",
        "",
        "| rate | P | method | bytes / interval | messages / interval | predicted µs | measured µs | ratio |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in cluster["table"]:
        size = row["bytes_sent"] if row["method"] == "routed" else row["bytes_received"]
        low, high = row["measured_range_s"]
        ratio = "-" if row["ratio"] is None else f"{row['ratio']:.2f}"
        lines.append(
            f"| {row['rate']} | {row['ranks']} | {row['method']} | {size:,.0f} | {row['messages_sent']:,.1f} | "
            f"{_us(row['predicted_s'])} | {_us(row['measured_s'])} ({_us(low)}-{_us(high)}) | {ratio} |"
        )
    ratios = [row["ratio"] for row in cluster["table"] if row["ratio"]]
    inside = [r for r in ratios if 1 / 1.3 <= r <= 1.3]
    loads = [x for row in cluster["table"] for x in (*row["load_before"], *row["load_after"])]
    lines += [
        "",
        f"Predicted / measured within ±30 %: {len(inside)} of {len(ratios)} (ratios "
        f"{min(ratios):.2f}-{max(ratios):.2f})."
        if ratios
        else "No ratios.",
        f"Load average (1 min) before and after the measurements: {min(loads):.2f}-{max(loads):.2f} "
        f"(at the start {', '.join(map(str, cluster['load_average_start']))}; at the end "
        f"{', '.join(map(str, cluster['load_average_end']))}; the script waited {cluster['load_waited_s']:.0f} s "
        f"for the load to fall below {cluster['max_load']}).",
        "",
        *cluster.get("findings", []),
    ]
    return lines + [""]


def write_report(path: Path, data: dict, cluster: dict | None = None) -> None:
    lines = [
        "# Scaling beyond this machine: dry runs and the time model",
        "",
        "Generated by `make scaling` (`python -m spikex.scaling`), also run by `make results`; "
        f"{data['machine']}.",
        "",
        "**How the counts are exact.** `spikex model dryrun CONFIG --np P` partitions the real "
        "network for P ranks with the real cell distribution and connection rules (the C++ "
        "code the ranks of a run use, `cpp/spikex/dryrun/`), without simulating on P ranks. "
        "The spikes of a network are identical for every rank count and method (a design "
        "invariant the test suite checks), so one spike train — simulated on one rank, or "
        "read from any run's `spikes.h5` — determines exactly, per virtual rank and per "
        "interval, what each method sends and receives. Counts that depend on timing in a real "
        "run are not predicted: conservation iterations of the multisend family, and how the "
        "routed exchange splits a bucket into messages (a lower bound is given). Above "
        "`--sample-ranks` ranks a sample of ranks is counted (stated in the output).",
        "",
        "**The time model** (`python/spikex/scaling/time_model.py`) charges, per interval and "
        "for the slowest rank, latency-bandwidth costs per message, per-stage / per-partner "
        "costs of each collective algorithm, and per-spike / per-entry CPU costs, the spike "
        "wire codec's encode and decode and a spike's delivery per delay group of its source "
        "(`delivery_groups`) among them; parameters "
        "come from a machine profile: `profiles/local.toml` fitted here by "
        "`bench/fit_profile.py`, `profiles/bgp.toml` with Blue Gene/P-like numbers.",
        "",
    ]
    lines += local_section(data["local"], "local", _cores(data), load_sentence(data))
    lines += hines_section(data["papers"])
    lines += nest_section(data["papers"], data["figure1_measured"])
    lines += garg_section(data["garg_table2"], data["garg_table3"])
    if cluster is not None:
        lines += cluster_section(cluster)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
