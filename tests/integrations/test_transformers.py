"""``metrix.integrations.transformers``: exact metrics from the ``Trainer``, batch by batch."""

from __future__ import annotations

import re
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pytest
import sklearn.metrics as skm

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

import metrix.stream as ms  # noqa: E402
from metrix.integrations.transformers import TrainerMetrics, compute_metrics  # noqa: E402

pytestmark = pytest.mark.integrations

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "transformers.md"
C, VOCAB, SEQ = 3, 50, 8


def _trainer_parts():
    pytest.importorskip("accelerate")  # the Trainer needs it (transformers[torch])
    from transformers import BertConfig, BertForSequenceClassification

    config = BertConfig(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=4, intermediate_size=37, num_labels=C,
                        max_position_embeddings=SEQ)
    torch.manual_seed(0)
    model = BertForSequenceClassification(config)
    rng = np.random.default_rng(0)
    # the label is readable from the tokens, so that an untrained model is not all ties
    labels = rng.integers(0, C, 70)
    data = [{"input_ids": torch.tensor(np.r_[labels[i] + 1, rng.integers(4, VOCAB, SEQ - 1)]),
             "labels": int(labels[i])} for i in range(70)]
    return model, data


def _args(tmp_path, batch_eval_metrics=True):
    from transformers import TrainingArguments

    return TrainingArguments(output_dir=str(tmp_path), per_device_eval_batch_size=16,
                             batch_eval_metrics=batch_eval_metrics, report_to=[],
                             use_cpu=True, disable_tqdm=True)


def _batches(n, size, seed=0, width=C, absent=None, pad_frac=0.0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, width, n)
    if absent is not None:
        y[y == absent] = (absent + 1) % width
    logits = rng.normal(size=(n, width)).astype(np.float32)
    logits[np.arange(n), y] += 1.2
    if pad_frac:
        y[rng.random(n) < pad_frac] = -100
    return [(torch.from_numpy(logits[i:i + size]), torch.from_numpy(y[i:i + size]))
            for i in range(0, n, size)], logits, y


def _feed(cm, batches):
    out = None
    for i, (p, y) in enumerate(batches):
        out = cm((p, y), compute_result=i == len(batches) - 1)
        if i < len(batches) - 1:
            assert out == {}
    return out


def _sk(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def _softmax(z):
    return torch.softmax(torch.as_tensor(z), -1).numpy()


# -- the Trainer --------------------------------------------------------------------

def test_trainer_evaluate_with_batch_eval_metrics_equals_scikit_learn(tmp_path):
    from transformers import Trainer

    model, data = _trainer_parts()
    metrics = compute_metrics(["accuracy", "f1", "roc_auc", "log_loss"], labels=C,
                              capacity=len(data))
    trainer = Trainer(model=model, args=_args(tmp_path), eval_dataset=data,
                      compute_metrics=metrics)
    first = trainer.evaluate()
    second = trainer.evaluate()             # the state was reset after the last batch
    out = trainer.predict(data)             # the same batches, kept: scikit-learn's input
    y, logits = out.label_ids, out.predictions
    assert logits.shape == (70, C)
    pred, proba = logits.argmax(1), _softmax(logits)
    want = {"accuracy": skm.accuracy_score(y, pred),
            "f1": skm.f1_score(y, pred, average="macro"),
            "roc_auc": skm.roc_auc_score(y, proba, multi_class="ovr"),
            "log_loss": skm.log_loss(y, proba)}
    for name, value in want.items():
        np.testing.assert_allclose(first[f"eval_{name}"], value, rtol=1e-6)
        assert first[f"eval_{name}"] == second[f"eval_{name}"]
        np.testing.assert_allclose(out.metrics[f"test_{name}"], value, rtol=1e-6)
    assert isinstance(first["eval_f1"], float)
    assert 0.2 < want["roc_auc"] < 1.0 and len(np.unique(pred)) > 1  # not a degenerate case


def test_the_default_trainer_path_gives_the_same_values(tmp_path):
    from transformers import Trainer

    model, data = _trainer_parts()
    names = ["accuracy", "f1", "precision", "mcc"]
    batched = Trainer(model=model, args=_args(tmp_path), eval_dataset=data,
                      compute_metrics=compute_metrics(names)).evaluate()
    whole = Trainer(model=model, args=_args(tmp_path, False), eval_dataset=data,
                    compute_metrics=compute_metrics(names)).evaluate()
    argmax = Trainer(model=model, args=_args(tmp_path), eval_dataset=data,
                     compute_metrics=compute_metrics(names, labels=C),
                     preprocess_logits_for_metrics=lambda z, y: z.argmax(-1)).evaluate()
    for name in names:
        np.testing.assert_allclose(batched[f"eval_{name}"], whole[f"eval_{name}"], rtol=1e-12)
        np.testing.assert_allclose(argmax[f"eval_{name}"], whole[f"eval_{name}"], rtol=1e-12)


def test_the_guide_examples_run(tmp_path, monkeypatch):
    pytest.importorskip("accelerate")
    monkeypatch.chdir(tmp_path)
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(), re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, str(GUIDE), "exec"), {})


