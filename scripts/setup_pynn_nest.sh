#!/usr/bin/env bash
# PyNN 0.13.0 (with neo, quantities, lazyarray) in the NEST venv (bench/nest/.venv), so
# that pyNN.nest runs the same scripts as spikex.pynn (bench/pynn/run.py); scipy and
# mpi4py too, which some of PyNN's examples import (bench/pynn/examples.py). Safe to run
# again; outside CI it never fails the caller (like scripts/setup_nest.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_nest.sh || exit 1
NEST_PYTHON=${SPIKEX_NEST_PYTHON:-bench/nest/.venv/bin/python}
if [ -x "$NEST_PYTHON" ] && ! "$NEST_PYTHON" -c "import pyNN, neo, quantities, lazyarray, scipy, mpi4py" 2>/dev/null; then
  echo "setup-pynn-nest: installing PyNN 0.13.0 into the NEST environment"
  "$NEST_PYTHON" -m pip install -q "PyNN==0.13.0" neo quantities lazyarray scipy mpi4py ||
    echo "setup-pynn-nest: could not install PyNN there; bench/pynn/run.py will say so" >&2
fi
exit 0
