"""The README's figures against NEST, generated from result files: speed and memory from
bench/results/vs_nest.json (every campaign of ``bench/vs_nest.py`` it keeps), and what the
microcircuit's validation shows from
bench/results/nest_microcircuit/compare_spikex_full.json.

The figures live in README.md between ``<!-- vs_nest:begin -->`` and
``<!-- vs_nest:end -->`` (and ``microcircuit_validation``); ``bench/vs_nest.py`` rewrites
the first after each campaign, and tests/python/nest_validation/test_readme_numbers.py
fails when a block differs from what this module makes of the JSON::

    python bench/readme_numbers.py           # rewrite the block in README.md
    python bench/readme_numbers.py --check   # exit 1 when README.md's block is stale
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
VS_NEST_JSON = REPO / "bench" / "results" / "vs_nest.json"
MICROCIRCUIT_JSON = REPO / "bench" / "results" / "nest_microcircuit" / "compare_spikex_full.json"
BEGIN = "<!-- vs_nest:begin -->"
END = "<!-- vs_nest:end -->"
# The network the README quotes: NEST's hpc_benchmark at scale 1, K = 11,250.
SCALE, INDEGREE = 1.0, 11250


def campaigns(results: dict) -> list[dict]:
    """Every campaign of a vs_nest.json (a file from before campaigns were kept is one)."""
    return results.get("campaigns") or [results]


def _range(values: list[float]) -> str:
    low, high = f"{min(values):.2f}", f"{max(values):.2f}"
    return low if low == high else f"{low}–{high}"


def _values(items: list[float]) -> str:
    return " / ".join(f"{value:g}" for value in sorted(set(items)))


def vs_nest_block(results: dict, scale: float = SCALE, indegree: int = INDEGREE) -> str:
    """The README paragraph for the campaigns at ``scale`` and ``indegree``."""
    chosen = [c for c in campaigns(results) if c["scale"] == scale and c["indegree"] == indegree]
    ratios = [q for c in chosen for q in c["ratios"]]
    if not ratios:
        return (
            f"No campaign of `bench/vs_nest.py` at scale {scale:g}, K = {indegree:,} in "
            "`bench/results/vs_nest.json` yet (`make bench-nest`)."
        )

    def simulate(plastic: bool, cores: int) -> str:
        found = [
            q["simulate_ratio"] for q in ratios if q["plastic"] == plastic and q["cores"] == cores
        ]
        return _range(found) if found else "–"

    dates = sorted(r["measured"]["date_utc"] for c in chosen for r in c["rows"])
    machines = sorted({f"{c['machine']['cpu']}, {c['machine']['cores']} cores" for c in chosen})
    count = f"{len(chosen)} campaign{'s' if len(chosen) > 1 else ''}"
    return (
        f"Against NEST 3.10 on {'; '.join(machines)} (scale {scale:g}, K = {indegree:,}; "
        f"{count} of `make bench-nest`, {dates[0]} to {dates[-1]} UTC, all kept in "
        "`bench/results/vs_nest.json`; each ratio at equal cores against the NEST run of the "
        f"same campaign), spikex simulates the static benchmark in {simulate(False, 1)} of "
        f"NEST's time on one core and {simulate(False, 2)} on two, with STDP in "
        f"{simulate(True, 1)} and {simulate(True, 2)}, with "
        f"{_range([q['memory_ratio'] for q in ratios])} of NEST's memory per synapse. "
        f"Static times are over {_values([c['tsim_ms'] for c in chosen])} ms of biological "
        f"time; STDP times over the first {_values([c['stdp_tsim_ms'] for c in chosen])} ms "
        f"after the {_values([c['presim_ms'] for c in chosen])} ms presim (before the "
        "runaway both simulators show), scaled to one biological second."
    )


def readme_with_block(text: str, block: str, name: str = "vs_nest") -> str:
    """``text`` with the part between the markers of block ``name`` replaced by ``block``."""
    begin, end_marker = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    start, end = text.find(begin), text.find(end_marker)
    if start < 0 or end < start:
        raise ValueError(f"README.md has no {begin} ... {end_marker} block")
    return text[: start + len(begin)] + "\n" + block + "\n" + text[end:]


def write_block(block: str, name: str, readme: Path = README) -> bool:
    """Rewrite README's block ``name``; whether it changed."""
    text = readme.read_text(encoding="utf-8")
    new = readme_with_block(text, block, name)
    if new != text:
        readme.write_text(new, encoding="utf-8")
    return new != text


def docs_from_results(
    results_json: Path, render, name: str, doc: Path, script: str, check: bool
) -> int:
    """A bench script's --docs / --check-docs: rewrite (or check) block ``name`` of ``doc``
    as ``render`` makes it from the stored ``results_json``; the exit status."""
    results = json.loads(results_json.read_text(encoding="utf-8"))
    if check:
        text = doc.read_text(encoding="utf-8")
        if readme_with_block(text, render(results), name) != text:
            print(f"{script}: the {name} block of {doc} is stale; run bench/{script} --docs",
                  file=sys.stderr)  # fmt: skip
            return 1
        return 0
    changed = write_block(render(results), name, doc)
    print(f"{doc}: {'updated' if changed else 'unchanged'}", file=sys.stderr)
    return 0


def add_docs_options(parser: argparse.ArgumentParser) -> None:
    """A bench script's --docs / --check-docs (see docs_only)."""
    parser.add_argument("--docs", action="store_true", help="only rewrite the docs block")
    parser.add_argument("--check-docs", action="store_true", help="exit 1 if the block is stale")


def docs_only(args, results_json: Path, render, name: str, doc: Path, script: str) -> int | None:
    """With --docs or --check-docs: docs_from_results' exit status; else None (measure)."""
    if not (args.docs or args.check_docs):
        return None
    return docs_from_results(results_json, render, name, doc, script, args.check_docs)


def update_readme(results: dict, readme: Path = README) -> bool:
    """Rewrite README's blocks from ``results`` and the microcircuit comparison; whether
    one changed."""
    changed = write_block(vs_nest_block(results), "vs_nest", readme)
    return write_block(microcircuit_block(), "microcircuit_validation", readme) or changed


def microcircuit_block(path: Path = MICROCIRCUIT_JSON) -> str:
    """What the full-scale microcircuit comparison with NEST shows (README block
    ``microcircuit_validation``)."""
    sys.path.insert(0, str(REPO / "bench"))
    import microcircuit_statistics

    return microcircuit_statistics.agreement_summary(json.loads(path.read_text(encoding="utf-8")))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="only check README.md; exit 1 if stale"
    )
    parser.add_argument("--results", type=Path, default=VS_NEST_JSON)
    args = parser.parse_args(argv)
    results = json.loads(args.results.read_text(encoding="utf-8"))
    if args.check:
        text = README.read_text(encoding="utf-8")
        expected = readme_with_block(text, vs_nest_block(results))
        expected = readme_with_block(expected, microcircuit_block(), "microcircuit_validation")
        if expected != text:
            print(
                "readme_numbers: README.md's vs_nest or microcircuit_validation block is stale; "
                "run python bench/readme_numbers.py",
                file=sys.stderr,
            )
            return 1
        return 0
    changed = update_readme(results)
    print(f"readme_numbers: README.md {'updated' if changed else 'unchanged'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
