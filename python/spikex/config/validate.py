"""Reading and checking a configuration: load, fill defaults, override, validate.

A configuration is a nested dict shaped like the TOML file::

    {"simulation": {"tstop_ms": 200.0, ...}, "network": {..., "burst": {...}}, ...}

``resolved_config`` is the one entry point: load (file) or resolve (dict), apply the
``--set`` overrides, check every key against the registry and every rule between keys.
"""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path

from ..errors import ConfigError
from . import populations
from .key import section_table
from .registry import CROSS_CHECKS, KEYS, REGISTRY, SECTIONS

# ---- reading -----------------------------------------------------------------------


def load_config(path: str | Path) -> dict:
    """Read a TOML configuration file and fill in every default.

    Parameters
    ----------
    path : str or Path
        TOML file, or a SONATA simulation config (``.json``: ``sonata_configuration``).

    Returns
    -------
    dict
        Nested configuration with every key of the registry present.

    Raises
    ------
    ConfigError
        Missing or unreadable file, invalid TOML, unknown section or key.
    """
    path = Path(path)
    if path.suffix.lower() == ".json":
        return resolve(sonata_configuration(path))
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(str(path), allowed="configuration file not found") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(str(path), allowed=f"cannot read file: {error}") from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(str(path), allowed=f"invalid TOML: {error}") from None
    populations.absolute_model_paths(raw, path.absolute().parent)
    network = raw.get("network")
    if isinstance(network, dict) and isinstance(network.get("sonata"), str) and network["sonata"]:
        network["sonata"] = str(path.absolute().parent / network["sonata"])  # relative to the TOML
    return resolve(raw)


def sonata_configuration(path: Path) -> dict:
    """The spikex configuration of a SONATA simulation config (``spikex run
    simulation_config.json``): ``network.sonata`` names it, ``run.tstop`` and ``run.dt`` are
    ``simulation.tstop_ms`` and ``dt_ms`` (defaults for a circuit config, which has no
    ``run``). SonataError (exit status 2) for a missing or bad file."""
    from ..sonata.config import load_config as load_sonata

    sonata = load_sonata(path)
    simulation = {}
    if sonata.run:
        simulation = {"tstop_ms": sonata.run_value("tstop"), "dt_ms": sonata.run_value("dt")}
    return {"simulation": simulation, "network": {"sonata": str(sonata.path)}}


def resolve(raw: dict) -> dict:
    """Return a copy of a (partial) configuration with every default filled in.

    Raises
    ------
    ConfigError
        Unknown section or key, or a section that is not a table.
    """
    if not isinstance(raw, dict):
        raise ConfigError("configuration", raw, "must be a table of sections")
    _check_structure(raw, "")
    config = copy.deepcopy(raw)
    populations.resolve_lists(raw, config)
    for key in REGISTRY:
        table = config
        for part in key.section.split("."):
            table = table.setdefault(part, {})
        table.setdefault(key.name, key.default)
    return config


def apply_overrides(config: dict, overrides: list[str] | tuple[str, ...]) -> dict:
    """Apply ``--set KEY=VALUE`` overrides to a configuration.

    Parameters
    ----------
    config : dict
        Resolved configuration (not modified).
    overrides : list of str
        ``"network.cells=4096"``; the value is parsed as a TOML value, and taken as a
        bare string when it is not one (``network.connectivity=adjacent``).

    Returns
    -------
    dict
        New configuration with the overrides applied (not yet validated).

    Raises
    ------
    ConfigError
        Malformed override or unknown key.
    """
    config = copy.deepcopy(config)
    for text in overrides:
        path, value = parse_override(text)
        if populations.override(config, path, value):
            continue
        if path in SECTIONS:
            raise ConfigError(path, value, _section_not_key_text(path))
        if path not in KEYS:
            raise ConfigError(path, value, _unknown_key_text(path))
        table = config
        for part in KEYS[path].section.split("."):
            table = table.setdefault(part, {})
        table[KEYS[path].name] = value
    return config


def parse_override(text: str) -> tuple[str, object]:
    """Split ``"key=value"`` and parse the value as TOML, else as a bare string."""
    path, sep, value_text = text.partition("=")
    path = path.strip()
    if not sep or not path:
        raise ConfigError("--set", text, "expected KEY=VALUE, e.g. --set network.cells=4096")
    value_text = value_text.strip()
    try:
        value = tomllib.loads(f"value = {value_text}")["value"]
    except tomllib.TOMLDecodeError:
        value = value_text
    return path, value


# ---- validation --------------------------------------------------------------------


def validate(config: dict, ranks: int = 1) -> dict:
    """Check every key, type, range and cross-key rule.

    Parameters
    ----------
    config : dict
        Resolved configuration (see ``load_config``).
    ranks : int
        Number of MPI ranks of the run (needed for ``exchange.compress = true``).

    Returns
    -------
    dict
        A normalised copy (integers given for float keys become floats).

    Raises
    ------
    ConfigError
        For the first problem found, naming the key, the value and what is allowed.
    """
    config = resolve(config)
    for key in REGISTRY:
        table = section_table(config, key.section)
        table[key.name] = key.check(table[key.name])
    populations.check(config)
    for rule in CROSS_CHECKS:
        rule(config, ranks)
    return config


def resolved_config(
    source: str | Path | dict, overrides: list[str] | tuple[str, ...] = (), ranks: int = 1
) -> dict:
    """Load (file) or resolve (dict), apply overrides and validate: the one entry point."""
    config = resolve(source) if isinstance(source, dict) else load_config(source)
    return validate(apply_overrides(config, overrides), ranks)


def _children(section: str) -> tuple[list[str], list[str]]:
    """Key names and sub-section names allowed directly inside ``section``."""
    keys = [key.name for key in REGISTRY if key.section == section]
    prefix = section + "." if section else ""
    subsections = [
        name[len(prefix) :]
        for name in SECTIONS
        if name.startswith(prefix) and "." not in name[len(prefix) :]
    ]
    return keys, subsections


def _allowed_children_text(section: str) -> str:
    keys, subsections = _children(section)
    parts = [*keys, *(f"[{_join(section, name)}]" for name in subsections)]
    if not section:
        parts += populations.LIST_KEYS
    where = f"in [{section}]" if section else "at top level (sections and lists)"
    return f"allowed {where}: " + ", ".join(parts)


def _unknown_key_text(path: str) -> str:
    section = path.rsplit(".", 1)[0] if "." in path else ""
    while section and section not in SECTIONS:
        section = section.rsplit(".", 1)[0] if "." in section else ""
    return "unknown key; " + _allowed_children_text(section)


def _section_not_key_text(section: str) -> str:
    keys, _ = _children(section)
    return "is a section, not a key; set one of its keys: " + ", ".join(
        f"{section}.{name}" for name in keys
    )


def _join(section: str, name: str) -> str:
    return f"{section}.{name}" if section else name


def _check_structure(table: dict, section: str) -> None:
    keys, subsections = _children(section)
    for name, value in table.items():
        path = _join(section, name)
        if not section and name in populations.LIST_KEYS:
            continue  # models, [[populations]], [[projections]]: populations.resolve_lists
        if name in subsections:
            if not isinstance(value, dict):
                raise ConfigError(path, value, f"must be a table [{path}]")
            _check_structure(value, path)
        elif name not in keys:
            if isinstance(value, dict):
                raise ConfigError(
                    f"[{path}]", allowed="unknown section; " + _allowed_children_text(section)
                )
            raise ConfigError(path, value, "unknown key; " + _allowed_children_text(section))
