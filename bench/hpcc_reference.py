"""The HPC Challenge reference RandomAccess codes, for ``bench/gups.py --hpcc`` (issue 21).

Two builds of hpcc 1.5.0 run next to ``spikex gups``:

* **standard**: Debian's ``hpcc`` package (``apt-get install hpcc``), whose
  MPIRandomAccess is the reference ("standard") algorithm;
* **opt2**: the same upstream sources (Debian's ``hpcc_<version>.orig.tar.gz``, fetched
  with a private apt configuration into ``build/hpcc/`` so that the system's apt
  configuration is not touched, and unmodified) built with ``-DRA_SANDIA_OPT2``: Sandia's
  optimised MPIRandomAccess (``RandomAccess/MPIRandomAccess_opt.c``).

How hpcc sizes its RandomAccess table (hpcc 1.5.0, ``src/io.c`` and
``RandomAccess/MPIRandomAccess.c``, ``core_single_cpu.c``): hpccinf.txt's largest HPL
order N gives ``HPLMaxProcMem = (size_t)(8 N^2 / min(P x Q))`` bytes per process; the
MPI table is the largest power of two of 64-bit words within ``HPLMaxProcMem x ranks / 8``
and the single-process table (Star and SingleRandomAccess) the largest within
``HPLMaxProcMem / 8``. With a 1 x ranks grid the MPI table is about N^2 words on any
number of ranks, so N = 2^(K/2) gives 2^K words (``hpl_order_for_table``); the single
table is then 2^K / ranks.

hpcc 1.5.0 has no way to choose its tests (``HPCC_Init`` sets every ``Run*`` flag), and
HPL's matrix cannot be made small without shrinking the table (both follow from N). But
the RandomAccess tests run first (``src/hpcc.c``: MPIRandomAccess, StarRandomAccess,
SingleRandomAccess, then the LCG variants, PTRANS, DGEMM, STREAM, FFT, latency and
bandwidth, HPL last), each appending its section to ``hpccoutf.txt`` when it is done. So
``run_hpcc`` stops hpcc once the SingleRandomAccess section has ended, and
``parse_hpccoutf`` reads those sections (the ``Summary section`` with
``MPIRandomAccess_GUPs=...`` is only written at the very end; the fields here carry its
names and the same values, with more digits).

The standard algorithm bounds its run time (``RandomAccess/time_bound.h``: at most 60 s
when HPL has not run yet, estimated from a sample of 1 % of the updates) and may then
execute fewer than the 4 x table size updates; GUPS are always executed updates / time.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
from pathlib import Path

from spikex.launch.launcher import child_environment, mpiexec_command

REPOSITORY = Path(__file__).resolve().parents[1]
BUILD = REPOSITORY / "build" / "hpcc"
PACKAGE = "hpcc"
STANDARD = "/usr/bin/hpcc"  # the Debian package's binary
# The section after which hpcc has finished every RandomAccess test on the reference
# (non-LCG) stream; run_hpcc stops it there.
LAST_SECTION = "SingleRandomAccess"
# Packages the bench needs, by the program or file that tells whether each is there.
REQUIRED = {
    "hpcc": "hpcc",  # the standard build; depends on libblas3 (libblas.so.3)
    "mpiexec": "openmpi-bin",
    "mpicc": "libopenmpi-dev",  # the opt2 build
    "gcc": "gcc",
    "make": "make",
}
# Sandia opt2, as hpcc's own Make files define a build (hpl/Make.<arch>): OpenMPI's
# mpicc, the reference BLAS of libblas3 (hpcc's HPL part needs one; RandomAccess does not
# use it), 64-bit longs for RandomAccess, OpenMPI's MPI-1 declarations that hpcc 1.5
# still uses, and the optimisation of hpcc's own Make.* examples.
MAKE_OPT2 = """\
# Written by bench/hpcc_reference.py: hpcc with Sandia's opt2 MPIRandomAccess.
SHELL        = /bin/sh
CD           = cd
CP           = cp
LN_S         = ln -s
MKDIR        = mkdir
RM           = /bin/rm -f
TOUCH        = touch
ARCH         = $(arch)
TOPdir       = ../../..
INCdir       = $(TOPdir)/include
BINdir       = $(TOPdir)/bin/$(ARCH)
LIBdir       = $(TOPdir)/lib/$(ARCH)
HPLlib       = $(LIBdir)/libhpl.a
LAlib        = {blas}
F2CDEFS      = -DAdd_ -DF77_INTEGER=int -DStringSunStyle
HPL_INCLUDES = -I$(INCdir) -I$(INCdir)/$(ARCH)
HPL_LIBS     = $(HPLlib) $(LAlib) -lm
HPL_OPTS     = {options}
HPL_DEFS     = $(F2CDEFS) $(HPL_OPTS) $(HPL_INCLUDES)
CC           = mpicc
CCNOOPT      = $(HPL_DEFS)
CCFLAGS      = $(HPL_DEFS) {cflags}
LINKER       = mpicc
LINKFLAGS    = $(CCFLAGS)
ARCHIVER     = ar
ARFLAGS      = r
RANLIB       = echo
"""
OPT2_OPTIONS = "-DRA_SANDIA_OPT2 -DLONG_IS_64BITS -DOMPI_OMIT_MPI1_COMPAT_DECLS=0"
OPT2_CFLAGS = "-fomit-frame-pointer -O3 -funroll-loops"


class HpccError(RuntimeError):
    """hpcc cannot be installed, fetched, built or run, or its output is not as expected;
    the message is one line naming what and why."""


# --- the table size hpcc derives from hpccinf.txt -------------------------------------


def _log2_words(memory_words: float) -> int:
    """hpcc's loop for the table: the largest power of two of words within memory_words
    (``for (m *= 0.5, log = 0; m >= 1.0; m *= 0.5, log++)``), in the same doubles."""
    memory_words *= 0.5
    log2 = 0
    while memory_words >= 1.0:
        memory_words *= 0.5
        log2 += 1
    return log2


def hpcc_tables(order: int, ranks: int, grid_processes: int | None = None) -> tuple[int, int]:
    """log2 of (the MPIRandomAccess table, the single-process table) in words that hpcc
    1.5.0 chooses on ``ranks`` processes when hpccinf.txt's largest HPL order is ``order``
    and its smallest process grid has ``grid_processes`` (default: ``ranks``)."""
    grid_processes = ranks if grid_processes is None else grid_processes
    total = float(order)  # io.c: double totalMem = nMax; *= nMax; *= sizeof(double)
    total *= order
    total *= 8
    per_process = int(total / grid_processes)  # size_t HPLMaxProcMem
    mpi_words = float(per_process) * ranks / 8  # MPIRandomAccess.c: TotalMem
    return _log2_words(mpi_words), _log2_words(float(per_process) / 8)


def hpl_order_for_table(log2_table: int, ranks: int) -> int:
    """The smallest HPL order N for which hpcc on ``ranks`` processes (grid 1 x ranks)
    uses an MPIRandomAccess table of 2^log2_table words."""
    if not 1 <= log2_table <= 40 or ranks < 1:
        raise ValueError(f"log2_table = {log2_table}, ranks = {ranks}: out of range")
    order = max(1, int((2.0**log2_table) ** 0.5) - 2)
    while hpcc_tables(order, ranks)[0] < log2_table:
        order += 1
    if hpcc_tables(order, ranks)[0] != log2_table:  # cannot happen: the table grows by 1
        raise ValueError(f"no HPL order gives a 2^{log2_table}-word table on {ranks} ranks")
    return order


def hpccinf_text(order: int, ranks: int) -> str:
    """hpccinf.txt: HPL's input file (one problem of order ``order``, grid 1 x ranks,
    HPL's usual settings), then hpcc's PTRANS lines (no extra sizes). hpcc reads the
    first 32 lines as HPL's and the next four as its own."""
    hpl = [
        ("HPLinpack benchmark input file", None),
        ("written by bench/hpcc_reference.py for the RandomAccess tests", None),
        ("HPL.out", "output file name (if any)"),
        ("8", "device out (6=stdout,7=stderr,file)"),
        ("1", "# of problems sizes (N)"),
        (str(order), "Ns"),
        ("1", "# of NBs"),
        ("80", "NBs"),
        ("0", "PMAP process mapping (0=Row-,1=Column-major)"),
        ("1", "# of process grids (P x Q)"),
        ("1", "Ps"),
        (str(ranks), "Qs"),
        ("16.0", "threshold"),
        ("1", "# of panel fact"),
        ("2", "PFACTs (0=left, 1=Crout, 2=Right)"),
        ("1", "# of recursive stopping criterium"),
        ("4", "NBMINs (>= 1)"),
        ("1", "# of panels in recursion"),
        ("2", "NDIVs"),
        ("1", "# of recursive panel fact."),
        ("1", "RFACTs (0=left, 1=Crout, 2=Right)"),
        ("1", "# of broadcast"),
        ("1", "BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)"),
        ("1", "# of lookahead depth"),
        ("1", "DEPTHs (>=0)"),
        ("2", "SWAP (0=bin-exch,1=long,2=mix)"),
        ("64", "swapping threshold"),
        ("0", "L1 in (0=transposed,1=no-transposed) form"),
        ("0", "U  in (0=transposed,1=no-transposed) form"),
        ("1", "Equilibration (0=no,1=yes)"),
        ("8", "memory alignment in double (> 0)"),
        ("##### This line (no. 32) is ignored (it serves as a separator). ######", None),
        ("0", "Number of additional problem sizes for PTRANS"),
        ("0", "values of N"),
        ("0", "number of additional blocking sizes for PTRANS"),
        ("80", "values of NB"),
    ]
    return "".join(f"{value:<13}{comment}\n" if comment else f"{value}\n" for value, comment in hpl)


