"""The papers' experiments as ``spikex compare`` sweeps: the manifest ``examples/papers/experiments.toml``.

Each top-level table of the manifest is one experiment::

    [hines2011_table1]
    title = "..."                        # heading in docs/results.md
    reference = "Hines et al. 2011, Table 1"
    config = "hines2011_table1.toml"     # next to the manifest
    methods = ["allgather", "persistent"] # spikex compare --methods (variants allowed)
    ranks = [1, 2, 4, 8]                 # --np
    repeat = 1                           # --repeat
    set = []                             # --set, every run
    per_rank = []                        # --per-rank (weak scaling)
    published = "hines2011_table1"       # paper numbers: spikex.results.published
    original = "2 M cells, ..."          # the paper's sizes, in words
    discussion = "..."                   # what carries over to this machine (multi-line)
    columns = ["comp_rank0_s", "run_s"]  # metrics per method in the paper-style table
    figures = ["scaling", "breakdown"]   # figures shown in docs/results.md
    figure_variants = ["..."]            # with vary: the sweeps whose figures are shown
    quick = { ranks = [1, 2], set = ["simulation.tstop_ms=50"] }   # --quick: replaces
                                         # ranks / methods / repeat, appends set
    [hines2011_table1.paper_methods]     # paper column -> method variant measured for it
    "MPI_Allgather" = "allgather"
    [hines2011_table1.vary]              # optional axes; their product gives the sweeps
    firing = { noburst = ["network.burst.groups=0"], burst = ["network.burst.groups=8"] }

Without ``vary`` the experiment is one sweep; with it, one sweep per combination of the
axes' values, named by the value names joined with ``-`` (``round_robin-random-burst``).
"""

from __future__ import annotations

import itertools
import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError

MANIFEST = Path("examples") / "papers" / "experiments.toml"
EXPERIMENT_KEYS = {
    "title": str,
    "reference": str,
    "config": str,
    "methods": list,
    "ranks": list,
    "repeat": int,
    "set": list,
    "per_rank": list,
    "published": str,
    "quick": dict,
    "paper_methods": dict,
    "vary": dict,
    "original": str,
    "discussion": str,
    "columns": list,
    "figures": list,
    "figure_variants": list,
}
# Metrics of the paper-style table (docs/results.md) unless an experiment names others.
DEFAULT_COLUMNS = ("comp_rank0_s", "run_s")
FIGURES = ("raster", "intervals", "scaling", "breakdown", "memory")
REQUIRED_KEYS = ("title", "reference", "config", "methods", "ranks")
QUICK_KEYS = ("ranks", "methods", "repeat", "set")


@dataclass(frozen=True)
class Sweep:
    """One ``spikex compare`` of an experiment.

    Attributes
    ----------
    experiment : str
        Experiment name (manifest table).
    variant : str
        Name of the combination of ``vary`` values ("" without ``vary``).
    config : Path
        Configuration file.
    methods : tuple of str
        ``--methods`` items.
    ranks : tuple of int
        ``--np``.
    repeat : int
        ``--repeat``.
    overrides : tuple of str
        ``--set`` items (experiment ``set``, then the variant's).
    per_rank : tuple of str
        ``--per-rank`` items.
    variant_values : tuple of str
        The value name of each ``vary`` axis, in axis order (empty without ``vary``).
    """

    experiment: str
    variant: str
    config: Path
    methods: tuple[str, ...]
    ranks: tuple[int, ...]
    repeat: int
    overrides: tuple[str, ...]
    per_rank: tuple[str, ...]
    variant_values: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """``experiment`` or ``experiment-variant``: directory and figure names."""
        return f"{self.experiment}-{self.variant}" if self.variant else self.experiment

    def command_line(self, outdir: Path | str | None = None) -> str:
        """The ``spikex compare`` command that runs this sweep."""
        words = ["spikex", "compare", str(self.config), "--methods", ",".join(self.methods),
                 "--np", ",".join(str(ranks) for ranks in self.ranks)]  # fmt: skip
        if self.repeat != 1:
            words += ["--repeat", str(self.repeat)]
        for item in self.overrides:
            words += ["--set", item]
        for item in self.per_rank:
            words += ["--per-rank", item]
        if outdir is not None:
            words += ["-o", str(outdir)]
        return shlex.join(words)


@dataclass(frozen=True)
class Experiment:
    """One experiment of a paper (a table or a figure), as one or more sweeps.

    Attributes
    ----------
    name : str
        Manifest table name.
    title, reference : str
        Heading and the paper's table / figure.
    config : Path
        Configuration file.
    sweeps : tuple of Sweep
        The comparisons to run.
    published : str
        Key of the published numbers (``spikex.results.published``), or "".
    paper_methods : dict
        Paper column name -> method variant label measured for it.
    original : str
        The paper's sizes and machine, in words.
    discussion : str
        What carries over to a small oversubscribed machine (for docs/results.md).
    columns : tuple of str
        Metrics (``spikex.compare.run_metrics``) per method in the paper-style table.
    figures : tuple of str
        Figures of ``spikex plot`` shown for it.
    figure_variants : tuple of str
        Sweeps (variant names) whose figures are shown; all when empty.
    """

    name: str
    title: str
    reference: str
    config: Path
    sweeps: tuple[Sweep, ...]
    published: str
    paper_methods: dict
    original: str
    discussion: str
    columns: tuple[str, ...] = DEFAULT_COLUMNS
    figures: tuple[str, ...] = FIGURES
    figure_variants: tuple[str, ...] = ()


