"""Checkpoint files: writing them atomically, finding, verifying and reading them back.

Format (version 1, docs/user/checkpoint.md). A checkpoint is a directory
``ckpt-<step:012d>/`` holding one HDF5 file per writing rank (``rank-<r:05d>.h5``: that
rank's rows of ``Engine.export_state``, one dataset per column, fletcher32-checked) and
``manifest.json`` (version, step, configuration, layout, counters, spike-file reference,
and the size and SHA-256 of every rank file). ``latest.json`` in the checkpoint directory
names the newest complete checkpoint and the SHA-256 of its manifest.

Atomic write (collective): every rank writes and fsyncs its file in a hidden
``.ckpt-<step>.partial`` directory; rank 0 writes the manifest there, fsyncs it, renames
the directory to ``ckpt-<step>`` (a rename is atomic), fsyncs the parent, then replaces
``latest.json`` the same way, and only then deletes checkpoints beyond ``keep``. A write
that fails on any rank (disk full) leaves the previous checkpoint and ``latest.json`` as
they were, and every rank raises ``CheckpointWriteError``.

Reading: rank 0 checks the manifest and every file's size, the ranks share the SHA-256
checks by file, before anything is built (``CheckpointError``, a ``ValueError``: exit
status 2). Then each rank reads the key columns of every rank file and, of the large
tables, only the chunks that hold the rows of its own cells (``Engine.owns``), and feeds
them to the engine in bounded pieces (``restore_state``), plus all spikes in flight and
presynaptic traces; the engine checks that they match the network (``import_finish``).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import _core
from ..runtime.collective import broadcast_text, gather_int64, int64_per_rank
from .output import write_json

FORMAT = "spikex-checkpoint"
FORMAT_VERSION = 1
MANIFEST_FILE = "manifest.json"
LATEST_FILE = "latest.json"
DEFAULT_DIR_NAME = "checkpoints"  # in OUTDIR, when checkpoint.dir is ""
CHECKPOINT_PREFIX = "ckpt-"
RANK_FILE = "rank-{rank:05d}.h5"
# Columns every rank needs whole (keyed by source, not by a cell of the reading rank).
SHARED_PREFIXES = ("inflight/", "plastic/pre/")
# Counters that are sums over the writing ranks (manifest["counters"]).
COUNTER_COLUMNS = ("events_delivered", "spikes_emitted")
SCALAR_COLUMNS = ("step", "max_delay_steps", "steps_per_interval", *COUNTER_COLUMNS)
# Columns of a few values per row of their table (a target's plastic weights, a cell's
# history entries), stored in small HDF5 chunks (8 KB): a rank that restores some of the
# rows reads the chunks that hold them, little more (issue 56). Other columns: 512 KB.
SEGMENT_COLUMNS = ("plastic/weight/value", "plastic/weight/sites", "plastic/post/entry_")
SEGMENT_CHUNK = 1 << 10
# The manifest holds the SHA-256 of every file and of each of its blocks of this many bytes
# (``block_sha256``): the ranks of a restore check the blocks, each about 1/P of them.
HASH_BLOCK = 1 << 24



class CheckpointError(ValueError):
    """A checkpoint that cannot be used (missing, truncated, corrupt, another version or
    network): one line naming the file and the problem (exit status 2)."""


class CheckpointWriteError(OSError):
    """Writing a checkpoint failed on some rank (disk full, ...); the previous one is intact."""


@dataclass(frozen=True)
class Checkpoint:
    """A verified checkpoint: its directory and manifest."""

    path: Path
    manifest: dict

    @property
    def step(self) -> int:
        return int(self.manifest["step"])


# ---- writing --------------------------------------------------------------------------


def write_checkpoint(
    directory: str | Path, columns: dict[str, np.ndarray], manifest: dict, keep: int = 2
) -> Path:
    """Write this rank's `columns` as part of a checkpoint (collective).

    Parameters
    ----------
    directory : path
        The checkpoint directory (created if needed); the checkpoint goes into
        ``directory/ckpt-<step>``.
    columns : dict
        ``Engine.export_state()`` of this rank.
    manifest : dict
        What rank 0 writes into ``manifest.json`` besides the format, step, counters and
        files (configuration, layout, spike-file reference, ...). Only rank 0's is used.
    keep : int
        Complete checkpoints to keep (the oldest beyond are deleted after this one).

    Returns
    -------
    Path
        The new checkpoint's directory.

    Raises
    ------
    CheckpointWriteError
        On every rank, when any rank failed to write; nothing of the previous checkpoints
        was changed.
    """
    directory = Path(directory).absolute()
    rank, ranks = _core.comm_rank(), _core.comm_size()
    step = int(columns["step"][0])
    name = f"{CHECKPOINT_PREFIX}{step:012d}"
    partial = directory / f".{name}.partial"
    failure = ""
    if rank == 0:
        try:
            directory.mkdir(parents=True, exist_ok=True)
            shutil.rmtree(partial, ignore_errors=True)
            partial.mkdir()
        except OSError as error:
            failure = _describe(error, partial)
    _agree(failure)

    file_name = RANK_FILE.format(rank=rank)
    digest = np.zeros(5, dtype=np.int64)  # bytes, then the SHA-256 as four int64
    block_digests = np.zeros(0, dtype=np.int64)  # the SHA-256 of each HASH_BLOCK bytes, four int64 each
    try:
        _write_rank_file(partial / file_name, columns, rank, ranks)
        size, sha, blocks = _size_and_sha256_blocks(partial / file_name, HASH_BLOCK)
        digest[0] = size
        digest[1:] = np.frombuffer(bytes.fromhex(sha), dtype="<i8")
        block_digests = np.frombuffer(b"".join(bytes.fromhex(b) for b in blocks), dtype="<i8").copy()
    except (OSError, RuntimeError) as error:  # h5py reports a failed write as RuntimeError
        failure = _describe(error, partial / file_name)
    try:
        _agree(failure)
    except CheckpointWriteError:
        # Removed only once every rank is done with it: a rank removing it on its own
        # failure would turn another rank's write into "No such file or directory".
        if rank == 0:
            shutil.rmtree(partial, ignore_errors=True)
        raise

    digests = int64_per_rank(digest)
    block_rows = gather_int64(block_digests).reshape(-1, 4)
    block_counts = [-(-int(digests[r, 0]) // HASH_BLOCK) for r in range(ranks)]
    block_first = np.concatenate([[0], np.cumsum(block_counts)])
    counters = {name: int(int64_per_rank(columns[name]).sum()) for name in COUNTER_COLUMNS}
    if rank == 0:
        try:
            files = [
                {
                    "name": RANK_FILE.format(rank=r),
                    "bytes": int(digests[r, 0]),
                    "sha256": digests[r, 1:].astype("<i8").tobytes().hex(),
                    "block_bytes": HASH_BLOCK,
                    "block_sha256": [
                        row.astype("<i8").tobytes().hex() for row in block_rows[block_first[r] : block_first[r + 1]]
                    ],
                }
                for r in range(ranks)
            ]
            full = {
                "format": FORMAT,
                "format_version": FORMAT_VERSION,
                **manifest,
                "step": step,
                "steps_per_interval": int(columns["steps_per_interval"][0]),
                "max_delay_steps": int(columns["max_delay_steps"][0]),
                "counters": counters,
                "created_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "files": files,
            }
            write_json(partial / MANIFEST_FILE, full)
            _fsync_directory(partial)
            final = directory / name
            if final.exists():  # the same step written again: replace it
                shutil.rmtree(final)
            os.replace(partial, final)
            _fsync_directory(directory)
            manifest_sha = _size_and_sha256(final / MANIFEST_FILE)[1]
            write_json(
                directory / LATEST_FILE,
                {"checkpoint": name, "step": step, "manifest_sha256": manifest_sha},
            )
            _fsync_directory(directory)
        except OSError as error:
            failure = _describe(error, directory)
            shutil.rmtree(partial, ignore_errors=True)
    _agree(failure)
    if rank == 0:
        _prune(directory, keep)
    return directory / name


def _write_rank_file(path: Path, columns: dict[str, np.ndarray], rank: int, ranks: int) -> None:
    """The HDF5 image is made in memory and written with plain file I/O: a full disk is
    then an OSError, and the HDF5 library never holds a file it could not write."""
    import io

    import h5py

    image = io.BytesIO()
    with h5py.File(image, "w") as out:
        out.attrs["format"] = FORMAT
        out.attrs["format_version"] = FORMAT_VERSION
        out.attrs["rank"] = rank
        out.attrs["ranks"] = ranks
        for name, values in sorted(columns.items()):
            values = np.asarray(values)
            chunk = max(1, min(values.size, SEGMENT_CHUNK if name.startswith(SEGMENT_COLUMNS) else 1 << 16))
            out.create_dataset(
                name, data=values, chunks=(chunk,), maxshape=(None,), fletcher32=True
            )
    with open(path, "wb") as stream:
        stream.write(image.getbuffer())
        stream.flush()
        os.fsync(stream.fileno())


def _prune(directory: Path, keep: int) -> None:
    """Delete complete checkpoints beyond the `keep` written last (by the time their
    manifest was written: a run resumed from an earlier checkpoint writes lower steps)."""
    complete = sorted(
        (p for p in directory.glob(f"{CHECKPOINT_PREFIX}*") if (p / MANIFEST_FILE).is_file()),
        key=lambda p: (p / MANIFEST_FILE).stat().st_mtime_ns,
    )
    for old in complete[:-keep] if keep > 0 else []:
        shutil.rmtree(old, ignore_errors=True)


def _agree(failure: str) -> None:
    """Every rank raises CheckpointWriteError with the first failing rank's message."""
    flags = int64_per_rank([1 if failure else 0])[:, 0]
    if not flags.any():
        return
    first = int(np.flatnonzero(flags)[0])
    message = broadcast_text(failure, root=first)
    raise CheckpointWriteError(errno.EIO, f"rank {first}: {message}")