# --- reading hpccoutf.txt ---------------------------------------------------------------


def _section(text: str, name: str) -> str:
    match = re.search(
        rf"^Begin of {name} section\.\n(.*?)^End of {name} section\.",
        text,
        re.DOTALL | re.MULTILINE,
    )
    if match is None:
        raise ValueError(f"hpccoutf.txt has no complete {name} section")
    return match.group(1)


def _find(pattern: str, section: str, name: str, what: str) -> re.Match:
    match = re.search(pattern, section, re.MULTILINE)
    if match is None:
        raise ValueError(f"hpccoutf.txt's {name} section has no {what} line")
    return match


def parse_hpccoutf(text: str) -> dict:
    """The RandomAccess results of one hpcc run from its ``hpccoutf.txt`` (sections
    MPIRandomAccess, StarRandomAccess and SingleRandomAccess), named as hpcc's summary
    names them.

    Raises
    ------
    ValueError
        A section or one of its lines is missing.
    """
    mpi = _section(text, "MPIRandomAccess")
    name = "MPIRandomAccess"
    ranks = int(_find(r"^Running on (\d+) processors", mpi, name, "'Running on'").group(1))
    table = _find(r"^Total Main table size = 2\^(\d+) = (\d+) words", mpi, name, "table size")
    log2_table, table_size = int(table.group(1)), int(table.group(2))
    default = int(
        _find(
            r"^Default number of updates \(RECOMMENDED\) = (\d+)", mpi, name, "default updates"
        ).group(1)
    )
    bound = re.search(
        r"^Number of updates EXECUTED = (\d+) \(for a TIME BOUND of ([\d.]+) secs\)",
        mpi,
        re.MULTILINE,
    )
    real = float(_find(r"^Real time used = ([\d.]+) seconds", mpi, name, "real time").group(1))
    check = _find(r"^Verification:  Real time used = ([\d.]+) seconds", mpi, name, "verification")
    gups = float(
        _find(r"^([\d.]+) Billion\(10\^9\) Updates    per second", mpi, name, "GUP/s").group(1)
    )
    found = _find(
        r"^Found (\d+) errors in (\d+) locations \((passed|failed)\)",
        mpi,
        name,
        "'Found ... errors'",
    )
    errors = int(found.group(1))
    star = _section(text, "StarRandomAccess")
    single_table = _find(
        r"^Main table size\s+= 2\^(\d+) = (\d+) words", star, "StarRandomAccess", "table size"
    )
    star_gups = _find(r"^Average GUP/s (\S+)", star, "StarRandomAccess", "'Average GUP/s'")
    single = _section(text, "SingleRandomAccess")
    single_gups = _find(r"^Single GUP/s (\S+)", single, "SingleRandomAccess", "'Single GUP/s'")
    return {
        "ranks": ranks,
        "log2_table": log2_table,
        "MPIRandomAccess_N": table_size,
        "MPIRandomAccess_time": real,
        "MPIRandomAccess_CheckTime": float(check.group(1)),
        "MPIRandomAccess_Errors": errors,
        "MPIRandomAccess_ErrorsFraction": errors / table_size,
        "MPIRandomAccess_ExeUpdates": int(bound.group(1)) if bound else default,
        "MPIRandomAccess_DefaultUpdates": default,
        "MPIRandomAccess_GUPs": gups,
        "MPIRandomAccess_TimeBound": float(bound.group(2)) if bound else None,
        "passed": found.group(3) == "passed",
        "RandomAccess_N": int(single_table.group(2)),
        "StarRandomAccess_GUPs": float(star_gups.group(1)),
        "SingleRandomAccess_GUPs": float(single_gups.group(1)),
    }


