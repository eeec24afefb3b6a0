"""Runs a PyNN example script unchanged on a simulator named on the command line:
``python as_backend.py SIMULATOR SCRIPT [ARGS...]`` runs SCRIPT with
``sys.argv = [SCRIPT, SIMULATOR, ARGS...]``, the way PyNN's examples take their simulator
(``pyNN.utility.get_simulator`` / ``get_script_args`` import ``pyNN.<SIMULATOR>``). For
``spikex`` it first makes ``pyNN.spikex`` name spikex.pynn, so the script's own import
finds it; nothing in the script changes. For every simulator PyNN gets the same numpy-2
mend that ``import spikex.pynn`` applies (python/spikex/pynn/numpy2_fixes.py, loaded by
path for NEST's venv), so that both run the scripts PyNN 0.13 crashes on under numpy 2.
Prints the peak resident memory at the end (a ``PEAK_RSS_MB`` line), for
bench/pynn/run.py."""

from __future__ import annotations

import importlib.util
import resource
import runpy
import sys
from pathlib import Path

FIXES = Path(__file__).resolve().parents[2] / "python" / "spikex" / "pynn" / "numpy2_fixes.py"


def main() -> None:
    simulator, script, *arguments = sys.argv[1:]
    if simulator == "spikex":
        import spikex.pynn

        sys.modules["pyNN.spikex"] = spikex.pynn
    spec = importlib.util.spec_from_file_location("spikex_numpy2_fixes", FIXES)
    fixes = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fixes)
    fixes.apply()
    sys.argv = [script, simulator, *arguments]
    runpy.run_path(script, run_name="__main__")
    print(
        f"PEAK_RSS_MB {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0:.1f}", flush=True
    )


if __name__ == "__main__":
    main()
