"""The documentation pages that list registry entries, generated from the registries.

A page that lists models, exchange methods or configuration keys is generated, never
typed (docs/dev/documentation.md). This script rewrites them all:

* ``docs/models/index.md``: every neuron model and device of the model registry
  (``spikex.models.MODELS``, from ``cpp/spikex/models/model_registry.cpp``), every whole
  network ``network.model`` names (``NETWORK_MODELS``) and every synapse type
  (``SYNAPSE_TYPES``), each with its sentence and its page, and the site's table of
  contents of those pages;
* ``docs/methods/index.md``: every exchange method of the method registry
  (``spikex.methods.METHODS``, from ``cpp/spikex/exchange/exchange_registry.cpp``);
* each model page's parameter tables and the connection rules' table
  (``spikex.models.reference``);
* ``docs/user/config.md``: every configuration key of the configuration registry
  (``spikex.config.registry``, rendered by ``spikex.config.markdown``).

Usage::

    python docs/generate.py           # rewrite what is stale (`make docs` runs this first)
    python docs/generate.py --check   # list what is stale or missing; exit 1 if anything

``problems()`` is what tests/python/packaging/test_docs_site.py checks.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

BEGIN = "<!-- generated: {name} -->"
END = "<!-- end generated: {name} -->"
MODELS_INDEX = "docs/models/index.md"
METHODS_INDEX = "docs/methods/index.md"
CONFIG_PAGE = "docs/user/config.md"


def _block(text: str, name: str, content: str, page: str) -> str:
    """``text`` with the block ``name`` replaced by ``content``."""
    begin, end = BEGIN.format(name=name), END.format(name=name)
    pattern = re.compile(re.escape(begin) + r"\n.*?" + re.escape(end), re.DOTALL)
    if not pattern.search(text):
        raise ValueError(f"{page} has no {begin} ... {end} block")
    return pattern.sub(lambda _: f"{begin}\n{content}{end}", text)


def _sentence(text: str) -> str:
    text = " ".join(text.split()).replace("|", "\\|")
    return text[:1].upper() + text[1:] if text else "—"


def _page_name(page: str) -> str:
    """``docs/models/x.md`` or ``x.md`` -> ``x`` (the toctree entry, relative)."""
    return Path(page).stem


def models_blocks() -> dict[str, str]:
    """The generated blocks of docs/models/index.md."""
    from spikex.models import MODELS, NETWORK_MODELS, SYNAPSE_TYPES

    kinds: dict[str, list[str]] = {}
    for name, entry in MODELS.items():
        kinds.setdefault(entry["kind"], []).append(name)
    lines = []
    for kind, names in kinds.items():
        lines += [f"### {kind.replace('_', ' ').capitalize()}s", ""]
        lines += ["| model | what it is | NEST | PyNN | page |", "|---|---|---|---|---|"]
        for name in sorted(names):
            entry = MODELS[name]
            page = _page_name(entry["docs_page"])
            pynn = ", ".join(f"`{t}`" for t in entry.get("pynn_types", [])) or "—"
            nest = f"`{entry['nest_model']}`" if entry.get("nest_model") else "—"
            lines.append(
                f"| `{name}` | {_sentence(entry['description'])} | {nest} | {pynn} | [{page}]({page}.md) |"
            )
        lines.append("")
    lines += ["### Whole networks (`network.model`)", ""]
    lines += ["| network | what it is | page |", "|---|---|---|"]
    for name, description in NETWORK_MODELS.items():
        lines.append(f"| `{name}` | {_sentence(description)} | [{name}]({name}.md) |")
    lines.append("")
    lines += ["### Synapse types", ""]
    lines += ["| synapse | what it is | page |", "|---|---|---|"]
    for name, entry in SYNAPSE_TYPES.items():
        page = _page_name(entry["docs_page"]) if entry["docs_page"] else None
        link = f"[{page}]({page}.md)" if page else "—"
        lines.append(f"| `{name}` | {_sentence(entry.get('description', ''))} | {link} |")
    lines.append("")
    pages = {_page_name(e["docs_page"]) for e in MODELS.values()}
    pages |= {_page_name(e["docs_page"]) for e in SYNAPSE_TYPES.values() if e["docs_page"]}
    # Pages of whole networks (network.model) and any other page of the folder.
    pages |= {p.stem for p in (REPO / "docs" / "models").glob("*.md") if p.stem != "index"}
    toctree = ["```{toctree}", ":maxdepth: 1", ":hidden:", "", *sorted(pages), "```", ""]
    return {"model table": "\n".join(lines), "model pages": "\n".join(toctree)}


def methods_blocks() -> dict[str, str]:
    """The generated blocks of docs/methods/index.md."""
    from spikex.methods import METHODS

    lines = ["| method | what it does | page |", "|---|---|---|"]
    for name, entry in METHODS.items():
        page = entry["docs_page"]
        lines.append(f"| `{name}` | {_sentence(entry['description'])} | [{page}]({page}.md) |")
    lines.append("")
    pages = {e["docs_page"] for e in METHODS.values()}
    pages |= {p.stem for p in (REPO / "docs" / "methods").glob("*.md") if p.stem != "index"}
    toctree = ["```{toctree}", ":maxdepth: 1", ":hidden:", "", *sorted(pages), "```", ""]
    return {"method table": "\n".join(lines), "method pages": "\n".join(toctree)}


def expected_pages(root: Path = REPO) -> dict[str, str]:
    """Every generated page's path (relative to ``root``) -> its text as it should be."""
    from spikex.config.markdown import describe
    from spikex.models import MODELS
    from spikex.models.reference import RULES_PAGE, refreshed, synapse_pages

    pages: dict[str, str] = {}
    for page, blocks in ((MODELS_INDEX, models_blocks()), (METHODS_INDEX, methods_blocks())):
        text = (root / page).read_text(encoding="utf-8")
        for name, content in blocks.items():
            text = _block(text, name, content, page)
        pages[page] = text
    for page in sorted({e["docs_page"] for e in MODELS.values()} | {RULES_PAGE} | synapse_pages()):
        path = root / page
        if path.is_file():
            pages[page] = refreshed(path.read_text(encoding="utf-8"))
    pages[CONFIG_PAGE] = describe()
    return pages


