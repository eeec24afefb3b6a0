"""Figure creation and saving for ``spikex plot``: Agg back end, fixed sizes, PNG + SVG.

Every figure is saved without tight bounding boxes, so its pixel size is exactly
``inches * DPI``: tests and documents can rely on it.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, never a window; must precede pyplot

import matplotlib.pyplot as plt

DPI = 100
STANDARD_INCHES = (10.0, 6.0)
FORMATS = ("png", "svg")


def pixels(inches: tuple[float, float]) -> tuple[int, int]:
    """Pixel size ``(width, height)`` of a PNG saved from a figure of ``inches``."""
    return round(inches[0] * DPI), round(inches[1] * DPI)


def new_figure(
    rows: int = 1,
    columns: int = 1,
    inches: tuple[float, float] = STANDARD_INCHES,
    share_y: bool = False,
):
    """A figure with a ``rows x columns`` grid of axes (always a 2-D array)."""
    figure, axes = plt.subplots(
        rows, columns, figsize=inches, dpi=DPI, squeeze=False, sharey=share_y
    )
    return figure, axes


def save_figure(figure, outdir: Path, name: str) -> list[Path]:
    """Save ``figure`` as ``outdir/name.png`` and ``.svg``, close it, return the paths."""
    outdir.mkdir(parents=True, exist_ok=True)
    paths = []
    for extension in FORMATS:
        path = outdir / f"{name}.{extension}"
        figure.savefig(path, dpi=DPI, format=extension)
        paths.append(path)
    plt.close(figure)
    return paths
