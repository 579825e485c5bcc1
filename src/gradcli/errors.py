"""Error classes shared by every layer, and the process exit statuses.

Each error carries a ``kind`` (the JSON ``error.kind``), a message and, where
the input has one, a 1-based line and column. Renderers turn them into text;
nothing below the CLI ever prints.
"""

from __future__ import annotations

from enum import IntEnum


class ExitStatus(IntEnum):
    OK = 0
    ERROR = 1  # math or evaluation error: unknown name, shape mismatch, no GPU
    USAGE = 2  # usage or parse error
    CHECK_FAILED = 3  # --check found a derivative outside tolerance


class GradcliError(Exception):
    """Base of every error a user may see; never shown with a traceback."""

    kind = "math"
    exit_status = ExitStatus.ERROR

    def __init__(
        self, message: str, *, line: int | None = None, column: int | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column

    def at(self, line: int | None, column: int | None) -> GradcliError:
        """Attach a position unless one is already known; returns self."""
        if self.line is None:
            self.line, self.column = line, column
        return self

    def __str__(self) -> str:
        return self.message


class ParseError(GradcliError):
    kind = "parse"
    exit_status = ExitStatus.USAGE


class UsageError(GradcliError):
    kind = "usage"
    exit_status = ExitStatus.USAGE


class UnknownNameError(GradcliError, LookupError):
    """An unknown variable or function name (a LookupError, as the core promises)."""

    kind = "name"


class ReservedNameError(GradcliError):
    """A statement binds or defines a name that is a built-in function (sin = 3)."""

    kind = "name"


class MathError(GradcliError, ArithmeticError):
    kind = "math"


class ShapeError(MathError, ValueError):
    """Operands whose shapes do not fit; the message names both shapes."""


class OutOfRangeError(ShapeError, IndexError):
    """An index or axis past an array's end: an IndexError as NumPy's, so that
    Python's iteration (``a, b = x``, ``list(x)``) stops there."""


class ArityError(MathError, TypeError):
    """A function called with the wrong number of arguments."""


class LimitError(MathError):
    """A request past one of gradcli's safety limits (array size, order, depth)."""


class DeviceError(GradcliError):
    kind = "device"


class NumericWarning(UserWarning):
    """A non-finite result from finite input: gradcli's own, never NumPy's raw one."""


class ToolMissingError(GradcliError):
    """An external program gradcli needs (Graphviz's ``dot``) is not installed."""

    kind = "device"