# -- the callable, per task ---------------------------------------------------------

def test_multiclass_batches_with_padding_and_an_absent_class_equal_scikit_learn():
    batches, logits, y = _batches(500, 64, seed=1, width=4, absent=3, pad_frac=0.15)
    names = ["accuracy", "f1", "precision_score", "recall", "jaccard", "mcc", "kappa",
             "balanced_accuracy", "hamming_loss", "zero_one_loss", "log_loss",
             "average_precision"]
    got = _feed(compute_metrics(names, labels=4, capacity=500), batches)
    keep = y != -100
    yt, z = y[keep], logits[keep]
    yp, proba, labels = z.argmax(1), _softmax(z), list(range(4))
    f, zd = "macro", dict(labels=labels, zero_division=0)
    ap = np.mean([skm.average_precision_score(yt == k, proba[:, k]) for k in range(3)] + [0.0])
    want = {"accuracy": skm.accuracy_score(yt, yp),
            "f1": _sk(skm.f1_score, yt, yp, average=f, **zd),
            "precision_score": _sk(skm.precision_score, yt, yp, average=f, **zd),
            "recall": _sk(skm.recall_score, yt, yp, average=f, **zd),
            "jaccard": _sk(skm.jaccard_score, yt, yp, average=f, **zd),
            "mcc": skm.matthews_corrcoef(yt, yp),
            "kappa": skm.cohen_kappa_score(yt, yp),
            "balanced_accuracy": _sk(skm.balanced_accuracy_score, yt, yp),
            "hamming_loss": skm.hamming_loss(yt, yp),
            "zero_one_loss": skm.zero_one_loss(yt, yp),
            "log_loss": skm.log_loss(yt, proba, labels=labels),
            "average_precision": ap}
    assert list(got) == names
    for name, value in want.items():
        np.testing.assert_allclose(got[name], value, rtol=1e-6, err_msg=name)


def test_per_class_results_are_named_by_the_labels_and_averages_follow_average():
    batches, logits, y = _batches(300, 50, seed=2)
    names = ["cat", "dog", "eel"]
    per_class = _feed(compute_metrics(["f1", "roc_auc", "accuracy"], labels=names,
                                      average=None, capacity=300), batches)
    yp, proba = logits.argmax(1), _softmax(logits)
    f1 = skm.f1_score(y, yp, average=None)
    auc = [skm.roc_auc_score(y == k, proba[:, k]) for k in range(C)]
    for k, label in enumerate(names):
        np.testing.assert_allclose(per_class[f"f1_{label}"], f1[k], rtol=1e-9)
        np.testing.assert_allclose(per_class[f"roc_auc_{label}"], auc[k], rtol=1e-6)
    np.testing.assert_allclose(per_class["accuracy"], skm.accuracy_score(y, yp))
    weighted = _feed(compute_metrics(["f1", "roc_auc"], average="weighted", capacity=300),
                     batches)
    np.testing.assert_allclose(weighted["f1"], skm.f1_score(y, yp, average="weighted"))
    np.testing.assert_allclose(weighted["roc_auc"], skm.roc_auc_score(
        y, proba, multi_class="ovr", average="weighted"), rtol=1e-6)


def test_binned_roc_auc_is_exact_for_scores_on_a_grid_and_close_for_logits():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 600)
    p = np.round(np.clip(0.35 * y + 0.65 * rng.random(600), 0, 1), 2).astype(np.float32)
    batches = [(torch.from_numpy(p[i:i + 100]), torch.from_numpy(y[i:i + 100]))
               for i in range(0, 600, 100)]
    got = _feed(compute_metrics(["roc_auc", "average_precision"], task="binary",
                                from_logits=False), batches)   # 1000 bins, finer than 0.01
    # float32 scores: float32 results
    np.testing.assert_allclose(got["roc_auc"], skm.roc_auc_score(y, p), rtol=1e-6)
    np.testing.assert_allclose(got["average_precision"], skm.average_precision_score(y, p),
                               rtol=1e-6)
    batches, logits, y = _batches(600, 100, seed=4)
    got = _feed(compute_metrics(["roc_auc"]), batches)
    want = skm.roc_auc_score(y, _softmax(logits), multi_class="ovr")
    assert abs(got["roc_auc"] - want) < 2e-3


