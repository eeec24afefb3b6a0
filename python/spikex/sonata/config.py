"""SONATA configuration files: the simulation config and the circuit config it names.

Reads the JSON, resolves the manifest and every path in it, and returns a ``SonataConfig``
whose paths are absolute. The rules (the SONATA specification's, as BMTK and NEST read
them):

* ``manifest`` entries define variables ``$NAME`` (the key is written ``$NAME``); their
  values may use earlier variables and ``${configdir}`` (the config file's directory),
  ``${workingdir}`` (the current directory) and ``${configfname}``.
* every string value anywhere in the file has ``$NAME`` and ``${NAME}`` replaced; a variable
  the manifest does not define is an error naming it and the key that uses it.
* a relative path (a key ending in ``_file``, ``_dir`` or ``_path``, ``network``,
  ``output_dir``) is relative to the directory of the config file that holds it.
* a simulation config names its circuit config with ``network`` (or holds ``networks``
  itself); ``run.tstop`` and ``run.dt`` are in ms. BMTK's ``config.json``, which names
  both (``network`` and ``simulation``), reads as the simulation config it names.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from .errors import SonataError

_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_BUILTIN = ("configdir", "workingdir", "configfname")
_PATH_KEYS = ("network", "output_dir", "node_sets_file")
_PATH_SUFFIXES = ("_file", "_dir", "_path")
# Output file names are relative to the output directory (as BMTK and the SONATA
# specification read them), not to the config file.
_OUTPUT_NAMES = ("output.spikes_file", "output.spikes_file_csv", "output.spikes_file_nwb",
                 "output.log_file")  # fmt: skip


@dataclass
class SonataConfig:
    """A resolved SONATA configuration (simulation config, circuit config or both).

    Attributes
    ----------
    path : Path
        The file given (a simulation_config.json or a circuit_config.json).
    circuit_path : Path
        The circuit config (``path`` itself when it holds ``networks``).
    nodes, edges : list of dict
        ``networks.nodes`` / ``networks.edges`` entries, paths absolute.
    components : dict
        ``components`` (``point_neuron_models_dir``, ``synaptic_models_dir``, ...).
    run : dict
        ``run`` (``tstop``, ``dt`` in ms); empty for a circuit config alone.
    inputs : dict
        ``inputs`` by name.
    output : dict
        ``output`` (``output_dir``, ``spikes_file``, ...).
    reports : dict
        ``reports`` by name (``spikex.sonata.outputs``).
    node_sets_file : Path or None
    node_sets : dict
        Node sets given inline (``node_sets``), merged over those of the file.
    node_set : object
        The simulation config's ``node_set`` (the cells simulated, SONATA; spikex records
        the spikes of these), None when absent.
    spikex : dict
        The ``spikex`` section: spikex's own settings (``summary_populations``).
    """

    path: Path
    circuit_path: Path
    nodes: list = field(default_factory=list)
    edges: list = field(default_factory=list)
    components: dict = field(default_factory=dict)
    run: dict = field(default_factory=dict)
    inputs: dict = field(default_factory=dict)
    output: dict = field(default_factory=dict)
    reports: dict = field(default_factory=dict)
    node_sets_file: Path | None = None
    node_sets: dict = field(default_factory=dict)
    node_set: object = None
    spikex: dict = field(default_factory=dict)

    @property
    def is_simulation(self) -> bool:
        """Whether the file given is a simulation config (it has ``run``)."""
        return bool(self.run)

    def run_value(self, name: str) -> float:
        """``run.<name>`` (ms) as a positive number; SonataError when absent or bad."""
        value = self.run.get(name)
        if name == "tstop" and value is None and "duration" in self.run:
            value = self.run["duration"]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            shown = "missing" if value is None else f"= {value!r}"
            raise SonataError(str(self.path), f"run.{name} {shown}: must be a number > 0 (ms)")
        return float(value)


def read_json(path: Path, what: str, where: str) -> dict:
    """A JSON object from ``path``; SonataError naming ``where`` and the file otherwise."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SonataError(where, f"{what} {path}: file not found") from None
    except (OSError, UnicodeDecodeError) as error:
        raise SonataError(where, f"{what} {path}: cannot read: {error}") from None
    try:
        content = json.loads(text)
    except json.JSONDecodeError as error:
        raise SonataError(str(path), f"invalid JSON: {error}") from None
    if not isinstance(content, dict):
        raise SonataError(str(path), "must hold a JSON object")
    return content


