"""Users' NESTML neuron models, compiled for spikex and loaded at run time (docs/user/nestml.md).

``build(path)`` turns a ``.nestml`` file into a model library: NESTML's front end parses
and checks it and ODE-toolbox finds its propagators (``generator.py``), spikex's template
writes C++ for spikex's model interface, and the compiler that built spikex's core compiles
it with the core's flags against the core's headers into a shared library linked against
the loaded ``spikex._core``. Libraries are cached by content: the model file's bytes,
spikex's version and generator, NESTML's version, the compiler and flags, the core's ABI string, its
path (the library links that file) and its headers; a second build of the same file is a look-up.

``load(path)`` builds if needed (under MPI: rank 0 builds, every rank loads the same file)
and registers the model in this process: ``Network.create(name, ...)`` then takes it like a
built-in model. ``path`` may also be a built library (``.so``).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .. import _core
from ..errors import UserInputError
from ..version import __version__
from .pinned import NESTML_VERSION  # pip install "spikex[nestml]"


@dataclass(frozen=True)
class BuiltModel:
    """A model library on disk: the NESTML model's name and the library's path."""

    name: str
    library: Path
    cached: bool  # found in the cache (not compiled by this call)


def cache_dir() -> Path:
    """Where built libraries go when no directory is given: ``$SPIKEX_MODEL_CACHE``, else
    ``$XDG_CACHE_HOME/spikex/models``, else ``~/.cache/spikex/models``. Under MPI it must
    be a directory every rank sees (a shared home, or set ``SPIKEX_MODEL_CACHE``)."""
    if os.environ.get("SPIKEX_MODEL_CACHE"):
        return Path(os.environ["SPIKEX_MODEL_CACHE"])
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "spikex" / "models"


def _core_library() -> Path:
    return Path(os.path.realpath(_core.__file__))


def build_info() -> dict:
    """How spikex's core was compiled (``model_build.json``, written by CMake next to
    ``_core``), with the include directory of spikex's headers."""
    core = _core_library()
    candidates = [
        core.parent / "model_build.json",
        Path(__file__).resolve().parent.parent / "model_build.json",
    ]
    for candidate in candidates:
        if candidate.is_file():
            info = json.loads(candidate.read_text())
            break
    else:
        raise UserInputError(
            "this spikex has no model_build.json next to its core: reinstall spikex to build NESTML models"
        )
    shipped = Path(__file__).resolve().parent.parent / "include"
    info["spikex_include"] = str(
        shipped if (shipped / "spikex").is_dir() else Path(info["source_include_dir"])
    )
    return info


def _headers_digest(include: Path) -> str:
    digest = hashlib.sha256()
    for header in sorted((include / "spikex").rglob("*.hpp")):
        digest.update(str(header.relative_to(include)).encode() + b"\0" + header.read_bytes())
    return digest.hexdigest()


