"""Where software routing pays for GUPS: the time model's per-update cost of a grid.

An update with a uniformly random owner travels sum_i (1 - 1/D_i) hops on the grid
D_1 x ... x D_d (the direct grid [P]: 1 - 1/P). Each hop costs the routing CPU time and
its bytes on the link; each message a send and a receive overhead, shared by the updates
of a bucket. Buckets are sent full and sized as ``spikex gups`` sizes them
(``gups/gups.cpp``, ``route/router.cpp``): up to 32 updates of the budget are generated at
a time, the rest is shared by ``lanes`` send buckets per partner (sum_i (D_i - 1) of them)
and a receive buffer per dimension, at most ``message_bytes / item_bytes`` each. Per
generated update and rank:

    t = h (route_hop_s + item_bytes / bandwidth) + (h / capacity) (send + receive overhead)

The parameters are those of a time-model profile (``profiles/*.toml``, ``time_model.py``):
the same figures ``_routed`` charges the routed spike exchange. Routing beats the direct
grid when the message cost m = send + receive overhead exceeds

    m* = b (h_grid - h_direct) / (h_direct / c_direct - h_grid / c_grid),   b = hop + bytes

(only when the grid's buckets hold more updates per hop than the direct ones).
Local memory costs are the same for every grid and left out.
"""

from __future__ import annotations

from .time_model import Profile

BUDGET = 1024
MESSAGE_BYTES = 4032  # route/router.hpp default_message_bytes
ITEM_BYTES = 8  # one GUPS update
# Two buckets per partner: one takes updates while the other waits for its receiver. With
# shared-memory mailboxes at P = 2 (a core per rank) 0.29 GUPS against 0.24 with one; with
# MPI messages the same within the spread at P = 2, and better with two ranks per core
# (docs/user/gups.md, the lanes table of `make bench-memory`).
DEFAULT_LANES = 2
LANES = DEFAULT_LANES  # spikex gups' send buckets per partner
GENERATE_BLOCK = 32  # gups/gups_routed.hpp largest_generate_block


