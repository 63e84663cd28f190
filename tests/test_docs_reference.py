"""The API reference (docs/reference/*.rst) lists every public name, by its public path.

Reads the reST sources; builds nothing, so it needs no Sphinx.
"""

from __future__ import annotations

import re
from pathlib import Path

import metrix
import metrix.dask
import metrix.pairwise
import metrix.stream

DOCS = Path(__file__).resolve().parents[1] / "docs"
REFERENCE = DOCS / "reference"
PUBLIC_MODULES = ("metrix", "metrix.stream", "metrix.dask", "metrix.pairwise")

_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+([\w:-]+)::\s*(.*?)\s*$")
# directives that document one object named in their argument
_OBJECT_DIRECTIVES = {
    "data", "function", "class", "exception", "attribute",
    "autodata", "autofunction", "autoclass", "autoexception",
    "py:data", "py:function", "py:class", "py:exception",
}


def _documented(path: Path) -> list[tuple[str, int]]:
    """(full dotted name, line) of every object a reference page documents."""
    found, module = [], None
    lines = path.read_text().splitlines()
    i = 0
    while i < len(lines):
        match = _DIRECTIVE.match(lines[i])
        i += 1
        if not match:
            continue
        indent, name, arg = len(match.group(1)), match.group(2), match.group(3)
        if name in ("currentmodule", "py:currentmodule", "module", "py:module"):
            module = arg
        elif name in _OBJECT_DIRECTIVES:
            found.append((arg if module is None else f"{module}.{arg}", i))
        elif name == "autosummary":
            while i < len(lines) and (not lines[i].strip()
                                      or len(lines[i]) - len(lines[i].lstrip()) > indent):
                entry = lines[i].strip()
                i += 1
                if entry and not entry.startswith(":"):
                    entry = entry.lstrip("~").split()[0]
                    found.append((entry if module is None else f"{module}.{entry}", i))
    return found


def _all_documented() -> dict[str, list[str]]:
    names: dict[str, list[str]] = {}
    for path in sorted(REFERENCE.rglob("*.rst")):
        if "generated" in path.relative_to(REFERENCE).parts:
            continue  # autosummary's stubs, written at build time
        for name, line in _documented(path):
            names.setdefault(name, []).append(f"{path.relative_to(DOCS)}:{line}")
    return names


def _public() -> set[str]:
    return ({f"metrix.{n}" for n in (*metrix.__all__, *metrix.DISPLAYS)}
            | {f"metrix.stream.{n}" for n in metrix.stream.__all__}
            | {f"metrix.dask.{n}" for n in metrix.dask.__all__}
            # metrix.pairwise: the names not also flat on metrix (documented there)
            | {f"metrix.pairwise.{n}" for n in metrix.pairwise.__all__
               if n not in metrix.__all__})


def test_parser_reads_the_reference():
    assert len(_all_documented()) > 50


def test_every_public_name_is_in_the_reference():
    missing = sorted(_public() - set(_all_documented()))
    assert not missing, f"public names missing from docs/reference/*.rst: {missing}"


def test_the_reference_names_public_paths_only():
    """No private or moving module path (metrix.classification, metrix.classification._encoding):
    every documented name is one of metrix.__all__ or metrix.stream.__all__."""
    public = _public()
    odd = {name: where for name, where in _all_documented().items() if name not in public}
    assert not odd, f"not public names of {PUBLIC_MODULES}: {odd}"


def test_each_name_is_documented_once():
    twice = {name: where for name, where in _all_documented().items() if len(where) > 1}
    assert not twice, f"documented on more than one page: {twice}"


def test_every_reference_page_is_in_the_toctree():
    index = (REFERENCE / "index.rst").read_text()
    pages = {p.stem for p in REFERENCE.glob("*.rst")} - {"index"}
    listed = set(re.findall(r"^\s{3}(\w+)\s*$", index, re.M))
    assert pages <= listed, f"pages not in reference/index.rst's toctree: {sorted(pages - listed)}"


def test_the_user_guide_toctree():
    """index.md lists the validation page and, by a glob, every docs/guide page."""
    index = (DOCS / "index.md").read_text()
    entries = {line.strip() for line in index.splitlines()}
    assert {"validation", "guide/*", "reference/index"} <= entries


def test_the_files_the_docs_name_exist():
    """Every repository path a page names (``tests/...py``, ``conformance/...``,
    ``bench/...``, ``metrix/...``, ``ci/...``) is a file of the repository."""
    root = DOCS.parent
    pages = [*DOCS.rglob("*.md"), root / "README.md"]
    named = re.compile(r"(?<![\w/.-])((?:tests|conformance|bench|metrix|ci)/[\w/.-]*"
                       r"\.(?:py|sh|txt|md))")
    missing = sorted({(page.relative_to(root).as_posix(), path)
                      for page in pages for path in named.findall(page.read_text())
                      if not (root / path).exists()})
    assert not missing, f"pages name files that do not exist: {missing}"