@pytest.mark.parametrize("columns", [0, 1, 2])
def test_binary_task_one_or_two_logits_with_threshold_and_padding(columns):
    rng = np.random.default_rng(5 + columns)
    n = 400
    y = rng.integers(0, 2, n)
    z = (rng.normal(size=n) + 1.3 * (y - 0.5)).astype(np.float32)
    z[:5] = 0.0  # exactly at the threshold: not positive
    y_pad = np.where(rng.random(n) < 0.1, -100, y)
    if columns == 2:
        logits = np.stack([-z / 2, z / 2], axis=1)
    elif columns == 1:
        logits = z[:, None]
    else:
        logits = z
    batches = [(torch.from_numpy(logits[i:i + 64]), torch.from_numpy(y_pad[i:i + 64]))
               for i in range(0, n, 64)]
    names = ["accuracy", "f1", "precision", "recall", "roc_auc", "average_precision",
             "log_loss", "mcc"]
    for threshold in (0.5, 0.7):
        got = _feed(compute_metrics(names, task="binary", threshold=threshold, capacity=n),
                    batches)
        keep = y_pad != -100
        yt = y[keep]
        proba = torch.sigmoid(torch.from_numpy(z[keep])).numpy()
        if columns == 2:
            proba = _softmax(logits[keep])[:, 1]
        yp = (z[keep] > np.log(threshold / (1 - threshold))).astype(int)
        want = {"accuracy": skm.accuracy_score(yt, yp), "f1": skm.f1_score(yt, yp),
                "precision": skm.precision_score(yt, yp), "recall": skm.recall_score(yt, yp),
                "roc_auc": skm.roc_auc_score(yt, proba),
                "average_precision": skm.average_precision_score(yt, proba),
                "log_loss": skm.log_loss(yt, proba), "mcc": skm.matthews_corrcoef(yt, yp)}
        for name, value in want.items():
            np.testing.assert_allclose(got[name], value, rtol=1e-6, err_msg=name)


def test_multilabel_task_equals_scikit_learn():
    rng = np.random.default_rng(6)
    n, L = 300, 5
    y = (rng.random((n, L)) < 0.35).astype(np.float32)   # float targets, as HF's BCE wants
    y[:, 4] = 0                                          # a label never present
    logits = (rng.normal(size=(n, L)) + 2.0 * (y - 0.5)).astype(np.float32)
    batches = [(torch.from_numpy(logits[i:i + 40]), torch.from_numpy(y[i:i + 40]))
               for i in range(0, n, 40)]
    names = ["accuracy", "f1", "precision", "recall", "jaccard", "hamming_loss",
             "zero_one_loss"]
    yp = (logits > 0).astype(int)
    yt = y.astype(int)
    for average in ("macro", "micro", "weighted"):
        got = _feed(compute_metrics(names, task="multilabel", average=average), batches)
        kw = dict(average=average, zero_division=0)
        want = {"accuracy": skm.accuracy_score(yt, yp),
                "f1": skm.f1_score(yt, yp, **kw), "precision": skm.precision_score(yt, yp, **kw),
                "recall": skm.recall_score(yt, yp, **kw),
                "jaccard": skm.jaccard_score(yt, yp, **kw),
                "hamming_loss": skm.hamming_loss(yt, yp),
                "zero_one_loss": skm.zero_one_loss(yt, yp)}
        for name, value in want.items():
            np.testing.assert_allclose(got[name], value, rtol=1e-9, err_msg=(average, name))
    proba = torch.sigmoid(torch.from_numpy(logits[:, :4])).numpy()
    got = _feed(compute_metrics(["roc_auc", "average_precision"], task="multilabel",
                                capacity=n), [(p[:, :4], t[:, :4]) for p, t in batches])
    np.testing.assert_allclose(got["roc_auc"], skm.roc_auc_score(yt[:, :4], proba), rtol=1e-6)
    np.testing.assert_allclose(got["average_precision"],
                               skm.average_precision_score(yt[:, :4], proba), rtol=1e-6)


