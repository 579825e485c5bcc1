"""Error classes shared by every layer, and the process exit statuses.

Each error carries a ``kind`` (the JSON ``error.kind``), a message and, where
the input has one, a 1-based line and column. Renderers turn them into text;
nothing below the CLI ever prints.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum


class ExitStatus(IntEnum):
    OK = 0
    ERROR = 1  # math or evaluation error: unknown name, shape mismatch, no GPU
    USAGE = 2  # usage or parse error
    CHECK_FAILED = 3  # --check found a derivative outside tolerance


NEUTRAL_WORDS: dict[str, str] = {
    "value": "give it a value",
    "wrt": "name the variable to differentiate by",
    "wrt_named": "",
    "formula": "",
    "colon": "':' commands (:help, :vars ...) are the REPL's",
    "method_paren": "",
    "method_use": "",
    "order": "the order",
    "series": "the series",
    "check": "the check",
    "grad": "the gradient",
    "numbers": "",
    "free_numbers": "",
}
"""How a hint reads where no shell words it (a library caller's view)."""


def worded(template: str, name: str, words: Mapping[str, str]) -> str:
    """``template`` with each ``{code}`` slot filled by the shell's words for it
    (a shell knows its own flags and commands; the layers below name a code)."""
    fields = {code: text.format(name=name) for code, text in NEUTRAL_WORDS.items()}
    fields.update((code, text.format(name=name)) for code, text in words.items())
    return template.format_map(fields)


def literal(text: str) -> str:
    """``text`` as a part of a hint template, read as it is."""
    return text.replace("{", "{{").replace("}", "}}")


def visible(text: str) -> str:
    """``text`` with each control or format character (ESC, BEL, a bidi override
    such as U+202E) shown as U+FFFD, line breaks kept: user text quoted in a
    message must not drive the terminal. One for one, so columns hold."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or ch == "\n" else "\ufffd" for ch in text)


class GradcliError(Exception):
    """Base of every error a user may see; never shown with a traceback.

    An error that tells the user how to fix it through a shell (give a value,
    choose the variable) carries a ``template`` with code slots (``{value}``)
    and the ``hint_name`` they concern; each shell rewords it with its own
    words (``reword``), so no layer below the shells names a flag.
    """

    kind = "math"
    exit_status = ExitStatus.ERROR
    template: str | None = None
    hint_name: str = ""

    def __init__(
        self, message: str, *, line: int | None = None, column: int | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column

    @classmethod
    def hinted(cls, template: str, name: str = "") -> GradcliError:
        """An error whose message has hint slots, worded neutrally until a shell
        rewords it."""
        err = cls(worded(template, name, {}))
        err.template, err.hint_name = template, name
        return err

    def prefixed(self, code: str, name: str) -> GradcliError:
        """Put the hint slot ``code`` (about ``name``) before the message; returns self."""
        self.template = "{" + code + "}" + (self.template or literal(self.message))
        self.hint_name = self.hint_name or name
        self.message = worded(self.template, self.hint_name, {})
        return self

    def suffixed(self, code: str) -> GradcliError:
        """Put the hint slot ``code`` after the message; returns self."""
        self.template = (self.template or literal(self.message)) + "{" + code + "}"
        self.message = worded(self.template, self.hint_name, {})
        self.args = (self.message,)
        return self

    def prepend(self, text: str) -> GradcliError:
        """Put ``text`` (plain, no slots) before the message; returns self."""
        self.message = text + self.message
        if self.template is not None:
            self.template = literal(text) + self.template
        self.args = (self.message,)
        return self

    def reword(self, words: Mapping[str, str]) -> GradcliError:
        """Fill the hint slots with a shell's ``words``; returns self."""
        if self.template is not None:
            self.message = worded(self.template, self.hint_name, words)
            self.args = (self.message,)
        return self

    def at(self, line: int | None, column: int | None) -> GradcliError:
        """Attach a position unless one is already known; returns self."""
        if self.line is None:
            self.line, self.column = line, column
        return self

    @property
    def message(self) -> str:
        return self._message

    @message.setter
    def message(self, text: str) -> None:
        # every message quotes user text somewhere (a name, a file name, a flag's
        # value): made visible once here, wherever it is set and shown
        self._message = visible(text)

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


def internal_error(exc: BaseException, line: int | None = None,
                   column: int | None = None) -> MathError:
    """A bug of ours (``exc``) as one short error at its statement: said, never a
    traceback, and the statements after it still run."""
    return MathError(f"internal error ({type(exc).__name__}: {exc}); please report it",
                     line=line, column=column)


class DeviceError(GradcliError):
    kind = "device"


class NumericWarning(UserWarning):
    """A non-finite result from finite input: gradcli's own, never NumPy's raw one.

    Like an error, it may carry a hint ``template`` for a shell to word."""

    template: str | None = None

    @classmethod
    def hinted(cls, template: str) -> NumericWarning:
        warning = cls(worded(template, "", {}))
        warning.template = template
        return warning


class ToolMissingError(GradcliError):
    """An external program gradcli needs (Graphviz's ``dot``) is not installed."""

    kind = "device"
