"""Docstring sections that the metrics of a family share, written once.

A family keeps each shared description (a parameter, a reference) in one
place and its metrics name it with a line ``%(name)s`` in their docstrings;
:func:`sections` fills them in when the module loads, so ``help()`` and the
Sphinx reference read the whole text.  A name with no section is an error
at import, never a placeholder left in the docs.
"""

from __future__ import annotations

import re
import textwrap

__all__ = ["sections"]

_PLACEHOLDER = re.compile(r"^([ \t]*)%\((\w+)\)s[ \t]*$", re.MULTILINE)


def sections(**texts):
    """A decorator filling each line ``%(name)s`` of a function's docstring with
    ``texts[name]``, re-indented to the line's indentation."""
    blocks = {name: textwrap.dedent(text).strip("\n") for name, text in texts.items()}

    def fill(func):
        def block(match):
            indent, name = match.groups()
            if name not in blocks:
                raise KeyError(f"{func.__qualname__}'s docstring names no section {name!r}")
            return "\n".join(indent + line if line else line
                             for line in blocks[name].split("\n"))

        func.__doc__ = _PLACEHOLDER.sub(block, func.__doc__)
        return func

    return fill
