"""The documentation site's registry pages (docs/generate.py, docs/dev/documentation.md):
every model, synapse type, exchange method and configuration key has its page, and every
page generated from a registry is what the registry gives now. The Sphinx build itself
(warnings as errors, the gallery, the link check) is `make test-docs`."""

from __future__ import annotations

import importlib.util
import shutil

import pytest
from conftest import REPO

spec = importlib.util.spec_from_file_location("docs_generate", REPO / "docs" / "generate.py")
generate = importlib.util.module_from_spec(spec)
spec.loader.exec_module(generate)


def test_every_registry_entry_has_its_page_and_no_generated_page_is_stale():
    assert generate.problems() == [], "run `python docs/generate.py`"


def test_every_model_and_method_page_is_in_the_sites_table_of_contents():
    from spikex.methods import METHODS
    from spikex.models import MODELS

    models = (REPO / generate.MODELS_INDEX).read_text(encoding="utf-8")
    toc = models.split("<!-- generated: model pages -->")[1]
    for name, entry in MODELS.items():
        page = entry["docs_page"].removeprefix("docs/models/").removesuffix(".md")
        assert f"\n{page}\n" in toc, f"model {name}: {page} not in {generate.MODELS_INDEX}"
        assert f"| `{name}` |" in models, f"model {name} not in {generate.MODELS_INDEX}'s table"
    methods = (REPO / generate.METHODS_INDEX).read_text(encoding="utf-8")
    for name, entry in METHODS.items():
        assert f"\n{entry['docs_page']}\n" in methods.split("<!-- generated: method pages -->")[1]
        assert f"| `{name}` |" in methods, f"method {name} not in {generate.METHODS_INDEX}"


def test_a_model_without_a_page_is_reported(monkeypatch):
    from spikex.models import MODELS

    monkeypatch.setitem(
        MODELS,
        "no_such_model",
        dict(MODELS["iaf_cond_exp"], docs_page="docs/models/no_such_model.md"),
    )
    assert "model no_such_model: no page docs/models/no_such_model.md" in generate.problems()
    # A page that does not hold the model's parameter table is as bad as none.
    monkeypatch.setitem(MODELS, "no_such_model", dict(MODELS["iaf_cond_exp"], name="no_such_model"))
    assert any(
        "model no_such_model:" in p and "no parameter table" in p for p in generate.problems()
    )


def test_a_method_without_a_page_is_reported(monkeypatch):
    from spikex.methods import METHODS

    monkeypatch.setitem(
        METHODS, "no_such_method", dict(METHODS["allgather"], docs_page="no_such_method")
    )
    assert (
        "exchange method no_such_method: no page docs/methods/no_such_method.md"
        in generate.problems()
    )


def test_a_configuration_key_without_a_row_is_reported(monkeypatch):
    from spikex.config import registry
    from spikex.config.key import Key

    key = Key("network.no_such_key", "int", 0, "A key nobody documented.")
    monkeypatch.setattr(registry, "REGISTRY", (*registry.REGISTRY, key))
    assert (
        "configuration key network.no_such_key: not in docs/user/config.md" in generate.problems()
    )


def test_a_stale_generated_page_is_reported(tmp_path):
    for folder in ("models", "methods", "user"):
        shutil.copytree(REPO / "docs" / folder, tmp_path / "docs" / folder)
    assert generate.problems(tmp_path) == []
    page = tmp_path / "docs" / "models" / "iaf_cond_exp.md"
    text = page.read_text(encoding="utf-8")
    assert "| `C_m` | pF | 250 |" in text
    page.write_text(text.replace("| `C_m` | pF | 250 |", "| `C_m` | pF | 251 |"), encoding="utf-8")
    assert generate.problems(tmp_path) == [
        "docs/models/iaf_cond_exp.md is stale: run `python docs/generate.py`"
    ]
    index = tmp_path / generate.METHODS_INDEX
    index.write_text(
        index.read_text(encoding="utf-8").replace("| `rma` |", "| `rma2` |"), encoding="utf-8"
    )
    assert f"{generate.METHODS_INDEX} is stale: run `python docs/generate.py`" in generate.problems(
        tmp_path
    )


def test_missing_markers_are_an_error(tmp_path):
    with pytest.raises(ValueError, match="generated: model table"):
        generate._block("no markers", "model table", "x", "page.md")


def test_the_readmes_links_lead_to_files_and_headings_that_exist():
    """The README is the front page (issue 58): every relative link into the docs holds."""
    import re

    text = (REPO / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert len(links) >= 10
    for link in links:
        if link.startswith(("http://", "https://")):
            continue
        path, _, anchor = link.partition("#")
        assert (REPO / path).exists(), f"README.md links {link}: no such file"
        if anchor:
            headings = re.findall(
                r"^#+ (.+)$", (REPO / path).read_text(encoding="utf-8"), re.MULTILINE
            )
            slugs = {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-") for h in headings}
            assert anchor in slugs, f"README.md links {link}: no heading {anchor!r} in {path}"


def test_the_readme_stays_a_front_page():
    size = len((REPO / "README.md").read_bytes())
    assert size <= 5500, f"README.md is {size} bytes: move detail into docs/ (issue 58: about 5 KB)"


def test_the_readmes_example_runs(tmp_path):
    """The front page's one example, as it stands, runs and prints its population's rate."""
    import re
    import subprocess
    import sys

    text = (REPO / "README.md").read_text(encoding="utf-8")
    (example,) = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    script = tmp_path / "net.py"
    script.write_text(example, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, str(script)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    assert 0.0 < float(run.stdout.split()[-1]) < 200.0, run.stdout


def test_a_network_model_without_a_page_is_reported(monkeypatch):
    from spikex.models import NETWORK_MODELS

    monkeypatch.setitem(NETWORK_MODELS, "no_such_network", "A network nobody documented.")
    assert (
        "network model no_such_network: no page docs/models/no_such_network.md"
        in generate.problems()
    )
