"""Saving a Network's state and going on from it on another layout (Network.save, restore,
load; docs/user/checkpoint.md). The files: ``spikex.io.checkpoint``."""

from __future__ import annotations

import json
from pathlib import Path

from .. import _core
from ..config import resolved_config
from ..config.checkpoint import resumable
from ..io.checkpoint import (
    Checkpoint,
    CheckpointError,
    open_checkpoint,
    restore_state,
    write_checkpoint,
)
from ..version import __version__
from .changes import replay


def save_network(network, path: str | Path, keep: int = 2, spikes: dict | None = None) -> Path:
    """Write `network`'s checkpoint into the directory `path` (collective). `spikes`: the
    manifest's reference to spikes already streamed to a file (``spikex run``); without
    it the recorded spikes go into the checkpoint itself."""
    if network._state != "initialised":
        raise RuntimeError("save: simulate() first (a checkpoint holds a running network's state)")
    if network._streaming and spikes is None:
        raise RuntimeError("save: the spikes are streamed: pass the stream's reference")
    engine = network._engine
    step = int(engine.step)
    segment = {
        "start_step": int(network._segment_start_step),
        "end_step": step,
        "ranks": _core.comm_size(),
        "threads": int(network.threads),
        "method": network.method,
        "distribution": network.distribution,
    }
    manifest = {
        "spikex_version": __version__,
        "source": "config" if network.config is not None else "python_api",
        "config": network.config if network.config is not None else network._description(),
        "requested_ms": float(network._requested_ms),
        "dt_ms": float(network.dt_ms),
        "time_ms": step * network.dt_ms,
        "segments": [*network._segments, segment],
        "spikes": spikes or {"in_checkpoint": True},
        "changes": network._changes,
    }
    try:
        columns = engine.export_state()
    except ValueError as error:
        raise CheckpointError(f"checkpoint: {error}") from None
    return write_checkpoint(path, columns, manifest, keep=keep)


def restore_network(network, path: str | Path | Checkpoint) -> Checkpoint:
    """Restore `network` (built again by the caller, not yet simulated) from a checkpoint
    (collective). Returns the checkpoint (its manifest tells what else was saved)."""
    checkpoint = path if isinstance(path, Checkpoint) else open_checkpoint(path, __version__)
    if network._state == "initialised":
        raise RuntimeError("restore: only before the first simulate()")
    manifest = checkpoint.manifest
    here = network.config if network.config is not None else network._description()
    _require_same_network(checkpoint, manifest["config"], here)
    if float(manifest["dt_ms"]) != float(network.dt_ms):
        raise CheckpointError(f"checkpoint {checkpoint.path}: dt_ms = {manifest['dt_ms']} there, {network.dt_ms} here")
    network._build()
    replay(network, manifest.get("changes", []), checkpoint.step)
    network._changes = [c for c in manifest.get("changes", []) if c["built"] and c["step"] <= checkpoint.step]
    restore_state(checkpoint, network._engine)
    network._initialise()
    if int(network._engine.steps_per_interval) != int(manifest["steps_per_interval"]):
        raise CheckpointError(
            f"checkpoint {checkpoint.path}: {manifest['steps_per_interval']} steps per interval "
            f"there, {network._engine.steps_per_interval} here"
        )
    # A restored network goes on from the checkpoint's time: simulate(t) runs t more, and
    # spikex run to its (perhaps changed) tstop_ms. The time the stopped run had asked
    # for (manifest "requested_ms") is not carried over.
    network._requested_ms = checkpoint.step * network.dt_ms
    network._segments = list(manifest["segments"])
    network._segment_start_step = checkpoint.step
    return checkpoint


def load_network(network_class, path: str | Path, overrides=None, checkpoint: Checkpoint | None = None):
    """The configuration-built network of a checkpoint, on this job's ranks, restored: an
    instance of `network_class` (``Network``, which calls this; passed in so that this
    module does not import the one that imports it)."""
    checkpoint = checkpoint or open_checkpoint(path, __version__)
    config = resumed_config(checkpoint, overrides or ())
    network = network_class.from_config(config)
    restore_network(network, checkpoint)
    return network


def resumed_config(checkpoint: Checkpoint, overrides, ranks: int | None = None) -> dict:
    """The checkpoint's configuration with `overrides` (``key=value``), which may change
    only what a resume can change (``config.checkpoint.RESUMABLE``); validated for `ranks`
    (default: this job's)."""
    from ..config import parse_override

    if checkpoint.manifest.get("source") != "config":
        raise CheckpointError(
            f"checkpoint {checkpoint.path}: written by a Python script that built its network: "
            "run the script again and call net.restore(path) before simulate()"
        )
    for text in overrides:
        key, _ = parse_override(text)
        if not resumable(key):
            raise CheckpointError(
                f"--set {key}: a resumed run cannot change it (it defines the network); it may "
                "change the layout (threads, ranks, exchange.*, distribution.*), tstop_ms and "
                "checkpoint.*"
            )
    ranks = _core.comm_size() if ranks is None else ranks
    return resolved_config(checkpoint.manifest["config"], tuple(overrides), ranks=ranks)


def _require_same_network(checkpoint: Checkpoint, saved: dict, here: dict) -> None:
    """CheckpointError naming the first key that defines the network and differs."""
    a, b = _flatten(saved), _flatten(here)
    for key in sorted(set(a) | set(b)):
        if resumable(key) or key in ("source",):
            continue
        if a.get(key) != b.get(key):
            raise CheckpointError(
                f"checkpoint {checkpoint.path}: another network: {key} = {_text(a.get(key))} there, "
                f"{_text(b.get(key))} here"
            )


def _flatten(config: dict, prefix: str = "") -> dict:
    out = {}
    for key, value in config.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flatten(value, path + "."))
        else:
            out[path] = json.loads(json.dumps(value))  # tuples and lists alike
    return out


def _text(value) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."
