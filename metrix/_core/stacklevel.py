"""Where a metrix warning points: the user's line, not metrix's.

A warning's ``stacklevel`` counted by hand breaks whenever a frame is added
between the user and the line that warns (the public edge of
:mod:`.edge`, a shared helper).  :func:`find_stack_level` counts the frames
instead, up to the first one outside the ``metrix`` package, as pandas does.
"""

from __future__ import annotations

import os
import sys

__all__ = ["find_stack_level"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def find_stack_level() -> int:
    """The ``stacklevel`` for ``warnings.warn`` called by the caller of this
    function that names the first frame outside metrix (its tests excepted)."""
    frame = sys._getframe(1)  # the function that is about to warn
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    return level
