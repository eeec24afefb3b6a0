"""Acceptance harness: PyNN's own system scenarios against ``spikex.pynn``.

Fetches PyNN's sdist (``build/pynn-sdist/``, once), collects every scenario of
``test/system/scenarios/`` and runs each, unchanged, in a subprocess of its own with
``sim = spikex.pynn``. Each ends as ``pass``, ``not-supported`` (NotImplementedError,
PyNN's InvalidModelError / NoModelAvailableError, pytest.skip) or ``fail`` (any other
exception, a timeout, a crash). A full run writes ``docs/validation/pynn.md`` and
``bench/results/pynn_scenarios.json``::

    python tests/pynn/harness.py --check            # what `make test-pynn` runs
    python tests/pynn/harness.py --update-expected  # rewrite expected_pass.txt with the passes
    python tests/pynn/harness.py --only test_connectors --verbose   # a subset, with tracebacks

Exit status: 0; 1 when ``--check`` finds a scenario of ``expected_pass.txt`` that does
not pass; 2 when the scenarios cannot be fetched or imported.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from datetime import UTC, datetime
from pathlib import Path

from pynn_collect import CollectError, Scenario, collect
from pynn_expected import EXPECTED, check, read_expected, write_expected
from pynn_report import JSON, MARKDOWN, summary, write_json, write_markdown
from pynn_run import Outcome, run_scenario
from pynn_source import PYNN_VERSION, SourceError, scenarios_parent

BACKEND = "spikex.pynn"


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check",
        action="store_true",
        help="exit 1 if a scenario of expected_pass.txt does not pass",
    )
    parser.add_argument(
        "--update-expected",
        action="store_true",
        help="rewrite expected_pass.txt with the scenarios that pass now",
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="TEXT",
        help="run only scenarios whose module::function contains TEXT "
        "(repeatable; the reports are not written)",
    )
    parser.add_argument(
        "--backend",
        default=BACKEND,
        help=f"module passed as `sim` (default {BACKEND}; another one writes no reports)",
    )
    parser.add_argument("--workers", type=int, default=2, help="scenarios at a time")
    parser.add_argument(
        "--timeout", type=float, default=300.0, help="seconds one scenario may take"
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=480.0,
        help="seconds for the whole run: scenarios not started by then "
        "fail as not run, so a hanging backend cannot stall make",
    )
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="print the output (traceback) of every scenario that does not pass",
    )
    parser.add_argument("--no-write", action="store_true", help="write no reports")
    return parser.parse_args(argv)


def run_all(scenarios: list[Scenario], parent: Path, args: argparse.Namespace) -> list[Outcome]:
    deadline = time.monotonic() + args.budget

    def one(scenario: Scenario) -> Outcome:
        remaining = deadline - time.monotonic()
        if remaining < 1.0:
            return Outcome(
                scenario.id,
                "fail",
                f"not run: the harness's budget of {args.budget:g} s was spent",
                0.0,
            )
        return run_scenario(scenario, parent, args.backend, min(args.timeout, remaining))

    outcomes = {}
    with ThreadPoolExecutor(max_workers=max(1, args.workers)) as pool:
        futures = [pool.submit(one, scenario) for scenario in scenarios]
        for done, future in enumerate(as_completed(futures), start=1):
            outcome = future.result()
            outcomes[outcome.id] = outcome
            print(
                f"[{done:2d}/{len(scenarios)}] {outcome.result:13s} {outcome.id} "
                f"({outcome.seconds:.1f} s){'  ' + outcome.reason if outcome.reason else ''}",
                flush=True,
            )
            if args.verbose and outcome.result != "pass" and outcome.output:
                print("    " + outcome.output.replace("\n", "\n    "), flush=True)
    return [outcomes[scenario.id] for scenario in scenarios]  # collection order


def installed_pynn_version() -> str:
    import pyNN  # imported already by the scenario modules

    return pyNN.__version__


def main(argv: list[str] | None = None) -> int:
    args = parse_arguments(argv)
    start = time.monotonic()
    try:
        parent = scenarios_parent()
        scenarios = collect(parent)
    except (SourceError, CollectError) as error:
        print(f"pynn harness: {error}", file=sys.stderr)
        return 2
    version = installed_pynn_version()
    if version != PYNN_VERSION:
        print(
            f"pynn harness: warning: PyNN {version} is installed, the scenarios are "
            f"{PYNN_VERSION}'s (scripts/setup.sh pins PyNN=={PYNN_VERSION})",
            file=sys.stderr,
        )
    if args.only:
        scenarios = [s for s in scenarios if any(text in s.id for text in args.only)]
    full_run = not args.only and args.backend == BACKEND
    if args.update_expected and not full_run:
        print(
            "pynn harness: --update-expected needs a full run of the default backend "
            "(no --only, no --backend)",
            file=sys.stderr,
        )
        return 2
    print(
        f"pynn harness: {len(scenarios)} scenarios of PyNN {version} against "
        f"{args.backend}, {args.workers} at a time",
        flush=True,
    )

    outcomes = run_all(scenarios, parent, args)
    seconds = time.monotonic() - start
    data = summary(
        outcomes,
        pynn_version=version,
        backend=args.backend,
        date=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        seconds=seconds,
        workers=args.workers,
        timeout=args.timeout,
    )
    counts = data["counts"]
    print(
        f"pynn harness: {counts['pass']} pass, {counts['fail']} fail, "
        f"{counts['not-supported']} not-supported (refused by the backend), "
        f"{counts['skipped']} skipped (by the scenario) in {seconds:.0f} s"
    )
    if full_run and not args.no_write:
        write_markdown(data)
        write_json(data)
        print(
            f"pynn harness: wrote {MARKDOWN.relative_to(MARKDOWN.parents[2])} and "
            f"{JSON.relative_to(JSON.parents[2])}"
        )

    results = {outcome.id: outcome.result for outcome in outcomes}
    if args.update_expected:
        write_expected([scenario for scenario, result in results.items() if result == "pass"])
        print(f"pynn harness: wrote {EXPECTED.name} ({counts['pass']} scenarios)")
    selected = set(results) if args.only else None
    expected = [s for s in read_expected() if selected is None or s in selected]
    verdict = check(results, expected)
    if verdict.newly_passing:
        print(
            "pynn harness: newly passing (run --update-expected): "
            + ", ".join(verdict.newly_passing)
        )
    if verdict.regressions:
        by_id = {outcome.id: outcome for outcome in outcomes}
        print(
            f"pynn harness: {len(verdict.regressions)} scenario(s) of {EXPECTED.name} do not pass:",
            file=sys.stderr,
        )
        for scenario in verdict.regressions:
            outcome = by_id.get(scenario)
            said = f"{outcome.result}: {outcome.reason}" if outcome else "not collected"
            print(f"  {scenario} ({said})", file=sys.stderr)
        if args.check:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
