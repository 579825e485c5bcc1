"""Exact integer roots, for numbers raised to rational powers (8^(1/3) is 2)."""

from __future__ import annotations


def exact_root(n: int, q: int) -> int | None:
    """The exact q-th root of n >= 0, or None."""
    if n < 2:
        return n
    r = round(n ** (1.0 / q)) if n.bit_length() < 1000 else None
    if r is None:
        return None
    for c in (r - 1, r, r + 1):
        if c >= 0 and c**q == n:
            return c
    return None
