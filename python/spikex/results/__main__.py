"""``python -m spikex.results``: run the papers' experiments and write docs/results.md.

Usage (from the repository root; ``make results`` runs the first form)::

    python -m spikex.results                     # every experiment, configured sizes
    python -m spikex.results --quick             # reduced sizes (each experiment's `quick`)
    python -m spikex.results --only hines2011_figure5,jordan2018_small_scale
    python -m spikex.results --report-only       # rewrite the report from the last runs

Raw run directories go to ``--workdir`` (default ``build/results``, not versioned); the
report to ``--output`` (default ``docs/results.md``) and its figures and
``measurements.json`` to the directory of the same name (``docs/results/``). With
``--only`` the report holds only those experiments.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import ConfigError
from .experiments import MANIFEST, load_experiments
from .machine import describe_machine
from .report import write_measurements, write_report
from .runner import load_experiment, run_experiment


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m spikex.results",
        description="Run the papers' experiments (examples/papers/) and write docs/results.md.",
    )
    parser.add_argument("--manifest", type=Path, default=MANIFEST, help=f"[{MANIFEST}]")
    parser.add_argument("--output", type=Path, default=Path("docs/results.md"),
                        help="report [docs/results.md]; figures go to docs/results/")  # fmt: skip
    parser.add_argument("--workdir", type=Path, default=Path("build/results"),
                        help="run directories [build/results]")  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="reduced sizes (see the manifest)")
    parser.add_argument("--only", default="", metavar="NAME,...", help="experiments to run")
    parser.add_argument(
        "--report-only", action="store_true",
        help="run nothing: rewrite the report from the compare.json files in --workdir",
    )  # fmt: skip
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run, plot, report; 0 when every sweep ran and every sweep's spikes agree."""
    args = parse_arguments(argv)
    try:
        experiments = load_experiments(args.manifest, quick=args.quick)
    except ConfigError as error:
        print(f"spikex.results: {error}", file=sys.stderr)
        return 2
    if args.only:
        wanted = [name.strip() for name in args.only.split(",") if name.strip()]
        unknown = sorted(set(wanted) - {experiment.name for experiment in experiments})
        if unknown:
            names = ", ".join(experiment.name for experiment in experiments)
            print(f"spikex.results: --only {','.join(unknown)}: unknown; experiments: {names}",
                  file=sys.stderr)  # fmt: skip
            return 2
        experiments = [experiment for experiment in experiments if experiment.name in wanted]
    machine = describe_machine(Path.cwd())
    figure_dir = args.output.with_suffix("")
    results = {}
    for experiment in experiments:
        collect = load_experiment if args.report_only else run_experiment
        results[experiment.name] = collect(experiment, args.workdir, figure_dir)
        # Rewrite after each experiment: a long run leaves a useful report if stopped.
        write_report(args.output, experiments, results, machine, args.quick)
        write_measurements(figure_dir / "measurements.json", results)
    print(f"results: wrote {args.output} and {figure_dir}/", file=sys.stderr)
    bad = [
        result.sweep.key
        for sweep_results in results.values()
        for result in sweep_results
        if result.comparison is None or not result.comparison["spikes_agree"]
    ]
    if bad:
        print(f"results: failed or mismatched sweeps: {', '.join(bad)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
