"""Every command, option and help text of ``gradcli``: the one place they are declared.

Each command is one argparse parser (standard library; built when its
command runs). Values are checked by the converters below, in our own words,
and a bad one is a usage error (status 2) before anything runs. The program
takes the command from its first argument, as git does (see main.py); the
top-level options are TOP_OPTIONS.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from typing import Any

from .. import limits
from ..lang.names import is_name
from ..limits import (
    CURVE_MAX_ORDER,
    CURVE_POINTS,
    DTYPES,
    EXTREMA_FORMATS,
    FORMATS,
    MAX_CURVE_POINTS,
    MAX_INPUT,
    MAX_ORDER,
    METHODS,
    ROOT_POINTS,
)
from ..rules import CHECK_ESTIMATE, CHECK_PASS_RULE, SERIES_ABOUT
from .input import UsageProblem, split_at

__all__ = ["COMMANDS", "MAX_DIGITS", "MAX_ORDER", "OTHER_WAYS", "Parser", "build",
           "commands_taking", "other_command_hint", "top_help", "usage_error"]

MAX_DIGITS = 17
MAX_LINE = f"{MAX_INPUT:,}"  # gradcli.lang.reader: the longest line read from standard input

COMMANDS = dict(zip(limits.COMMANDS, (
    "Evaluate statements: values, derivatives, checks and series.",
    "Write the computational graph of EXPR (Graphviz).",
    "Draw EXPR and its derivatives over an interval (a file, or the terminal).",
    "The minima, maxima and inflection points of EXPR on an interval.",
    "The interactive calculator (also plain `gradcli` on a terminal).",
), strict=True))
COMMANDS_LISTED = ", ".join(limits.COMMANDS[:-1]) + " and " + limits.COMMANDS[-1]
VERSION = "--version"
HELP = ("-h", "--help")
TOP_OPTIONS = {VERSION: "Print the version and exit.", "-h, --help": "Show this message and exit."}
TOP_USAGE = "gradcli [OPTIONS] COMMAND [ARGS]..."



def check_help() -> str:
    """--check's help, in the words of the rule core.check applies (gradcli.rules)."""
    return (f"Compare the derivatives of order 1 and 2 with numerical estimates by "
            f"{CHECK_ESTIMATE} (est_error: the estimate's own error bound); a derivative passes "
            f"when {CHECK_PASS_RULE} (eps the dtype's machine epsilon). "
            "Inconclusive where the estimate cannot tell (no number, or its error not small "
            "against the value): neither confirmed nor refuted, exit status 0. "
            "Exit status 3 when one fails.")


def series_help() -> str:
    """--series' help, in the words of the rule session.expression applies."""
    return f"The Taylor polynomial of degree N {SERIES_ABOUT}.  [0 to {MAX_ORDER}]"

TOP_DESCRIPTION = """\
  gradcli: a differentiation calculator. Values, derivatives of any order,
  numerical checks and computational graphs of formulas such as x**4 - 2*x**2.
  `gradcli help COMMAND` is `gradcli COMMAND --help`."""

