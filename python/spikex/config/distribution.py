"""``[distribution]``: how cells are assigned to MPI ranks."""

from __future__ import annotations

from collections.abc import Callable

from .key import Key

SECTION_DOCS: dict[str, str] = {
    "distribution": "How cells are assigned to MPI ranks.",
}

REGISTRY: tuple[Key, ...] = (
    Key(
        "distribution.scheme",
        "choice",
        "round_robin",
        "round_robin: gid i on rank i mod P; consecutive: blocks of ceil(N/P) gids; "
        "random_shuffle: a seeded permutation, N/P cells per rank.",
        choices=("round_robin", "consecutive", "random_shuffle"),
    ),
)

CROSS_RULES: tuple[str, ...] = ()

CROSS_CHECKS: tuple[Callable[[dict, int], None], ...] = ()
