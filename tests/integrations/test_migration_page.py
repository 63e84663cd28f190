"""The migration page (docs/guide/migration.md): its names exist, its examples run and
the defaults and behaviours it states hold in the installed TorchMetrics, Keras and
scikit-learn."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import os
import re
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

import metrix
import metrix.stream as ms
from metrix.integrations._faces import STREAM_METRICS

pytestmark = pytest.mark.integrations

PAGE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "migration.md"
TEXT = PAGE.read_text()
LIBRARIES = ("metrix", "torchmetrics", "sklearn.metrics", "keras.metrics")
_NAME = re.compile(r"`((?:metrix|torchmetrics|sklearn\.metrics|keras\.metrics)(?:\.\w+)*)`")


def _name_tables():
    """The rows of the tables whose first column is the metrix class: lists of cells."""
    rows, inside = [], False
    for line in TEXT.splitlines():
        if line.startswith("| metrix class |"):
            inside = True
            continue
        if inside and line.startswith("|"):
            if not set(line) <= set("|- "):
                rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
            continue
        inside = False
    return rows


ROWS = _name_tables()
CLASSES = [re.fullmatch(r"`(\w+)`", row[0]).group(1) for row in ROWS]


def _names(library):
    """The fully qualified names of ``library`` in the tables and in the prose."""
    found = set(_NAME.findall(TEXT))
    for row in ROWS:
        for cell in row[1:]:
            found.update(_NAME.findall(cell))
    if library == "metrix":  # Keras' face imports keras: resolved in the Keras subprocess
        found = {n for n in found if not n.startswith("metrix.integrations.keras")}
    return sorted(n for n in found if n == library or n.startswith(library + "."))


def _keras_face_names():
    return sorted({n for n in _NAME.findall(TEXT) if n.startswith("metrix.integrations.keras")})


class _OptionalMissing(Exception):
    """A name in a module that needs a framework this environment lacks."""


def _resolve(name):
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.split(".")[0] not in ("metrix", parts[0]):
                raise _OptionalMissing(exc.name) from exc  # e.g. flax, for integrations.flax
            continue
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(name)


def _blocks():
    return re.findall(r"```python\n(.*?)```", TEXT, re.S)


def _imports(block):
    return {m.split(".")[0] for m in re.findall(r"^(?:from|import)\s+([\w.]+)", block, re.M)}


def _keras_ready():
    return (importlib.util.find_spec("keras") is not None
            and importlib.util.find_spec("jax") is not None)


# -- the page ------------------------------------------------------------------------

def test_the_page_opens_with_the_argument_order():
    prose = [p for p in TEXT.split("\n\n") if p.strip() and not p.startswith("#")]
    first = prose[0]
    assert "`(y_true, y_pred)`" in first and "`(preds, target)`" in first
    assert first.index("metrix") < first.index("TorchMetrics")


def test_the_tables_list_every_stream_metric_once():
    assert len(CLASSES) == len(set(CLASSES))
    assert set(CLASSES) == set(STREAM_METRICS) | {"MetricCollection"}
    assert all(len(row) == 5 for row in ROWS)
    for row in ROWS:  # the last column is a metrix function, or that of the collection
        assert _NAME.findall(row[4]), row


def test_the_metrix_classes_exist_in_every_face():
    pytest.importorskip("torch")  # torch absent: a skip; metrix's face failing to import: a failure
    torch_face = importlib.import_module("metrix.integrations.torch")
    faces = [ms, torch_face]
    if importlib.util.find_spec("flax") is not None:
        faces.append(importlib.import_module("metrix.integrations.flax"))
    for face in faces:
        missing = [c for c in CLASSES if not isinstance(getattr(face, c, None), type)]
        assert not missing, (face.__name__, missing)


@pytest.mark.parametrize("library", ["metrix", "torchmetrics", "sklearn.metrics"])
def test_the_named_objects_exist(library):
    pytest.importorskip(library.split(".")[0])
    names = _names(library)
    assert names
    missing = []
    for name in names:
        try:
            _resolve(name)
        except _OptionalMissing:
            continue  # the minimum-versions leg installs flax in a later stage
        except (ImportError, AttributeError):
            missing.append(name)
    assert not missing


def test_the_examples_run():
    ran = 0
    for block in _blocks():
        needs = _imports(block)
        if "keras" in needs:
            continue  # test_keras_names_defaults_and_example
        for module in needs:
            pytest.importorskip(module)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(block, str(PAGE), "exec"), {})
        ran += 1
    assert ran >= 3


_KERAS_SCRIPT = textwrap.dedent("""
    import importlib, inspect, json, sys, warnings
    warnings.simplefilter("ignore")
    import numpy as np
    import keras
    import metrix.integrations.keras as mk
    names, classes, blocks = json.loads(sys.stdin.read())
    missing = []
    for name in names:
        obj = keras.metrics if name.startswith("keras.") else mk
        try:
            for attr in name.split(".")[2 if name.startswith("keras.") else 3:]:
                obj = getattr(obj, attr)
        except AttributeError:
            missing.append(name)
    missing += ["metrix.integrations.keras." + c for c in classes
                if not isinstance(getattr(mk, c, None), type)]
    for block in blocks:
        exec(compile(block, "migration.md", "exec"), {})
    facts = {
        "f1_average": inspect.signature(keras.metrics.F1Score).parameters["average"].default,
        "f1_threshold": inspect.signature(keras.metrics.F1Score).parameters["threshold"].default,
        "auc_thresholds":
            inspect.signature(keras.metrics.AUC).parameters["num_thresholds"].default,
    }
    mse = keras.metrics.MeanSquaredError()
    facts["mse_dtypes"] = sorted({str(v.dtype) for v in mse.variables})
    facts["mse_empty"] = float(mse.result())
    facts["auc_empty"] = float(keras.metrics.AUC().result())
    mape = keras.metrics.MeanAbsolutePercentageError()
    mape.update_state(np.array([2.0, 4.0]), np.array([1.0, 5.0]))
    facts["mape"] = float(mape.result())
    # integer labels (N, 1) into Keras' F1Score: no error, another value
    y = np.array([0, 1, 2, 2, 1, 0]); p = np.eye(3, dtype="float32")[[0, 1, 2, 1, 1, 0]]
    right = keras.metrics.F1Score(average="macro")
    right.update_state(np.eye(3, dtype="float32")[y], p)
    wrong = keras.metrics.F1Score(average="macro")
    wrong.update_state(y.reshape(-1, 1).astype("float32"), p)
    facts["f1_onehot"], facts["f1_labels"] = float(right.result()), float(wrong.result())
    # calling a metric returns the running value, in Keras and in metrix's Keras face
    for key, metric in (("keras_call", keras.metrics.MeanSquaredError()),
                        ("metrix_call", mk.MeanSquaredError())):
        metric(np.ones(3), np.zeros(3))
        facts[key] = float(metric(np.ones(3), np.ones(3)))
    print(json.dumps({"missing": missing, "facts": facts}))
