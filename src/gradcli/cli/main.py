"""The ``gradcli`` entry point: which command runs, and the one top-level handler.

The command is the first argument, as git's is: ``eval``, ``plot``, ``repl``
or ``help [COMMAND]``; with none, the REPL on a terminal, else the statements
of standard input. Each command's options are read by its parser
(options.py), options and arguments in any order; everything after '--' is
an argument. No input ever shows a Python traceback: ``run`` catches
everything.

Exit status: 0 ok, 1 math or evaluation error, 2 usage or parse error,
3 ``--check`` failed; with several statements the highest wins.
"""

from __future__ import annotations

import argparse
import errno
import io
import os
import sys
from typing import NoReturn

from .. import __version__
from ..errors import internal_error
from ..pipes import cannot_write, silence_stdout
from ..render.output import isatty
from . import commands, options
from .input import UsageProblem

DASH_HINT = "An expression that starts with '-' goes after '--': gradcli {command} " \
    "[OPTIONS] -- {word}"


def dispatch(args: list[str]) -> int:
    """Run one command line (without the program's name); the exit status."""
    if not args or args == ["--"]:
        if isatty(sys.stdin):
            return commands.run_repl()
        return run_command("eval", ["-"])
    head = args[0]
    if head in options.COMMANDS:
        return run_command(head, args[1:])
    if head == "help":  # as git's and pip's `help [COMMAND]`
        if args[1:] == []:
            sys.stdout.write(options.top_help())
            return 0
        if len(args) == 2 and args[1] in options.COMMANDS:
            return run_command(args[1], ["--help"])
        return options.usage_error(UsageProblem(
            f"no help for '{' '.join(args[1:])}'; the commands are {options.COMMANDS_LISTED}"),
            usage="gradcli help [COMMAND]")
    if head in options.HELP:
        sys.stdout.write(options.top_help())
        return 0
    if head == options.VERSION and (len(args) == 1 or args[1] in options.COMMANDS):
        sys.stdout.write(f"gradcli {__version__}\n")
        return 0
    return options.usage_error(UsageProblem(_not_a_command(args)))


def _not_a_command(args: list[str]) -> str:
    """What to say of a command line whose first word is no command."""
    import shlex

    head = args[0]
    if head == options.VERSION:  # `gradcli --version extra`
        return f"No such command '{args[1]}'."
    if head == "--":
        head = args[1]
        if head.startswith("-"):
            return f"No such command {head!r}. " + DASH_HINT.format(
                command="eval", word=shlex.quote(head))
    elif head.startswith("--"):
        return f"No such option: {head.split('=', 1)[0]}"
    elif head.startswith("-"):
        return f"No such option: {head[:2]}. " + DASH_HINT.format(
            command="eval", word=shlex.quote(head))
    import difflib

    close = difflib.get_close_matches(head, [*options.COMMANDS, "help"], n=1)
    if close:
        return f"No such command '{head}'. Did you mean '{close[0]}'?"
    # qalc's users type the formula straight after the program's name
    return f"No such command '{head}'. To evaluate an expression: gradcli eval " \
        f"{shlex.join(args)}"


def run_command(command: str, args: list[str]) -> int:
    """``gradcli COMMAND ARGS...``; the exit status."""
    parser = options.build(command)
    # '--' ends the options: argparse's intermixed parsing does not keep to that
    # rule, so what follows it never reaches the parser
    before, after = (args[:args.index("--")], args[args.index("--") + 1:]) \
        if "--" in args else (args, [])
    try:
        for text in after:
            flag = text.split("=", 1)[0]
            if flag in parser.flags:
                # only '--' lets an option through as a statement: it was meant as one
                raise UsageProblem(f"{flag} came after '--', so it was read as an "
                                   "expression; put options before '--'")
        parsed, unknown = parser.parse_known_intermixed_args(before)
        if unknown:
            raise UsageProblem(_unknown_option(parser, unknown, parsed))
        if command == "eval":
            return commands.run_eval(parsed, after)
        if command == "plot":
            return commands.run_plot(_one_expression(parsed, after))
        if command == "curve":
            from .curve import run_curve

            return run_curve(parsed, after)
        if command == "extrema":
            from .extrema import run_extrema

            return run_extrema(parsed, after)
        if after:
            raise UsageProblem(f"Got unexpected extra argument ({after[0]})")
        return commands.run_repl(parsed.dtype, parsed.device, parsed.method)
    except UsageProblem as problem:
        return options.usage_error(problem, parser)


def _one_expression(parsed: argparse.Namespace, after: list[str]) -> argparse.Namespace:
    """``plot``'s one EXPR, given before '--' or after it."""
    exprs = [*parsed.expr, *after]
    if not exprs:
        raise UsageProblem("Missing argument 'EXPR'.")
    if len(exprs) > 1:
        raise UsageProblem(f"Got unexpected extra argument ({exprs[1]})")
    parsed.expr = exprs[0]
    return parsed


def _unknown_option(parser: options.Parser, unknown: list[str],
                    parsed: argparse.Namespace) -> str:
    import shlex

    word = next((w for w in unknown if w.startswith("-")), unknown[0])
    if not word.startswith("-"):
        return f"Got unexpected extra argument ({word})"
    name = word.split("=", 1)[0]
    exprs = [*(getattr(parsed, "exprs", None) or ()), *(getattr(parsed, "expr", None) or ())]
    elsewhere = options.other_command_hint(
        parser.command, name, shlex.quote(exprs[0]) if exprs else "EXPR",
        getattr(parsed, "over", None) or "x=-5:5")
    if elsewhere is not None:  # `curve --format csv`: another command's option
        return elsewhere
    if word.startswith("--"):
        import difflib

        close = difflib.get_close_matches(name, [f for f in parser.flags if f[1] == '-'])
        return f"No such option: {name}" + (
            f" (Possible options: {', '.join(sorted(close))})" if close else "")
    # `gradcli eval -x^2`: a formula that starts with a minus
    return f"No such option: {word[:2]}. " + DASH_HINT.format(
        command=parser.command, word=shlex.quote(word))


# --------------------------------------------------------------------------
# The one handler for everything


class _ClosedOutput(io.TextIOBase):
    """Standard output that the shell closed: a write fails as on any closed
    file descriptor (and is reported by pipes.cannot_write)."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))


def run(argv: list[str] | None = None) -> NoReturn:
    """``gradcli``: run a command line; never a traceback, whatever happens."""
    args = sys.argv[1:] if argv is None else list(argv)
    if sys.stdout is None:  # closed (`>&-`): the output cannot be written, as with echo
        sys.stdout = _ClosedOutput()
    if sys.stderr is None:  # nowhere to say anything: say nothing
        sys.stderr = open(os.devnull, "w")
    code: int
    try:
        code = dispatch(args)
    except SystemExit as exc:  # --help
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:
        silence_stdout()
        code = 1
    except OSError as exc:  # a full disk (> /dev/full), an I/O error: ours to word
        code = cannot_write(exc)
    except Exception as exc:
        from ..render.errors import format_error

        sys.stderr.write(format_error(internal_error(exc)) + "\n")
        code = 1
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()
        code = code or 1
    except OSError as exc:  # the last of the output did not fit either
        failed = cannot_write(exc)
        code = code or failed
    except ValueError:  # stdout closed under us
        pass
    sys.exit(code)


def main() -> None:
    """The console script ``gradcli`` and ``python -m gradcli``."""
    run()