def test_regression_task_single_and_multi_output():
    rng = np.random.default_rng(7)
    y = rng.normal(3.0, 2.0, 250).astype(np.float32)
    pred = (y + rng.normal(0, 0.5, 250)).astype(np.float32)
    names = ["mse", "rmse", "mae", "r2", "explained_variance_score"]
    batches = [(torch.from_numpy(pred[i:i + 32, None]), torch.from_numpy(y[i:i + 32]))
               for i in range(0, 250, 32)]                # HF: (n, 1) logits, (n,) labels
    got = _feed(compute_metrics(names, task="regression"), batches)
    want = [skm.mean_squared_error(y, pred), skm.root_mean_squared_error(y, pred),
            skm.mean_absolute_error(y, pred), skm.r2_score(y, pred),
            skm.explained_variance_score(y, pred)]
    np.testing.assert_allclose([got[n] for n in names], want, rtol=1e-5)
    y2 = np.stack([y, -2 * y], 1)
    p2 = np.stack([pred, -2 * pred + 1], 1)
    got = _feed(compute_metrics(["mse", "r2"], task="regression", multioutput="raw_values"),
                [(torch.from_numpy(p2[i:i + 32]), torch.from_numpy(y2[i:i + 32]))
                 for i in range(0, 250, 32)])
    raw = skm.mean_squared_error(y2, p2, multioutput="raw_values")
    np.testing.assert_allclose([got["mse_0"], got["mse_1"]], raw, rtol=1e-5)
    np.testing.assert_allclose([got["r2_0"], got["r2_1"]],
                               skm.r2_score(y2, p2, multioutput="raw_values"), rtol=1e-5)


def test_eval_prediction_of_token_logits_padded_with_minus_100():
    from transformers import EvalPrediction

    rng = np.random.default_rng(8)
    b, t = 12, 9
    y = rng.integers(0, C, (b, t))
    logits = rng.normal(size=(b, t, C)).astype(np.float32)
    logits[np.arange(b)[:, None], np.arange(t)[None, :], y] += 1.0
    lengths = rng.integers(3, t + 1, b)
    pad = np.arange(t)[None, :] >= lengths[:, None]
    y[pad] = -100
    y[:, 0] = -100                                       # [CLS]
    logits[pad] = -100.0                                 # the Trainer pads logits too
    cm = compute_metrics(["accuracy", "f1", "log_loss"])
    got = cm(EvalPrediction(predictions=(logits, np.zeros((b, 4))), label_ids=y))
    keep = y != -100
    yt, z = y[keep], logits[keep]
    np.testing.assert_allclose(got["accuracy"], skm.accuracy_score(yt, z.argmax(1)))
    np.testing.assert_allclose(got["f1"], skm.f1_score(yt, z.argmax(1), average="macro"))
    np.testing.assert_allclose(got["log_loss"], skm.log_loss(yt, _softmax(z)), rtol=1e-6)
    again = cm(EvalPrediction(predictions=logits, label_ids=y))   # reset after the call
    assert again == got


def test_metric_instances_and_names():
    batches, logits, y = _batches(300, 64, seed=9, pad_frac=0.2)
    cm = compute_metrics({"wf1": ms.F1Score(C, average="weighted"), "acc": ms.Accuracy(C),
                          "auc": ms.AUROC(num_classes=C, capacity=300),
                          "ham": ms.HammingDistance(C)})
    got = _feed(cm, batches)
    keep = y != -100
    yt, yp = y[keep], logits[keep].argmax(1)
    np.testing.assert_allclose(got["wf1"], skm.f1_score(yt, yp, average="weighted"))
    np.testing.assert_allclose(got["acc"], skm.accuracy_score(yt, yp))
    np.testing.assert_allclose(got["ham"], skm.hamming_loss(yt, yp))
    np.testing.assert_allclose(got["auc"], skm.roc_auc_score(
        yt, _softmax(logits[keep]), multi_class="ovr"), rtol=1e-6)
    # one confusion matrix for the three label metrics
    assert cm.collections["label"].spec.n_statistics == 1
    listed = compute_metrics([ms.MatthewsCorrCoef(C), "f1"])
    assert isinstance(listed, TrainerMetrics)
    assert list(_feed(listed, batches)) == ["matthews_corr_coef", "f1"]


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="Unknown metric"):
        compute_metrics(["f2"])
    with pytest.raises(ValueError, match="task"):
        compute_metrics(["mse"], task="multiclass")
    with pytest.raises(ValueError, match="multilabel"):
        compute_metrics(["mcc"], task="multilabel")
    with pytest.raises(ValueError, match="task must be"):
        compute_metrics(["f1"], task="token")
    with pytest.raises(ValueError, match="2 classes"):
        compute_metrics(["f1"], task="binary", labels=3)
    with pytest.raises(ValueError, match="capacity"):
        compute_metrics(["median_ae"], task="regression")((np.zeros(3), np.zeros(3)))
    cm = compute_metrics(["f1"], labels=4)
    with pytest.raises(ValueError, match="4 columns"):
        cm((np.zeros((5, 3), np.float32), np.zeros(5, np.int64)))
    labels_only = (np.zeros(5, np.int64), np.zeros(5, np.int64))   # arg-maxed predictions
    with pytest.raises(ValueError, match="labels="):
        compute_metrics(["f1"])(labels_only)
    with pytest.raises(ValueError, match="need scores"):
        compute_metrics(["f1", "roc_auc"], labels=3)(labels_only)
    assert compute_metrics(["accuracy"], labels=3)(labels_only) == {"accuracy": 1.0}


