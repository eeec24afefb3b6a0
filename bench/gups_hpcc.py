"""``bench/gups.py --hpcc``: spikex's GUPS against the HPC Challenge reference codes, in
one run (issue 21, part 2).

Question answered: on this machine, with the same table (2^24 words by default) on the
same ranks, how many GUPS do HPCC 1.5.0's MPIRandomAccess in its standard algorithm
(Debian's ``hpcc``) and in Sandia's opt2 (built here from the same sources,
``bench/hpcc_reference.py``) reach, against ``spikex gups`` routed (with shared-memory
mailboxes between ranks of one node, ``--shared-memory``, and with MPI messages only:
the default takes the mailboxes only while a node has a core per rank) and baseline? And
are
issue 21's targets met: routed >= 1.5 x opt2 at P = 1, 2, 4 with 2^24 and 2^26 words,
baseline >= 2 x standard, no verification error in spikex's runs, and at P = 1 at most
2 x the memory system's ns per update (``bench/results/memory_limits.json``)?

The five codes run in turn (for each repeat, for each P: standard, opt2, routed, routed
with MPI messages, baseline), so that a change of the machine's load touches them alike; the best GUPS of
``--repeat`` runs counts for each. ``bench/results/gups_hpcc.json`` keeps one campaign per
table size (a run with ``--log2-table 26`` replaces the 2^26 campaign and keeps the
others), each with its dates, the load average at its start and end, every run, and the
targets evaluated; the table in ``docs/user/gups.md`` (between ``<!-- gups-hpcc:begin -->``
and ``<!-- gups-hpcc:end -->``) is generated from that file::

    .venv/bin/python bench/gups.py --hpcc                   # 2^24 words, P = 1, 2, 4
    .venv/bin/python bench/gups.py --hpcc --log2-table 26
    .venv/bin/python bench/gups.py --hpcc --docs-only       # rewrite the docs block
    .venv/bin/python bench/gups.py --hpcc --check-docs      # exit 1 when it is stale
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import hpcc_reference
from readme_numbers import readme_with_block
from spikex.io.output import temporary_name, write_json
from spikex_runs import machine, spikex_gups

REPOSITORY = Path(__file__).resolve().parents[1]
DEFAULT_OUTPUT = REPOSITORY / "bench" / "results" / "gups_hpcc.json"
MEMORY_LIMITS = REPOSITORY / "bench" / "results" / "memory_limits.json"
DOC = REPOSITORY / "docs" / "user" / "gups.md"
BLOCK = "gups-hpcc"
QUESTION = (
    "GUPS of HPCC 1.5.0's MPIRandomAccess (standard algorithm: Debian's hpcc; Sandia opt2: "
    "the same sources built with -DRA_SANDIA_OPT2) against spikex gups routed (shared-memory "
    "mailboxes on a node, and MPI messages only) and baseline, same table and "
    "ranks, in one run; issue 21's targets evaluated."
)
CODES = {
    "hpcc_standard": "HPCC standard",
    "hpcc_opt2": "HPCC Sandia opt2",
    "spikex_routed": "spikex routed",
    "spikex_routed_mpi": "spikex routed, MPI messages",
    "spikex_baseline": "spikex baseline",
}
# spikex's codes: the `spikex gups` arguments of each.
SPIKEX_CODES = {
    "spikex_routed": ("routed", "--shared-memory"),
    "spikex_routed_mpi": ("routed", "--no-shared-memory"),
    "spikex_baseline": ("baseline",),
}
# The columns of the docs table, in order.
COLUMNS = ("spikex_routed", "spikex_routed_mpi", "spikex_baseline", "hpcc_standard", "hpcc_opt2")
SPIKEX_FIELDS = (
    "algorithm",
    "ranks",
    "dims",
    "log2_table",
    "table_size",
    "updates",
    "gups",
    "gups_per_rank",
    "time_s",
    "errors",
    "error_fraction",
    "passed",
    "messages_per_rank",
    "mean_updates_per_message",
    "buffered_high_water",
    "time_split_s",
    "cpu_s",
    "context_switches",
)
# Issue 21's targets: (key, sentence, ours, reference, threshold, tables and ranks that
# must be measured). A ratio target is met when ours / reference >= threshold.
RATIO_TARGETS = (
    (
        "routed_vs_opt2",
        "routed ≥ 1.5 × HPCC Sandia opt2 at P = 1, 2, 4 with 2^24 and 2^26 words",
        "spikex_routed",
        "hpcc_opt2",
        1.5,
        (24, 26),
        (1, 2, 4),
    ),
    (
        "baseline_vs_standard",
        "baseline ≥ 2 × HPCC standard at P = 1, 2, 4 (2^24 words)",
        "spikex_baseline",
        "hpcc_standard",
        2.0,
        (24,),
        (1, 2, 4),
    ),
)
MEMORY_TARGET = (
    "memory_limit",
    "ns per update at P = 1 within 2 × the memory system's limit (2^24 words)",
    2.0,
    24,
)
ERRORS_TARGET = ("zero_errors", "no verification error in spikex's runs", 24, (1, 2, 4))


def gups_of(run: dict) -> float:
    return run["MPIRandomAccess_GUPs"] if run["code"].startswith("hpcc") else run["gups"]


def memory_limit(log2_table: int, path: Path = MEMORY_LIMITS) -> dict | None:
    """The memory system's best ns per random update on one core with a table of
    2^log2_table words, from bench/memory_limits.py (another run: its date and load are kept
    with it), or None when that file is missing or did not measure that size (files before
    2026-11-27 04:40 UTC measured 2^26 words only)."""
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    tables = data.get("tables") or [{"one_core": data["memory"]}]
    one_core = next((t["one_core"] for t in tables if t["one_core"]["table_words"] == 2**log2_table), None)
    if one_core is None:
        return None
    best = min(one_core["blocks"], key=lambda block: block["ns_per_update"])
    return {
        "ns_per_update": best["ns_per_update"],
        "in_flight": best["k"],
        "prefetch": best.get("prefetch", "L1"),  # files before 2026-11-27 prefetched into L1 only
        "table_words": one_core["table_words"],
        "date_utc": data["date_utc"],
        "load_average_start": data["machine"].get("load_average_start"),
        "load_average_end": data["machine"]["load_average"],
        "source": str(path.relative_to(REPOSITORY)) if path.is_relative_to(REPOSITORY) else str(path),
    }


def best_table(runs: list[dict]) -> list[dict]:
    """Per rank count, the best GUPS of each code and the issue's ratios."""
    rows = []
    for ranks in sorted({run["ranks"] for run in runs}):
        row: dict = {"ranks": ranks}
        for code in CODES:
            mine = [run for run in runs if run["code"] == code and run["ranks"] == ranks]
            if not mine:
                continue
            best = max(mine, key=gups_of)
            row[code] = gups_of(best)
            row[f"{code}_repeat"] = best["repeat"]
            if code.startswith("hpcc"):
                row[f"{code}_errors"] = best["MPIRandomAccess_Errors"]
                row[f"{code}_executed_updates"] = best["MPIRandomAccess_ExeUpdates"]
                row[f"{code}_single_gups"] = best["SingleRandomAccess_GUPs"]
                row["single_table_words"] = best["RandomAccess_N"]
        for key, _, ours, reference, _, _, _ in RATIO_TARGETS:
            if ours in row and reference in row:
                row[key] = row[ours] / row[reference]
        rows.append(row)
    return rows


