"""The memory a computation may take, and the check made before allocating it.

The limit is GRADCLI_MAX_MEMORY (``2G``, ``512M``, ``300K`` or a number of
bytes; K, M and G are powers of 1024, as the sizes in messages are), else half
of this machine's memory, at most 8 GiB. A request that would need more is
refused before anything of it is allocated, with the estimate and the way
around, where running it would have swapped or been killed.
"""

from __future__ import annotations

import functools
import os
import re

from ..errors import LimitError, UsageError

ENV = "GRADCLI_MAX_MEMORY"
DEFAULT_CAP = 8 << 30
"""The default limit is half the machine's memory, but no more than this."""

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_SIZE = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([KMGT]?)(?:I?B)?\s*", re.IGNORECASE)


def parse_size(text: str) -> int:
    """Bytes of a size such as ``2G``, ``512M``, ``1.5G``, ``300K``, ``4096``
    (a trailing ``B`` or ``iB`` is allowed); UsageError if it is none."""
    m = _SIZE.fullmatch(text)
    if m is None:
        raise UsageError(f"{ENV} must be a size such as 2G, 512M, 300K or a number of "
                         f"bytes; got {text!r}")
    size = int(float(m.group(1)) * _UNITS[m.group(2).upper()])
    if size <= 0:
        raise UsageError(f"{ENV} must be more than 0 bytes; got {text!r}")
    return size


def machine_memory() -> int | None:
    """This machine's memory in bytes (MemTotal), None where it cannot be read."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


@functools.lru_cache(maxsize=8)
def _limit(setting: str | None) -> int:
    if setting is not None and setting.strip():
        return parse_size(setting)
    total = machine_memory()
    return DEFAULT_CAP if total is None else min(DEFAULT_CAP, total // 2)


def max_memory() -> int:
    """The limit in bytes (read from the environment on each call, parsed once)."""
    return _limit(os.environ.get(ENV))


def size_text(nbytes: float) -> str:
    """``9.1 GB``, ``512 MB``: bytes in the units GRADCLI_MAX_MEMORY takes."""
    for unit, scale in (("TB", 1 << 40), ("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if nbytes >= scale:
            v = nbytes / scale
            return f"{v:.1f} {unit}".replace(".0 ", " ") if v < 10 else f"{v:.0f} {unit}"
    return f"{int(nbytes)} byte{'s' if int(nbytes) != 1 else ''}"


def check_memory(needed: float, points: int, order: int, what: str = "Taylor mode") -> None:
    """LimitError if ``needed`` bytes are more than the limit: ``what`` needs them
    for ``points`` points at ``order``."""
    limit = max_memory()
    if needed <= limit:
        return
    where = f"{points:,} point{'s' if points != 1 else ''} at order {order}"
    raise LimitError(
        f"{what} needs about {size_text(needed)} for {where}; the limit is "
        f"{size_text(limit)} ({ENV}); ask for fewer points or a lower order")


__all__ = ["DEFAULT_CAP", "ENV", "check_memory", "machine_memory", "max_memory",
           "parse_size", "size_text"]