# --- installing, fetching, building -----------------------------------------------------


def _blas_library() -> Path:
    return Path("/usr/lib") / (sysconfig.get_config_var("MULTIARCH") or "") / "libblas.so.3"


def _missing_packages() -> list[str]:
    missing = [package for program, package in REQUIRED.items() if shutil.which(program) is None]
    if not _blas_library().exists() and "hpcc" not in missing:
        missing.append("libblas3")
    return missing


def _run(command: list[str], what: str, cwd: Path | None = None, log: Path | None = None) -> None:
    """Run ``command``; on failure raise HpccError naming ``what`` and its last line."""
    environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive", "LC_ALL": "C"}
    done = subprocess.run(
        command,
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    if log is not None:
        log.write_text(done.stdout + done.stderr, encoding="utf-8")
    if done.returncode != 0:
        lines = [line for line in (done.stderr + done.stdout).splitlines() if line.strip()]
        where = f" (log: {log})" if log is not None else ""
        raise HpccError(
            f"{what} failed ({done.returncode}){where}: {lines[-1] if lines else 'no output'}"
        )


def ensure_packages() -> list[str]:
    """Install what the bench needs with apt-get (as root); the packages installed.

    Raises
    ------
    HpccError
        Something is missing and this is not root, or apt-get failed.
    """
    missing = _missing_packages()
    if not missing:
        return []
    if os.geteuid() != 0:
        raise HpccError(
            f"--hpcc needs the Debian packages {' '.join(missing)}: run "
            f"`apt-get install {' '.join(missing)}` as root, or run the bench as root"
        )
    print(f"hpcc: apt-get install {' '.join(missing)}", file=sys.stderr, flush=True)
    install = ["apt-get", "install", "-y", "-q", "--no-install-recommends", *missing]
    try:
        _run(install, "apt-get install")
    except HpccError:  # stale package lists: once more after an update
        _run(["apt-get", "update", "-q"], "apt-get update")
        _run(install, "apt-get install")
    still = _missing_packages()
    if still:
        raise HpccError(f"apt-get installed {' '.join(missing)} but {' '.join(still)} is missing")
    return missing


def installed_version() -> str:
    """The Debian version of the installed hpcc package, e.g. ``1.5.0-3``."""
    done = subprocess.run(
        ["dpkg-query", "-W", "-f=${Version}", PACKAGE], capture_output=True, text=True, check=False
    )
    if done.returncode != 0 or not done.stdout.strip():
        raise HpccError("dpkg-query cannot tell the version of the installed hpcc package")
    return done.stdout.strip()


def _codename() -> str:
    try:
        text = Path("/etc/os-release").read_text(encoding="utf-8")
    except OSError as error:
        raise HpccError(f"cannot read /etc/os-release: {error.strerror}") from None
    found = re.search(r"^VERSION_CODENAME=\"?([a-z]+)\"?$", text, re.MULTILINE)
    if found is None:
        raise HpccError("/etc/os-release names no VERSION_CODENAME (not Debian?)")
    return found.group(1)


def fetch_source(version: str, build: Path = BUILD) -> Path:
    """hpcc's upstream tarball of Debian source version ``version`` in ``build`` (fetched
    once): ``apt-get source --tar-only`` through a private apt configuration under
    ``build/apt`` (its own source list and package lists; the system's are not read or
    changed). apt checks the tarball against the signed index."""
    upstream = version.split(":")[-1].rsplit("-", 1)[0]
    tarball = build / f"{PACKAGE}_{upstream}.orig.tar.gz"
    if tarball.exists():
        return tarball
    apt = build / "apt"
    (apt / "parts").mkdir(parents=True, exist_ok=True)
    (apt / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    (apt / "parts" / "debian-src.sources").write_text(
        "Types: deb-src\nURIs: http://deb.debian.org/debian\n"
        f"Suites: {_codename()}\nComponents: main\n"
        "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n",
        encoding="utf-8",
    )
    private = [
        "-o",
        "Dir::Etc::sourcelist=/dev/null",
        "-o",
        f"Dir::Etc::sourceparts={apt / 'parts'}",
        "-o",
        f"Dir::State::Lists={apt / 'lists'}",
        "-o",
        "APT::Sandbox::User=root",  # build/ belongs to root, not to apt's _apt
    ]
    print(f"hpcc: fetching the {PACKAGE} {version} source into {build}", file=sys.stderr)
    _run(["apt-get", "-q", *private, "update"], "apt-get update (private source list)")
    _run(
        ["apt-get", "-q", *private, "source", "--tar-only", f"{PACKAGE}={version}"],
        f"apt-get source {PACKAGE}={version}",
        cwd=build,
    )
    if not tarball.exists():
        raise HpccError(f"apt-get source {PACKAGE}={version} did not give {tarball.name}")
    return tarball


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build_opt2(tarball: Path, build: Path = BUILD) -> Path:
    """hpcc with Sandia's opt2 built from ``tarball`` under ``build`` (skipped when that
    build exists with the same Make file); the binary."""
    blas = _blas_library()
    make = MAKE_OPT2.format(blas=blas, options=OPT2_OPTIONS, cflags=OPT2_CFLAGS)
    tree = build / f"{tarball.name.removesuffix('.orig.tar.gz').replace('_', '-')}-opt2"
    binary = tree / "hpcc"
    if binary.exists() and (tree / "hpl" / "Make.opt2").read_text(encoding="utf-8") == make:
        return binary
    shutil.rmtree(tree, ignore_errors=True)
    print(f"hpcc: building the opt2 variant in {tree} (about 15 s)", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(dir=build) as unpacked:
        with tarfile.open(tarball) as archive:
            if hasattr(tarfile, "data_filter"):  # Python >= 3.11.4
                archive.extractall(unpacked, filter="data")
            else:
                archive.extractall(unpacked)
        (top,) = Path(unpacked).iterdir()
        (top / "hpl" / "Make.opt2").write_text(make, encoding="utf-8")
        _run(
            ["make", "arch=opt2"],
            "building hpcc (make arch=opt2)",
            cwd=top,
            log=build / "build-opt2.log",
        )
        if not (top / "hpcc").exists():
            raise HpccError(f"make arch=opt2 gave no hpcc binary (log: {build / 'build-opt2.log'})")
        top.rename(tree)  # only a complete build gets the name
    return binary


def prepare(build: Path = BUILD) -> dict:
    """Everything the comparison needs: packages, source, opt2 build. Returns
    ``{"version", "standard": path, "opt2": path, "source": {...}, "installed": [...]}``."""
    installed = ensure_packages()
    build.mkdir(parents=True, exist_ok=True)
    version = installed_version()
    tarball = fetch_source(version, build)
    opt2 = build_opt2(tarball, build)
    return {
        "version": version,
        "standard": STANDARD if Path(STANDARD).exists() else shutil.which(PACKAGE),
        "opt2": str(opt2),
        "source": {"tarball": tarball.name, "sha256": sha256(tarball)},
        "opt2_build": {
            "HPL_OPTS": OPT2_OPTIONS,
            "CCFLAGS": OPT2_CFLAGS,
            "LAlib": str(_blas_library()),
            "CC": "mpicc",
            "command": "make arch=opt2",
        },
        "installed_now": installed,
    }


# --- running ------------------------------------------------------------------------------


def _stop(process: subprocess.Popen) -> None:
    """End the launcher we started and every process of its session (ranks included)."""
    if process.poll() is None:
        process.terminate()  # mpiexec passes SIGTERM on to the ranks and cleans up
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    for _ in range(100):  # ranks still going after their launcher: wait, then kill
        try:
            os.killpg(process.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.killpg(process.pid, signal.SIGKILL)


def run_hpcc(
    binary: str, ranks: int, log2_table: int, workdir: Path, timeout_s: float = 1800.0
) -> dict:
    """One hpcc run on ``ranks`` ranks with a 2^log2_table-word MPIRandomAccess table in
    ``workdir``, stopped after its RandomAccess sections; the parsed results, with
    ``hpccoutf`` (the output file's text) and the HPL order used.

    Raises
    ------
    HpccError
        hpcc failed, took longer than ``timeout_s`` or chose another table size.
    """
    order = hpl_order_for_table(log2_table, ranks)
    (workdir / "hpccinf.txt").write_text(hpccinf_text(order, ranks), encoding="utf-8")
    output = workdir / "hpccoutf.txt"
    command = mpiexec_command(ranks, [binary], always_mpiexec=True)
    end = f"End of {LAST_SECTION} section."
    with open(workdir / "mpiexec.log", "w", encoding="utf-8") as log:
        process = subprocess.Popen(
            command,
            cwd=workdir,
            env=child_environment(),
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    deadline = time.monotonic() + timeout_s
    text = ""
    try:
        while end not in text:
            finished = process.poll() is not None
            text = output.read_text(encoding="utf-8", errors="replace") if output.exists() else ""
            if end in text:
                break
            if finished:
                logged = (workdir / "mpiexec.log").read_text(errors="replace").strip().splitlines()
                raise HpccError(
                    f"{' '.join(command)} ended ({process.returncode}) before its "
                    f"{LAST_SECTION} section: {logged[-1] if logged else 'no output'}"
                )
            if time.monotonic() > deadline:
                raise HpccError(f"{' '.join(command)} took more than {timeout_s:.0f} s")
            time.sleep(0.2)
    finally:
        _stop(process)
    try:
        result = parse_hpccoutf(text)
    except ValueError as error:
        raise HpccError(f"{binary} on {ranks} ranks: {error}") from None
    if result["log2_table"] != log2_table or result["ranks"] != ranks:
        raise HpccError(
            f"{binary} on {ranks} ranks with HPL order N = {order} used a 2^{result['log2_table']}"
            f"-word table on {result['ranks']} processors, not 2^{log2_table} on {ranks}: "
            "hpcc's sizing rule is not the one hpcc_tables() reproduces"
        )
    expected_single = hpcc_tables(order, ranks)[1]
    if result["RandomAccess_N"] != 2**expected_single:
        raise HpccError(
            f"{binary} on {ranks} ranks used a single-process table of "
            f"{result['RandomAccess_N']} words, not 2^{expected_single}"
        )
    return {"hpl_order": order, "grid": [1, ranks], **result, "hpccoutf": text}
