"""Sphinx configuration of spikex's documentation site (docs/dev/documentation.md).

`make docs` regenerates the registry pages (docs/generate.py) and then runs
``sphinx-build -W`` with this file: MyST-Parser reads the Markdown pages under docs/,
napoleon the NumPy-style docstrings, sphinx-click the CLI, sphinx-gallery runs the
scripts of examples/gallery/.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

DOCS = Path(__file__).resolve().parent
REPO = DOCS.parent

# The version's one place (pyproject.toml reads it from there too); read, not imported: the
# docs build needs no compiled extension for it.
__version__ = re.search(r'^__version__ = "(.+)"$', (REPO / "python" / "spikex" / "version.py").read_text(), re.M)[1]

project = "spikex"
author = "the spikex developers"
copyright = "the spikex developers, MIT licence"
version = release = __version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "sphinx_click",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "gallery/*.ipynb", "gallery/*.py", "gallery/*.md5"]

myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 3
myst_url_schemes = ["http", "https", "mailto"]
suppress_warnings = ["myst.header"]

napoleon_google_docstring = False
napoleon_numpy_docstring = True
# Attributes as :ivar: fields: a dataclass's fields are documented once, in its docstring.
napoleon_use_ivar = True
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}

html_theme = "alabaster"
html_title = f"spikex {release}"
html_theme_options = {
    "description": "spike exchange for distributed simulation",
    "fixed_sidebar": True,
}
html_sidebars = {"**": ["about.html", "searchfield.html", "navigation.html", "relations.html"]}

# The gallery: small scripts, seconds each, run at every build (SPIKEX_DOCS_NO_GALLERY=1
# skips running them while writing prose).
sphinx_gallery_conf = {
    "examples_dirs": str(REPO / "examples" / "gallery"),
    "gallery_dirs": "gallery",
    "filename_pattern": r"/plot_",
    "plot_gallery": "False" if os.environ.get("SPIKEX_DOCS_NO_GALLERY") else "True",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "abort_on_example_error": True,
}

linkcheck_ignore = [r"https?://.*"]  # no internet guaranteed: only internal links checked
