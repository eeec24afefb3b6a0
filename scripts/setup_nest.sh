#!/usr/bin/env bash
# Creates the NEST validation environment bench/nest/.venv: NEST 3.10 (the
# `nest-simulator` wheel from the Python package registry) and numpy. It is separate
# from the main .venv and never touches it. Safe to run again: it does nothing when
# `import nest` already works there (about 30 s and 300 MB the first time).
#
# Outside CI it never fails the caller: without network (or without a wheel for this
# platform) it prints one line and exits 0; the NEST tests then skip and name the reason.
# Under CI (CI=true) it exits 1 instead, and so do the NEST tests: a CI run must not pass
# without the NEST validation. The tests use bench/nest/.venv/bin/python, or the
# interpreter SPIKEX_NEST_PYTHON names (bench/nest/run_exact.py).
set -uo pipefail
cd "$(dirname "$0")/.."

NEST_VENV=${NEST_VENV:-bench/nest/.venv}
NEST_VERSION=${NEST_VERSION:-3.10.0}
LOG=bench/nest/.venv-install.log

# The interpreter the tests use: SPIKEX_NEST_PYTHON when set (then nothing is installed),
# else the venv's.
NEST_PYTHON=${SPIKEX_NEST_PYTHON:-$NEST_VENV/bin/python}

have_nest() {
  [ -x "$NEST_PYTHON" ] &&
    "$NEST_PYTHON" -c "import nest, numpy; assert nest.__version__.startswith('${NEST_VERSION%.0}')" \
      >/dev/null 2>&1
}

# Without NEST: fail under CI (CI=true), else say so and let the NEST tests skip.
give_up() {
  case "${CI:-}" in
    1 | true | TRUE | True | yes)
      echo "setup-nest: $1; CI=true requires the NEST validation tests, failing" >&2
      exit 1
      ;;
  esac
  echo "setup-nest: $1; the NEST validation tests will be skipped" >&2
  exit 0
}

if have_nest; then
  exit 0
fi
if [ -n "${SPIKEX_NEST_PYTHON:-}" ]; then
  give_up "SPIKEX_NEST_PYTHON=$SPIKEX_NEST_PYTHON cannot import nest $NEST_VERSION and numpy"
fi

echo "setup-nest: installing nest-simulator $NEST_VERSION into $NEST_VENV"
mkdir -p "$(dirname "$LOG")"
start=$(date +%s)
{
  [ -x "$NEST_VENV/bin/python" ] || python3 -m venv "$NEST_VENV"
  "$NEST_VENV/bin/python" -m pip install -q --disable-pip-version-check --no-input \
    "nest-simulator==$NEST_VERSION" numpy
} >"$LOG" 2>&1 </dev/null

if have_nest; then
  echo "setup-nest: done in $(($(date +%s) - start)) s"
  exit 0
fi
give_up "could not install nest-simulator $NEST_VERSION (see $LOG)"