def problems(root: Path = REPO) -> list[str]:
    """What is missing or stale: a registry entry without a page, a generated page that
    differs from what the registries give now."""
    from spikex.config.registry import REGISTRY
    from spikex.methods import METHODS
    from spikex.models import MODELS, NETWORK_MODELS, SYNAPSE_TYPES
    from spikex.models.reference import marked_models

    found = []
    for name, entry in MODELS.items():
        page = root / entry["docs_page"]
        if not page.is_file():
            found.append(f"model {name}: no page {entry['docs_page']}")
        elif name not in marked_models(page.read_text(encoding="utf-8")):
            found.append(f"model {name}: {entry['docs_page']} has no parameter table of it")
    for name in NETWORK_MODELS:
        if not (root / "docs" / "models" / f"{name}.md").is_file():
            found.append(f"network model {name}: no page docs/models/{name}.md")
    for name, entry in SYNAPSE_TYPES.items():
        if entry["docs_page"] and not (root / "docs" / "models" / entry["docs_page"]).is_file():
            found.append(f"synapse {name}: no page docs/models/{entry['docs_page']}")
    for name, entry in METHODS.items():
        if not (root / "docs" / "methods" / f"{entry['docs_page']}.md").is_file():
            found.append(f"exchange method {name}: no page docs/methods/{entry['docs_page']}.md")
    config = (root / CONFIG_PAGE).read_text(encoding="utf-8")
    sections = {}
    for part in config.split("\n## [")[1:]:
        heading, _, body = part.partition("]")
        sections[heading] = body
    for key in REGISTRY:
        if f"| `{key.name}` |" not in sections.get(key.section, ""):
            found.append(f"configuration key {key.section}.{key.name}: not in {CONFIG_PAGE}")
    if found:  # the pages below cannot be generated without them
        return found
    for page, text in expected_pages(root).items():
        if (root / page).read_text(encoding="utf-8") != text:
            found.append(f"{page} is stale: run `python docs/generate.py`")
    return found


def main(argv: list[str]) -> int:
    if argv == ["--check"]:
        found = problems()
        for line in found:
            print(f"docs: {line}", file=sys.stderr)
        return 1 if found else 0
    if argv:
        print("usage: python docs/generate.py [--check]", file=sys.stderr)
        return 2
    changed = []
    for page, text in expected_pages().items():
        path = REPO / page
        if path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            changed.append(page)
    print("docs/generate.py: rewrote " + (", ".join(changed) if changed else "nothing"))
    found = problems()
    for line in found:
        print(f"docs: {line}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
