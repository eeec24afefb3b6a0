"""docs/validation/nest.md is written by three scripts; each owns one marked section.

``update_section("statistics", text)`` replaces what lies between
``<!-- BEGIN statistics -->`` and ``<!-- END statistics -->`` and keeps the rest (the
hand-written explanations) as it is.
"""

from __future__ import annotations

import json
import platform
import subprocess
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "validation" / "nest.md"
RESULTS = REPO / "bench" / "results"


def update_section(name: str, text: str, doc: Path = DOC) -> None:
    begin, end = f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"
    content = doc.read_text() if doc.exists() else "# Validation against NEST 3.10\n"
    block = f"{begin}\n{text.rstrip()}\n{end}"
    if begin in content and end in content:
        head, rest = content.split(begin, 1)
        _, tail = rest.split(end, 1)
        content = head + block + tail
    else:
        content = content.rstrip() + "\n\n" + block + "\n"
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text(content)


def write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, default=float) + "\n")
    tmp.replace(path)


def machine() -> dict:
    try:
        load = Path("/proc/loadavg").read_text().split()[:3]
    except OSError:
        load = []
    try:
        cpu = next(
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        )
    except (OSError, StopIteration):
        cpu = platform.processor()
    try:
        commit = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
    except OSError:
        commit = ""
    return {
        "date_utc": datetime.now(UTC).strftime("%Y-%m-%d %H:%M"),
        "cpu": cpu,
        "cores": len(__import__("os").sched_getaffinity(0)),
        "load_average": load,
        "commit": commit,
    }


def run_stamp() -> dict:
    """When a run ended and the 1-minute load average then (its own threads included)."""
    info = machine()
    load = info["load_average"]
    return {"date_utc": info["date_utc"], "load_1min": float(load[0]) if load else None}


def file_stamp(path: Path) -> dict:
    """The stamp of a run cached before runs were stamped: its file's time, load unknown."""
    when = datetime.fromtimestamp(path.stat().st_mtime, UTC).strftime("%Y-%m-%d %H:%M")
    return {"date_utc": when, "load_1min": None}


def measured_on(info: dict, stamps: list[dict]) -> str:
    """Where and when the runs of a report were taken, for its first sentence."""
    dates = sorted(s["date_utc"] for s in stamps) or [info["date_utc"]]
    when = dates[0] if dates[0] == dates[-1] else f"{dates[0]} to {dates[-1]}"
    loads = [s["load_1min"] for s in stamps if s.get("load_1min") is not None]
    load = (
        f"; load average at the end of a run {min(loads):.1f}–{max(loads):.1f}, its own threads included"
        if loads
        else ""
    )
    return f"Runs measured {when} UTC on {info['cpu']} ({info['cores']} cores{load}; one run at a time)"
