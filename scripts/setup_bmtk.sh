#!/usr/bin/env bash
# Creates bench/bmtk/.venv: BMTK (the `bmtk` package from the Python package registry,
# BSD-3-Clause) on top of the NEST 3.10 of bench/nest/.venv, for the SONATA comparison
# with BMTK's pointnet (bench/bmtk/compare_bmtk.py, tests/python/nest_validation/
# test_bmtk_sonata.py). NEST's venv is not changed: the new venv sees its packages through
# a .pth file. `make setup-nest` (and so `make test`) runs it; the BMTK test skips without
# this venv, and fails under CI=true.
set -euo pipefail
cd "$(dirname "$0")/.."
NEST_PYTHON=${SPIKEX_NEST_PYTHON:-bench/nest/.venv/bin/python}
VENV=bench/bmtk/.venv
"$NEST_PYTHON" -c "import nest" >/dev/null 2>&1 || { echo "setup-bmtk: $NEST_PYTHON has no NEST (bash scripts/setup_nest.sh first)" >&2; exit 1; }
base=$("$NEST_PYTHON" -c "import sys; print(sys.base_prefix)")/bin/python3
[ -x "$VENV/bin/python" ] || "$base" -m venv "$VENV"
nest_site=$("$NEST_PYTHON" -c "import os, site; print(os.path.abspath(site.getsitepackages()[0]))")
bmtk_site=$("$VENV/bin/python" -c "import site; print(site.getsitepackages()[0])")
echo "$nest_site" > "$bmtk_site/nest_venv.pth"
numpy=$("$NEST_PYTHON" -c "import numpy; print(numpy.__version__)")
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-input "numpy==$numpy" h5py pandas bmtk
"$VENV/bin/python" -c "import nest, bmtk.simulator.pointnet" && echo "setup-bmtk: done ($VENV)"
