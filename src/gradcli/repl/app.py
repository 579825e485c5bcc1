"""The REPL loops: interactive (prompt_toolkit) and plain (piped standard input).

``main`` picks one. On a terminal: a PromptSession with history, completion,
highlighting and multi-line input; Ctrl-C cancels the line, Ctrl-D on an
empty line or ``:quit`` leaves with status 0. With standard input not a
terminal: lines are read plainly (no prompt, no escape codes, no history),
results go to standard output and errors to standard error, and the exit
status is the highest of the statements', as for ``gradcli eval -``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import IO, Any

from .. import __version__
from ..errors import GradcliError
from ..pipes import silence_stdout
from ..render.errors import format_error
from .brackets import open_depth
from .commands import Shell
from .display import PlainDisplay, RichDisplay
from .loader import SessionLoader

PROMPT = ">>> "
CONTINUATION = "... "
BANNER = f"gradcli {__version__}: type a formula, :help for help, Ctrl-D to leave"

# Settings a Session accepts without importing anything heavy to check them;
# anything else is checked before the first prompt (a GPU, say, must be there).
_LAZY_OK = {"dtype": ("float64", "float32"), "device": ("cpu",),
            "method": ("auto", "taylor", "backprop")}


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def main(dtype: str = "float64", device: str = "cpu", method: str = "auto") -> int:
    """Run the REPL on this process's terminal or standard input; the exit status."""
    loader = SessionLoader(dtype, device, method)
    options = {"dtype": dtype, "device": device, "method": method}
    if not _isatty(sys.stdin) or any(v not in _LAZY_OK[k] for k, v in options.items()):
        try:
            loader.get()  # no prompt to show first, or settings to check now
        except GradcliError as err:
            sys.stderr.write(format_error(err) + "\n")
            return int(err.exit_status)
    if not _isatty(sys.stdin):
        return run_plain(loader, sys.stdin)
    if _isatty(sys.stdout):
        return run_interactive(loader)
    if _isatty(sys.stderr):  # `gradcli repl > file`: prompts on stderr, results to the file
        from prompt_toolkit.output import create_output  # noqa: PLC0415

        return run_interactive(loader, output=create_output(stdout=sys.stderr),
                               display=PlainDisplay())
    return run_plain(loader, sys.stdin)


def run_plain(loader: SessionLoader, stdin: IO[str], display: Any = None) -> int:
    """Read statements line by line (a line with an open bracket goes on to the next).

    Ctrl-C ends it with status 130, as shells expect; a reader that goes away
    (``| head -1``) ends it quietly with status 1, as it does ``gradcli eval``.
    """
    shell = Shell(loader, display or PlainDisplay(), positions=True)
    if hasattr(stdin, "reconfigure"):
        stdin.reconfigure(errors="replace")  # a stray byte is the parser's to report
    try:
        _read_lines(shell, stdin)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        silence_stdout()
        return max(shell.status, 1)
    return shell.status


def _read_lines(shell: Shell, stdin: IO[str]) -> None:
    lines: Iterable[tuple[int, str]] = enumerate((line.rstrip("\r\n") for line in stdin), 1)
    budget = -1
    while (left := _run_lines(shell, lines)) is not None:
        # the end of input with a bracket open: it fails on its own line(s), and
        # the lines after it run as they would have, commands too (they took all
        # of them into its one error); each stray bracket reads the rest again, so
        # hostile input stops at the parser's budget and is one input, as before
        from ..lang.parser import RECOVERY_BUDGET, first_unclosed  # noqa: PLC0415

        start, pending = left
        budget = RECOVERY_BUDGET if budget < 0 else budget
        budget -= sum(map(len, pending))
        opener = first_unclosed(pending)
        if opener is None or budget < 0:
            shell.execute("\n".join(pending), first_line=start)
            return
        last = opener[0] + 1
        if not shell.execute("\n".join(pending[:last]), first_line=start):
            return
        lines = enumerate(pending[last:], start + last)


def _run_lines(shell: Shell, lines: Iterable[tuple[int, str]]) -> tuple[int, list[str]] | None:
    """Run numbered lines as inputs; at the end of input with a bracket still
    open, (its first line, the lines from there on); else None (the end, or a
    line that asks to leave)."""
    pending: list[str] = []
    start = depth = 0
    for number, line in lines:
        if not pending:
            start = number
        pending.append(line)
        depth = open_depth(line, depth)  # line by line: a long open input costs no more
        if depth:
            continue
        text = "\n".join(pending)
        pending = []
        if not shell.execute(text, first_line=start):
            return None
    return (start, pending) if pending else None


def make_prompt_session(loader: SessionLoader, *, history: Any = None, input: Any = None,
                        output: Any = None) -> Any:
    """The PromptSession with every feature of the REPL (kept apart for tests)."""
    from prompt_toolkit import PromptSession  # noqa: PLC0415
    from prompt_toolkit.auto_suggest import AutoSuggestFromHistory  # noqa: PLC0415
    from prompt_toolkit.layout.processors import HighlightMatchingBracketProcessor  # noqa: PLC0415

    from .completer import GradcliCompleter  # noqa: PLC0415
    from .keys import make_key_bindings  # noqa: PLC0415
    from .lexer import STYLE, GradcliLexer  # noqa: PLC0415

    return PromptSession(
        message=PROMPT,
        multiline=True,  # Enter is ours: see keys.py
        prompt_continuation=lambda width, line, wrap: CONTINUATION.rjust(width),
        history=history,
        enable_history_search=True,
        auto_suggest=AutoSuggestFromHistory(),
        completer=GradcliCompleter(loader),
        complete_style="column",
        lexer=GradcliLexer(loader),
        style=STYLE,
        include_default_pygments_style=False,
        key_bindings=make_key_bindings(),
        input_processors=[HighlightMatchingBracketProcessor(chars="[]()")],
        input=input,
        output=output,
    )


def run_interactive(loader: SessionLoader, *, history: Any = None, input: Any = None,
                    output: Any = None, display: Any = None) -> int:
    """The prompt loop; 0 when the user leaves with Ctrl-D or :quit."""
    warning = None
    if history is None:
        from .history import make_history  # noqa: PLC0415

        history, warning = make_history()
    from prompt_toolkit.utils import is_dumb_terminal  # noqa: PLC0415

    display = display or RichDisplay()
    prompt = make_prompt_session(loader, history=history, input=input, output=output)
    shell = Shell(loader, display)
    display.banner(BANNER)
    if warning:
        display.warning(warning)
    # The evaluator loads in the background once the first prompt is on screen,
    # while the user types (see loader.py); start() is a no-op after the first time.
    prompt.app.after_render += lambda _app: loader.start()
    if is_dumb_terminal():  # TERM=dumb runs another Application, which never renders
        loader.start()
    while True:
        try:
            text = prompt.prompt()
        except KeyboardInterrupt:  # Ctrl-C: the line is dropped, the session goes on
            continue
        except EOFError:  # Ctrl-D on an empty line
            return 0
        try:
            if not shell.execute(text):
                return 0
        except KeyboardInterrupt:
            display.error("interrupted")
        except BrokenPipeError:  # `gradcli repl | head`: the reader left
            silence_stdout()
            return 1