def target_cases(campaign: dict) -> list[dict]:
    """Every case of the issue's targets that ``campaign`` measured, each with ``met``."""
    table, rows = campaign["log2_table"], {row["ranks"]: row for row in campaign["best"]}
    cases = []
    for key, _, ours, reference, threshold, _, _ in RATIO_TARGETS:
        for ranks, row in rows.items():
            if key in row:
                cases.append(
                    {
                        "target": key,
                        "log2_table": table,
                        "ranks": ranks,
                        "ours": row[ours],
                        "reference": row[reference],
                        "ratio": row[key],
                        "threshold": threshold,
                        "met": row[key] >= threshold,
                    }
                )
    for code in SPIKEX_CODES:
        for ranks in sorted(rows):
            mine = [r for r in campaign["runs"] if r["code"] == code and r["ranks"] == ranks]
            if mine:
                errors = sum(run["errors"] for run in mine)
                cases.append(
                    {
                        "target": ERRORS_TARGET[0],
                        "log2_table": table,
                        "ranks": ranks,
                        "algorithm": code,
                        "runs": len(mine),
                        "errors": errors,
                        "met": errors == 0,
                    }
                )
    limit = campaign.get("memory_limit")
    key, _, threshold, _ = MEMORY_TARGET
    if limit is not None and 1 in rows:
        for code in ("spikex_routed", "spikex_baseline"):
            if code in rows[1]:
                ns = 1.0 / rows[1][code]  # one rank: ns per update = 1 / GUPS
                ratio = ns / limit["ns_per_update"]
                cases.append(
                    {
                        "target": key,
                        "log2_table": table,
                        "ranks": 1,
                        "algorithm": code,
                        "ns_per_update": ns,
                        "limit_ns": limit["ns_per_update"],
                        "ratio": ratio,
                        "threshold": threshold,
                        "met": ratio <= threshold,
                    }
                )
    return cases