def balanced_dims(ranks: int, dimensions: int) -> tuple[int, ...]:
    """The balanced grid of ``dimensions`` for a power-of-two ``ranks`` (larger first)."""
    if ranks < 1 or ranks & (ranks - 1):
        raise ValueError(f"ranks = {ranks}: must be a power of two")
    bits = ranks.bit_length() - 1
    if not 1 <= dimensions <= max(bits, 1):
        raise ValueError(f"dimensions = {dimensions}: must be between 1 and {max(bits, 1)}")
    return tuple(2 ** (bits // dimensions + (i < bits % dimensions)) for i in range(dimensions))


def full_grids(ranks: int) -> list[tuple[int, ...]]:
    """Every grid of 2 or more dimensions that ``ranks`` fills exactly: its factorisations
    into factors >= 2, larger first (12: (6, 2), (4, 3), (3, 2, 2)); none for a prime."""  # fmt: skip
    if ranks < 1:
        raise ValueError(f"ranks = {ranks}: must be at least 1")

    def factorisations(rest: int, largest: int) -> list[tuple[int, ...]]:
        if rest == 1:
            return [()]
        return [(d, *tail) for d in range(min(rest, largest), 1, -1) if rest % d == 0
                for tail in factorisations(rest // d, d)]  # fmt: skip

    return [dims for dims in factorisations(ranks, ranks) if len(dims) >= 2]


def bucket_capacity(dims: tuple[int, ...], budget: int = BUDGET, message_bytes: int = MESSAGE_BYTES,
                    item_bytes: int = ITEM_BYTES, lanes: int = LANES) -> int:
    """Updates in a full bucket on the full grid ``dims`` (0: the budget cannot give every
    bucket one), as ``share_routed_budget`` and ``bucket_capacity`` in C++ size it."""  # fmt: skip
    buckets, channels = sum(dims), len(dims)
    if budget < buckets:
        return 0
    routed = budget - min(max(budget - buckets, 0), GENERATE_BLOCK)
    while lanes > 1 and lanes * (buckets - channels) + channels > routed:
        lanes -= 1
    return min(routed // (lanes * (buckets - channels) + channels), max(message_bytes // item_bytes, 1))


def grid_cost(dims: tuple[int, ...], machine: Profile, budget: int = BUDGET,
              message_bytes: int = MESSAGE_BYTES, item_bytes: int = ITEM_BYTES, lanes: int = LANES) -> dict:
    """Hops, bucket capacity, messages and seconds per generated update on ``dims`` (all
    None when the budget cannot give every bucket one update)."""  # fmt: skip
    capacity = bucket_capacity(dims, budget, message_bytes, item_bytes, lanes)
    if capacity < 1:
        return {"dims": list(dims), "capacity": 0, "hops": None, "messages": None, "seconds": None}
    hops = sum(1 - 1 / d for d in dims)
    per_hop = machine.route_hop_s + item_bytes / machine.bandwidth_bytes_per_s
    messages = hops / capacity
    message_cost = machine.send_overhead_s + machine.receive_overhead_s
    return {
        "dims": list(dims),
        "capacity": capacity,
        "hops": hops,
        "messages": messages,
        "seconds": hops * per_hop + messages * message_cost,
    }


def break_even_message_seconds(direct: dict, grid: dict, machine: Profile,
                               item_bytes: int = ITEM_BYTES) -> float | None:
    """Send + receive overhead above which ``grid`` beats ``direct`` (None: never)."""  # fmt: skip
    if grid["hops"] is None:
        return None
    if direct["hops"] is None:
        return 0.0  # the direct grid cannot even give each bucket one update
    saved_messages = direct["messages"] - grid["messages"]
    if saved_messages <= 0:
        return None
    per_hop = machine.route_hop_s + item_bytes / machine.bandwidth_bytes_per_s
    return per_hop * (grid["hops"] - direct["hops"]) / saved_messages


def routed_grid_costs(ranks: int, machine: Profile, budget: int = BUDGET,
                      message_bytes: int = MESSAGE_BYTES, lanes: int = LANES) -> list[dict]:
    """grid_cost of every balanced grid of 2 to log2(P) dimensions whose budget gives each
    bucket an update (``ranks`` a power of two)."""  # fmt: skip
    grids = [
        grid_cost(balanced_dims(ranks, d), machine, budget, message_bytes, ITEM_BYTES, lanes)
        for d in range(2, ranks.bit_length())
    ]
    return [g for g in grids if g["seconds"] is not None]


def best_grid(ranks: int, machine: Profile, budget: int = BUDGET,
              message_bytes: int = MESSAGE_BYTES, lanes: int = LANES) -> dict:
    """The grid with the least time per update at ``machine``'s costs among the direct grid
    and every grid ``ranks`` fills exactly (full_grids: any P, a prime only the direct
    one), the direct grid and then fewer dimensions on a tie; with every candidate's cost
    (``candidates``); best None when no grid fits the budget."""  # fmt: skip
    shapes = [(ranks,), *sorted(full_grids(ranks), key=len)]
    costs = [grid_cost(dims, machine, budget, message_bytes, ITEM_BYTES, lanes) for dims in shapes]
    candidates = [g for g in costs if g["seconds"] is not None]
    best = min(candidates, key=lambda g: g["seconds"]) if candidates else None
    return {"best": best, "candidates": candidates}


def crossover_table(machine: Profile, ranks: list[int], budget: int = BUDGET) -> list[dict]:
    """Per P: the direct grid, the best routed grid, their costs and the break-even."""
    rows = []
    for p in ranks:
        direct = grid_cost((p,), machine, budget)
        grids = routed_grid_costs(p, machine, budget)
        best = min(grids, key=lambda g: g["seconds"]) if grids else None
        rows.append({
            "ranks": p,
            "direct": direct,
            "best_grid": best,
            "routing_wins": best is not None
            and (direct["seconds"] is None or best["seconds"] < direct["seconds"]),
            "break_even_message_s": None if best is None else break_even_message_seconds(direct, best, machine),
            "message_s": machine.send_overhead_s + machine.receive_overhead_s,
        })  # fmt: skip
    return rows


def first_winning_ranks(rows: list[dict]) -> int | None:
    """The smallest P of ``rows`` from which on routing wins at every larger P listed."""
    first = None
    for row in rows:
        if row["routing_wins"]:
            first = first or row["ranks"]
        else:
            first = None
    return first
