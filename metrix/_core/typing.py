"""Type aliases of the public signatures.

Arrays are typed loosely: any array of a supported library (NumPy, CuPy,
PyTorch, JAX, array-api-strict) or an array-like (list, pandas, polars) is
accepted, so ``ArrayLike`` is ``Any``; keywords are typed precisely in the
signatures themselves.  The modules that use these write
``from __future__ import annotations``, so no annotation is evaluated at
import or call time.
"""

from __future__ import annotations

from typing import Any

#: an array of any supported library, or an array-like (list, pandas, polars)
ArrayLike = Any
#: a result: an array of the inputs' namespace and device (for NumPy and
#: array-like inputs a 0-d result is a Python float, as scikit-learn returns)
Array = Any

__all__ = ["Array", "ArrayLike"]