def missing_text(missing: list[tuple]) -> str:
    """Required cases not measured, e.g. ``2^26 words at P = 1, 2, 4``; empty if none."""
    tables = sorted({table for table, _, _ in missing})
    return "; ".join(
        f"2^{table} words at P = "
        + ", ".join(str(r) for r in sorted({r for t, r, _ in missing if t == table}))
        for table in tables
    )


def overall_targets(campaigns: list[dict]) -> list[dict]:
    """Each target over every campaign: ``met`` is true when every required case was
    measured and met, false when a required case (for errors: any case) failed, None
    while required cases are missing; ``missing`` names them."""
    cases = [case for campaign in campaigns for case in campaign["targets"]]
    spikex = ("spikex_routed", "spikex_baseline")  # the memory target's codes
    required = {
        key: [(table, ranks, None) for table in tables for ranks in ranks_list]
        for key, _, _, _, _, tables, ranks_list in RATIO_TARGETS
    }
    required[ERRORS_TARGET[0]] = [
        (ERRORS_TARGET[2], r, code) for r in ERRORS_TARGET[3] for code in SPIKEX_CODES
    ]
    required[MEMORY_TARGET[0]] = [(MEMORY_TARGET[3], 1, code) for code in spikex]
    texts = {key: text for key, text, *_ in RATIO_TARGETS}
    texts[ERRORS_TARGET[0]] = ERRORS_TARGET[1]
    texts[MEMORY_TARGET[0]] = MEMORY_TARGET[1]
    result = []
    for key, needed in required.items():
        mine = [case for case in cases if case["target"] == key]

        def found(need, mine=mine):
            table, ranks, code = need
            return [
                c
                for c in mine
                if c["log2_table"] == table
                and c["ranks"] == ranks
                and (code is None or c.get("algorithm") == code)
            ]

        decisive = mine if key == ERRORS_TARGET[0] else [c for n in needed for c in found(n)]
        missing = [n for n in needed if not found(n)]
        met = False if any(not c["met"] for c in decisive) else (None if missing else True)
        result.append(
            {
                "target": key,
                "text": texts[key],
                "met": met,
                "missing": missing_text(missing),
            }
        )
    return result


