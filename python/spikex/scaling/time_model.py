"""Analytic time model: dry-run counts -> predicted exchange time per interval per method.

A machine profile (TOML, ``profiles/*.toml``) gives latency-bandwidth parameters of one
message, per-stage or per-partner costs of each collective algorithm, and CPU costs of
handling one spike, scanning one buffer entry, routing one item and coding spikes for the
wire. Per interval (one row of the dry run), with the maximum over ranks of each count
(the slowest rank sets the pace of a collective or a conservation loop):

    allgather   (1 + overflow) * allgather_stage_s * ceil(log2 P)     recursive doubling
                + bytes received * (P - 1) / P / bandwidth + spikes matched * spike_handling_s
                + (spikes received - spikes matched) * scan_entry_s + further groups
                + codec: spikes sent * encode_spike_s + spikes received * decode_spike_s
                (compressed blocks only: not with compress = false)
    alltoall,   the cheaper of pairwise exchange, rounds * alltoall_partner_s * (P - 1)
    alltoallv   + bytes received * (P - 1) / P / bandwidth, and Bruck's algorithm (what MPI libraries use
                for small blocks), rounds * allgather_stage_s * ceil(log2 P) + bytes
                received * ceil(log2 P) / 2 / bandwidth; + entries received *
                spike_handling_s + further groups (alltoallv: 2 rounds, counts then entries)
                + codec: entries sent * encode_spike_s + entries received * decode_spike_s
    multisend,  messages sent * send_overhead_s + spikes received * (receive_overhead_s +
    persistent  spike_handling_s) + further groups + rounds * allreduce(P) + latency_s
                + codec: messages sent * encode_spike_s + spikes received * decode_spike_s
    (bytes received of a collective count the rank's own block or section, which never
    crosses the network: only (P - 1) / P of them are charged to the bandwidth)
    rma         puts * send_overhead_s + rounds * (allreduce(P) + barrier(P))
                + slots scanned * scan_entry_s + spikes received * spike_handling_s
                + further groups + latency_s
                + codec: puts * encode_spike_s + spikes received * decode_spike_s
    routed      hops * route_hop_s + messages * (send_overhead_s + receive_overhead_s)
                + bytes / bandwidth + rounds * allreduce(P) + max hops * latency_s
                + remote * spike_handling_s + further groups of remote items (remote =
                spikes received - spikes local; the rank's own items are delivered as it
                feeds them, while it computes: not charged; their groups' share is taken
                as the items' share) + codec: hops * route_codec_item_s (coded buckets only)
    allreduce(P) = allreduce_s + allreduce_stage_s * ceil(log2 P); barrier(P) =
    barrier_stage_s * ceil(log2 P); both 0 for P = 1 (no MPI).
    further groups = (delivery groups - the deliveries charged spike_handling_s above) *
    delivery_group_s: an arriving spike makes one entry in the delivery ring per delay
    group of its source on the rank (counter delivery_groups); spike_handling_s, fitted on
    a network with one group per spike, covers its lookup and first entry, and every
    further group (distributed delays, as in the microcircuit; static and plastic synapses
    of one source) costs delivery_group_s. (Local deliveries of the point-to-point methods
    are charged only as further groups.)
    Every method is charged its deliveries, also where a run makes some of them while it
    computes (multisend, persistent and routed deliver what arrives during the interval):
    what arrives before the interval's end depends on timing the dry run does not have, and
    on a network whose intervals compute little most of it arrives in the exchange phase.
    (Routed was once charged none, and the emulated cluster measured 3 to 5 times its
    prediction at 1 Gbit/s: docs/scaling.md, section 5.)

The codec's costs (exchange/spike_codec.hpp) are per spike: encode_spike_s and
decode_spike_s of a block's spike, charged also for a spike alone (a one-spike message, an
rma entry; bench-codec measures those within about 1 ns of a block's), and
route_codec_item_s for a routed bucket's item at one hop: encoded, and at the hop that
reaches the destination handed over without an item (bench/fit_profile.py: encode +
delivery - the item's own decode, which an uncoded item needs there; a forwarding hop's
decode into items costs a few ns more, which the model leaves out).
They are optional in a profile (0 when left out: profiles fitted before they existed
charge no codec time), as is delivery_group_s.

Point-to-point sends happen during computation in a real run (they overlap it); the
model charges them to the exchange, like the counters do. Cell computation is the same
for every method and is not part of the prediction.
"""