def load_experiments(path: Path | str = MANIFEST, quick: bool = False) -> list[Experiment]:
    """Read and check the manifest.

    Parameters
    ----------
    path : Path or str
        The manifest (TOML).
    quick : bool
        Apply each experiment's ``quick`` settings (a reduced size).

    Raises
    ------
    ConfigError
        Unreadable manifest, unknown or missing key, wrong type, missing config file.
    """
    path = Path(path)
    try:
        manifest = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(str(path), allowed="experiment manifest not found") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(str(path), allowed=f"invalid TOML: {error}") from None
    return [_experiment(path.parent, name, table, quick) for name, table in manifest.items()]


def _experiment(directory: Path, name: str, table: object, quick: bool) -> Experiment:
    if not isinstance(table, dict):
        raise ConfigError(name, table, "must be a table [name] describing one experiment")
    for key, value in table.items():
        if key not in EXPERIMENT_KEYS:
            raise ConfigError(
                f"{name}.{key}", value, "unknown key; allowed: " + ", ".join(EXPERIMENT_KEYS)
            )
        if not isinstance(value, EXPERIMENT_KEYS[key]) or isinstance(value, bool):
            raise ConfigError(f"{name}.{key}", value, f"must be a {EXPERIMENT_KEYS[key].__name__}")
    for key in REQUIRED_KEYS:
        if key not in table:
            raise ConfigError(f"{name}.{key}", allowed="missing; every experiment needs it")
    config = directory / table["config"]
    if not config.is_file():
        raise ConfigError(f"{name}.config", table["config"], f"no such file in {directory}")
    settings = {
        "methods": list(table["methods"]),
        "ranks": list(table["ranks"]),
        "repeat": int(table.get("repeat", 1)),
        "set": list(table.get("set", [])),
    }
    if quick:
        settings = _apply_quick(name, settings, table.get("quick", {}))
    sweeps = tuple(
        Sweep(
            experiment=name,
            variant=variant,
            config=config,
            methods=tuple(settings["methods"]),
            ranks=tuple(settings["ranks"]),
            repeat=settings["repeat"],
            overrides=(*settings["set"], *variant_sets),
            per_rank=tuple(table.get("per_rank", [])),
            variant_values=values,
        )
        for variant, values, variant_sets in _variants(name, table.get("vary", {}))
    )
    return Experiment(
        name=name,
        title=table["title"],
        reference=table["reference"],
        config=config,
        sweeps=sweeps,
        published=table.get("published", ""),
        paper_methods=dict(table.get("paper_methods", {})),
        original=table.get("original", ""),
        discussion=table.get("discussion", "").strip(),
        columns=tuple(_checked_columns(name, table.get("columns", list(DEFAULT_COLUMNS)))),
        figures=tuple(_checked_figures(name, table.get("figures", FIGURES))),
        figure_variants=tuple(table.get("figure_variants", ())),
    )


def _checked_columns(name: str, columns: list) -> list:
    from ..compare.run_metrics import METRIC_NAMES

    for column in columns:
        if column not in METRIC_NAMES:
            raise ConfigError(f"{name}.columns", column, "allowed: " + ", ".join(METRIC_NAMES))
    return columns


def _checked_figures(name: str, figures: list) -> list:
    for figure in figures:
        if figure not in FIGURES:
            raise ConfigError(f"{name}.figures", figure, "allowed: " + ", ".join(FIGURES))
    return figures


def _apply_quick(name: str, settings: dict, quick: dict) -> dict:
    for key, value in quick.items():
        if key not in QUICK_KEYS:
            raise ConfigError(f"{name}.quick.{key}", value, "allowed: " + ", ".join(QUICK_KEYS))
    settings = dict(settings)
    for key in ("ranks", "methods", "repeat"):
        if key in quick:
            settings[key] = quick[key]
    settings["set"] = [*settings["set"], *quick.get("set", [])]
    return settings


def _variants(name: str, vary: dict) -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
    """``[(variant name, value names, --set items)]``: the product of the axes, in order."""
    if not vary:
        return [("", (), ())]
    axes = []
    for axis, values in vary.items():
        if not isinstance(values, dict) or not values:
            raise ConfigError(
                f"{name}.vary.{axis}", values, 'must be a table value-name = ["KEY=VALUE", ...]'
            )
        axes.append(list(values.items()))
    variants = []
    for combination in itertools.product(*axes):
        values = tuple(value_name for value_name, _ in combination)
        sets = tuple(item for _, items in combination for item in items)
        variants.append(("-".join(values), values, sets))
    return variants