def measure(args, rank_counts: list[int]) -> dict:
    """One campaign: every code at every rank count, ``args.repeat`` times in turn."""
    try:
        hpcc = hpcc_reference.prepare()
    except hpcc_reference.HpccError as error:
        sys.exit(f"gups.py --hpcc: {error}")
    binaries = {"hpcc_standard": hpcc["standard"], "hpcc_opt2": hpcc["opt2"]}
    outputs = hpcc_reference.BUILD / "out"  # each hpccoutf.txt, for inspection (not kept)
    outputs.mkdir(parents=True, exist_ok=True)
    table = args.log2_table
    start, load_start = datetime.now(UTC), machine()["load_average"]
    runs = []
    for repeat in range(args.repeat):
        for ranks in rank_counts:
            for code, name in CODES.items():
                if code in binaries:
                    with tempfile.TemporaryDirectory(prefix="spikex-hpcc-") as directory:
                        print(
                            f"{code}: mpiexec -np {ranks} {binaries[code]} (2^{table} words)",
                            file=sys.stderr,
                            flush=True,
                        )
                        try:
                            result = hpcc_reference.run_hpcc(
                                binaries[code], ranks, table, Path(directory), args.hpcc_timeout
                            )
                        except hpcc_reference.HpccError as error:
                            sys.exit(f"gups.py --hpcc: {error}")
                    # only the standard algorithm bounds its time (time_bound.h)
                    if (result["MPIRandomAccess_TimeBound"] is None) == (code == "hpcc_standard"):
                        sys.exit(
                            f"gups.py --hpcc: {binaries[code]} does not run the "
                            f"{name} algorithm (its output "
                            f"{'lacks' if code == 'hpcc_standard' else 'has'} the time bound "
                            "of HPCC's standard algorithm)"
                        )
                    text = result.pop("hpccoutf")
                    (outputs / f"{code}-2^{table}-p{ranks}-{repeat}.txt").write_text(text)
                    run = {"code": code, "repeat": repeat, **result}
                else:
                    algorithm, *extra = SPIKEX_CODES[code]
                    result = spikex_gups(ranks, algorithm, table, args.budget, extra=tuple(extra))
                    run = {"code": code, "repeat": repeat, **{f: result[f] for f in SPIKEX_FIELDS}}
                print(f"  {name} P={ranks}: {gups_of(run):.4g} GUPS", file=sys.stderr, flush=True)
                runs.append(run)
    end = datetime.now(UTC)
    campaign = {
        "log2_table": table,
        "table_words": 2**table,
        "updates": 4 * 2**table,
        "date_utc_start": start.strftime("%Y-%m-%d %H:%M"),
        "date_utc_end": end.strftime("%Y-%m-%d %H:%M"),
        "duration_s": round((end - start).total_seconds(), 1),
        "machine": {**machine(), "load_average_start": load_start},
        "hpcc": hpcc,
        "parameters": {
            "np_list": rank_counts,
            "repeat": args.repeat,
            "budget": args.budget,
            "order": "for each repeat, for each P: "
            + ", ".join(CODES.values())
            + "; the best GUPS of the repeats counts",
            "hpcc_stopped_after": f"{hpcc_reference.LAST_SECTION} section",
        },
        "hpl_order": {str(p): hpcc_reference.hpl_order_for_table(table, p) for p in rank_counts},
        "memory_limit": memory_limit(table),
        "runs": runs,
    }
    campaign["best"] = best_table(runs)
    campaign["targets"] = target_cases(campaign)
    return campaign


def merged(output: Path, campaign: dict) -> dict:
    """The result file with ``campaign`` in place of an earlier one of its table size."""
    campaigns = []
    if output.exists():
        try:
            campaigns = json.loads(output.read_text(encoding="utf-8")).get("campaigns", [])
        except (json.JSONDecodeError, AttributeError):
            campaigns = []
    campaigns = [c for c in campaigns if c["log2_table"] != campaign["log2_table"]] + [campaign]
    campaigns.sort(key=lambda c: c["log2_table"])
    return {"question": QUESTION, "campaigns": campaigns, "targets": overall_targets(campaigns)}


