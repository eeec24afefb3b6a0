"""docs/dev/architecture.md covers the code as it is (issue 52: it left out route/, gups/,
pynn/ and stdp_synapse and named paths outside the repository), and the dry-run
counting rules are where the docs say."""

from __future__ import annotations

import re

from conftest import REPO

DOC = (REPO / "docs" / "dev" / "architecture.md").read_text(encoding="utf-8")


def test_every_cpp_layer_and_python_subpackage_is_described():
    for folder in sorted(p for p in (REPO / "cpp" / "spikex").iterdir() if p.is_dir()):
        assert f"`cpp/spikex/{folder.name}/`" in DOC, f"cpp/spikex/{folder.name}/ is not in architecture.md"
    for folder in sorted(p for p in (REPO / "python" / "spikex").iterdir() if (p / "__init__.py").exists()):
        assert f"`{folder.name}/`" in DOC, f"python/spikex/{folder.name}/ is not in architecture.md"
    for synapse in (REPO / "cpp" / "spikex" / "synapses").glob("stdp_*.hpp"):
        assert f"`{synapse.stem}`" in DOC, f"{synapse.stem} is not in architecture.md"


def test_it_names_no_path_outside_the_repository():
    assert not re.search(r"\.\./shared|`shared/|`spec/", DOC)


def test_the_counting_rules_are_where_the_docs_say():
    counts = (REPO / "cpp" / "spikex" / "dryrun" / "exchange_counts.cpp").read_text(encoding="utf-8")
    walk = (REPO / "docs" / "dev" / "adding_a_method.md").read_text(encoding="utf-8")
    assert "dryrun/exchange_counts.cpp" in walk
    for rule in re.findall(r"`(count_\w+)`", walk):
        if rule != "count_gather":  # the walk-through's example method
            assert re.search(rf"^void {rule}\(count_view&", counts, re.M), rule