# -- the promise: no host read per batch, host memory independent of the set size -----

def test_a_batch_reads_nothing_on_the_host():
    from tests.accelerator.test_sync_free import SYNC_OPS, OpRecorder

    cases = [
        ("multiclass", ["accuracy", "f1", "mcc", "roc_auc", "average_precision", "log_loss"],
         (64, 10), (64,), torch.int64),
        ("binary", ["f1", "roc_auc", "log_loss"], (64,), (64,), torch.int64),
        ("multilabel", ["f1", "accuracy", "roc_auc"], (64, 6), (64, 6), torch.float32),
        ("regression", ["mse", "r2"], (64, 1), (64,), torch.float32),
    ]
    for task, names, pshape, yshape, ydtype in cases:
        cm = compute_metrics(names, task=task)
        cm((torch.zeros(pshape), torch.zeros(yshape, dtype=ydtype)))  # a CPU evaluation
        p = torch.empty(pshape, device="meta")
        y = torch.empty(yshape, dtype=ydtype, device="meta")
        cm((p, y), compute_result=False)  # warm; the state follows the batch to its device
        rec = OpRecorder()
        with rec:
            assert cm((p, y), compute_result=False) == {}
        assert rec.ops and not set(rec.ops) & SYNC_OPS, (task, set(rec.ops) & SYNC_OPS)
        for collection in cm.collections.values():
            devices = {str(v.device) for v in _leaves(collection.state)}
            assert devices == {"meta"}, task


def _leaves(state):
    for v in state.values():
        yield from (_leaves(v) if isinstance(v, dict) else [v])


def _peak_rss_mib(fn):
    """Peak resident memory (MiB) that ``fn()`` adds to the process (Linux)."""
    def read(key):
        return int(re.search(rf"{key}:\s+(\d+)", Path("/proc/self/status").read_text())[1])

    Path("/proc/self/clear_refs").write_text("5")   # VmHWM := VmRSS
    base = read("VmRSS")
    fn()
    return (read("VmHWM") - base) / 1024


def test_host_memory_does_not_grow_with_the_evaluation_set():
    cm = compute_metrics(["accuracy", "f1", "roc_auc", "log_loss"], labels=100)

    def feed(n_batches):
        rng = np.random.default_rng(0)
        for i in range(n_batches):
            # tensors over NumPy buffers: tracemalloc sees their data (not torch's own)
            logits = torch.from_numpy(rng.standard_normal((512, 100), dtype=np.float32))
            y = torch.from_numpy(rng.integers(0, 100, 512))
            y[:7] = -100
            cm((logits, y), compute_result=i == n_batches - 1)

    feed(3)  # warm: the state, the adapters' caches
    peaks = []
    for n_batches in (10, 100):
        tracemalloc.start()
        feed(n_batches)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    # one batch is 200 kB of logits: keeping them would add 18 MB; what varies is
    # Python's garbage awaiting the cycle collector
    assert peaks[1] < peaks[0] + 256 * 1024, peaks
    try:  # torch's temporaries (softmax, codes, counts) are outside tracemalloc: the RSS
        rss = [_peak_rss_mib(lambda n=n: feed(n)) for n in (10, 100)]
    except OSError:  # no /proc (not Linux): the tracemalloc check above stands
        return
    assert rss[1] < rss[0] + 8 and rss[1] < 40, rss
