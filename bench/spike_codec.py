#!/usr/bin/env python3
"""Does the spike wire codec pay for itself? Its CPU time against the time its bytes save.

Question answered (issue 21, part 4): the encode and decode cost of the spike wire codec
(cpp/spikex/exchange/spike_codec.hpp) in ns per spike, measured here by
``bench_spike_codec`` (bench/cpp/spike_codec.cpp) for 1K-1M cells per rank and intervals
of 15 and 100 steps, is it less than the time the bytes it saves are worth at the byte
cost of ``profiles/bgp.toml``?

The byte cost. A profile (read with the time model's own loader,
``spikex.scaling.time_model.load_profile``) has one per-byte term: ``[point_to_point]
bandwidth_bytes_per_s`` (BG/P: 425 MB/s per torus link, 2.35 ns per byte). The time model
charges it for the bytes a rank receives in an Allgather or Alltoall(v) (times (P - 1) / P;
Bruck's Alltoall charges ceil(log2 P) / 2 times more per byte) and for routed bytes;
everything else in the profile is per message, per stage or per spike and does not change
with the bytes of a spike. So 1 / bandwidth is the least a byte is worth there: the
comparison is conservative. One-spike messages (multisend, persistent) are charged per
message in the model, not per byte: at the model's terms their smaller messages save
nothing; the table gives what they save at the link's bandwidth.

The conditions, per case (booleans in the JSON; cost = the codec's own ns, not net of the
8-byte entries' copying, again conservative; ``block_pays_net`` is the block condition with
the codec's ns less the entries' copying):

* a block sent to one receiver (alltoall, alltoallv: one rank pair's block): encode +
  decode < saved bytes x ns per byte, with the block in key order as the exchange gives it
  (a sender appends entries as its cells fire, and the receiver numbers its locations from
  that sender in the sender's local order: ``encoder_sorts`` = 0, tested in
  tests/python/exchange/test_alltoall.py); ``block_pays_any_order`` with the spikes in
  random cell order within a step (the encoder sorts them);
* Allgather: every rank receives every block and decodes it, its own included. Per rank
  and spike of an interval it encodes its own spikes once, decodes P copies and receives
  P - 1 over the network: encode + P decode < (P - 1) saved x ns per byte, with the block
  as the engine emits it (cell order within a step, ``coded_cell_order``). Evaluated for
  P = 2 (the hardest) and per received copy as P grows (decode < saved x ns per byte);
* a one-spike message (multisend, persistent): encode + decode < (16 - message bytes) x
  ns per byte;
* a routed bucket (``routed_hop``): at the hop that reaches the destination (every hop of
  a direct grid) encode + delivery - the item's own decode < (item bytes - coded bytes per
  item) x ns per byte, where delivery hands a packed bucket's gids and steps to the
  exchange without items and the item's own decode is what an item as it is costs there
  (``routed_item_format::fields``, on every uncoded item); at a forwarding hop
  (``routed_forwarding_hop``, grids of more dimensions) encode + decode into items.

Each also at 850 MHz (``*_at_bgp_clock``): the measured ns scaled by this machine's clock
/ 850 MHz, the clock of the BG/P cores the profile describes (the profile's own per-spike
costs are cycle counts scaled that way), and against ``profiles/local.toml`` (this
machine's fitted byte cost), where a byte costs almost nothing.

Two spike rates: 5 Hz (blocks of 7-50,000 spikes) and a sparse 0.5 Hz (blocks of less than
one spike at 1K cells and 15 steps: the regime of short intervals and many ranks, where a
block's header and padding weigh most). Writes ``bench/results/spike_codec.json`` and the
table between ``<!-- codec-cost:begin -->`` and ``<!-- codec-cost:end -->`` of
docs/methods/wire_format.md::

    .venv/bin/python bench/spike_codec.py [--binary build/bench/cpp/bench_spike_codec]
    .venv/bin/python bench/spike_codec.py --quick      # small, printed, nothing written
    .venv/bin/python bench/spike_codec.py --docs       # only rewrite the docs block
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from readme_numbers import docs_from_results, write_block
from spikex.scaling.time_model import load_profile
from spikex_runs import machine

REPOSITORY = Path(__file__).resolve().parents[1]
OUTPUT = REPOSITORY / "bench" / "results" / "spike_codec.json"
DOC = REPOSITORY / "docs" / "methods" / "wire_format.md"
BLOCK = "codec-cost"
BINARIES = ("build/bench/cpp/bench_spike_codec", "build/dev/cpp/bench_spike_codec")
PROFILE = REPOSITORY / "profiles" / "bgp.toml"
LOCAL_PROFILE = REPOSITORY / "profiles" / "local.toml"
BGP_CLOCK_MHZ = 850.0  # Hines et al. 2011: BG/P cores at 850 MHz (profiles/bgp.toml)
FULL_MESSAGE_BYTES = 16  # the spike_message multisend and persistent sent before the codec
RATES_HZ = (5.0, 0.5)
ROUNDS = 3  # runs of the binary per rate, each the best of its repeats
QUESTION = (
    "Encode + decode ns per spike of the spike wire codec against the time its saved bytes "
    "are worth at profiles/bgp.toml's byte cost (issue 21: the cost must be less)"
)


def clock_mhz() -> float | None:
    """This machine's clock from /proc/cpuinfo (the first ``cpu MHz``), if it says."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("cpu mhz"):
                return float(line.split(":")[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def run_binary(binary: Path, spikes: int, repeats: int, rate_hz: float) -> dict:
    command = [str(binary), "--spikes", str(spikes), "--repeats", str(repeats),
               "--rate-hz", f"{rate_hz:g}"]  # fmt: skip
    print(" ".join(command), file=sys.stderr, flush=True)
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"spike_codec: {' '.join(command)} failed: {done.stderr.strip()}")
    return json.loads(done.stdout)


def best_of_rounds(rounds: list[dict]) -> dict:
    """One run from several of the same cases: every *_ns the least of the rounds (each
    already the best of its repeats), everything else (bytes, counts) the same in each."""

    def merge(values: list, key: str = ""):
        first = values[0]
        if isinstance(first, dict):
            return {k: merge([v[k] for v in values], k) for k in first}
        if isinstance(first, list):
            return [merge(list(items), key) for items in zip(*values, strict=True)]
        if key.endswith("_ns"):
            return min(values)
        if any(v != first for v in values):
            sys.exit(f"spike_codec: rounds differ in {key}: {values}")
        return first

    best = merge(rounds)
    best["rounds"] = len(rounds)
    return best


def evaluate(case: dict, ns_per_byte: float, local_ns_per_byte: float, clock_ratio: float) -> None:
    """Adds the saved bytes, their worth and the conditions to one case of the binary."""
    coded, ordered, entries = case["coded"], case["coded_cell_order"], case["entries"]
    saved = entries["bytes_per_spike"] - coded["bytes_per_spike"]
    encode, decode = coded["encode_ns"], coded["decode_ns"]
    # Allgather blocks hold a rank's own spikes as the engine emits them (cell order within
    # a step: the keys ascend and the encoder skips its sort).
    ag_encode, ag_decode = ordered["encode_ns"], ordered["decode_ns"]

    net = ag_encode + ag_decode - entries["encode_ns"] - entries["decode_ns"]

    def conditions(scale: float, byte_ns: float) -> dict:
        worth = saved * byte_ns
        return {
            "saved_ns_per_copy": worth,
            "block_pays": (ag_encode + ag_decode) * scale < worth,
            "block_pays_any_order": (encode + decode) * scale < worth,
            "block_pays_net": net * scale < worth,
            "allgather_p2_pays": (ag_encode + 2 * ag_decode) * scale < worth,
            "allgather_per_copy_pays": ag_decode * scale < worth,
        }

    case["blocks"] = {
        "saved_bytes_per_copy": saved,
        "codec_ns": ag_encode + ag_decode,
        "codec_ns_any_order": encode + decode,
        "codec_ns_net": net,
        **conditions(1.0, ns_per_byte),
        "at_bgp_clock": conditions(clock_ratio, ns_per_byte) if clock_ratio else None,
        "at_local_profile": conditions(1.0, local_ns_per_byte),
    }

    def one_cost(saved: float, cost: float) -> dict:
        """A codec cost per spike (or item) against the bytes it saves, at each byte cost."""
        worth = saved * ns_per_byte
        return {
            "saved_bytes": saved,
            "codec_ns": cost,
            "saved_ns": worth,
            "pays": cost < worth,
            "pays_at_bgp_clock": cost * clock_ratio < worth if clock_ratio else None,
            "pays_at_local_profile": cost < saved * local_ns_per_byte,
        }

    routed = case.get("routed_buckets")
    if routed:
        saved_item_bytes = routed["item_bytes"] - routed["bytes_per_item"]
        case["routed_hop"] = one_cost(
            saved_item_bytes,
            routed["encode_ns"] + routed["deliver_ns"] - routed["item_arrival_ns"],
        )
        case["routed_forwarding_hop"] = one_cost(
            saved_item_bytes, routed["encode_ns"] + routed["decode_ns"]
        )
    messages = case.get("messages")
    if messages:
        case["one_spike_messages"] = one_cost(
            FULL_MESSAGE_BYTES - messages["bytes_per_spike"],
            messages["encode_ns"] + messages["decode_ns"],
        )


def find_binary(given: Path | None) -> Path:
    candidates = [given] if given else [REPOSITORY / b for b in BINARIES]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    sys.exit(
        f"spike_codec: no bench_spike_codec at {', '.join(map(str, candidates))}; "
        "build it with `make bench-codec`"
    )


def measure(binary: Path, spikes: int, repeats: int) -> dict:
    profile, local = load_profile(PROFILE), load_profile(LOCAL_PROFILE)
    ns_per_byte = 1e9 / profile.bandwidth_bytes_per_s
    local_ns_per_byte = 1e9 / local.bandwidth_bytes_per_s
    mhz = clock_mhz()
    clock_ratio = mhz / BGP_CLOCK_MHZ if mhz else None
    load_start = machine()["load_average"]
    started = time.perf_counter()
    # Rounds interleaved over the rates: this virtual machine's speed changes for seconds
    # at a time, longer than a case's repeats take.
    rounds: dict[float, list[dict]] = {rate: [] for rate in RATES_HZ}
    for _ in range(ROUNDS):
        for rate in RATES_HZ:
            rounds[rate].append(run_binary(binary, spikes, repeats, rate))
    runs = []
    for rate in RATES_HZ:
        run = best_of_rounds(rounds[rate])
        for case in run["cases"]:
            evaluate(case, ns_per_byte, local_ns_per_byte, clock_ratio)
        runs.append(run)
    return {
        "question": QUESTION,
        "date_utc": datetime.now(UTC).strftime("%Y-%m-%d %H:%M"),
        "machine": {**machine(), "load_average_start": load_start, "clock_mhz": mhz},
        "seconds": round(time.perf_counter() - started, 1),
        "binary": str(
            binary.relative_to(REPOSITORY) if binary.is_relative_to(REPOSITORY) else binary
        ),
        "byte_cost": {
            "profile": str(PROFILE.relative_to(REPOSITORY)),
            "term": "[point_to_point] bandwidth_bytes_per_s",
            "bandwidth_bytes_per_s": profile.bandwidth_bytes_per_s,
            "ns_per_byte": ns_per_byte,
            "why": (
                "the profile's only per-byte term; the time model charges it for the bytes a "
                "rank receives in Allgather and Alltoall(v) and for routed bytes (Bruck's "
                "Alltoall charges more per byte), so it is the least a byte is worth there"
            ),
            "bgp_clock_mhz": BGP_CLOCK_MHZ,
            "clock_ratio": clock_ratio,
            "local_profile": str(LOCAL_PROFILE.relative_to(REPOSITORY)),
            "local_ns_per_byte": local_ns_per_byte,
        },
        "full_message_bytes": FULL_MESSAGE_BYTES,
        "runs": runs,
    }


# --- the docs block ------------------------------------------------------------------------


def _yes(value: bool | None) -> str:
    return "–" if value is None else ("yes" if value else "**no**")


def _cells(n: int) -> str:
    return f"{n // 1_000_000}M" if n >= 1_000_000 else f"{n // 1000}K"


def _table(columns: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table: the header, its rule, one line per row."""
    return [
        "| " + " | ".join(columns) + " |",
        "|" + "---|" * len(columns),
        *("| " + " | ".join(row) + " |" for row in rows),
    ]


def _case_cells(case: dict) -> list[str]:
    return [_cells(case["cells_per_rank"]), str(case["steps_per_interval"])]


def _block_table(run: dict) -> list[str]:
    columns = [
        "cells per rank", "M", "spikes per block", "bytes/spike", "encode ns (random, cell order)",
        "decode ns", "8-byte entries enc + dec ns", "saved bytes", "saved ns", "block pays",
        "Allgather P = 2 pays", "Allgather per copy pays", "all three at 850 MHz",
    ]  # fmt: skip
    keys = ("block_pays", "allgather_p2_pays", "allgather_per_copy_pays")
    rows = []
    for case in run["cases"]:
        c, o, e, b = case["coded"], case["coded_cell_order"], case["entries"], case["blocks"]
        slow = b["at_bgp_clock"]
        rows.append([
            *_case_cells(case),
            f"{case['spikes_per_block']:,.2f}",
            f"{c['bytes_per_spike']:.2f}",
            f"{c['encode_ns']:.1f}, {o['encode_ns']:.1f}",
            f"{c['decode_ns']:.1f}",
            f"{e['encode_ns'] + e['decode_ns']:.1f}",
            f"{b['saved_bytes_per_copy']:.2f}",
            f"{b['saved_ns_per_copy']:.1f}",
            *(_yes(b[k]) for k in keys),
            "–" if slow is None else ", ".join(_yes(slow[k]) for k in keys),
        ])  # fmt: skip
    return _table(columns, rows)


def _message_table(run: dict) -> list[str]:
    columns = [
        "cells per rank", "M", "bytes per message", "encode ns", "decode ns", "saved bytes",
        "saved ns", "pays", "at 850 MHz",
    ]  # fmt: skip
    rows = []
    for case in run["cases"]:
        m, o = case["messages"], case["one_spike_messages"]
        rows.append([
            *_case_cells(case),
            f"{m['bytes_per_spike']:.2f}", f"{m['encode_ns']:.1f}", f"{m['decode_ns']:.1f}",
            f"{o['saved_bytes']:.2f}", f"{o['saved_ns']:.1f}",
            _yes(o["pays"]), _yes(o["pays_at_bgp_clock"]),
        ])  # fmt: skip
    return _table(columns, rows)


def _routed_table(run: dict) -> list[str]:
    columns = [
        "cells per rank", "M", "items per bucket", "packed", "item bytes", "coded bytes per item",
        "encode ns", "delivery ns", "item's own ns", "net ns", "saved ns", "pays", "at 850 MHz",
        "at local.toml", "decode ns", "forwarding hop pays",
    ]  # fmt: skip
    rows = []
    for case in run["cases"]:
        r, h, f = case["routed_buckets"], case["routed_hop"], case["routed_forwarding_hop"]
        rows.append([
            *_case_cells(case), f"{r['mean_bucket_items']:.1f}",
            f"{100 * r['packed_share']:.0f} %", str(r["item_bytes"]),
            f"{r['bytes_per_item']:.2f}", f"{r['encode_ns']:.1f}", f"{r['deliver_ns']:.1f}",
            f"{r['item_arrival_ns']:.1f}", f"{h['codec_ns']:.1f}", f"{h['saved_ns']:.1f}",
            _yes(h["pays"]), _yes(h["pays_at_bgp_clock"]), _yes(h["pays_at_local_profile"]),
            f"{r['decode_ns']:.1f}", _yes(f["pays"]),
        ])  # fmt: skip
    return _table(columns, rows)


def _count(cases: list[dict], test) -> str:
    return f"{sum(1 for case in cases if test(case))} of {len(cases)}"


def _load(values: list[float]) -> str:
    return ", ".join(f"{v:g}" for v in values)


def docs_block(results: dict) -> str:
    m, cost, first = results["machine"], results["byte_cost"], results["runs"][0]
    start, end = m["load_average_start"], m["load_average"]
    clock = f"{m['clock_mhz']:.0f} MHz" if m.get("clock_mhz") else "clock unknown"
    loaded = max(start[0], end[0]) >= 0.5 * m["cpus"]
    intro = (
        f"Measured by `make bench-codec` (`bench/spike_codec.py`, {results['date_utc']} UTC) on "
        f"{m.get('cpu') or m['processor']}, {m['cpus']} cores, {clock}; load average (1, 5, 15 min) "
        f"{_load(start)} at the start and {_load(end)} at the end"
        + (" (other work shared the cores: read the ns as upper bounds)" if loaded else "")
        + f". Best of {first.get('rounds', 1)} runs (interleaved over the rates) of "
        f"{first['repeats']} repeats each, {first['spikes_per_case']:,} spikes per "
        f"case, dt = 0.1 ms. Byte cost: `{cost['profile']}` {cost['term']} = "
        f"{cost['bandwidth_bytes_per_s'] / 1e6:g} MB/s, {cost['ns_per_byte']:.2f} ns per byte. "
        "*Saved* is against 8-byte entries (`compress = false`; NEST's entry size) per copy "
        "of a spike. Encode is timed with each step's spikes in random cell order (the encoder "
        "sorts them) and in cell order (what the engine emits: each thread's contiguous cells in "
        "order, threads in order; the encoder finds the keys ascending and skips the sort). "
        "*Block pays*: encode (cell order) + decode < saved ns (a rank pair's block: alltoall, "
        "alltoallv, whose entries reach the encoder in key order: the receiver numbers its "
        "locations from a sender in the sender's local order); *Allgather P = 2*: "
        "encode (cell order: an Allgather block holds the rank's own spikes as emitted) + 2 "
        "decode < saved ns; *per copy*: decode < saved ns (Allgather as P grows)."
    )
    if cost.get("clock_ratio"):
        intro += (
            " The last column repeats the three with the ns scaled to the BG/P cores' 850 MHz "
            f"(× {cost['clock_ratio']:.2f})."
        )
    lines = [intro, ""]
    for run in results["runs"]:
        lines += [f"Blocks at {run['rate_hz']:g} Hz per cell:", "", *_block_table(run), ""]
    lines += [
        (
            f"One-spike messages (multisend, persistent) at {first['rate_hz']:g} Hz: one spike "
            "alone as OpenMPI carries it (4 tag bits and the offset in the bytes, the item in "
            "the MPI tag), against the 16-byte message of the first version (timed: the codec's "
            "part only):"
        ),
        "",
        *_message_table(first),
        "",
    ]
    routed = first["cases"][0]["routed_buckets"]
    lines += [
        (
            f"Routed buckets at {first['rate_hz']:g} Hz (`routed_bucket_codec`, P = "
            f"{routed['ranks']} on the default direct grid, at most {routed['bucket_items']} "
            "items per bucket with the default budget of 1,024): a rank's spikes of each "
            "interval as above, in emission order, every spike bound for every rank (thousands "
            "of synapses a cell), cut into buckets for one destination, the last one sent when "
            "the interval ends; cells round robin (gid = local index x P + rank). Per item and "
            "hop, against the item as it is (`routed_item.hpp`). *packed*: the share of buckets "
            "sent in the packed pair form (the rest as a block of the codec). At the hop that "
            "reaches the destination (every hop of a direct grid) the codec's cost is the "
            "encode at send and the *delivery* (a packed bucket's gids and steps handed to the "
            "exchange without items; others decoded into items) less the *item's own* decode "
            "there, which an item sent as it is needs and a delivered one does not (*net*); at "
            "a forwarding hop (grids of more dimensions) the encode and the *decode* into "
            "items:"
        ),
        "",
        *_routed_table(first),
        "",
    ]
    cases = [case for run in results["runs"] for case in run["cases"]]
    lines.append(
        "At the bgp byte cost, of the "
        f"{len(cases)} block cases the codec pays in "
        f"{_count(cases, lambda c: c['blocks']['block_pays'])} for a rank pair's block "
        f"({_count(cases, lambda c: c['blocks']['block_pays_any_order'])} with its spikes in random order), "
        f"{_count(cases, lambda c: c['blocks']['allgather_p2_pays'])} for Allgather on P = 2 "
        f"and {_count(cases, lambda c: c['blocks']['allgather_per_copy_pays'])} per received "
        f"Allgather copy (net of the 8-byte entries' own copying, a rank pair's block pays in "
        f"{_count(cases, lambda c: c['blocks']['block_pays_net'])}); one-spike messages pay in "
        f"{_count(first['cases'], lambda c: c['one_spike_messages']['pays'])}. At 850 MHz: "
        f"{_count(cases, lambda c: (c['blocks']['at_bgp_clock'] or {}).get('block_pays'))}, "
        f"{_count(cases, lambda c: (c['blocks']['at_bgp_clock'] or {}).get('allgather_p2_pays'))}"
        ", "
        f"{_count(cases, lambda c: (c['blocks']['at_bgp_clock'] or {}).get('allgather_per_copy_pays'))}"
        " and "
        f"{_count(first['cases'], lambda c: c['one_spike_messages']['pays_at_bgp_clock'])}. "
        "Routed buckets pay in "
        f"{_count(first['cases'], lambda c: c['routed_hop']['pays'])} cases at the hop that "
        "reaches the destination "
        f"({_count(first['cases'], lambda c: c['routed_hop']['pays_at_bgp_clock'])} at 850 MHz) "
        f"and in {_count(first['cases'], lambda c: c['routed_forwarding_hop']['pays'])} at a "
        "forwarding hop."
    )
    lines.append("")
    lines.append(
        f"At `{cost['local_profile']}`'s byte cost ({cost['local_ns_per_byte']:.3f} ns per "
        "byte: shared memory on this machine) the codec pays in "
        f"{_count(cases, lambda c: c['blocks']['at_local_profile']['block_pays'])} block cases, "
        f"{_count(cases, lambda c: c['blocks']['at_local_profile']['allgather_per_copy_pays'])} "
        "Allgather per-copy cases and "
        f"{_count(first['cases'], lambda c: c['one_spike_messages']['pays_at_local_profile'])} "
        "message cases."
    )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", type=Path, help="bench_spike_codec [build/bench/cpp/...]")
    parser.add_argument("--spikes", type=int, default=4_000_000, help="spikes per case [4e6]")
    parser.add_argument("--repeats", type=int, default=5, help="best of R [5]")
    parser.add_argument("--quick", action="store_true", help="2e4 spikes, 1 repeat, printed only")
    parser.add_argument("--docs", action="store_true", help="only rewrite the docs block")
    parser.add_argument("--check-docs", action="store_true", help="exit 1 if the block is stale")
    args = parser.parse_args()
    if args.docs or args.check_docs:
        return docs_from_results(OUTPUT, docs_block, BLOCK, DOC, "spike_codec.py", args.check_docs)
    binary = find_binary(args.binary)
    spikes, repeats = (20_000, 1) if args.quick else (args.spikes, args.repeats)
    results = measure(binary, spikes, repeats)
    if args.quick:
        print(docs_block(results))
        return 0
    OUTPUT.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    changed = write_block(docs_block(results), BLOCK, DOC)
    print(f"{OUTPUT.relative_to(REPOSITORY)} written ({results['seconds']} s); "
          f"{DOC.relative_to(REPOSITORY)} {'updated' if changed else 'unchanged'}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