from __future__ import annotations

import json
import math
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..errors import UserInputError

PARAMETERS = {
    "point_to_point": ("latency_s", "bandwidth_bytes_per_s", "send_overhead_s", "receive_overhead_s"),
    "collectives": (
        "allgather_stage_s", "alltoall_partner_s", "allreduce_s", "allreduce_stage_s", "barrier_stage_s",
    ),
    "cpu": ("spike_handling_s", "scan_entry_s", "route_hop_s"),
}  # fmt: skip
#: Parameters a profile may leave out, and their value then.
OPTIONAL_PARAMETERS = {
    "cpu": {"encode_spike_s": 0.0, "decode_spike_s": 0.0, "route_codec_item_s": 0.0, "delivery_group_s": 0.0},
}


@dataclass(frozen=True)
class Profile:
    """A named machine: where its numbers come from and the parameters (seconds, bytes/s)."""

    name: str
    description: str
    values: dict[str, float]

    def __getattr__(self, key: str) -> float:
        try:
            return self.__dict__["values"][key]
        except KeyError:
            raise AttributeError(key) from None


def load_profile(path: str | Path) -> Profile:
    """Read and check a profile TOML: every parameter present, a positive number."""
    path = Path(path)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserInputError(f"--profile = {path}: file not found") from None
    except tomllib.TOMLDecodeError as error:
        raise UserInputError(f"--profile = {path}: invalid TOML: {error}") from None
    machine = raw.get("machine", {})
    sections = sorted(set(raw) - set(PARAMETERS) - {"machine"})
    if sections:
        raise UserInputError(
            f"{path}: [{sections[0]}] is unknown; sections: machine, {', '.join(PARAMETERS)}"
        )
    for section, names in PARAMETERS.items():
        allowed = (*names, *OPTIONAL_PARAMETERS.get(section, {}))
        unknown = sorted(set(raw.get(section, {})) - set(allowed))
        if unknown:
            raise UserInputError(
                f"{path}: [{section}] {unknown[0]} is unknown; allowed: {', '.join(allowed)}"
            )
    values = {}
    for section, names in PARAMETERS.items():
        table = raw.get(section, {})
        optional = OPTIONAL_PARAMETERS.get(section, {})
        for name in (*names, *optional):
            value = table.get(name, optional.get(name))
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise UserInputError(
                    f"{path}: [{section}] {name} = {value!r}: must be a number >= 0"
                )
            values[name] = float(value)
    if values["bandwidth_bytes_per_s"] <= 0:
        raise UserInputError(f"{path}: [point_to_point] bandwidth_bytes_per_s must be > 0")
    return Profile(str(machine.get("name", path.stem)), str(machine.get("description", "")), values)


def _stages(ranks: int) -> int:
    return math.ceil(math.log2(ranks)) if ranks > 1 else 0


def _remote(ranks: int) -> float:
    """Fraction of a collective's receive buffer that came over the network (not the own block)."""
    return (ranks - 1) / ranks if ranks > 1 else 0.0


def _allgather(col, i: int, ranks: int, machine: Profile, props: dict) -> float:
    t = col("rounds")[i] * machine.allgather_stage_s * _stages(ranks)
    t += col("bytes_received")[i] * _remote(ranks) / machine.bandwidth_bytes_per_s
    if props.get("compressed", 0):
        t += _codec(col("spikes_sent")[i], col("spikes_received")[i], machine)
    # every received spike is looked up; one with targets here is also delivered
    matched = col("spikes_matched")[i]
    t += (col("spikes_received")[i] - matched) * machine.scan_entry_s + matched * machine.spike_handling_s
    return t + _further_groups(col, i, matched, machine)


