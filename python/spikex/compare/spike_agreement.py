"""Which runs of a comparison must give the same spikes, and whether they do.

The contract: the same network and seed give the same ``spikes_sha256`` for every rank
count, thread count, cell distribution and exchange method. Two runs simulate the same
network when their ``[simulation]`` and ``[network]`` sections are equal (the other
sections choose *how* it is simulated). A plain comparison is one network; a weak-scaling
comparison (``--per-rank network.cells=...``) is one network per rank count, and a method
variant that sets a network key is a network of its own. Within each network every run
must agree.
"""

from __future__ import annotations

import json

# Sections of the configuration that define the network and hence the spikes.
NETWORK_SECTIONS = ("simulation", "network")


def network_identity(config: dict | None) -> str:
    """A canonical text of the sections that determine the spikes."""
    config = config or {}
    return json.dumps({name: config.get(name) for name in NETWORK_SECTIONS}, sort_keys=True)


def hash_groups(runs: list[dict]) -> list[dict]:
    """Runs grouped by ``spikes_sha256``, the largest group first.

    Parameters
    ----------
    runs : list of dict
        Each with ``name``, ``spikes_sha256`` and ``spikes_total``.

    Returns
    -------
    list of dict
        ``{"spikes_sha256", "spikes_total", "runs": [names]}``; one entry when all agree.
    """
    groups: dict[str, dict] = {}
    for run in runs:
        group = groups.setdefault(
            run["spikes_sha256"],
            {
                "spikes_sha256": run["spikes_sha256"],
                "spikes_total": run["spikes_total"],
                "runs": [],
            },
        )
        group["runs"].append(run["name"])
    return sorted(groups.values(), key=lambda group: -len(group["runs"]))


def network_groups(runs: list[dict], configs: list[dict | None]) -> list[dict]:
    """The runs per network, each with its hash check.

    Parameters
    ----------
    runs : list of dict
        Run entries (``name``, ``spikes_sha256``, ``spikes_total``).
    configs : list of dict
        The resolved configuration of each run, same order.

    Returns
    -------
    list of dict
        In order of first run: ``label`` (the network keys that differ between the
        networks, e.g. ``network.cells=3072``; "" for a single network), ``runs``,
        ``spikes_agree``, ``spikes_sha256`` (None when they differ) and ``hash_groups``.
    """
    members: dict[str, list[int]] = {}
    for index, config in enumerate(configs):
        members.setdefault(network_identity(config), []).append(index)
    identities = list(members)
    labels = _distinguishing_labels([json.loads(identity) for identity in identities])
    groups = []
    for identity, label in zip(identities, labels, strict=True):
        group_runs = [runs[index] for index in members[identity]]
        hashes = hash_groups(group_runs)
        groups.append(
            {
                "label": label,
                "runs": [run["name"] for run in group_runs],
                "spikes_agree": len(hashes) == 1,
                "spikes_sha256": hashes[0]["spikes_sha256"] if len(hashes) == 1 else None,
                "hash_groups": hashes,
            }
        )
    return groups


def mismatch_report(networks: list[dict]) -> list[str]:
    """Lines naming the runs that disagree (empty when every network's runs agree)."""
    lines = []
    for network in networks:
        groups = network["hash_groups"]
        if len(groups) <= 1:
            continue
        where = f" ({network['label']})" if network["label"] else ""
        lines.append(
            f"SPIKES DIFFER{where}: {len(groups)} different spikes_sha256 among the "
            f"{len(network['runs'])} runs of the same network"
        )
        reference = groups[0]
        lines.append(
            f"  {reference['spikes_sha256'][:12]} ({reference['spikes_total']} spikes): "
            + ", ".join(reference["runs"])
        )
        for group in groups[1:]:
            lines.append(
                f"  {group['spikes_sha256'][:12]} ({group['spikes_total']} spikes) MISMATCH: "
                + ", ".join(group["runs"])
            )
    return lines


def _distinguishing_labels(networks: list[dict]) -> list[str]:
    """Per network, the dotted keys whose values differ between networks."""
    flat = [_flatten(network) for network in networks]
    if len(flat) <= 1:
        return [""] * len(flat)
    keys = sorted({key for items in flat for key in items})
    differing = [key for key in keys if len({repr(items.get(key)) for items in flat}) > 1]
    return [", ".join(f"{key}={items.get(key)}" for key in differing) for items in flat]


def _flatten(table: dict, prefix: str = "") -> dict:
    out = {}
    for key, value in (table or {}).items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flatten(value, path + "."))
        else:
            out[path] = value
    return out
