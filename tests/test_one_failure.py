"""Issue 30 §7: one failure loses nothing else.

An internal error in one statement, raised while computing it or while
rendering its result, is said once (``internal error ...; please report
it`` with its position) and the statements after it still run, in
``gradcli eval`` (arguments and standard input) and in the REPL.
"""

from __future__ import annotations

import io
import json

import pytest

from gradcli.cli.main import dispatch
from gradcli.render import plain
from gradcli.repl import display
from gradcli.repl.app import run_plain
from gradcli.repl.loader import SessionLoader
from gradcli.session import Session


def eval_(capsys: pytest.CaptureFixture[str], *args: str, stdin: str | None = None,
          monkeypatch: pytest.MonkeyPatch | None = None) -> tuple[int, str, str]:
    if stdin is not None and monkeypatch is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = dispatch(["eval", *args])
    out, err = capsys.readouterr()
    return code, out, err


def failing_on(real, bad: str):  # type: ignore[no-untyped-def]
    """``real`` that raises for the result of the statement ``bad``."""
    def render(res, *args, **kwargs):  # type: ignore[no-untyped-def]
        if res.input == bad:
            raise RuntimeError("boom")
        return real(res, *args, **kwargs)
    return render


def test_the_formula_case_of_issue_30_loses_no_statement(capsys):
    code, out, err = eval_(capsys, "--formula", "2^5000", "k=42", "k")
    assert code in (0, 1)
    assert "42" in out.splitlines()[0] or "42" in out  # k = 42 ran
    assert "unknown name" not in err  # and k was bound when k ran
    assert "please report it" not in err or "(line 1)" in err


def test_a_renderer_failing_in_eval_loses_no_later_statement(capsys, monkeypatch):
    monkeypatch.setattr(plain, "plain_pieces", failing_on(plain.plain_pieces, "2*3"))
    code, out, err = eval_(capsys, "--format", "plain", "1+1", "2*3", "k=42", "k")
    assert code == 1
    assert out.split() == ["2", "42"]  # k = 42 is silent, k prints
    assert "error: internal error (RuntimeError: boom); please report it (line 2)" in err


def test_a_renderer_failing_on_standard_input(capsys, monkeypatch):
    monkeypatch.setattr(plain, "plain_pieces", failing_on(plain.plain_pieces, "2*3"))
    code, out, err = eval_(capsys, "--format", "plain", "-", stdin="1+1\n2*3\nk=42\nk\n",
                           monkeypatch=monkeypatch)
    assert code == 1
    assert out.split() == ["2", "42"]  # k = 42 is silent, k prints
    assert "please report it (line 2)" in err


def test_json_gets_an_error_object_for_the_failed_one(capsys, monkeypatch):
    from gradcli.render import json as render_json

    monkeypatch.setattr(render_json, "json_pieces",
                        failing_on(render_json.json_pieces, "2*3"))
    code, out, _ = eval_(capsys, "--format", "json", "2*3", "k=4", "k")
    assert code == 1
    objects = [json.loads(line) for line in out.splitlines()]
    assert objects[0]["error"]["message"].startswith("internal error (RuntimeError: boom)")
    assert [o.get("value") for o in objects[1:]] == [4.0, 4.0]


def test_a_session_failing_on_one_argument_loses_no_later_argument(capsys, monkeypatch):
    real = Session.run

    def run(self, text, *args, **kwargs):  # type: ignore[no-untyped-def]
        if text == "2*3":
            raise RuntimeError("boom")
        return real(self, text, *args, **kwargs)

    monkeypatch.setattr(Session, "run", run)
    code, out, err = eval_(capsys, "--format", "plain", "2*3", "k=42", "k")
    assert code == 1 and out.split() == ["42"]
    assert "internal error (RuntimeError: boom); please report it (line 1)" in err


def test_a_display_failing_in_the_repl_loses_no_later_statement(capsys, monkeypatch):
    real = display.PlainDisplay.value

    def value(self, v):  # type: ignore[no-untyped-def]
        if v == 6:
            raise RuntimeError("boom")
        real(self, v)

    monkeypatch.setattr(display.PlainDisplay, "value", value)
    code = run_plain(SessionLoader(), io.StringIO("1+1; 2*3; k=42; k\n5\n"))
    out, err = capsys.readouterr()
    assert code == 1
    assert out.split() == ["2", "42", "5"]
    assert "internal error (RuntimeError: boom); please report it (line 1)" in err


def test_an_internal_error_in_an_at_value_is_said_as_a_bad_at(capsys, monkeypatch):
    def bind_at(self, name, text):  # type: ignore[no-untyped-def]
        raise ValueError("Maximum allowed dimension exceeded")

    monkeypatch.setattr(Session, "bind_at", bind_at)
    code, out, err = eval_(capsys, "--at", "x=3", "1")
    assert code == 1 and out == ""
    assert err.startswith("error: --at x=3: internal error (ValueError: Maximum allowed "
                          "dimension exceeded); please report it")
