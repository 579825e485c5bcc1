"""What a name is, for the options and commands that take one outside an expression
(``--at x₁=2``, ``--wrt``): the grammar's NAME terminal, without loading the parser."""

from __future__ import annotations

import re

NAME = re.compile(r"[^\W\d]\w*")
"""The grammar's NAME (a test holds them equal): a letter or '_', then letters,
digits and '_', in any script, so x₁ and é are names ('x₁'.isidentifier() is
False: Python's identifiers stop at letters and Nd digits)."""


def is_name(text: str) -> bool:
    return NAME.fullmatch(text) is not None