def _generator_digest() -> str:
    """spikex's generator itself (its code and template): a changed generator builds again,
    even within one spikex version."""
    digest = hashlib.sha256()
    here = Path(__file__).resolve().parent
    for file in sorted([*here.glob("*.py"), *(here / "templates").glob("*")]):
        digest.update(file.name.encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()


def cache_key(source: bytes, info: dict) -> str:
    """The content hash a library is cached under (see the module's docstring)."""
    digest = hashlib.sha256()
    for part in (
        source,
        __version__.encode(),
        _generator_digest().encode(),
        NESTML_VERSION.encode(),
        _core.model_library_abi().encode(),
        str(_core_library()).encode(),  # the library links this very file
        json.dumps(
            {k: info.get(k) for k in ("cxx", "cxx_version", "flags", "options", "defines")}
        ).encode(),
        _headers_digest(Path(info["spikex_include"])).encode(),
    ):
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()[:20]


def compile_command(cpp: Path, library: Path, info: dict) -> list[str]:
    """The compiler call that makes `library` from `cpp`: the core's compiler and flags,
    spikex's headers, linked against the loaded core (whose symbols the library uses)."""
    command = [info["cxx"], *info["flags"].split(), *info["options"], *info.get("defines", [])]
    command += [
        "-I" + info["spikex_include"],
        *("-I" + d for d in info["include_dirs"] if d and d != "/usr/include"),
    ]
    command += ["-shared", "-o", str(library), str(cpp), str(_core_library())]
    return command


def build(path: str | os.PathLike, output_dir: str | os.PathLike | None = None) -> BuiltModel:
    """Builds the model of a NESTML file into a library (or finds it in the cache).

    Parameters
    ----------
    path : path
        A ``.nestml`` file with one neuron model.
    output_dir : path, optional
        Where the library goes (default: :func:`cache_dir`).

    Raises
    ------
    spikex.nestml.generator.NestmlError
        NESTML refused the model (its messages, with file and line).
    spikex.nestml.generator.UnsupportedFeature
        The model uses a feature the generator does not support (named).
    UserInputError
        No such file, NESTML not installed, the compiler failed.
    """
    source = Path(path).resolve()
    if not source.is_file():
        raise UserInputError(f"NESTML model {path}: no such file")
    info = build_info()
    key = cache_key(source.read_bytes(), info)
    out = Path(output_dir).resolve() if output_dir is not None else cache_dir()
    out.mkdir(parents=True, exist_ok=True)
    record = out / f"{key}.json"  # by content only: a copy of the file finds it too
    if record.is_file():
        meta = json.loads(record.read_text())
        library = out / meta["library"]
        if library.is_file():
            return BuiltModel(meta["name"], library, True)
    try:
        from .generator import generate
    except ImportError:
        raise UserInputError(
            f'building {source.name} needs NESTML {NESTML_VERSION}: pip install "spikex[nestml]"'
        ) from None
    name, text = generate(source, __version__)
    library = out / f"{name}-{key}.so"
    cpp = out / f"{name}-{key}.cpp"
    # Another process may build the same model into the same directory: each writes its
    # own files and renames them into place (whole files, the same content).
    with tempfile.NamedTemporaryFile(
        "w", dir=out, prefix=f".{name}-", suffix=".cpp", delete=False
    ) as tmp_cpp:
        tmp_cpp.write(text)
    os.chmod(tmp_cpp.name, 0o644)  # temporary files are the owner's only
    os.replace(tmp_cpp.name, cpp)
    with tempfile.NamedTemporaryFile(
        dir=out, prefix=f".{name}-", suffix=".so", delete=False
    ) as tmp:
        partial = Path(tmp.name)
    try:
        try:
            done = subprocess.run(
                compile_command(cpp, partial, info), capture_output=True, text=True, check=False
            )
        except OSError as error:
            raise UserInputError(
                f"compiling NESTML model {name}: cannot run {info['cxx']}: {error}"
            ) from None
        if done.returncode != 0:
            raise UserInputError(
                f"compiling NESTML model {name} ({cpp}) failed: {done.stderr.strip()[-2000:]}"
            )
        os.chmod(partial, 0o755)
        os.replace(partial, library)  # atomic: another process sees the whole file or none
    finally:
        partial.unlink(missing_ok=True)
    meta = {"name": name, "library": library.name, "source": str(source), "spikex": __version__,
            "nestml": NESTML_VERSION}  # fmt: skip
    with tempfile.NamedTemporaryFile(
        "w", dir=out, prefix=".record-", suffix=".json", delete=False
    ) as tmp_record:
        tmp_record.write(json.dumps(meta, indent=1) + "\n")
    os.chmod(tmp_record.name, 0o644)
    os.replace(tmp_record.name, record)
    return BuiltModel(name, library, False)


def register(library: str | os.PathLike) -> list[str]:
    """Loads a built model library into this process and registers its models in the C++
    registry; returns their names. Loading the same file again returns the same names.
    (``spikex.models.load_nestml`` adds them to ``MODELS`` too.)"""
    return list(_core.load_model_library(str(Path(library).resolve())))


def _broadcast_text(text: str) -> str:
    """Rank 0's `text` on every rank (collective). The same as
    spikex.runtime.collective.broadcast_text, which sits above this layer."""
    if _core.comm_size() == 1:
        return text
    import numpy as np

    data = text.encode() if _core.comm_rank() == 0 else b""
    padded = data.ljust(-(-len(data) // 8) * 8, b"\0")
    gathered = np.asarray(_core.allgather_int64(np.frombuffer(padded, "<i8").copy()))
    return gathered.astype("<i8").tobytes().rstrip(b"\0").decode()


def load(path: str | os.PathLike, output_dir: str | os.PathLike | None = None) -> str:
    """Builds (if needed) and registers the model of a NESTML file or a built library on
    every rank of the job; returns the model's name. Collective under MPI: rank 0 builds,
    the others wait for it and load the same file (`output_dir` or the cache directory
    must be one every rank sees)."""
    path = Path(path)
    if path.suffix == ".so":
        names = register(path)
        if len(names) != 1:
            raise UserInputError(f"model library {path} registers {len(names)} models, not one")
        return names[0]
    if _core.comm_size() == 1:
        built = build(path, output_dir)
    else:
        message, failure = "", None
        if _core.comm_rank() == 0:
            try:
                built = build(path, output_dir)
                message = json.dumps({"name": built.name, "library": str(built.library)})
            except Exception as error:  # noqa: BLE001 (every rank learns of it; none waits for a build)
                message, failure = json.dumps({"error": str(error)}), error
        answer = json.loads(_broadcast_text(message))
        if failure is not None:
            raise failure
        if "error" in answer:
            raise UserInputError(f"rank 0 could not build {path}: {answer['error']}")
        built = BuiltModel(answer["name"], Path(answer["library"]), True)
        if not built.library.is_file():
            raise UserInputError(
                f"rank {_core.comm_rank()} does not see {built.library}, built by rank 0: "
                "use a directory every rank sees (SPIKEX_MODEL_CACHE or output_dir)"
            )
    names = register(built.library)
    if built.name not in names:
        raise UserInputError(f"model library {built.library} does not register {built.name}")
    return built.name
