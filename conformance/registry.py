"""The conformance table: metric cases, written as data.

A case names a metrix function, its scikit-learn reference, NumPy inputs and
keyword arguments.  Family modules ``conformance/cases_<family>.py`` each
define ``CASES = [Case(...), ...]``; the runner (``test_conformance.py``)
collects every such module, so adding a metric is adding rows there.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np


@dataclass
class Case:
    """One conformance row.

    metric: name of the public metrix function (``getattr(metrix, metric)``), or
        what ``call`` runs (a ``metrix.stream`` class, ``bootstrap``).
    reference: the scikit-learn callable computing the expected value.
    args: positional NumPy inputs (converted to every combination).
    kwargs: keyword arguments; NumPy arrays among them (``sample_weight``)
        are converted too, except the names in ``host_kwargs`` (``labels``).
    id: readable id (unique within the family).
    check_warnings: "message" (category and text must match scikit-learn's),
        "category", or "off".
    rtol/atol: extra tolerance for this case (added to the dtype's).
    skip: combo id -> reason, for combinations that cannot run this case.
    float32_reference: compute the reference on float32-rounded inputs for
        float32 combos (default True).
    call: run instead of ``getattr(metrix, metric)``, with the same converted
        arguments (a stream fed batch by batch, a bootstrap run twice).
    check_dtype: assert the float results' dtype (float32 on float32 combos
        with float inputs, else float64); False where the case says why.
    marks: pytest marks of the case's tests (``pytest.mark.integrations`` for the
        framework faces, so that ``-m "not integrations"`` leaves them out).
    """

    metric: str
    reference: Callable
    args: tuple
    kwargs: dict = field(default_factory=dict)
    id: str = ""
    check_warnings: str = "message"
    rtol: float = 0.0
    atol: float = 0.0
    skip: dict = field(default_factory=dict)
    host_kwargs: tuple = ("labels", "target_names")
    compare: Callable[[Any, Any, dict], None] | None = None
    float32_reference: bool = True
    call: Callable | None = None
    check_dtype: bool = True
    marks: tuple = ()

    @property
    def numpy_only(self) -> bool:
        arrays = list(self.args) + [v for v in self.kwargs.values()]
        return any(isinstance(a, np.ndarray) and a.dtype.kind in "OUS" for a in arrays)


@functools.cache
def collect() -> list[Case]:
    """Every case of every ``cases_*`` module in this package, ids made unique.

    Cached: the ids are set once, so every caller sees the same cases.
    """
    import conformance

    cases: list[Case] = []
    for info in sorted(pkgutil.iter_modules(conformance.__path__), key=lambda m: m.name):
        if not info.name.startswith("cases_"):
            continue
        mod = importlib.import_module(f"conformance.{info.name}")
        family = info.name[len("cases_"):]
        seen: dict[str, int] = {}
        for case in mod.CASES:
            base = f"{family}:{case.metric}:{case.id}" if case.id else f"{family}:{case.metric}"
            n = seen.get(base, 0)
            seen[base] = n + 1
            case.id = base if n == 0 else f"{base}#{n}"
            cases.append(case)
    return cases