EXAMPLES = {
    "": """\
  gradcli eval "x**4 - 2*x**2" --at x=2 --order 2
  gradcli eval "x*y + y" --at x=2,y=3 --grad --format json
  gradcli plot "x**4 - 2*x**2" --at x=2 -o graph.png
  gradcli repl""",
    "eval": """\
  gradcli eval "x**4 - 2*x**2" --at x=2 --order 2
  gradcli eval "sin(x)*exp(x)" --at x=0.5 --order 2 --check
  gradcli eval "exp(x)" --at x=0 --series 4
  gradcli eval "x*y + y" --at x=2,y=3 --grad --format json
  gradcli eval "x^4 - 2*x^2" --order 2
  gradcli eval "sin(x)/x" --at x=0:1:0.25 --order 1 --format csv
  gradcli eval "f(t) = t^3" "f'(2)" "f''(2)"
  printf 'x = 2\\nx^3\\n' | gradcli eval - --order 1
  gradcli eval --at x=3 -- -x**2""",
    "plot": """\
  gradcli plot "x**4 - 2*x**2" --at x=2 -o graph.png
  gradcli plot "sin(x)*x" --at x=2 --order 1 --verbose -o d1.svg""",
    "curve": """\
  gradcli curve "exp(sin(x))*log(1+x^2)" --over x=0:5 --order 3 -o curve.png
  gradcli curve "tan(x)" --over x=-3:3
  gradcli curve "sin(x)" "cos(x)" --over x=0:2pi
  gradcli curve "f(t) = t^3 - t; f(x)" --over x=-2:2 --order 1 -o f.svg""",
    "extrema": """\
  gradcli extrema "x^3 - 3*x" --over x=-3:3
  gradcli extrema "sin(x)/x" --over x=1:10 --format json
  gradcli extrema "f(t) = t^4 - t^2; f(x)" --over x=-2:2""",
    "repl": """\
  gradcli repl
  printf 'f(x) = x^4\\nf(2)\\n' | gradcli repl""",
}


# --------------------------------------------------------------------------
# Values, checked in our words


def whole(option: str, low: int, high: int) -> Callable[[str], int]:
    def convert(text: str) -> int:
        digits = text.strip()
        if not re.fullmatch(r"[+-]?[0-9]+", digits):
            raise UsageProblem("expected a whole number", option)
        # past 12 digits the sign decides (int() refuses 4,300 digits and more)
        value = int(digits) if len(digits) <= 12 else (-1 if digits[0] == "-" else 1) * 10**13
        if value < low:
            raise UsageProblem(f"expected at least {low}", option)
        if value > high:
            raise UsageProblem(f"expected at most {high}", option)
        return value

    return convert


def one_of(option: str, *values: str) -> Callable[[str], str]:
    def convert(text: str) -> str:
        if text not in values:
            raise UsageProblem(f"{text!r} is not one of {', '.join(map(repr, values))}.",
                               option)
        return text

    return convert


def variable(option: str) -> Callable[[str], str]:
    def convert(text: str) -> str:
        if not is_name(text):
            raise UsageProblem(f"{text!r} is not a variable name", option)
        return text

    return convert


def file_name(option: str) -> Callable[[str], str]:
    def convert(text: str) -> str:
        from ..errors import GradcliError
        from ..repl.filenames import check_file_name  # the same rule as the REPL's :plot

        try:
            return check_file_name(text)
        except GradcliError as err:
            raise UsageProblem(err.message, option) from None

    return convert


def _choices(values: tuple[str, ...]) -> str:
    return "{" + ",".join(values) + "}"


COLOURS = ("auto", "always", "never")
DEVICES = ("cpu", "gpu")


