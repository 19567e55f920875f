"""Sphinx configuration for the pranker documentation.

Build: ``sphinx-build -W --keep-going -b html docs docs/_build/html``
(needs ``pip install -e ".[docs]"``).
"""

import os
import sys

# document the source tree this file belongs to, not another installed copy
sys.path.insert(0, os.path.abspath(".."))

import pranker  # noqa: E402

project = "pranker"
author = "pranker developers"
copyright = "pranker developers"
version = release = pranker.__version__

extensions = [
    "myst_parser",
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "Thumbs.db",
    ".DS_Store",
    "*.csv",
    "calibration_table.md",
]  # included by calibration_results.md
templates_path = ["_templates"]

# MyST: ```{directive} blocks, $math$, and heading anchors for links to #sections
myst_enable_extensions = ["colon_fence", "dollarmath"]
myst_heading_anchors = 3

# autodoc / autosummary / numpydoc
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"  # numpydoc's Parameters sections say the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False


html_theme = "pydata_sphinx_theme"
html_title = f"pranker {release}"
html_theme_options = {
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "header_links_before_dropdown": 4,
}
