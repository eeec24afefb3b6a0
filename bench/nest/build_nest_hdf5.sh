#!/usr/bin/env bash
# Builds NEST 3.10.0 from source with HDF5 (so that nest.SonataNetwork exists), MPI,
# OpenMP and GSL, into bench/nest-hdf5/ (ignored by git). NEST's PyPI wheel (bench/nest/.venv)
# has no HDF5, hence no SonataNetwork. NEST is GPL: it is a peer we run and compare against,
# never linked into spikex.
#
#     bash bench/nest/build_nest_hdf5.sh            # JOBS=2 by default; never more on 2 cores
#
# Layout:  bench/nest-hdf5/.venv     Python with numpy, cython, mpi4py, h5py (+ a .pth to NEST)
#          bench/nest-hdf5/install   NEST's CMAKE_INSTALL_PREFIX
#          bench/nest-hdf5/build     the CMake build tree (kept: a rerun resumes it)
#          bench/nest-hdf5/python    wrapper: the venv's Python with NEST importable
# Idempotent: a finished build (the wrapper imports nest with have_hdf5) is not redone.
# The source: NEST_SDIST=<nest_simulator-3.10.0.tar.gz> if given or found in /tmp/nestsd,
# else `pip download --no-binary :all:`, else `git archive v3.10` of a local mirror (NEST_GIT_DIR).
set -euo pipefail

VERSION=3.10.0
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
ROOT=$REPO/bench/nest-hdf5
VENV=$ROOT/.venv
PREFIX=$ROOT/install
BUILD=$ROOT/build
SRC=$ROOT/src/nest_simulator-$VERSION
JOBS=${JOBS:-2}
PYTHON=${PYTHON:-python3}
mkdir -p "$ROOT"

check() {
    "$ROOT/python" - <<'EOF'
import nest
import pandas  # noqa: F401 (SonataNetwork needs it)

info = nest.GetKernelStatus("build_info")
missing = [k for k in ("have_hdf5", "have_mpi", "have_threads", "have_gsl") if not info.get(k)]
assert hasattr(nest, "SonataNetwork"), "nest.SonataNetwork missing"
assert not missing, f"NEST built without {missing}"
print(f"NEST {nest.__version__} at {info['prefix']}: SonataNetwork, HDF5, MPI, OpenMP, GSL")
EOF
}

if [[ -x "$ROOT/python" ]] && check 2>/dev/null; then
    echo "bench/nest-hdf5 already built"
    exit 0
fi

# 1. System packages (Debian names). libhdf5-dev brings the serial HDF5 with its C++
#    bindings (hdf5_cpp), which NEST's SONATA reader uses (find_package(HDF5 COMPONENTS C CXX)).
packages=(cmake g++ make pkg-config libhdf5-dev libgsl-dev libltdl-dev libboost-dev
          libopenmpi-dev openmpi-bin python3-dev python3-venv)
missing=()
for p in "${packages[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# 2. NEST's source.
if [[ ! -f "$SRC/CMakeLists.txt" ]]; then
    mkdir -p "$ROOT/src"
    sdist=${NEST_SDIST:-/tmp/nestsd/nest_simulator-$VERSION.tar.gz}
    if [[ ! -f "$sdist" ]]; then
        sdist=$ROOT/src/nest_simulator-$VERSION.tar.gz
        if ! "$PYTHON" -m pip download "nest-simulator==$VERSION" --no-binary :all: --no-deps \
            -d "$ROOT/src" >/dev/null 2>&1 || [[ ! -f "$sdist" ]]; then
            git_dir=${NEST_GIT_DIR:-/work/.mirror/nest+nest-simulator/repo}
            git --git-dir "$git_dir" archive --prefix "nest_simulator-$VERSION/" -o "$sdist" v3.10
        fi
    fi
    tar -xzf "$sdist" -C "$ROOT/src"
fi

# 3. The venv: what PyNEST's build needs (cython, numpy) and what the benchmarks use.
if [[ ! -x "$VENV/bin/python" ]]; then
    "$PYTHON" -m venv "$VENV"
fi
# pandas and h5py: SonataNetwork needs both. h5py is built against the system's HDF5: the
# wheel bundles its own (2.x), and once NEST has loaded libhdf5 1.10 (with RTLD_GLOBAL)
# the wheel's h5py fails at import ("Not a datatype").
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q "cython>=3" numpy mpi4py pandas
system_hdf5=$(dpkg-query -W -f '${Version}' libhdf5-dev | cut -d+ -f1)
if [[ $("$VENV/bin/python" -c "import h5py; print(h5py.version.hdf5_version)" 2>/dev/null) != "$system_hdf5" ]]; then
    HDF5_INCLUDEDIR=/usr/include/hdf5/serial HDF5_LIBDIR=$(dirname "$(dpkg -L libhdf5-dev | grep '/serial/libhdf5.so$')") \
        "$VENV/bin/python" -m pip install -q --force-reinstall --no-deps --no-binary h5py h5py
fi

# 4. Configure, build, install.
flags=(-DCMAKE_INSTALL_PREFIX="$PREFIX" -Dwith-hdf5=ON -Dwith-mpi=ON -Dwith-openmp=ON
       -Dwith-gsl=ON -Dwith-python=ON -DPython_EXECUTABLE="$VENV/bin/python")
mkdir -p "$BUILD"
start=$(date +%s)
if [[ ! -f "$BUILD/CMakeCache.txt" ]]; then
    (cd "$BUILD" && PATH="$VENV/bin:$PATH" cmake "${flags[@]}" "$SRC")
fi
(cd "$BUILD" && PATH="$VENV/bin:$PATH" make -j"$JOBS" install)
seconds=$(($(date +%s) - start))
echo "make install: $seconds s"
if [[ ! -f "$ROOT/build.json" ]]; then  # the first (full) build's record, read by the benchmarks
    "$VENV/bin/python" - "$ROOT/build.json" "$seconds" "$JOBS" "${flags[@]}" <<'EOF'
import json, sys, time
path, seconds, jobs, *flags = sys.argv[1:]
record = {"version": "3.10.0", "cmake_flags": flags, "make_install_s": int(seconds), "jobs": int(jobs),
          "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime())}
open(path, "w").write(json.dumps(record, indent=1) + "\n")
EOF
fi

# 5. Make `import nest` work from the venv: a .pth to NEST's site-packages, and a wrapper
#    that also sets what nest_vars.sh sets (NEST's data dir for SLI start-up files).
site=$(cd "$PREFIX" && ls -d lib*/python3*/site-packages | head -1)
venv_site=$("$VENV/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
echo "$PREFIX/$site" >"$venv_site/nest_hdf5.pth"
cat >"$ROOT/python" <<EOF
#!/usr/bin/env bash
# The HDF5 NEST's Python (written by bench/nest/build_nest_hdf5.sh).
export NEST_INSTALL_DIR="$PREFIX"
export LD_LIBRARY_PATH="$PREFIX/lib:$PREFIX/lib/nest\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
exec "$VENV/bin/python" "\$@"
EOF
chmod +x "$ROOT/python"
check