# --- the docs block -----------------------------------------------------------------------


HEADER = (
    "| P | "
    + " | ".join(CODES[code] for code in COLUMNS)
    + " | routed / opt2 | baseline / standard |"
)


def _g(value: float) -> str:
    return f"{value:.3g}"


def _dates(campaign: dict) -> str:
    start, end = campaign["date_utc_start"], campaign["date_utc_end"]
    return f"{start} to {end[11:] if end[:10] == start[:10] else end}"


def _repeats(repeat: int) -> str:
    return "one run each" if repeat == 1 else f"best of {repeat} runs each"


def _load(campaign: dict) -> str:
    start, end = campaign["machine"]["load_average_start"], campaign["machine"]["load_average"]
    return f"load average {start[0]:.2f} at the start and {end[0]:.2f} at the end (1 min)"


def time_split_rows(campaign: dict) -> list[dict]:
    """Where the ranks' time went in the best run of each spikex routed code at each P
    (runs that recorded it: since 2026-11-27): each phase's share of P x the timed part,
    the share spent on a core, and the context switches."""
    best: dict[tuple[str, int], dict] = {}
    for run in campaign["runs"]:
        if run["code"].startswith("spikex_routed") and run.get("time_split_s"):
            key = (run["code"], run["ranks"])
            if key not in best or run["gups"] > best[key]["gups"]:
                best[key] = run
    rows = []
    for (code, ranks), run in sorted(best.items(), key=lambda item: (item[0][1], item[0][0])):
        total = run["time_s"] * ranks
        rows.append({
            "code": code, "ranks": ranks, "gups": run["gups"],
            "shares": {phase: s / total for phase, s in run["time_split_s"].items()},
            "on_core": run["cpu_s"] / total,
            "context_switches": sum(run["context_switches"].values()),
        })  # fmt: skip
    return rows


def _time_split_lines(campaign: dict) -> list[str]:
    rows = time_split_rows(campaign)
    if not rows:
        return []
    phases = list(rows[0]["shares"])
    lines = [
        "",
        (
            "Where the ranks' time went in spikex routed's best run at each P (`time_split_s` "
            "in the JSON, as a share of P × the timed part; *wait* includes the time a rank "
            "was off its core, which *on a core* shows):"
        ),
        "",
        "| P | transport | GUPS | " + " | ".join(phases) + " | on a core | context switches |",
        "|---" * (len(phases) + 5) + "|",
    ]
    for row in rows:
        shares = [f"{100 * row['shares'][phase]:.0f} %" for phase in phases]
        transport = "MPI messages" if row["code"] == "spikex_routed_mpi" else "mailboxes"
        lines.append(
            f"| {row['ranks']} | {transport} | {_g(row['gups'])} | " + " | ".join(shares)
            + f" | {100 * row['on_core']:.0f} % | {row['context_switches']:,} |"
        )  # fmt: skip
    return lines


