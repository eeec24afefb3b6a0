#!/usr/bin/env bash
# Installs what spikex needs and is missing: Debian packages (as root) and a Python
# virtual environment in .venv with the build and run dependencies. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${VENV:-.venv}
# iproute2 (ip, tc), util-linux (unshare, setpriv) and procps (ps): the emulated cluster
# of `make test-cluster` (scripts/mini_cluster.sh) and the fault tests.
APT_PACKAGES=(g++ cmake ninja-build make libopenmpi-dev openmpi-bin librandom123-dev libgtest-dev libfmt-dev libboost-dev python3-venv clang-format
              iproute2 util-linux procps)
# PyNN and what it needs run PyNN's own scenarios against spikex.pynn (`make test-pynn`);
# scipy is needed by some of those scenarios (they skip without it); PyNN gathers recorded
# data across MPI ranks with mpi4py (a PyNN script under `mpiexec -n P`). Sphinx, MyST,
# sphinx-gallery and sphinx-click build the documentation site (`make docs`, part of
# `make test`; docs/dev/documentation.md). NESTML 9.0.0 (the `nestml` extra) builds users'
# NESTML models (docs/user/nestml.md) and their tests.
PIP_PACKAGES=(numpy h5py click rich matplotlib pytest "scikit-build-core>=0.10" "nanobind>=2.0"
              "PyNN==0.13.0" neo quantities lazyarray scipy mpi4py
              sphinx myst-parser sphinx-gallery sphinx-click
              "nestml==9.0.0" "Jinja2>=3")

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# python3-venv is only needed when this python cannot make a venv by itself.
if python3 -c "import venv, ensurepip" 2>/dev/null; then
  missing=("${missing[@]/python3-venv}")
fi
missing=($(printf '%s\n' "${missing[@]}" | grep -v '^$' || true))
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "spikex setup: missing Debian packages: ${missing[*]} (run as root, or install them)" >&2
    exit 1
  fi
  echo "spikex setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -x "$VENV/bin/python" ]; then
  echo "spikex setup: creating $VENV"
  python3 -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c "import numpy, h5py, click, rich, matplotlib, pytest, scikit_build_core, nanobind, pyNN, neo, quantities, lazyarray, scipy, mpi4py, sphinx, myst_parser, sphinx_gallery, sphinx_click, pynestml, jinja2" 2>/dev/null; then
  echo "spikex setup: installing Python packages into $VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip
  "$VENV/bin/python" -m pip install -q "${PIP_PACKAGES[@]}"
fi
