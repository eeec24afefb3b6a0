#!/usr/bin/env bash
# Brian2 2.11 for bench/brian2/ (issue 60): its own venv, bench/brian2/.venv, on Python
# >= 3.13 (Brian2 2.11 needs it; the package's own venv stays on 3.11). Not part of
# `make test`. Idempotent: a second run only checks.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
venv="$here/bench/brian2/.venv"
want="2.11.0"
if [[ -x "$venv/bin/python" ]] && "$venv/bin/python" -c "import brian2, sys; sys.exit(brian2.__version__ != '$want')" 2>/dev/null; then
    echo "brian2 $want ready in $venv"
    exit 0
fi
python=""
for candidate in "${BRIAN2_PYTHON:-}" python3.13 python3.14 /root/.pyenv/versions/3.13.*/bin/python3; do
    [[ -n "$candidate" ]] || continue
    if command -v "$candidate" >/dev/null 2>&1 &&
        "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 13))' 2>/dev/null; then
        python="$(command -v "$candidate")"
        break
    fi
done
if [[ -z "$python" ]]; then
    echo "setup_brian2: no Python >= 3.13 found (set BRIAN2_PYTHON=/path/to/python3.13)" >&2
    exit 2
fi
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet "brian2==$want"
"$venv/bin/python" -c "import brian2; print('brian2', brian2.__version__, 'ready in $venv')"