def _further_groups(col, i: int, delivered: float, machine: Profile) -> float:
    """The delivery ring entries beyond one per delivered spike (a source with several delay
    groups on a rank: distributed delays, or static and plastic synapses), each
    delivery_group_s; spike_handling_s covers a spike's lookup and its first entry."""
    return max(col("delivery_groups")[i] - delivered, 0.0) * machine.delivery_group_s


def _codec(encoded: float, decoded: float, machine: Profile) -> float:
    """CPU seconds of the spike wire codec for spikes encoded and decoded."""
    return encoded * machine.encode_spike_s + decoded * machine.decode_spike_s


def _directed(col, i: int, ranks: int, machine: Profile, props: dict) -> float:
    bandwidth = machine.bandwidth_bytes_per_s
    received = col("bytes_received")[i]
    pairwise = (
        col("rounds")[i] * machine.alltoall_partner_s * max(ranks - 1, 0)
        + received * _remote(ranks) / bandwidth
    )
    bruck = col("rounds")[i] * machine.allgather_stage_s * _stages(ranks)
    bruck += received * max(_stages(ranks), 1) / 2 / bandwidth
    codec = _codec(col("entries_sent")[i], col("entries_received")[i], machine)
    entries = col("entries_received")[i]
    delivery = entries * machine.spike_handling_s + _further_groups(col, i, entries, machine)
    return min(pairwise, bruck) + delivery + codec


def _allreduce(ranks: int, machine: Profile) -> float:
    # One rank needs no MPI at all (serial backend): its collectives cost nothing.
    return machine.allreduce_s + machine.allreduce_stage_s * _stages(ranks) if ranks > 1 else 0.0


def _point_to_point(col, i: int, ranks: int, machine: Profile, props: dict) -> float:
    t = col("messages_sent")[i] * machine.send_overhead_s
    t += col("spikes_received")[i] * (machine.receive_overhead_s + machine.spike_handling_s)
    t += _further_groups(col, i, col("spikes_received")[i], machine)
    t += _codec(col("messages_sent")[i], col("spikes_received")[i], machine)
    return (
        t
        + col("rounds")[i] * _allreduce(ranks, machine)
        + (machine.latency_s if ranks > 1 else 0.0)
    )


def _rma(col, i: int, ranks: int, machine: Profile, props: dict) -> float:
    barrier = machine.barrier_stage_s * _stages(ranks)
    t = col("messages_sent")[i] * machine.send_overhead_s + col("rounds")[i] * (
        _allreduce(ranks, machine) + barrier
    )
    t += col("slots_scanned")[i] * machine.scan_entry_s
    t += _codec(col("messages_sent")[i], col("spikes_received")[i], machine)
    return (
        t
        + col("spikes_received")[i] * machine.spike_handling_s
        + _further_groups(col, i, col("spikes_received")[i], machine)
        + (machine.latency_s if ranks > 1 else 0.0)
    )


def _routed(col, i: int, ranks: int, machine: Profile, props: dict) -> float:
    t = col("hops")[i] * machine.route_hop_s
    if props.get("compressed", 0):
        t += col("hops")[i] * machine.route_codec_item_s
    t += col("messages_sent")[i] * (machine.send_overhead_s + machine.receive_overhead_s)
    t += col("bytes_sent")[i] / machine.bandwidth_bytes_per_s + col("rounds")[i] * _allreduce(
        ranks, machine
    )
    # Its own items are delivered as it feeds them, while it computes: not charged. The
    # delivery groups of the others: their share of all, as if groups per item were alike.
    # (Each column is its own maximum over ranks: on ranks of equal share, as the
    # distributions make them, the difference is close to the busiest rank's.)
    received = col("spikes_received")[i]
    remote = received - col("spikes_local")[i]
    if remote > 0:
        groups = col("delivery_groups")[i] * remote / received
        t += remote * machine.spike_handling_s
        t += max(groups - remote, 0.0) * machine.delivery_group_s
    return t + (props.get("route_max_hops", 1) * machine.latency_s if ranks > 1 else 0.0)