def load_config(path: str | Path) -> SonataConfig:
    """Read a simulation config or a circuit config, resolve it and its circuit config.

    Raises
    ------
    SonataError
        A missing or unreadable file, invalid JSON, an undefined manifest variable, a
        simulation config without a circuit.
    """
    path = Path(path).absolute()
    content = _resolved(path, read_json(path, "config", "sonata"))
    if isinstance(content.get("simulation"), str):  # BMTK's config.json: {"network", "simulation"}
        simulation_path = Path(content["simulation"])
        simulation = _resolved(simulation_path, read_json(simulation_path, "simulation", str(path)))
        content = {**simulation, **{k: v for k, v in content.items() if k != "simulation"}}
    config = SonataConfig(path=path, circuit_path=path)
    circuit = content
    if "networks" not in content:
        if "network" not in content:
            raise SonataError(
                str(path),
                "neither 'networks' (a circuit config) nor 'network' (a simulation config naming its circuit config)",
            )
        config.circuit_path = Path(content["network"])
        circuit = _resolved(
            config.circuit_path, read_json(config.circuit_path, "network", str(path))
        )
        if "networks" not in circuit:
            raise SonataError(
                str(config.circuit_path), "no 'networks' (nodes and edges): not a circuit config"
            )
    networks = circuit["networks"]
    if not isinstance(networks, dict):
        raise SonataError(
            str(config.circuit_path), "networks must be an object with 'nodes' and 'edges'"
        )
    config.nodes = _entries(networks.get("nodes", []), "networks.nodes", config.circuit_path)
    config.edges = [
        e
        for e in _entries(networks.get("edges", []), "networks.edges", config.circuit_path)
        if e.get("enabled", True)
    ]
    config.components = dict(circuit.get("components", {}))
    config.components.update(content.get("components", {}) if content is not circuit else {})
    config.run = dict(content.get("run", {}))
    config.inputs = dict(content.get("inputs", {}))
    config.output = dict(content.get("output", {}))
    config.reports = dict(content.get("reports", {}))
    node_sets_file = content.get("node_sets_file") or circuit.get("node_sets_file")
    config.node_sets_file = Path(node_sets_file) if node_sets_file else None
    config.node_sets = dict(content.get("node_sets", {}))
    config.node_set = content.get("node_set")
    spikex = content.get("spikex", {})
    if not isinstance(spikex, dict):
        raise SonataError(str(path), f"spikex = {spikex!r}: must be an object (spikex's settings)")
    config.spikex = dict(spikex)
    return config


def _entries(entries: object, key: str, path: Path) -> list[dict]:
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise SonataError(str(path), f"{key} must be a list of objects")
    return [dict(e) for e in entries]


def _resolved(path: Path, content: dict) -> dict:
    """``content`` with the manifest's variables substituted and relative paths made
    absolute (relative to ``path``'s directory)."""
    base = path.parent
    builtin = {"configdir": str(base), "workingdir": os.getcwd(), "configfname": str(path)}
    manifest = content.get("manifest", {})
    if not isinstance(manifest, dict):
        raise SonataError(str(path), "manifest must be an object")
    variables: dict[str, str] = {}
    for key, value in manifest.items():
        name = key.removeprefix("$")
        name = name[1:-1] if name.startswith("{") and name.endswith("}") else name
        text = _substitute(str(value), {**builtin, **variables}, path, f"manifest.{key}")
        variables[name] = str(_absolute(text, base))
    variables = {**builtin, **variables}
    return {
        key: _walk(value, variables, path, key, base)
        for key, value in content.items()
        if key != "manifest"
    }


def _walk(value: object, variables: dict, path: Path, key: str, base: Path) -> object:
    if isinstance(value, dict):
        return {k: _walk(v, variables, path, f"{key}.{k}", base) for k, v in value.items()}
    if isinstance(value, list):
        return [_walk(v, variables, path, f"{key}[{i}]", base) for i, v in enumerate(value)]
    if isinstance(value, str):
        text = _substitute(value, variables, path, key)
        name = key.rsplit(".", 1)[-1].split("[", 1)[0]
        if key in _OUTPUT_NAMES:
            return text
        if text and (name in _PATH_KEYS or name.endswith(_PATH_SUFFIXES)):
            return str(_absolute(text, base))
        return text
    return value


def _substitute(text: str, variables: dict, path: Path, key: str) -> str:
    for _ in range(32):  # variables may name variables; a cycle ends here
        match = _VARIABLE.search(text)
        if match is None:
            return text
        name = match.group(1) or match.group(2)
        if name not in variables:
            raise SonataError(
                str(path),
                f"{key} = {text!r}: manifest variable ${name} is not defined (the manifest defines: "
                + (", ".join("$" + v for v in variables if v not in _BUILTIN) or "none")
                + ")",
            )
        text = text[: match.start()] + variables[name] + text[match.end() :]
    raise SonataError(str(path), f"{key}: manifest variables refer to each other in a cycle")


def _absolute(text: str, base: Path) -> Path:
    candidate = Path(text)
    return candidate if candidate.is_absolute() else (base / candidate)
