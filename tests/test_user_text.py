"""Issue 30 §4: nothing a user types reaches the terminal raw.

Every message quoting user text shows a control or format character (ESC,
BEL, a bidi override) as U+FFFD, in the REPL and in ``gradcli eval``.
"""

from __future__ import annotations

import io
import json
import os

import pytest

from gradcli.cli.main import dispatch
from gradcli.errors import GradcliError, UsageError, visible
from gradcli.repl.app import run_plain
from gradcli.repl.loader import SessionLoader

RAW = ("\x1b", "\x07", "\u202e", "\u2066", "\x9b")


def repl(text: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_plain(SessionLoader(), io.StringIO(text))
    out, err = capsys.readouterr()
    return code, out, err


def assert_clean(text: str) -> None:
    for ch in RAW:
        assert ch not in text, f"{ch!r} reached the terminal in {text!r}"


@pytest.mark.parametrize("line, says", [
    (":help \x1b]0;pwned\x07", "no help for '\ufffd]0;pwned\ufffd'"),
    (":d 2 x^2 wrt y\x1b[2J", "not 'y\ufffd[2J'"),
    (":check x^2 wrt q\x1b[31m", "not 'q\ufffd[31m'"),
    (":clear a\x1b[5m", "'a\ufffd[5m' is neither"),
    (":curve x^2 0 1 a\x1b[2J", "got a\ufffd[2J"),
    (":d x\u202e^2", "\ufffd"),
    ("y\x9b2J + 1", "\ufffd"),
])
def test_repl_messages_show_control_characters_as_replacement(line, says, capsys):
    code, out, err = repl(line + "\n", capsys)
    assert code in (1, 2)
    assert says in err
    assert_clean(out + err)


def test_a_bidi_override_in_a_plot_file_name_is_not_echoed(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = repl('x = 1\n:plot x^2 "a\u202eb.dot"\n', capsys)
    assert code == 2, err  # a piped session that met an error
    # refused as an escape is (a file was made with the override in its name)
    assert "the file name has a control or format character, U+202E, at position 2: " \
        "a\ufffdb.dot" in err
    assert_clean(out + err)
    assert os.listdir(tmp_path) == []


def test_cli_plot_file_name_and_messages(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = dispatch(["plot", "x^2", "--at", "x=1", "-o", "c\u202ed.dot"])
    _, err = capsys.readouterr()
    assert code == 2 and "control or format character, U+202E" in err and "c\ufffdd.dot" in err
    code = dispatch(["eval", "--wrt", "y\x1b[2J", "--order", "1", "x^2", "--at", "x=1"])
    _, err = capsys.readouterr()
    assert code == 2
    assert_clean(err)
    for args in (["\x1b[2Jx"], ["eval", "--o\x1b[2J"], ["help", "\x1b]0;t\x07"]):
        code = dispatch(args)
        _, err = capsys.readouterr()
        assert code == 2 and "\ufffd" in err, err
        assert_clean(err)


def test_eval_errors_and_warnings_in_every_format(capsys):
    for fmt in ("plain", "json", "csv", "table", "latex"):
        code = dispatch(["eval", "--format", fmt, "zz\x1b]0;t\x07 + 1", "\u202ex"])
        out, err = capsys.readouterr()
        assert code == 2, (fmt, err)
        assert_clean(err)
        if fmt == "json":  # JSON escapes what it carries; the message is visible too
            for line in out.splitlines():
                assert "\x1b" not in json.loads(line).get("error", {}).get("message", "")


def test_a_huge_curve_interval_is_a_range_error(capsys):
    code, _, err = repl(":curve x^2 0 1e308\n", capsys)
    assert code == 1
    assert "the interval is too wide" in err
    assert "int too large" not in err and "Numerical result" not in err


def test_visible_is_one_for_one_and_keeps_line_breaks():
    assert visible("a\x1b[2Jb\u202ec") == "a\ufffd[2Jb\ufffdc"
    assert visible("two\nlines\ttab") == "two\nlines\ufffdtab"
    assert visible("π² x₁ ✓") == "π² x₁ ✓"


def test_an_error_message_is_visible_wherever_it_is_set():
    err = UsageError("name 'a\x1b[5m'")
    assert err.message == str(err) == "name 'a\ufffd[5m'"
    err.message = "--at \x07" + err.message
    assert err.message.startswith("--at \ufffd")
    assert "\x1b" not in GradcliError.hinted("{value} for \x1bq", "q\x1b").message


def test_forced_colour_keeps_its_codes_and_still_hides_the_users(capsys):
    code = dispatch(["eval", "--color", "always", "sinn\x1b[5m(1)"])
    _, err = capsys.readouterr()
    assert code == 2
    assert err.startswith("\x1b[1;31merror:\x1b[0m")  # gradcli's own colour
    assert "\x1b[5m" not in err and "\ufffd[5m" in err  # the user's escape, made visible
