"""conftest.py of the copied scikit-learn test modules (see run_suite.py).

With ``METRIX_SWAP=1`` every public ``sklearn.metrics`` function that metrix
also has, and its display classes, are replaced by metrix's before the test
modules are collected (they import the names from ``sklearn.metrics``): the
tests then check metrix's values, errors and warning texts.  scikit-learn's
``UndefinedMetricWarning`` is left as it is: metrix's warnings are instances of
it once scikit-learn is imported.  Without it, scikit-learn runs its own tests: the baseline.
"""

import os

if os.environ.get("METRIX_SWAP") == "1":
    import importlib

    import sklearn.metrics
    import sklearn.metrics.pairwise

    import metrix
    import metrix.pairwise.reductions

    # metrix hands what it does not compute (SciPy's boolean metrics, callables on
    # the host) to scikit-learn's own pairwise functions: those stay scikit-learn's
    _originals = dict(vars(sklearn.metrics.pairwise))
    metrix.pairwise.reductions._sklearn = _originals.__getitem__

    # some tests import the public functions from the private modules that define them
    _modules = [sklearn.metrics]
    for _private in ("_classification", "_ranking", "_regression", "pairwise"):
        _modules.append(importlib.import_module(f"sklearn.metrics.{_private}"))
    for _name in sklearn.metrics.__all__:
        _fn = getattr(metrix, _name, None)
        if callable(_fn) and not isinstance(_fn, type):
            for _module in _modules:
                if hasattr(_module, _name):
                    setattr(_module, _name, _fn)

    # test_pairwise.py imports the pairwise names from sklearn.metrics.pairwise
    for _name in metrix.pairwise.__all__:
        _fn = getattr(metrix.pairwise, _name)
        if callable(_fn) and not isinstance(_fn, type) and hasattr(_modules[-1], _name):
            setattr(_modules[-1], _name, _fn)

    # the display classes (metrix.display subclasses scikit-learn's)
    import sklearn.calibration

    for _name in metrix.DISPLAYS:
        for _module in (sklearn.metrics, sklearn.calibration):
            if hasattr(_module, _name):
                setattr(_module, _name, getattr(metrix, _name))
