"""``python -m spikex.scaling``: validate the dry run and time model, write docs/scaling.md.

Usage (from the repository root; ``make scaling`` runs the first form)::

    python -m spikex.scaling            # measured P = 1, 2, 4, 8, 16 and the paper sweeps
    python -m spikex.scaling --quick    # P = 1, 2, 4 and shorter sweeps
    python -m spikex.scaling --report-only   # rewrite docs/scaling.md from docs/scaling/validation.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from ..results.machine import describe_machine, load_average_now
from .analytic import garg_table2, garg_table3, write_figures
from .report import write_report
from .time_model import load_profile
from .validation import local_validation, nest_figure1_measured, paper_sweeps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m spikex.scaling", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--output", type=Path, default=Path("docs/scaling.md"))
    parser.add_argument("--profiles", type=Path, default=Path("profiles"))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--report-only", action="store_true", help="rewrite the report from validation.json"
    )
    parser.add_argument("--cluster", type=Path, default=Path("bench/results/cluster_time_model.json"),
                        help="section 5 from this result of bench/cluster_time_model.py, if it exists")  # fmt: skip
    args = parser.parse_args(argv)
    figures = args.output.with_suffix("")
    cluster = (
        json.loads(args.cluster.read_text(encoding="utf-8")) if args.cluster.is_file() else None
    )
    if args.report_only:
        write_report(
            args.output,
            json.loads((figures / "validation.json").read_text(encoding="utf-8")),
            cluster,
        )
        print(f"scaling: wrote {args.output}", file=sys.stderr)
        return 0
    local = load_profile(args.profiles / "local.toml")
    bgp = load_profile(args.profiles / "bgp.toml")
    write_figures(figures)
    machine = describe_machine(Path.cwd())
    with tempfile.TemporaryDirectory(prefix="spikex-scaling-") as work:
        work = Path(work)
        local_runs = local_validation(work, (1, 2, 4) if args.quick else (1, 2, 4, 8, 16), local)
        data = {
            "machine": f"{machine.date}, {machine.cpu}, {machine.cores} cores, load {machine.load_average}",
            "cores": machine.cores,
            # The load the runs of section 1 saw: when they started and after the last one.
            "load_average": {"start": machine.load_average, "after_local_runs": load_average_now()},
            "local": local_runs,
            "papers": paper_sweeps(work, bgp, quick=args.quick),
            "figure1_measured": nest_figure1_measured(work),
            "garg_table2": garg_table2(),
            "garg_table3": garg_table3(),
        }
    (figures / "validation.json").write_text(
        json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8"
    )
    write_report(args.output, data, cluster)
    print(f"scaling: wrote {args.output} and {figures}/", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
