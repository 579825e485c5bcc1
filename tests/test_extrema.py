"""``gradcli extrema`` and ``:extrema``: the shells over session.extrema."""

from __future__ import annotations

import json
import subprocess
import sys

import inprocess
import pytest

from gradcli.errors import GradcliError
from gradcli.extrema import Extrema, Extremum
from gradcli.lang.parser import parse
from gradcli.render.extrema import extrema_json, extrema_lines
from gradcli.session import Session
from gradcli.session.curves import drawn
from gradcli.session.extrema import find_extrema

PYTHON = sys.executable


def gradcli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return inprocess.gradcli(*args, stdin=stdin)


def gradcli_all(*calls: tuple[str, ...]) -> list[subprocess.CompletedProcess[str]]:
    return [gradcli(*c) for c in calls]


def test_the_session_returns_data_and_the_renderers_show_it() -> None:
    session = Session()
    data = find_extrema(session, drawn("g(t) = t^3 - 3*t; g(x)", "", ""), "x", -3, 3)
    assert data.points == [Extremum("end", -3.0, -18.0), Extremum("max", -1.0, 2.0),
                           Extremum("inflection", 0.0, 0.0), Extremum("min", 1.0, -2.0),
                           Extremum("end", 3.0, 18.0)]
    assert "g" in session.functions  # the setup ran in the session and stays
    assert extrema_lines(Extrema("x^2", "x", -1, 1, [Extremum("min", 1.0, -2.0)])) == [
        "min  x = 1  f = -2"]
    assert json.loads(extrema_json(data))["over"] == {"x": [-3.0, 3.0]}


def test_an_error_is_placed_in_the_text_of_the_argument() -> None:
    item = drawn("f(t) = t; f(x) + q", "", "")
    with pytest.raises(GradcliError) as info:
        find_extrema(Session(), item, "x", 0, 1)
    # column 18 (from 1) of the whole argument, not of "f(x) + q"
    assert "q" in str(info.value.message) and info.value.column == 18
    assert parse("x")  # the parser still works after the failure


def test_plain_json_and_errors() -> None:
    plain, js, none, two, bad, parse_error, over = gradcli_all(
        ("extrema", "x^3 - 3*x", "--over", "x=-3:3"),
        ("extrema", "x^4", "--over", "x=-1:2", "--format", "json"),
        ("extrema", "tan(x)", "--over", "x=1:2"),
        ("extrema", "x^2", "x^3"),
        ("extrema", "x^2", "--over", "x=2:1"),
        ("extrema", "x^2 +", "--format", "json"),
        ("extrema", "x^2", "--over", "1:2"),
    )
    assert plain.returncode == 0 and plain.stdout.splitlines() == [
        "end         x = -3  f = -18", "max         x = -1  f = 2",
        "inflection  x = 0  f = 0", "min         x = 1  f = -2", "end         x = 3  f = 18"]
    assert json.loads(js.stdout) == {
        "input": "x^4", "over": {"x": [-1.0, 2.0]},
        "extrema": [{"kind": "min", "x": 0.0, "value": 0.0},
                    {"kind": "end", "x": 2.0, "value": 16.0}]}
    assert none.returncode == 0 and none.stdout == ""
    assert "no extremum or inflection point" in none.stderr
    assert two.returncode == 2 and "one EXPR" in two.stderr
    assert bad.returncode == 2 and "is empty" in bad.stderr
    assert parse_error.returncode == 2
    assert json.loads(parse_error.stdout)["error"]["column"] == 6
    assert "^" in parse_error.stderr and "Traceback" not in parse_error.stderr
    assert over.returncode == 2 and "NAME=A:B" in over.stderr


def test_the_repl_command(tmp_path) -> None:
    proc = gradcli("repl", stdin="f(x) = x^4\n:extrema f(x) -1 2\n:extrema x^2 2 1\n"
                   ":extrema\n:extrema x^2 0 1 3\n")
    assert proc.stdout.splitlines() == ["min  x = 0  f = 0", "end  x = 2  f = 16"]
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error")]
    assert len(errors) == 3
    assert "is empty" in errors[0]
    assert errors[1].startswith("error: usage: :extrema EXPR [A B]")


def test_curve_marks_in_a_file_and_in_the_terminal(tmp_path) -> None:
    from gradcli.render.curve import figure
    from gradcli.render.termplot import render_terminal

    session = Session()
    item = drawn("x^3 - 3*x", "", "")
    data = session.curve([item], "x", -3, 3)
    marks = find_extrema(session, item, "x", -3, 3).points
    fig = figure(data, marks)
    [ax] = fig.axes
    # one scatter a kind shown: min, max, inflection, end
    assert len(ax.collections) == 4
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "f", "min", "max", "inflection", "end"]
    plain = render_terminal(data, 80, 24, colour=False)
    marked = render_terminal(data, 80, 24, colour=False, marks=marks)
    assert "extrema" in marked and "extrema" not in plain and marked != plain
    out = tmp_path / "m.svg"
    proc = gradcli("curve", "x^3 - 3*x", "--over", "x=-3:3", "--mark", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    # four kinds of marks, each on the axes and in the legend
    assert out.read_text().count("<g id=\"PathCollection_") == 8


def test_repl_errors_in_the_interval_point_at_the_end_that_has_them():
    # :extrema read A and B without their places (:curve had them): the caret
    # went under the command
    done = gradcli("repl", stdin=":extrema x^3-3*x -3 nosuch\n:curve x^2 0 nosuch\n"
                   ":extrema x^2 2 1\n")
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert errors[0].endswith("(line 1, column 21)"), errors
    assert errors[1].endswith("(line 2, column 14)"), errors
    assert errors[2].endswith("(line 3, column 14)"), errors
