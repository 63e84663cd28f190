"""Sphinx configuration for the metrix site: user guide and API reference.

Build (about 15 s; CI runs exactly this, warnings are errors):

    pip install -e ".[docs]"
    sphinx-build -W --keep-going -b html docs /tmp/metrix-site

The reference names only public objects (``metrix.f1_score``,
``metrix.stream.F1Score``), never the module that defines them, so moving code
between private modules does not touch the docs.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Document the working tree even where metrix is not installed (or installed
# from another checkout).
sys.path.insert(0, str(ROOT))

import metrix  # noqa: E402

project = "metrix"
author = "the metrix developers"
copyright = "the metrix developers"
release = metrix.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "myst_parser",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence", "deflist"]

# -- autodoc / autosummary ---------------------------------------------------
# One page per public function or class under reference/generated/, as in
# scikit-learn's reference. The stubs are generated at every build (they are
# not committed: docs/reference/generated/ is a build output).
autosummary_generate = True
autosummary_generate_overwrite = True
autodoc_typehints = "none"  # numpydoc's Parameters section says the types

# -- numpydoc ------------------------------------------------------------------
numpydoc_show_class_members = False  # the class template lists members itself
numpydoc_attributes_as_param_list = False
numpydoc_xref_param_type = True
# Types in Parameters / Returns become cross-references. numpydoc's default
# aliases use :ref: and :term: roles for a few words (bool, array-like,
# sequence, ...); those warn when an inventory is unreachable (offline, CI),
# while an unresolved Python-domain role (:obj:, :class:) is silent. So every
# such word is mapped to a Python object here: online it links, offline it is
# plain text. "array" means any array-API array in metrix, not numpy.ndarray.
numpydoc_xref_aliases = {
    "bool": "bool",
    "boolean": "bool",
    "array-like": "numpy.typing.ArrayLike",
    "array_like": "numpy.typing.ArrayLike",
    "iterable": "collections.abc.Iterable",
    "sequence": "collections.abc.Sequence",
    "generator": "collections.abc.Generator",
    "scalar": "numbers.Number",
    "callable": "collections.abc.Callable",
    "ndarray": "numpy.ndarray",
    "np.ndarray": "numpy.ndarray",
    "Generator": "numpy.random.Generator",
    "Tensor": "torch.Tensor",
    "torch.Tensor": "torch.Tensor",
    "jax.Array": "jax.Array",
}
numpydoc_xref_ignore = {
    "array", "of", "or", "shape", "default", "optional", "keyword-only", "like",
    "the", "same", "as", "a", "an", "and", "any", "n_samples", "n_classes",
    "n_outputs", "n_labels", "n_thresholds", "n_queries", "n_items", "n_pairs",
    "k",
}

# A docstring or two writes |e| (absolute error) in plain text, which reST
# reads as a substitution; define it as itself until those docstrings say
# ``|e|``.
rst_epilog = """
.. |e| replace:: \\|e\\|
"""

# Docstring validation is on: "all" checks, less the ones listed below, which
# some docstrings of today fail. Each line says how many documented objects
# fail it (functions, classes, methods and attributes; an inherited method
# counts once per class page that shows it) and how many distinct docstrings
# that is. Fix those docstrings, then delete the line so the check guards
# them from then on. (ES01, EX01 and SA01 are often left off for good.)
numpydoc_validate = True
numpydoc_validation_checks = {
    "all",
    "ES01",  # no extended summary: 163 objects, 35 docstrings
    "EX01",  # no Examples section: 366 objects, 133 docstrings
    "GL02",  # closing quotes not on a line of their own: 60 objects, 10 docstrings
    "PR04",  # parameter without a type: 4
    "PR08",  # parameter description not starting with a capital: 4
    "SS02",  # summary not starting with a capital (stream *.weighted): 6
    "SS03",  # summary without a final period: 9
    "PR01",  # parameters not documented: 186 objects, 53 docstrings
    "RT01",  # no Returns section: 184 objects, 24 docstrings
    "GL08",  # no docstring: 2 objects (AUROC.update, AveragePrecision.update), 1 docstring
    "RT02",  # Returns line names the value, not only its type: 57
    "SA01",  # no See Also section: 366 objects, 133 docstrings
    "SS06",  # summary longer than one line: 54 objects, 4 docstrings
}

# -- intersphinx ---------------------------------------------------------------
# Types in Parameters / Returns link to the libraries' own pages. The
# inventories are fetched over the network at build time; CI and offline
# machines have none. Sphinx 9 reports an unreachable inventory with a
# warning that has no type (so ``suppress_warnings`` cannot name it), and
# under -W that warning would fail the build. ``setup`` below turns exactly
# that message into an info line: offline, the site builds without those
# links; online, it links. Set METRIX_DOCS_STRICT_INTERSPHINX=1 to keep it a
# warning (for a release build that must have the links).
intersphinx_mapping = {
    "python": ("https://docs.python.org/3/", None),
    "numpy": ("https://numpy.org/doc/stable/", None),
    "torch": ("https://docs.pytorch.org/docs/stable/", None),
    "jax": ("https://docs.jax.dev/en/latest/", None),
    "sklearn": ("https://scikit-learn.org/stable/", None),
}
intersphinx_timeout = 5

# -- HTML ----------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"metrix {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 4,
}
html_show_sourcelink = False


class _InventoryUnreachableIsInfo(logging.Filter):
    """Log "failed to reach any of the inventories" at INFO, not WARNING."""

    def filter(self, record: logging.LogRecord) -> bool:
        unreachable = "failed to reach any of the inventories" in str(record.msg)
        if record.levelno == logging.WARNING and unreachable:
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


GUIDE_GLOB = "guide/*"


def _drop_empty_guide_glob(app, docname, source):
    """Leave ``guide/*`` out of index's toctree while docs/guide/ has no page.

    Sphinx 9 warns of a glob that matches nothing with a warning that has no
    type (so ``suppress_warnings`` cannot name it); under -W that would fail
    the build of a tree whose guide is not written yet.
    """
    guide = Path(app.srcdir) / "guide"
    has_pages = any(p.suffix in (".md", ".rst") for p in guide.glob("*"))
    if docname == root_doc and not has_pages:
        source[0] = "\n".join(
            line for line in source[0].split("\n") if line.strip() != GUIDE_GLOB
        )


def setup(app):
    app.connect("source-read", _drop_empty_guide_glob)
    if os.environ.get("METRIX_DOCS_STRICT_INTERSPHINX") != "1":
        # the logger of sphinx.ext.intersphinx._load (Sphinx's loggers live
        # under the "sphinx." namespace)
        for name in ("sphinx.sphinx.ext.intersphinx._load", "sphinx.sphinx.ext.intersphinx"):
            logging.getLogger(name).addFilter(_InventoryUnreachableIsInfo())