# --------------------------------------------------------------------------
# The parsers


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """argparse's layout, with 'Usage:' as the other sections are titled."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=30)

    def add_usage(self, usage: Any, actions: Any, groups: Any, prefix: Any = None) -> None:
        super().add_usage(usage, actions, groups, "Usage: ")


class Parser(argparse.ArgumentParser):
    """One command's parser: 'Arguments' and 'Options' sections, no
    abbreviations, and usage errors raised as UsageProblem for main to show."""

    def __init__(self, command: str, usage: str, description: str) -> None:
        super().__init__(
            prog=f"gradcli {command}", usage=f"%(prog)s {usage}", description=description,
            epilog="Examples:\n" + EXAMPLES[command], formatter_class=_Formatter,
            add_help=False, allow_abbrev=False)
        self.command = command
        self.arguments = self.add_argument_group("Arguments")
        self.options = self.add_argument_group("Options")
        self.flags: list[str] = []  # its options' names, to catch one given after '--'

    def option(self, *flags: str, **kwargs: Any) -> None:
        self.flags += flags
        self.options.add_argument(*flags, **kwargs)

    def error(self, message: str) -> Any:  # argparse's own findings (a missing value)
        raise UsageProblem(message)


def _at_option(parser: Parser, help: str) -> None:
    parser.option("--at", action="append", type=split_at, default=[],
                  metavar="NAME=EXPR[,NAME=EXPR]", help=help)


def _over_option(parser: Parser) -> None:
    parser.option("--over", default="x=-5:5", metavar="NAME=A:B",
                  help="The variable and the interval; A and B are expressions (0:2pi).  "
                  "[default: x=-5:5]")


def _settings(parser: Parser, method_help: str) -> None:
    parser.option("--method", type=one_of("--method", *METHODS), default="auto",
                  metavar=_choices(METHODS), help=f"{method_help}  [default: auto]")


def _where(parser: Parser) -> None:
    parser.option("--device", type=one_of("--device", *DEVICES), default="cpu",
                  metavar=_choices(DEVICES), help="Where arrays live.  [default: cpu]")
    parser.option("--dtype", type=one_of("--dtype", *DTYPES), default="float64",
                  metavar=_choices(DTYPES), help="Floating-point type.  [default: float64]")


def _help(parser: Parser) -> None:
    parser.options.add_argument(*HELP, action="help", help="Show this message and exit.")


def eval_parser() -> Parser:
    p = Parser("eval", "[OPTIONS] [EXPR]...", "  " + COMMANDS["eval"])
    p.arguments.add_argument(
        "exprs", nargs="*", metavar="EXPR",
        help="Statements to run, each on its own (never joined). '-' or none with "
        "standard input not a terminal: read statements from standard input "
        f"(lines of at most {MAX_LINE} characters). "
        "Put an expression that starts with '-' after '--'.")
    _at_option(p, "Bind variables before running, e.g. --at x=2,y=3, a range "
               "--at x=0:1:0.25 (start:stop:step) or --at \"x=linspace(0,1,5)\"; "
               "may be repeated.")
    p.option("--wrt", type=variable("--wrt"), metavar="NAME",
             help="The variable to differentiate by (default: the only variable in EXPR).")
    # no default: --order 0 is asked (a formula where the variable has no value)
    p.option("--order", type=whole("--order", 0, MAX_ORDER), metavar="N",
             help=f"Print the derivatives of orders 0..N.  [default: 0; 0 to {MAX_ORDER}]")
    p.option("--grad", action="store_true",
             help="The gradient: the partial derivatives by each variable the expression uses.")
    p.option("--check", action="store_true", help=check_help())
    _settings(p, "Taylor-mode propagation, repeated backprop, or auto "
              "(both give the same numbers).")
    p.option("--series", type=whole("--series", 0, MAX_ORDER), metavar="N",
             help=series_help())
    p.option("--formula", action="store_true",
             help="Print the formulas of the value and derivatives beside the numbers "
             "(without a value for the variable, --order prints formulas anyway).")
    p.option("--steps", action="store_true",
             help="How the formula was obtained: each rule applied, with the part it was "
             "applied to and its result (for diff(EXPR, x) or EXPR with --order N, "
             "by a variable with no value; not in CSV).")
    p.option("--format", type=one_of("--format", *FORMATS), metavar=_choices(FORMATS),
             help="Output format (default: table on a terminal, plain when piped).")
    p.option("--rows", action="store_true",
             help="JSON: one object per point of an array --at, not arrays.")
    p.option("--digits", type=whole("--digits", 1, MAX_DIGITS), metavar="D",
             help="Round what table and plain show to D significant digits "
             f"(JSON and CSV always carry full precision).  [1 to {MAX_DIGITS}]")
    p.option("--color", type=one_of("--color", *COLOURS), default="auto",
             metavar=_choices(COLOURS),
             help="Colour (auto: off under NO_COLOR, TERM=dumb or when standard output "
             "is not a terminal).  [default: auto]")
    _where(p)
    _help(p)
    return p


def plot_parser() -> Parser:
    p = Parser("plot", "[OPTIONS] EXPR", "  " + COMMANDS["plot"])
    p.arguments.add_argument("expr", nargs="*", metavar="EXPR", help="The expression to draw.")
    p.option("-o", "--output", required=True, metavar="FILE", type=file_name("--output"),
             help="The file to write: .png, .svg, .pdf or .dot.")
    _at_option(p, "Bind variables first, as for eval.")
    p.option("--order", type=whole("--order", 0, MAX_ORDER), default=0, metavar="N",
             help=f"Draw the graph that computes the N-th derivative.  "
             f"[default: 0; 0 to {MAX_ORDER}]")
    p.option("--wrt", type=variable("--wrt"), metavar="NAME",
             help="The variable of --order (default: the only one in EXPR).")
    p.option("--verbose", action="store_true",
             help="Show shapes, dtypes and values in the nodes.")
    _help(p)
    return p


def curve_parser() -> Parser:
    p = Parser("curve", "[OPTIONS] EXPR...", "  " + COMMANDS["curve"])
    p.arguments.add_argument("exprs", nargs="*", metavar="EXPR",
                             help="Expressions to draw in one figure; each may start "
                             "with assignments and definitions (f(t) = t^2; f(x)).")
    _over_option(p)
    p.option("--order", type=whole("--order", 0, CURVE_MAX_ORDER), default=0, metavar="N",
             help=f"Draw the derivatives of orders 1..N too.  [default: 0; 0 to {CURVE_MAX_ORDER}]")
    p.option("--points", type=whole("--points", 2, MAX_CURVE_POINTS), default=CURVE_POINTS,
             metavar="K",
             help="Points across the interval.  "
             f"[default: {CURVE_POINTS}; 2 to {MAX_CURVE_POINTS}]")
    p.option("-o", "--output", metavar="FILE", type=file_name("--output"),
             help="The file to write: .png, .svg or .pdf (without it: drawn in the "
             "terminal).")
    p.option("--mark", action="store_true",
             help="Mark each expression's minima, maxima and inflection points, and the "
             "ends where it is extreme (as gradcli extrema finds them).")
    _at_option(p, "Bind other variables first, as for eval.")
    p.option("--color", type=one_of("--color", *COLOURS), default="auto",
             metavar=_choices(COLOURS),
             help="Colour in the terminal (auto: off under NO_COLOR or TERM=dumb).  "
             "[default: auto]")
    _settings(p, "Derivative engine.")
    _where(p)
    _help(p)
    return p


def extrema_parser() -> Parser:
    p = Parser("extrema", "[OPTIONS] EXPR", "  " + COMMANDS["extrema"])
    p.arguments.add_argument("exprs", nargs="*", metavar="EXPR",
                             help="The expression; it may start with assignments and "
                             "definitions (f(t) = t^3; f(x)).")
    _over_option(p)
    p.option("--points", type=whole("--points", 2, MAX_CURVE_POINTS), default=ROOT_POINTS,
             metavar="K",
             help="Points of the first sampling of the interval (see docs/roots.md).  "
             f"[default: {ROOT_POINTS}; 2 to {MAX_CURVE_POINTS}]")
    _at_option(p, "Bind other variables first, as for eval.")
    p.option("--format", type=one_of("--format", *EXTREMA_FORMATS), default="plain",
             metavar=_choices(EXTREMA_FORMATS), help="Output format.  [default: plain]")
    p.option("--digits", type=whole("--digits", 1, MAX_DIGITS), metavar="D",
             help=f"Round x and f to D significant digits in plain.  [1 to {MAX_DIGITS}]")
    p.option("--color", type=one_of("--color", *COLOURS), default="auto",
             metavar=_choices(COLOURS),
             help="Colour of errors and warnings.  [default: auto]")
    _help(p)
    return p


def repl_parser() -> Parser:
    p = Parser("repl", "[OPTIONS]", "  " + COMMANDS["repl"])
    _settings(p, "Derivative engine.")
    _where(p)
    _help(p)
    return p


_BUILDERS = {"eval": eval_parser, "plot": plot_parser, "curve": curve_parser,
             "extrema": extrema_parser, "repl": repl_parser}


def build(command: str) -> Parser:
    """The parser of ``command`` (one of COMMANDS)."""
    return _BUILDERS[command]()


def commands_taking(flag: str) -> list[str]:
    """The commands whose parsers declare ``flag`` (as --format or -o), in COMMANDS' order."""
    return [command for command in limits.COMMANDS if flag in build(command).flags]