""")


def test_keras_names_defaults_and_example():
    if not _keras_ready():
        pytest.skip("keras with the jax backend is not installed")
    blocks = [b for b in _blocks() if "keras" in _imports(b)]
    assert blocks
    env = {**os.environ, "KERAS_BACKEND": "jax", "JAX_PLATFORMS": "cpu"}
    out = subprocess.run([sys.executable, "-c", _KERAS_SCRIPT],
                         input=json.dumps([_names("keras.metrics") + _keras_face_names(),
                                           CLASSES, blocks]),
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["missing"] == []
    facts = result["facts"]
    assert facts["f1_average"] is None and facts["f1_threshold"] is None
    assert facts["auc_thresholds"] == 200
    assert facts["mse_dtypes"] == ["float32"]          # Keras' float32 count
    assert facts["mse_empty"] == 0.0 and facts["auc_empty"] == 0.0
    assert facts["mape"] == pytest.approx(100 * (0.5 + 0.25) / 2)   # in percent
    assert facts["f1_onehot"] == pytest.approx(metrix.f1_score(
        [0, 1, 2, 2, 1, 0], [0, 1, 2, 1, 1, 0], average="macro"))
    assert abs(facts["f1_labels"] - facts["f1_onehot"]) > 0.05
    assert facts["keras_call"] == facts["metrix_call"] == 0.5   # over both batches


# -- what the page states of TorchMetrics and metrix ------------------------------

def _default(fn, arg):
    return inspect.signature(fn).parameters[arg].default


def test_the_torchmetrics_defaults_the_page_states():
    torchmetrics = pytest.importorskip("torchmetrics")
    tc = torchmetrics.classification
    for wrapper in ("F1Score", "Precision", "Recall", "Accuracy", "HammingDistance"):
        assert _default(getattr(torchmetrics, wrapper).__new__, "average") == "micro"
    for cls in ("F1Score", "Precision", "Recall", "Accuracy", "HammingDistance",
                "JaccardIndex"):
        assert _default(getattr(tc, "Multiclass" + cls), "average") == "macro"
    assert _default(tc.MulticlassF1Score, "validate_args") is True
    assert _default(tc.MulticlassF1Score, "zero_division") == 0
    assert _default(tc.BinaryAUROC, "thresholds") is None
    assert _default(tc.MulticlassAveragePrecision, "thresholds") is None


def test_the_metrix_defaults_the_page_states():
    assert ms.F1Score(4).spec.average == "macro"
    assert ms.Precision(4).spec.average == "macro"
    assert ms.JaccardIndex(4).spec.average == "macro"
    assert ms.Accuracy(4).spec.average is None
    assert ms.F1Score(4).spec.validate is False
    assert ms.AUROC().spec.thresholds == ms.DEFAULT_THRESHOLDS == 1000
    assert ms.AUROC().spec.capacity is None
    with pytest.raises(ValueError, match="weighted=True"):
        ms.F1Score(3).update(np.array([0, 1]), np.array([0, 1]), np.ones(2))


def test_the_traps_the_page_warns_of():
    torch = pytest.importorskip("torch")
    tm = pytest.importorskip("torchmetrics")
    tc = tm.classification
    skm = pytest.importorskip("sklearn.metrics")
    import metrix.integrations.torch as mt

    rng = np.random.default_rng(0)
    n = 2000
    y = rng.integers(0, 3, n)   # class 3 of 4 never occurs
    p = np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n))
    yt, pt = torch.from_numpy(y), torch.from_numpy(p)

    # macro over a class that never occurs: metrix = 3/4 of TorchMetrics
    f1 = ms.F1Score(4)
    f1.update(y, p)
    tm_f1 = float(tc.MulticlassF1Score(num_classes=4)(pt, yt))
    assert f1.compute() == pytest.approx(0.75 * tm_f1, rel=1e-6)
    assert f1.compute() == pytest.approx(skm.f1_score(y, p, average="macro", labels=range(4),
                                                      zero_division=0))
    # ... and macro_over="present" is TorchMetrics' value (on every label class)
    for name in ("F1Score", "Precision", "Recall", "JaccardIndex"):
        m = getattr(ms, name)(4, macro_over="present")
        m.update(y, p)
        want = float(getattr(tc, "Multiclass" + name)(num_classes=4)(pt, yt))
        assert m.compute() == pytest.approx(want, rel=1e-6), name

    # MulticlassAccuracy's default is the mean recall, metrix's Accuracy(average="macro")
    y4 = np.where(rng.random(n) < 0.1, 3, y)
    acc = ms.Accuracy(4, average="macro")
    acc.update(y4, p)
    assert acc.compute() == pytest.approx(
        float(tc.MulticlassAccuracy(num_classes=4)(pt, torch.from_numpy(y4))), rel=1e-6)

    # ignore_index: -100 counts unless ignored (or weighted out)
    y_pad = y.copy()
    y_pad[:300] = -100
    expected = float(tc.MulticlassF1Score(num_classes=3, ignore_index=-100)(
        pt, torch.from_numpy(y_pad)))
    raw = ms.F1Score(3)
    raw.update(y_pad, p)
    assert abs(raw.compute() - expected) > 0.01
    masked = ms.F1Score(3, weighted=True)
    masked.update(y_pad, p, (y_pad != -100).astype(float))
    assert masked.compute() == pytest.approx(expected, rel=1e-6)
    ignored = ms.F1Score(3, ignore_index=-100)
    ignored.update(y_pad, p)
    assert ignored.compute() == pytest.approx(expected, rel=1e-6)

    # binary probabilities into a label metric: thresholded at 0.5, as TorchMetrics
    yb = rng.integers(0, 2, n)
    logits = rng.normal(size=n) + 1.5 * yb
    probs = 1 / (1 + np.exp(-logits))
    exact_f1 = skm.f1_score(yb, probs > 0.5)
    assert float(tc.BinaryF1Score()(torch.from_numpy(probs), torch.from_numpy(yb))) == \
        pytest.approx(exact_f1, rel=1e-6)
    for pred in (probs, probs > 0.5):
        fed = ms.F1Score(2, average="binary")
        fed.update(yb, pred)
        assert fed.compute() == pytest.approx(exact_f1)
    fed = ms.F1Score(2, average="binary", threshold=0.0)  # logits: a threshold on their scale
    fed.update(yb, logits)
    assert fed.compute() == pytest.approx(exact_f1)
    with pytest.raises(ValueError, match="outside"):  # logits at a probability threshold
        ms.F1Score(2, average="binary", validate=True).update(yb, logits)

    # logits into the binned AUROC: wrong, no error; exact mode and validate=True
    exact_auc = skm.roc_auc_score(yb, probs)
    binned = ms.AUROC()
    binned.update(yb, logits)
    assert abs(binned.compute() - exact_auc) > 0.005
    exact = ms.AUROC(capacity=n)
    exact.update(yb, logits)
    assert exact.compute() == pytest.approx(exact_auc, rel=1e-12)
    with pytest.raises(ValueError, match=r"outside \[0, 1\]"):
        ms.AUROC(validate=True).update(yb, logits)
    binned = ms.AUROC()
    binned.update(yb, probs)
    assert binned.compute() != exact_auc
    assert binned.compute() == pytest.approx(exact_auc, abs=1e-3)
    assert float(tc.BinaryAUROC()(torch.from_numpy(logits), torch.from_numpy(yb))) == \
        pytest.approx(exact_auc, rel=1e-5)   # TorchMetrics: sigmoid, exact by default

    # calling returns the batch's value; compute() before any data
    m = mt.F1Score(3)
    first = m(yt[:500], pt[:500])
    assert float(first) == pytest.approx(skm.f1_score(y[:500], p[:500], average="macro"))
    m(yt[500:], pt[500:])
    assert float(m.compute()) == pytest.approx(skm.f1_score(y, p, average="macro"))
    for empty in (ms.F1Score(3), ms.MeanSquaredError(), ms.AUROC()):
        with pytest.raises(ValueError, match="before any sample"):
            empty.compute()
    with warnings.catch_warnings(), pytest.raises(ValueError):
        warnings.simplefilter("ignore")   # TorchMetrics warns of compute before update
        tc.BinaryAUROC().compute()

    # state dtypes: int64 counts, float64 sums and results; TorchMetrics' float32 sums
    assert {v.dtype for v in mt.F1Score(3).metric.state.values()} == {torch.int64}
    mse = mt.MeanSquaredError()
    mse.update(torch.rand(8), torch.rand(8))
    assert mse.compute().dtype == torch.float64
    assert tm.MeanSquaredError().sum_squared_error.dtype == torch.float32