#: Cost formulas by the name a registry entry gives (method_entry::cost_formula): seconds of
#: one row (interval end) from the row's counters (maximum over ranks).
COST_FORMULAS = {
    "allgather": _allgather,
    "directed": _directed,
    "point_to_point": _point_to_point,
    "rma": _rma,
    "routed": _routed,
}


def interval_times(method: dict, ranks: int, machine: Profile) -> list[float]:
    """Predicted exchange seconds of every row (interval end) of one method's dry run."""
    from ..methods import METHODS

    rows = method["rows"]["max"]
    n = len(method["rows"]["step"])
    kind = method["method"]
    formula = COST_FORMULAS.get(METHODS[kind]["cost_formula"]) if kind in METHODS else None
    if formula is None:
        raise UserInputError(f"time model: no cost formula for method {kind!r}")

    def col(name: str) -> list[float]:
        return rows.get(name, [0.0] * n)

    return [formula(col, i, ranks, machine, method["properties"]) for i in range(n)]


def route_message_hops(machine: Profile, item_bytes: float) -> int:
    """What a message costs on this machine in routing hops of an item of ``item_bytes``:
    (send_overhead_s + receive_overhead_s) / (route_hop_s + item_bytes / bandwidth), the
    value of ``exchange.route_message_hops`` with which the routed exchange's ``auto`` grid
    weighs messages as this profile does (docs/methods/routed.md)."""
    hop = machine.route_hop_s + item_bytes / machine.bandwidth_bytes_per_s
    return max(0, round((machine.send_overhead_s + machine.receive_overhead_s) / hop))


def predict(result: dict, machine: Profile) -> dict:
    """Per method: predicted exchange seconds per interval (mean, max) and over the run; for
    the routed exchange also the route_message_hops this machine gives its items."""
    out = {}
    for label, method in result["methods"].items():
        times = interval_times(method, result["ranks"], machine)
        out[label] = {
            "interval_mean_s": sum(times) / len(times) if times else 0.0,
            "interval_max_s": max(times, default=0.0),
            "run_s": sum(times),
            "intervals": len(times),
        }
        properties = method["properties"]
        if "route_dimensions" in properties and properties.get("entry_bytes"):
            out[label]["route_message_hops"] = route_message_hops(machine, properties["entry_bytes"])
    return {
        "profile": machine.name,
        "description": machine.description,
        "ranks": result["ranks"],
        "methods": out,
    }


def add_predictions(result: dict, machine: Profile) -> None:
    """Attach the predictions of ``machine`` to a dry-run result (``predictions[name]``)."""
    result.setdefault("predictions", {})[machine.name] = predict(result, machine)


def predict_file(path: str | Path, profile_path: str | Path) -> dict:
    """Predictions for a dry-run JSON written by ``spikex model dryrun``."""
    try:
        result = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserInputError(f"DRYRUN_JSON = {path}: file not found") from None
    except json.JSONDecodeError as error:
        raise UserInputError(f"DRYRUN_JSON = {path}: not JSON ({error})") from None
    if result.get("kind") != "dryrun":
        raise UserInputError(f"DRYRUN_JSON = {path}: not the output of `spikex model dryrun`")
    return predict(result, load_profile(profile_path))


def format_predictions(prediction: dict) -> str:
    """One table: method, mean and max seconds per interval, run total."""
    lines = [
        f"profile {prediction['profile']}, P = {prediction['ranks']}: predicted exchange time",
        f"{'method':<34} {'per interval mean':>18} {'max':>12} {'run':>12}",
    ]
    for label, p in prediction["methods"].items():
        lines.append(
            f"{label:<34} {p['interval_mean_s'] * 1e6:>15.1f} us {p['interval_max_s'] * 1e6:>9.1f} us "
            f"{p['run_s']:>10.4f} s"
        )
    hops = {p["route_message_hops"] for p in prediction["methods"].values() if "route_message_hops" in p}
    for value in sorted(hops):
        lines.append(
            f"routed: a message costs {value} routing hops on {prediction['profile']}: "
            f"--set exchange.route_message_hops={value} makes route_dims = auto weigh it so"
        )
    return "\n".join(lines)