def _campaign_block(campaign: dict) -> list[str]:
    table, rows = campaign["log2_table"], campaign["best"]
    params = campaign["parameters"]
    heading = (
        f"**2^{table} words** ({campaign['table_words']:,} words, {campaign['updates']:,} "
        f"updates; {_dates(campaign)} UTC on "
        f"{campaign['machine']['cpus']} cores, {_load(campaign)}; {_repeats(params['repeat'])}, "
        "in turn; hpcc "
        f"{campaign['hpcc']['version']}, HPL order N = "
        f"{' / '.join(str(campaign['hpl_order'][str(r['ranks'])]) for r in rows)}):"
    )
    lines = [
        heading,
        "",
        HEADER,
        "|---" * (len(COLUMNS) + len(RATIO_TARGETS) + 1) + "|",
    ]
    for row in rows:
        cells = [_g(row[code]) if code in row else "–" for code in COLUMNS]
        ratios = [f"{row[key]:.2f}" if key in row else "–" for key, *_ in RATIO_TARGETS]
        lines.append(f"| {row['ranks']} | " + " | ".join(cells + ratios) + " |")
    lines.append("")
    errors = {
        code: " / ".join(str(row[f"{code}_errors"]) for row in rows if f"{code}_errors" in row)
        for code in ("hpcc_standard", "hpcc_opt2")
    }
    ours = [r for r in campaign["runs"] if r["code"].startswith("spikex")]
    lines.append(
        f"GUPS (MPIRandomAccess_GUPs for HPCC). Wrong words after each code's own "
        f"verification at P = {' / '.join(str(r['ranks']) for r in rows)}: HPCC standard "
        f"{errors['hpcc_standard']}, opt2 {errors['hpcc_opt2']} (HPCC passes ≤ 1 %); spikex "
        f"{sum(r['errors'] for r in ours)} in all {len(ours)} runs."
    )
    spreads = [
        (max(values) / min(values), code, ranks)
        for code in CODES
        for ranks in sorted({r["ranks"] for r in campaign["runs"]})
        if len(values := [gups_of(r) for r in campaign["runs"]
                          if r["code"] == code and r["ranks"] == ranks]) > 1
    ]  # fmt: skip
    if spreads:
        spread, code, ranks = max(spreads)
        lines.append(
            f"The repeats of one code at one P differed by up to {spread:.2f} × "
            f"({CODES[code]} at P = {ranks})."
        )
    bounded = [
        f"P = {row['ranks']}: {row['hpcc_standard_executed_updates']:,}"
        for row in rows
        if row.get("hpcc_standard_executed_updates", campaign["updates"]) < campaign["updates"]
    ]
    if bounded:
        lines.append(
            "HPCC's standard algorithm ran fewer than the 4 N updates within its 60 s time "
            f"bound ({'; '.join(bounded)}); its GUPS are executed updates / time."
        )
    single = [
        f"P = {row['ranks']} (2^{row['single_table_words'].bit_length() - 1} words): "
        f"{_g(row['hpcc_standard_single_gups'])} / {_g(row['hpcc_opt2_single_gups'])}"
        for row in rows
        if "hpcc_opt2_single_gups" in row and "hpcc_standard_single_gups" in row
    ]
    if single:
        lines.append(
            "SingleRandomAccess_GUPs (one process, table 2^K / P words; standard / opt2 "
            f"build, the same code): {'; '.join(single)}."
        )
    return lines + _time_split_lines(campaign)


def _verdict(met: bool | None) -> str:
    return {True: "**met**", False: "**not met**", None: "**not yet measured in full**"}[met]


def docs_block(results: dict) -> str:
    """The generated part of docs/user/gups.md."""
    campaigns = results["campaigns"]
    lines = [
        "Generated from `bench/results/gups_hpcc.json` (`bench/gups.py --hpcc`, `make "
        + "bench-hpcc`). Ranks beyond the core count are oversubscribed.",
        "",
    ]
    for campaign in campaigns:
        lines += _campaign_block(campaign) + [""]
    cases = [case for campaign in campaigns for case in campaign["targets"]]
    lines.append("Issue 21's targets:")
    lines.append("")
    for target in results["targets"]:
        mine = [c for c in cases if c["target"] == target["target"]]
        if target["target"] == ERRORS_TARGET[0]:
            detail = (
                f"{sum(c['errors'] for c in mine)} errors in {sum(c['runs'] for c in mine)} runs"
            )
        elif target["target"] == MEMORY_TARGET[0]:
            # each campaign against the limit measured on a table of its own size
            limits = {c["log2_table"]: c["memory_limit"] for c in campaigns if c.get("memory_limit")}
            parts = []
            for table in sorted({c["log2_table"] for c in mine}):
                ours = ", ".join(f"{c['algorithm'].removeprefix('spikex_')} {c['ns_per_update']:.2f} ns "
                                 f"({c['ratio']:.2f} ×)" for c in mine if c["log2_table"] == table)  # fmt: skip
                source = limits.get(table)
                if source is not None:
                    ours = (f"limit {source['ns_per_update']:.2f} ns with {source['in_flight']} updates in flight "
                            f"(prefetched into {source.get('prefetch', 'L1')}) on a "
                            f"2^{source['table_words'].bit_length() - 1}-word table, `{source['source']}` of "
                            f"{source['date_utc']} UTC, another run; {ours}")  # fmt: skip
                parts.append(f"2^{table}: {ours}")
            detail = "; ".join(parts)
        else:
            detail = "; ".join(
                f"2^{table}: "
                + " / ".join(f"{c['ratio']:.2f}" for c in mine if c["log2_table"] == table)
                + f" at P = {' / '.join(str(c['ranks']) for c in mine if c['log2_table'] == table)}"
                for table in sorted({c["log2_table"] for c in mine})
            )
        missing = f"; not measured: {target['missing']}" if target["missing"] else ""
        lines.append(f"* {target['text']}: {_verdict(target['met'])} ({detail or '–'}{missing})")
    return "\n".join(lines)


