"""Runs a PyNN example script unchanged on a simulator named on the command line:
``python as_backend.py SIMULATOR SCRIPT [ARGS...]`` runs SCRIPT with
``sys.argv = [SCRIPT, SIMULATOR, ARGS...]``, the way PyNN's examples take their simulator
(``pyNN.utility.get_simulator`` / ``get_script_args`` import ``pyNN.<SIMULATOR>``). For
``spikex`` it first makes ``pyNN.spikex`` name spikex.pynn, so the script's own import
finds it; nothing in the script changes. Prints the peak resident memory at the end
(a ``PEAK_RSS_MB`` line), for bench/pynn/run.py."""

from __future__ import annotations

import resource
import runpy
import sys


def main() -> None:
    simulator, script, *arguments = sys.argv[1:]
    if simulator == "spikex":
        import spikex.pynn

        sys.modules["pyNN.spikex"] = spikex.pynn
    sys.argv = [script, simulator, *arguments]
    runpy.run_path(script, run_name="__main__")
    print(
        f"PEAK_RSS_MB {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0:.1f}", flush=True
    )


if __name__ == "__main__":
    main()
