"""A metric's name is written where it is defined and in the registry, nowhere else.

Every module of ``metrix`` is read (its string constants, docstrings left out) for
the names the registry gives a metric: its short key, ``evaluate``'s name, its
stream spec's name and its aliases.  A module may write one when it defines the
metric: the family package of its public function (``metrix.ranking`` for
``roc_auc``) or the module of its ``metrix.stream`` class.  Anywhere else a name
is a table that the registry should hold: derive it from a field of the entry
(``names(path="ranking")``, ``e.buffered``, ``e.complement``).  The few modules
that still write one are listed below, each with its names and why; the test
fails on a name that appears elsewhere, and on a listed name that is gone (so
the list only shrinks).
"""

from __future__ import annotations

import ast
import pathlib

import metrix
import metrix.stream
from metrix.registry import REGISTRY

ROOT = pathlib.Path(metrix.__file__).parent

#: the stream specs: the classes behind ``metrix.stream``'s metrics, one per kind of
#: state, which take a metric's name as their ``metric=`` (the name is their API)
STREAM_SPECS = {
    "metrix.stream._label": "LabelStream: one confusion matrix (metric=)",
    "metrix.stream._multilabel": "MultilabelStream: per-label counts (metric=)",
    "metrix.stream._regression": "RegressionStream: the regression sums (metric=)",
    "metrix.stream._ranking": "RankingStream: the ranking curves (metric=)",
    "metrix.stream._probabilistic": "LogLossStream and the probability streams",
    "metrix.stream._clustering": "the contingency-table streams",
    "metrix.stream._retrieval": "the retrieval streams (ndcg, precision@k, recall@k)",
    "metrix.stream._segmentation": "the segmentation streams (pixel accuracy)",
    "metrix.stream._scores": "LikelihoodRatiosStream: a LabelStream (metric=) of 2 classes",
}

#: module -> (the names it still writes, why)
ALLOWED = {
    # -- not a metric's name: a word that is also one -----------------------------
    "metrix.pairwise.kernels": ({"gamma"}, "the kernels' gamma parameter"),
    "metrix.pairwise.reductions": ({"gamma", "hamming", "jaccard"},
                                   "the distances' names and the kernels' gamma"),
    "metrix.pairwise._blocks": ({"hamming", "jaccard"}, "the distances' formulas, by name"),
    "metrix.pairwise.distance_metric": ({"hamming", "jaccard"},
                                        "DistanceMetric.get_metric's names"),
    "metrix.clustering.unsupervised": ({"hamming", "jaccard"}, "distance names"),
    "metrix.clustering.bicluster": ({"jaccard"}, "consensus_score's similarity"),
    "metrix.evaluation.intervals": ({"poisson"}, "the Poisson bootstrap's name"),
    "metrix.cli._batched": ({"poisson"}, "the Poisson bootstrap's name"),
    "metrix.ranking.thresholds": ({"precision", "recall"},
                                  "the operating points' curve axes"),
    "metrix.retrieval.at_k": ({"precision", "recall"}, "precision@k / recall@k"),
    "metrix.segmentation.metrics": ({"accuracy", "recall"}, "pixel accuracy's reading"),
    # -- written classes and faces -------------------------------------------------
    "metrix.cli._report": ({"accuracy", "precision", "recall"},
                           "scikit-learn's text layout: column headings, accuracy line"),
    "metrix.cli.demo": ({"accuracy"}, "the demo's printed metric"),
}


def _names():
    return {n for e in REGISTRY for n in (e.key, e.evaluate, e.spec, *e.aliases) if n}


def _homes():
    """name -> the modules and packages that define it."""
    homes: dict[str, set[str]] = {}
    for e in REGISTRY:
        where = {getattr(metrix, e.function).__module__.rpartition(".")[0]}
        if e.stream:
            where.add(getattr(metrix.stream, e.stream).__module__)
        for n in (e.key, e.evaluate, e.spec, *e.aliases):
            if n:
                homes.setdefault(n, set()).update(where)
    return homes


def _docstrings(tree):
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                 ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)}


def _written():
    """module -> the registered names it writes outside their homes."""
    names, homes, out = _names(), _homes(), {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        if module == "metrix.registry" or module in STREAM_SPECS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        found = {node.value for node in ast.walk(tree)
                 if isinstance(node, ast.Constant) and isinstance(node.value, str)
                 and id(node) not in docs and node.value in names
                 and not any(module == h or module.startswith(h + ".")
                             for h in homes[node.value])}
        if found:
            out[module] = found
    return out


def test_metric_names_are_written_where_defined_and_in_the_registry():
    written = _written()
    unlisted = {m: sorted(found - ALLOWED.get(m, (set(), ""))[0])
                for m, found in written.items()}
    unlisted = {m: v for m, v in unlisted.items() if v}
    assert not unlisted, (
        "metric names written outside their definition and the registry; derive them "
        f"from a registry field (metrix/registry.py) instead: {unlisted}")


def test_the_list_of_exceptions_only_shrinks():
    written = _written()
    stale = {m: sorted(allowed - written.get(m, set()))
             for m, (allowed, _) in ALLOWED.items()}
    stale = {m: v for m, v in stale.items() if v}
    assert not stale, f"no longer written: remove them from ALLOWED: {stale}"


def test_every_exception_says_why():
    assert all(reason for _, reason in ALLOWED.values())
    assert all(reason for reason in STREAM_SPECS.values())


def test_each_stream_class_of_the_registry_is_its_metric():
    """The class an entry names exists, and agrees on whether greater is better."""
    for e in REGISTRY:
        if e.stream:
            cls = getattr(metrix.stream, e.stream)
            assert cls.higher_is_better == e.greater_is_better, e
