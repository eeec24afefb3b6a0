"""The harness's reports: ``docs/validation/pynn.md`` and ``bench/results/pynn_scenarios.json``.

Both hold the same data: what ran, the counts per result and one row per scenario.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from pynn_run import RESULTS, Outcome

REPO = Path(__file__).resolve().parents[2]
MARKDOWN = REPO / "docs" / "validation" / "pynn.md"
JSON = REPO / "bench" / "results" / "pynn_scenarios.json"


def summary(
    outcomes: list[Outcome],
    *,
    pynn_version: str,
    backend: str,
    date: str,
    seconds: float,
    workers: int,
    timeout: float,
) -> dict:
    counts = Counter(outcome.result for outcome in outcomes)
    return {
        "pynn_version": pynn_version,
        "backend": backend,
        "date": date,
        "seconds": round(seconds, 1),
        "workers": workers,
        "timeout_s": timeout,
        "counts": {result: counts.get(result, 0) for result in RESULTS},
        "total": len(outcomes),
        "scenarios": [outcome.record() for outcome in outcomes],
    }


def write_json(data: dict, path: Path = JSON) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")


def write_markdown(data: dict, path: Path = MARKDOWN) -> None:
    counts = data["counts"]
    what = (
        f"PyNN {data['pynn_version']} ships scenario tests in its source distribution "
        "(`test/system/scenarios/`): small networks, each a function that takes the "
        "simulator module (`sim`) and checks what it does with assertions. "
        f"`tests/pynn/harness.py` runs each of the {data['total']} scenarios, unchanged, with "
        f"`sim = {data['backend']}`, in a subprocess of its own (a temporary directory as "
        f"cwd, OMP_NUM_THREADS=1, a {data['timeout_s']:g} s timeout), "
        f"{data['workers']} at a time. This page and `bench/results/pynn_scenarios.json` "
        f"are written by it; run on {data['date']}, {data['seconds']:.0f} s in all."
    )
    meaning = (
        f"A scenario is *not-supported* when {data['backend']} refused it: it raised "
        "`NotImplementedError`, PyNN's `InvalidModelError` or `NoModelAvailableError` (the "
        "reason is the message). It is *skipped* when the scenario itself called "
        "`pytest.skip`, for something its environment lacks (a package such as morphio), "
        "before the backend had a say. *fail* is any other exception (its type and message), "
        "a timeout or a crash. `make test-pynn` reruns them and fails if a scenario listed in "
        "`tests/pynn/expected_pass.txt` (those that passed before) does not pass; "
        "`python tests/pynn/harness.py --update-expected` rewrites that list."
    )
    total = (
        f"**{counts['pass']} pass, {counts['fail']} fail, "
        f"{counts['not-supported']} not-supported, {counts['skipped']} skipped** "
        f"(of {data['total']})."
    )
    lines = ["# PyNN's system scenarios against spikex.pynn", "", what, "", meaning, "", total]
    for result, heading in (
        ("not-supported", f"Why {data['backend']} refuses {_scenarios(counts['not-supported'])}"),
        ("skipped", f"Why {_scenarios(counts['skipped'])} skipped"),
    ):
        reasons = Counter(row["reason"] for row in data["scenarios"] if row["result"] == result)
        if not reasons:
            continue
        lines += ["", f"## {heading}", "", "| scenarios | reason |", "|---:|---|"]
        for reason, n in sorted(reasons.items(), key=lambda item: (-item[1], item[0])):
            lines.append(f"| {n} | {_cell(reason)} |")
    lines += ["", "## Every scenario"]
    lines += ["", "| scenario | result | reason | s |", "|---|---|---|---:|"]
    for row in data["scenarios"]:
        lines.append(f"| `{row['id']}` | {row['result']} | {_cell(row['reason'])} | {row['seconds']:.1f} |")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def _cell(text: str) -> str:
    """`text` inside a Markdown table cell."""
    return text.replace("|", "\\|").replace("`", "'")


def _scenarios(n: int) -> str:
    return f"{n} scenario{'' if n == 1 else 's'}"
