"""The REPL loops: interactive (prompt_toolkit) and plain (piped standard input).

``main`` picks one. On a terminal: a PromptSession with history, completion,
highlighting and multi-line input; Ctrl-C cancels the line, Ctrl-D on an
empty line or ``:quit`` leaves with status 0. With standard input not a
terminal: lines are read plainly (no prompt, no escape codes, no history),
results go to standard output and errors to standard error, and the exit
status is the highest of the statements', as for ``gradcli eval -``; there a
bare ``quit`` or ``exit`` is a name like any other (``:quit`` leaves).
"""

from __future__ import annotations

import sys
from typing import IO, Any

from .. import __version__
from ..errors import GradcliError, UnknownNameError
from ..pipes import cannot_write, silence_stdout
from ..render.errors import format_error
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
        from prompt_toolkit.output import create_output

        return run_interactive(loader, output=create_output(stdout=sys.stderr),
                               display=PlainDisplay())
    return run_plain(loader, sys.stdin)


def run_plain(loader: SessionLoader, stdin: IO[str], display: Any = None) -> int:
    """Read statements from a pipe or file, as ``gradcli eval -`` does (one
    reader, gradcli.lang.reader: a line with an open bracket goes on to the
    next, and a bracket never closed costs only its own lines).

    Ctrl-C ends it with status 130, as shells expect; a reader that goes away
    (``| head -1``) ends it quietly with status 1, as it does ``gradcli eval``.
    """
    shell = Shell(loader, display or PlainDisplay(), positions=True)
    try:
        _read_lines(shell, stdin)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        silence_stdout()
        return max(shell.status, 1)
    except OSError as exc:  # > /dev/full
        return cannot_write(exc)
    return shell.status


def _read_lines(shell: Shell, stdin: IO[str]) -> None:
    from ..lang.reader import read_inputs

    for batch in read_inputs(stdin):
        for item in batch:
            if item.error is not None:  # a line the reader refused
                shell.show_error(item.error, item.text, item.line)
            elif _leaves(shell, item.text, item.line):
                return


_WORDS_TO_LEAVE = ("quit", "exit")


def _leaves(shell: Shell, text: str, first_line: int) -> bool:
    """Run one input; True when it asks to leave (``:quit``). A bare ``quit``
    or ``exit`` leaves only at a prompt: in a script it is an unknown name,
    so that a stray word cannot end the script early and silently."""
    word = text.strip()
    if word in _WORDS_TO_LEAVE and word not in shell.session.values:
        index = next(i for i, line in enumerate(text.split("\n")) if line.strip())
        column = text.split("\n")[index].index(word) + 1
        shell.show_error(UnknownNameError(
            f"unknown name '{word}'; to leave the REPL, type :quit",
            line=first_line + index, column=column), text, first_line)
        return False
    return not shell.execute(text, first_line=first_line)


def make_prompt_session(loader: SessionLoader, *, history: Any = None, input: Any = None,
                        output: Any = None) -> Any:
    """The PromptSession with every feature of the REPL (kept apart for tests)."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
    from prompt_toolkit.layout.processors import HighlightMatchingBracketProcessor

    from .completer import GradcliCompleter
    from .keys import make_key_bindings
    from .lexer import STYLE, GradcliLexer

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
        from .history import make_history

        history, warning = make_history()
    from prompt_toolkit.utils import is_dumb_terminal

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
        except OSError as exc:  # the terminal's output failed
            return cannot_write(exc)
