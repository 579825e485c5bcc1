"""What benchmarks/fuzz.py found in its full configuration (extreme numbers and
huge arrays), each reduced to its smallest input: no internal error, and the
answer each should give."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from inprocess import gradcli

from gradcli.session import EvalOptions, Session


def _gradcli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return gradcli(*args, stdin=stdin)


def _session(method: str = "auto", **at: str) -> Session:
    session = Session(method=method)
    for name, text in at.items():
        session.bind_at(name, text)
    return session


def test_checking_an_empty_value_is_inconclusive_not_an_internal_error() -> None:
    # was "internal error (TypeError: only 0-dimensional arrays can be converted ...)"
    (res,) = _session(y="[]").run("y", EvalOptions(check=True))
    assert res.error is None and res.exit_status == 0
    assert [c.ok for c in res.check] == [None, None]
    assert any("no points to compare" in w for w in res.warnings)


def test_backprop_folds_past_an_empty_constant() -> None:
    # was "internal error (IndexError: index 0 is out of bounds ...)" in the builder's folding
    session = _session("backprop", z="linspace(0, 1, 5)")
    (res,) = session.run("z ** zeros(0, 1)", EvalOptions(order=4))
    assert res.error is None
    assert np.asarray(res.value).shape == (0, 5)
    assert [np.asarray(d).tolist() for d in res.derivatives] == [[0.0] * 5] * 4


def test_a_curve_over_an_interval_wider_than_the_floats_is_a_clear_range_error(
        tmp_path: Path) -> None:
    # was "cannot draw x = -1e+308..1e+308 (Singular matrix)", and the REPL showed
    # NumPy's raw overflow warnings with their source lines
    out = tmp_path / "a.svg"
    done = _gradcli("curve", "x^2", "--over", "x=-1e308:1e308", "-o", str(out))
    assert done.returncode == 1 and not out.exists()
    assert done.stderr.startswith("error: the interval x = -1e+308..1e+308 is too wide: its "
                                  "width passes the largest float (1.798e+308)")
    repl = _gradcli("repl", stdin=":curve x^2 -1e308 1e308\n")
    assert "too wide" in repl.stderr
    assert "Warning" not in repl.stderr and "linspace" not in repl.stderr
    # a finite width near the largest float: matplotlib's axis fails, said plainly
    done = _gradcli("curve", "x^2", "--over", "x=0:1.7e308", "-o", str(out))
    assert done.returncode == 1 and not out.exists()
    assert "too near the largest float" in done.stderr and "(" not in done.stderr
    assert list(tmp_path.iterdir()) == []  # no temporary file left


def test_whole_numbers_print_as_integers_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # zeros(1e7) made ten million format_number calls (39 s under load, 1.1 s of CPU a
    # million); whole numbers are now written from int64 at once (0.3 s a million)
    from gradcli.render import numbers
    from gradcli.render.numbers import format_value, value_pieces

    mixed = np.array([0.0, -0.0, 1e16, 1e15, -3.0, 2.5, np.nan, -np.inf, np.inf, 1e-300,
                      123456789012345.0, 0.1])
    assert format_value(mixed) == ("[0, 0, 1e+16, 1000000000000000, -3, 2.5, nan, -inf, inf, "
                                   "1e-300, 123456789012345, 0.1]")
    assert format_value(np.array([[-0.0, 2.0], [3.0, -4.0]])) == "[[0, 2], [3, -4]]"
    calls = []
    real = numbers.format_number
    monkeypatch.setattr(numbers, "format_number", lambda *a: calls.append(a) or real(*a))
    zeros = np.zeros(100_000)
    text = "".join(value_pieces(zeros))
    assert text == "[" + ", ".join(["0"] * zeros.size) + "]"
    assert calls == []  # not one call a number