def _describe(error: Exception, path: Path) -> str:
    found = re.search(r"error message = '([^']*)'", str(error))  # HDF5's report of errno
    reason = found.group(1) if found else getattr(error, "strerror", None) or str(error).splitlines()[0]
    return f"cannot write checkpoint {path}: {reason}"


def _fsync_directory(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _size_and_sha256(path: Path) -> tuple[int, str]:
    sha = hashlib.sha256()
    size = 0
    with open(path, "rb") as stream:
        while block := stream.read(1 << 20):
            sha.update(block)
            size += len(block)
    return size, sha.hexdigest()


def _size_and_sha256_blocks(path: Path, block_bytes: int) -> tuple[int, str, list[str]]:
    """Size and SHA-256 of the file, and the SHA-256 of each of its `block_bytes` blocks
    (one pass)."""
    whole = hashlib.sha256()
    blocks: list[str] = []
    size = 0
    with open(path, "rb") as stream:
        while data := stream.read(block_bytes):
            whole.update(data)
            blocks.append(hashlib.sha256(data).hexdigest())
            size += len(data)
    return size, whole.hexdigest(), blocks


def _sha256_of_range(path: Path, start: int, length: int) -> str:
    sha = hashlib.sha256()
    with open(path, "rb") as stream:
        stream.seek(start)
        while length > 0 and (data := stream.read(min(length, 1 << 20))):
            sha.update(data)
            length -= len(data)
    return sha.hexdigest()


# ---- finding and verifying ------------------------------------------------------------


def find_checkpoint(path: str | Path) -> Path:
    """The checkpoint directory `path` names: a checkpoint directory (with a manifest),
    or a directory of checkpoints (its ``latest.json``)."""
    path = Path(path)
    if (path / MANIFEST_FILE).is_file():
        return path
    latest = path / LATEST_FILE
    if not path.exists():
        raise CheckpointError(f"checkpoint {path}: no such file or directory")
    if not latest.is_file():
        raise CheckpointError(
            f"checkpoint {path}: neither a checkpoint ({MANIFEST_FILE}) nor a directory of "
            f"checkpoints ({LATEST_FILE})"
        )
    entry = _read_json(latest)
    name = entry.get("checkpoint")
    if not isinstance(name, str) or not (path / name / MANIFEST_FILE).is_file():
        raise CheckpointError(f"checkpoint {latest}: names {name!r}, which is not a complete checkpoint")
    sha = _size_and_sha256(path / name / MANIFEST_FILE)[1]
    if sha != entry.get("manifest_sha256"):
        raise CheckpointError(f"checkpoint {path / name / MANIFEST_FILE}: checksum mismatch with {latest}")
    return path / name


def open_checkpoint(path: str | Path, version: str, hashes: bool = True) -> Checkpoint:
    """Find and verify a checkpoint (rank 0 reads and hashes; every rank gets the verdict).
    `hashes` false checks sizes only (the files were hashed already, by ``spikex run``).

    Raises
    ------
    CheckpointError
        Missing, truncated or corrupt files, another format or spikex version.
    """
    error = ""
    manifest: dict = {}
    directory = Path(path)
    if _core.comm_rank() == 0:
        try:
            directory = find_checkpoint(path)
            manifest = _read_json(directory / MANIFEST_FILE)
            _check_manifest(directory, manifest, version, hashes=False)
        except CheckpointError as failure:
            error = str(failure)
    error = broadcast_text(error)
    if error:
        raise CheckpointError(error)
    directory = Path(broadcast_text(str(directory)))
    manifest = json.loads(broadcast_text(json.dumps(manifest)))
    if hashes:
        _check_hashes(directory, manifest)
    return Checkpoint(directory, manifest)


def _check_hashes(directory: Path, manifest: dict) -> None:
    """SHA-256 of every rank file against the manifest, shared by the ranks (collective):
    block k of all files' blocks (``block_sha256``; a whole file in checkpoints without
    them) on rank k mod P, so that the checkpoint is read once in all, about 1/P of it
    by each rank."""
    rank, ranks = _core.comm_rank(), _core.comm_size()
    tasks = []  # (file entry, block number or None: the whole file)
    for entry in manifest.get("files", []):
        blocks = entry.get("block_sha256")
        tasks += [(entry, k) for k in range(len(blocks))] if blocks is not None else [(entry, None)]
    error = ""
    for entry, block in tasks[rank::ranks]:
        file = directory / entry["name"]
        try:
            if block is None:
                same = _size_and_sha256(file)[1] == entry["sha256"]
            else:
                size = int(entry["block_bytes"])
                sha = _sha256_of_range(file, block * size, size)
                same = sha == entry["block_sha256"][block]
        except (OSError, KeyError, ValueError, TypeError) as failure:
            error = f"checkpoint {file}: unreadable ({failure})"
            break
        if not same:
            error = f"checkpoint {file}: checksum mismatch (the file is corrupt)"
            break
    flags = int64_per_rank([1 if error else 0])[:, 0]
    if flags.any():
        raise CheckpointError(broadcast_text(error, root=int(np.flatnonzero(flags)[0])))



def _check_manifest(directory: Path, manifest: dict, version: str, hashes: bool = True) -> None:
    where = directory / MANIFEST_FILE
    if manifest.get("format") != FORMAT:
        raise CheckpointError(f"checkpoint {where}: not a spikex checkpoint")
    if manifest.get("format_version") != FORMAT_VERSION:
        raise CheckpointError(
            f"checkpoint {where}: format version {manifest.get('format_version')}, this spikex "
            f"reads version {FORMAT_VERSION}"
        )
    if manifest.get("spikex_version") != version:
        raise CheckpointError(
            f"checkpoint {where}: written by spikex {manifest.get('spikex_version')}, this is "
            f"spikex {version}; resume with the version that wrote it"
        )
    for entry in manifest.get("files", []):
        file = directory / entry["name"]
        if not file.is_file():
            raise CheckpointError(f"checkpoint {file}: missing")
        size = file.stat().st_size
        if size != entry["bytes"]:
            raise CheckpointError(
                f"checkpoint {file}: truncated or extended ({size} bytes, {entry['bytes']} written)"
            )
        if hashes and _size_and_sha256(file)[1] != entry["sha256"]:
            raise CheckpointError(f"checkpoint {file}: checksum mismatch (the file is corrupt)")


def _read_json(path: Path) -> dict:
    try:
        content = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise CheckpointError(f"checkpoint {path}: unreadable ({error})") from None
    if not isinstance(content, dict):
        raise CheckpointError(f"checkpoint {path}: not a JSON object")
    return content


# ---- reading -------------------------------------------------------------------------


def _own_rows(columns: dict[str, np.ndarray], owns) -> dict[str, np.ndarray]:
    """The rows of one rank file that this rank takes."""
    out: dict[str, np.ndarray] = {}
    groups: dict[str, dict[str, np.ndarray]] = {}
    for name, values in columns.items():
        prefix, _, leaf = name.rpartition("/")
        groups.setdefault(prefix, {})[leaf] = values
    for prefix, group in groups.items():
        if prefix == "" or prefix.startswith(tuple(p.rstrip("/") for p in SHARED_PREFIXES)):
            out.update({f"{prefix}/{leaf}" if prefix else leaf: v for leaf, v in group.items()})
        elif prefix.startswith("cells/"):
            keep = owns(group["gid"])
            width = group["values"].size // max(group["gid"].size, 1)
            out[f"{prefix}/gid"] = group["gid"][keep]
            out[f"{prefix}/values"] = group["values"].reshape(-1, width)[keep].ravel()
        elif prefix == "recorded":
            keep = owns(group["gid"])
            out.update({f"{prefix}/{leaf}": v[keep] for leaf, v in group.items()})
        elif prefix.startswith("state/"):
            gids, steps = group["gid"], group["step"]
            keep = owns(gids)
            out[f"{prefix}/gid"] = gids[keep]
            out[f"{prefix}/step"] = steps
            out[f"{prefix}/values"] = group["values"].reshape(steps.size, gids.size)[:, keep].T.ravel()
        elif prefix == "plastic/weight":
            keep = owns(group["target"])
            out.update({f"{prefix}/{leaf}": group[leaf][keep] for leaf in ("target", "count", "key_digest")})
            for leaf in ("value", "sites"):  # sites: quantal_stp_synapse's available sites, per weight
                if leaf in group:
                    out[f"{prefix}/{leaf}"] = _segments(group[leaf], group["count"], keep)
        elif prefix == "plastic/post":
            keep = owns(group["gid"])
            for leaf in ("gid", "last", "k_minus", "entries"):
                out[f"{prefix}/{leaf}"] = group[leaf][keep]
            for leaf in ("entry_stamp", "entry_k_minus", "entry_reads"):
                out[f"{prefix}/{leaf}"] = _segments(group[leaf], group["entries"], keep)
        else:
            raise CheckpointError(f"checkpoint: unknown table {prefix!r}")
    return out


def _segments(values: np.ndarray, counts: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The parts of `values` (consecutive segments of `counts` rows) whose rows `keep`."""
    owner = np.repeat(keep.astype(bool), counts.astype(np.int64))
    return values[owner]


# ---- restoring in pieces -----------------------------------------------------------------

# Values (8 bytes each) a restore reads from a file at once: the bound on what it holds
# besides the network. A rank's share (its cells' values and plastic weights) goes in about
# PIECES pieces, of PIECE_VALUES at most (32 MB) and MIN_PIECE_VALUES at least: small next
# to the share, and each piece of plastic weights costs the engine one pass over the rank's
# plastic synapses, so there are not many more.
PIECE_VALUES = 1 << 22
MIN_PIECE_VALUES = 1 << 16
PIECES = 16
# Internal, for tests: another piece size (values) for every restore of this process.
PIECE_VALUES_VARIABLE = "SPIKEX_CHECKPOINT_PIECE_VALUES"
# HDF5 chunk cache while reading: a piece's first and last chunks are read once.
READ_CACHE_BYTES = 1 << 22
# Tables fed to the engine piece by piece, their rows read by hyperslab; every other table
# is small (per source, per spike in flight, per history entry) and read whole.
PIECE_TABLES = ("cells/", "plastic/weight")


def restore_state(checkpoint: Checkpoint, engine, piece_values: int | None = None) -> None:
    """Read this rank's rows of `checkpoint` into `engine` (collective; after build, before
    init), in pieces of at most about `piece_values` values (default PIECE_VALUES).

    Per rank file, the key columns (gids, target gids and their input counts) are read
    whole: they say which rows belong to this rank and where their values are. Of the large
    tables (``cells/``, ``plastic/weight``) only the HDF5 chunks that hold this rank's rows
    are read, in pieces that go into the engine one by one (``Engine.import_cells``,
    ``import_weights``); a file without rows of this rank is not read beyond its keys.
    Spikes in flight, presynaptic traces, postsynaptic histories, recorded spikes and state
    samples go in at the end (``import_finish``), which checks everything on every rank.

    Raises
    ------
    CheckpointError
        On every rank, when some rank could not read its rows or they do not match the
        network.
    """
    import h5py


    def owns(gids: np.ndarray) -> np.ndarray:
        return engine.owns(np.ascontiguousarray(gids, dtype=np.int64)).astype(bool)

    limit = int(piece_values or os.environ.get(PIECE_VALUES_VARIABLE) or 0)
    if limit <= 0:
        limit = min(PIECE_VALUES, max(MIN_PIECE_VALUES, _share_values(checkpoint) // PIECES))

    engine.import_begin(checkpoint.step)
    parts: dict[str, list[np.ndarray]] = {}
    failure = ""
    for entry in checkpoint.manifest["files"]:
        path = checkpoint.path / entry["name"]
        try:
            with h5py.File(path, "r", locking=False, rdcc_nbytes=READ_CACHE_BYTES) as source:
                small = _restore_file(source, engine, owns, limit)
        except (OSError, KeyError, ValueError, CheckpointError) as error:
            failure = f"checkpoint {path}: unreadable ({error})"
            break
        for name, values in _own_rows(small, owns).items():
            parts.setdefault(name, []).append(values)
    rows = _joined(parts, checkpoint) if not failure else {}
    try:
        engine.import_finish(rows, failure)
    except ValueError as error:
        raise CheckpointError(str(error)) from None


def _share_values(checkpoint: Checkpoint) -> int:
    """About the values of this rank's rows in the large tables of `checkpoint`: their sizes
    (HDF5 metadata, no data read) over the ranks."""
    import h5py

    total = 0
    for entry in checkpoint.manifest["files"]:
        try:
            with h5py.File(checkpoint.path / entry["name"], "r", locking=False) as source:
                total += sum(group["values"].shape[0] for group in source.get("cells", {}).values())
                if "plastic/weight/value" in source:
                    total += source["plastic/weight/value"].shape[0]
        except (OSError, KeyError, ValueError):
            pass  # restore_state names the file when it reads it
    return total // _core.comm_size()


def _restore_file(source, engine, owns, limit: int) -> dict[str, np.ndarray]:
    """Feed one rank file's large tables to `engine` in pieces; return its small tables."""
    import h5py

    datasets: dict[str, dict] = {}

    def take(name: str, item) -> None:
        if isinstance(item, h5py.Dataset):
            prefix, _, leaf = name.rpartition("/")
            datasets.setdefault(prefix, {})[leaf] = item

    source.visititems(take)
    small: dict[str, np.ndarray] = {}
    for prefix, group in datasets.items():
        if prefix.startswith("cells/"):
            gids = group["gid"][()]
            keep = np.flatnonzero(owns(gids))
            if keep.size == 0:
                continue
            width = group["values"].shape[0] // max(gids.size, 1)
            for rows, values in _pieces(group["values"], keep * width, np.full(keep.size, width), limit):
                engine.import_cells(prefix[len("cells/") :], gids[keep[rows]], values)
        elif prefix == "plastic/weight":
            targets = group["target"][()]
            keep = np.flatnonzero(owns(targets))
            if keep.size == 0:
                continue
            counts = group["count"][()]
            digests = group["key_digest"][()]
            starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
            sites = group.get("sites")
            no_sites = np.zeros(0, np.int64)
            for rows, values in _pieces(group["value"], starts[keep], counts[keep], limit):
                chosen = keep[rows]
                engine.import_weights(
                    np.ascontiguousarray(targets[chosen]),
                    np.ascontiguousarray(counts[chosen]),
                    np.ascontiguousarray(digests[chosen]),
                    values,
                    _segments_read(sites, starts[chosen], counts[chosen]) if sites is not None else no_sites,
                )
        else:
            small.update({f"{prefix}/{leaf}" if prefix else leaf: d[()] for leaf, d in group.items()})
    return small


def _joined(parts: dict[str, list[np.ndarray]], checkpoint: Checkpoint) -> dict[str, np.ndarray]:
    """The rows of every file as one column each, as ``Engine.import_state`` takes them."""
    rows = {name: np.ascontiguousarray(np.concatenate(values)) for name, values in parts.items()}
    for name, values in parts.items():
        if name.startswith("state/") and name.endswith("/step"):
            # Every file has the same sample steps; the values came column by column.
            prefix = name[: -len("step")]
            steps = values[0]
            rows[name] = np.ascontiguousarray(steps)
            cells = rows[prefix + "gid"].size
            rows[prefix + "values"] = np.ascontiguousarray(rows[prefix + "values"].reshape(cells, steps.size).T.ravel())
    for name in SCALAR_COLUMNS:
        rows.pop(name, None)
    rows["step"] = np.array([checkpoint.step], dtype=np.int64)
    counters = checkpoint.manifest["counters"]
    for name in COUNTER_COLUMNS:
        rows[name] = np.array([counters[name]], dtype=np.int64)
    return rows


def _chunk_of(dataset) -> int:
    return int(dataset.chunks[0]) if dataset.chunks else 1 << 12


def _pieces(dataset, starts: np.ndarray, lengths: np.ndarray, limit: int):
    """Yield (row numbers, values) of the segments ``dataset[starts[k] : starts[k] +
    lengths[k]]`` (increasing, disjoint), in pieces whose values and reads (whole HDF5
    chunks) stay within `limit` values plus one segment; a piece holds at least one."""
    if starts.size == 0:
        return
    chunk = _chunk_of(dataset)
    size = dataset.shape[0]
    low = (starts // chunk) * chunk
    high = np.minimum(-(-(starts + lengths) // chunk) * chunk, size)
    # The chunks each segment adds to what is read so far (its first may be its
    # predecessor's last).
    previous = np.concatenate([[0], high[:-1]])
    added = high - np.maximum(low, previous)
    before = np.concatenate([[0], np.cumsum(np.maximum(added, 0))[:-1]])
    taken = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    piece = (before + taken) // limit  # both what is read and what is kept stay bounded
    cuts = np.flatnonzero(np.diff(piece)) + 1
    for rows in np.split(np.arange(starts.size), cuts):
        yield rows, _segments_read(dataset, starts[rows], lengths[rows])


def _segments_read(dataset, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The segments ``dataset[starts[k] : starts[k] + lengths[k]]`` (increasing, disjoint)
    one after the other. Reads each run of HDF5 chunks that holds some of them once, and
    no chunk without any."""
    out = np.empty(int(lengths.sum()), dtype=dataset.dtype)
    if out.size == 0:
        return out
    chunk = _chunk_of(dataset)
    ends = starts + lengths
    low = (starts // chunk) * chunk
    high = -(-ends // chunk) * chunk
    # A new span where a segment's first chunk lies past the previous segment's last.
    spans = np.flatnonzero(low[1:] > high[:-1]) + 1
    at = np.concatenate([[0], np.cumsum(lengths)])
    for first, last in zip(np.concatenate([[0], spans]), np.concatenate([spans, [starts.size]]), strict=True):
        begin, end = int(starts[first]), int(ends[last - 1])
        if end - begin == at[last] - at[first]:  # the segments are contiguous
            dataset.read_direct(out, np.s_[begin:end], np.s_[at[first] : at[last]])
            continue
        block = np.empty(end - begin, dtype=dataset.dtype)
        dataset.read_direct(block, np.s_[begin:end])
        count = last - first
        width = int(lengths[first])
        offsets = starts[first:last] - begin
        if np.all(lengths[first:last] == width) and np.all(offsets % width == 0):  # rows (a cell's values)
            rows = block[: block.size - block.size % width].reshape(-1, width)
            out[at[first] : at[last]] = rows[offsets // width].ravel()
        elif count * 64 <= block.size:  # long segments: one copy each
            for k in range(first, last):
                out[at[k] : at[k + 1]] = block[starts[k] - begin : ends[k] - begin]
        else:  # short ones (a cell's row): one gather
            offsets = np.repeat(starts[first:last] - begin - at[first:last] + at[first], lengths[first:last])
            out[at[first] : at[last]] = block[np.arange(at[last] - at[first]) + offsets]
        del block
    return out
