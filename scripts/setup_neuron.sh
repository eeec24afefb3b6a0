#!/usr/bin/env bash
# Creates bench/neuron/.venv: NEURON 9.0.2 (PyPI `neuron`, BSD-3-Clause) in its own venv,
# for the Hines 2011 comparison (bench/neuron/hines_vs_neuron.py, `make bench-neuron`),
# and compiles bench/neuron/mod/IntervalFire.mod with its nrnivmodl into
# bench/neuron/x86_64/. Idempotent: an existing venv with NEURON 9.0.2 is kept, and the
# mechanisms are compiled again only when the .mod file is newer than the library. NEURON's
# wheel loads the system's libmpi at run time (nrnmpi_init under mpiexec): no mpi4py needed.
# Not part of `make test`: NEURON is a benchmark peer, never a dependency of spikex.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=${SPIKEX_NEURON_VERSION:-9.0.2}
VENV=bench/neuron/.venv
PYTHON=${SPIKEX_NEURON_BASE_PYTHON:-python3}
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
installed=$("$VENV/bin/python" -c "from neuron import __version__; print(__version__)" 2>/dev/null || true)
if [ "$installed" != "$VERSION" ]; then
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-input "neuron==$VERSION"
fi
library=bench/neuron/x86_64/libnrnmech.so
if [ ! -f "$library" ] || [ bench/neuron/mod/IntervalFire.mod -nt "$library" ]; then
    (cd bench/neuron && .venv/bin/nrnivmodl mod >/dev/null)
fi
"$VENV/bin/python" -c "from neuron import h; h.nrn_load_dll('$library'); h.IntervalFire()" >/dev/null
echo "setup-neuron: done ($VENV, NEURON $VERSION, $library)"