OTHER_WAYS = {
    ("curve", "--format"):
        "curve draws a figure (-o FILE writes .png, .svg or .pdf; without -o, the "
        "terminal); for the numbers as CSV: gradcli eval {expr} --at "
        "{var}={interval}:0.1 --format csv",
    ("curve", "--check"): "for the checked numbers: gradcli eval {expr} --at {var}=1 --check",
    ("eval", "--over"): "eval takes an interval as a range of points: --at x=0:1:0.1",
    ("eval", "--output"): "for a figure: gradcli curve {expr} -o FILE (.png, .svg or .pdf), "
        "or gradcli plot {expr} -o FILE for the computational graph",
    ("eval", "-o"): "for a figure: gradcli curve {expr} -o FILE (.png, .svg or .pdf), "
        "or gradcli plot {expr} -o FILE for the computational graph",
    ("extrema", "--order"): "extrema finds the points where the derivatives vanish; "
        "for the derivatives' values: gradcli eval {expr} --at {var}=1 --order N",
}
"""What to do instead where an option given to ``command`` belongs to another:
the other command, with the user's own expression ({expr}) and --over
({var}={interval}) where the command takes them."""


def other_command_hint(command: str, flag: str, expr: str, over: str) -> str | None:
    """Where ``flag`` is not ``command``'s but another command's: which commands
    take it, and the way around (OTHER_WAYS); None where no command does."""
    others = commands_taking(flag)
    if not others:
        return None
    owners = " and ".join((", ".join(others[:-1]), others[-1])) if len(others) > 1 \
        else others[0]
    takes = "takes" if len(others) == 1 else "take"
    text = f"No such option for {command}: {flag} ({owners} {takes} it)"
    way = OTHER_WAYS.get((command, flag))
    if way is not None:
        var, _, interval = over.partition("=")
        text += "; " + way.format(expr=expr, var=var or "x", interval=interval or "-5:5")
    return text


def top_help() -> str:
    """``gradcli --help``."""
    def rows(table: dict[str, str]) -> list[str]:
        width = max(map(len, table))
        return [f"  {name:<{width}}  {text}" for name, text in table.items()]

    return "\n".join([f"Usage: {TOP_USAGE}", "", TOP_DESCRIPTION, "",
                      "Options:", *rows(TOP_OPTIONS), "", "Commands:", *rows(COMMANDS), "",
                      "Examples:", EXAMPLES[""], ""])


def usage_error(problem: UsageProblem, parser: Parser | None = None,
                usage: str | None = None) -> int:
    """Show ``problem`` as a usage error on standard error; the exit status, 2."""
    import sys

    usage = usage or (parser.format_usage().removeprefix("Usage: ").strip() if parser
                      else TOP_USAGE)
    prog = parser.prog if parser else "gradcli"
    message = problem.message if problem.option is None \
        else f"Invalid value for '{problem.option}': {problem.message}"
    from ..errors import visible  # the command line's words are user text

    sys.stderr.write(f"Usage: {usage}\nTry '{prog} -h' for help.\n\nError: {visible(message)}\n")
    return 2