def doc_with_block(text: str, results: dict) -> str:
    try:
        return readme_with_block(text, docs_block(results), BLOCK)
    except ValueError:
        raise ValueError(
            f"{DOC} has no <!-- {BLOCK}:begin --> ... <!-- {BLOCK}:end --> block"
        ) from None


def write_docs(results: dict, doc: Path = DOC) -> bool:
    """Rewrite the block in ``doc`` (atomically); whether it changed."""
    text = doc.read_text(encoding="utf-8")
    new = doc_with_block(text, results)
    if new == text:
        return False
    temporary = temporary_name(doc)
    try:
        temporary.write_text(new, encoding="utf-8")
        os.replace(temporary, doc)
    finally:
        temporary.unlink(missing_ok=True)
    return True


def print_table(campaign: dict) -> None:
    print(f"2^{campaign['log2_table']} words ({_load(campaign)}):")
    print(
        f"{'P':>3} "
        + " ".join(f"{name:>16}" for name in CODES.values())
        + "  routed/opt2  baseline/std"
    )
    for row in campaign["best"]:
        cells = " ".join(f"{row.get(code, float('nan')):>16.4g}" for code in CODES)
        print(
            f"{row['ranks']:>3} {cells}  {row.get('routed_vs_opt2', float('nan')):>11.2f}  "
            f"{row.get('baseline_vs_standard', float('nan')):>12.2f}"
        )


def main(args, rank_counts: list[int]) -> int:
    output = args.output or DEFAULT_OUTPUT
    if args.docs_only or args.check_docs:
        if not output.exists():
            sys.exit(f"gups.py --hpcc: {output} does not exist yet: run bench/gups.py --hpcc")
        results = json.loads(output.read_text(encoding="utf-8"))
        if args.check_docs:
            if doc_with_block(DOC.read_text(encoding="utf-8"), results) != DOC.read_text(
                encoding="utf-8"
            ):
                print(
                    f"gups.py: {DOC}'s {BLOCK} block is stale; run bench/gups.py --hpcc --docs-only",
                    file=sys.stderr,
                )
                return 1
            return 0
        changed = write_docs(results)
        print(f"{DOC} {'updated' if changed else 'unchanged'}", file=sys.stderr)
        return 0
    campaign = measure(args, rank_counts)
    results = merged(output, campaign)
    output.parent.mkdir(parents=True, exist_ok=True)
    write_json(output, results)
    print_table(campaign)
    for target in results["targets"]:
        print(f"{target['text']}: {_verdict(target['met']).strip('*')}")
    print(f"\nwritten: {output}")
    if output.resolve() == DEFAULT_OUTPUT.resolve():
        print(f"{DOC} {'updated' if write_docs(results) else 'unchanged'}")
    else:
        print(f"(docs/user/gups.md is generated from {DEFAULT_OUTPUT.name} only: not changed)")
    return 0
