"""The messages users meet: one clear error in gradcli's words, with its
position and the way around (issue 29's leftovers), and CSV columns that each
hold one kind whatever order the statements come in."""

from __future__ import annotations

import csv
import io
import math
import shlex
import subprocess
import sys

import numpy as np
import pytest
from inprocess import gradcli

from gradcli.cli.options import commands_taking


def _error(*args: str) -> str:
    done = gradcli(*args)
    assert done.returncode != 0, done.stdout
    assert "Traceback" not in done.stderr
    return done.stderr


# --------------------------------------------------------------------------
# 1. another command's option


def test_curve_format_says_which_commands_take_it_and_the_way_to_the_numbers() -> None:
    done = gradcli("curve", "sin(x)", "--over", "x=0:2", "--format", "csv")
    assert done.returncode == 2 and done.stdout == ""
    message = done.stderr.splitlines()[-1]
    assert message.startswith("Error: No such option for curve: --format "
                              "(eval and extrema take it); curve draws a figure (-o FILE")
    # the command it suggests runs and gives the numbers over the interval as CSV
    suggested = message.split("as CSV: ")[1]
    words = shlex.split(suggested)
    assert words[:2] == ["gradcli", "eval"]
    numbers = gradcli(*words[1:])
    assert numbers.returncode == 0, numbers.stderr
    rows = list(csv.DictReader(io.StringIO(numbers.stdout)))
    assert [float(r["x"]) for r in rows[:3]] == [0.0, 0.1, 0.2]
    assert float(rows[-1]["x"]) == pytest.approx(2.0)
    assert all(float(r["value"]) == pytest.approx(math.sin(float(r["x"]))) for r in rows)


@pytest.mark.parametrize(("args", "said"), [
    (("eval", "x", "--over", "x=0:1"),
     "No such option for eval: --over (curve and extrema take it); eval takes an interval "
     "as a range of points: --at x=0:1:0.1"),
    (("eval", "x^2", "-o", "a.png"),
     "No such option for eval: -o (plot and curve take it); for a figure: gradcli curve "
     "'x^2' -o FILE"),
    (("extrema", "x^3", "--order", "2"),
     "No such option for extrema: --order (eval, plot and curve take it)"),
    (("plot", "x", "--check", "-o", "g.dot"), "No such option for plot: --check (eval takes it)"),
    (("repl", "--at", "x=1"), "No such option for repl: --at (eval, plot, curve and extrema "
     "take it)"),
])
def test_an_option_of_another_command_names_the_commands_that_take_it(args, said) -> None:
    message = _error(*args)
    assert f"Error: {said}" in message
    assert "Possible options" not in message and "goes after '--'" not in message


def test_the_commands_named_are_the_parsers_own() -> None:
    assert commands_taking("--format") == ["eval", "extrema"]
    assert commands_taking("--over") == ["curve", "extrema"]
    assert commands_taking("-o") == ["plot", "curve"]
    assert commands_taking("--bogus") == []
    # an option no command has keeps the near misses
    assert _error("eval", "--or", "1", "x").endswith(
        "Error: No such option: --or (Possible options: --color, --order, --wrt)\n")


# --------------------------------------------------------------------------
# 2. curve of one number


def test_a_curve_of_one_number_says_so_once() -> None:
    message = _error("curve", "sum(x)", "-o", "a.png")
    assert message == ("error: sum(x) is one number for the whole interval, not a value at "
                       "each x; a curve draws an expression elementwise in x, such as x^2 "
                       "or sin(x)\n")
    assert _error("curve", "sum(t)", "--over", "t=0:1", "-o", "a.png").count("sum(t)") == 1
    assert ", as sum(t) is, not a value at each t" in _error(
        "curve", "max(t)", "--over", "t=0:1", "-o", "a.png")


# --------------------------------------------------------------------------
# 3. indices


def _claimed_valid(message: str) -> tuple[int, int, int, int]:
    """(low, high, -n, -1) from '(valid: 0 to 2, or -3 to -1)'."""
    valid = message.split("(valid: ")[1].split(")")[0]
    ahead, behind = valid.split(", or ")
    low, high = map(int, ahead.split(" to "))
    nlow, nhigh = map(int, behind.split(" to "))
    return low, high, nlow, nhigh


@pytest.mark.parametrize(("text", "said"), [
    ("[1,2,3][5]", "index 5 is out of range for an array of 3 elements (valid: 0 to 2, or "
     "-3 to -1) (line 1, column 8)"),
    ("[1,2,3][-4]", "index -4 is out of range for an array of 3 elements (valid: 0 to 2, "
     "or -3 to -1)"),
    ("[[1,2],[3,4]][2,0]", "the 1st index, 2, is out of range for an array of shape (2, 2) "
     "(valid: 0 to 1, or -2 to -1) (line 1, column 14)"),
    ("[[1,2],[3,4]][0,-3]", "the 2nd index, -3, is out of range for an array of shape "
     "(2, 2) (valid: 0 to 1, or -2 to -1)"),
    ("[[1,2],[3,4]][5,0:1]", "the 1st index, 5, is out of range for an array of shape (2, 2)"),
    ("zeros(0)[0]", "index 0 is out of range: the array is empty"),
    ("[7][1]", "index 1 is out of range for an array of 1 element (valid: 0, or -1)"),
    ("5[0]", "1 index for a number, which has no elements to index"),
    ("[1,2,3][1,1]", "2 indices for an array of 3 elements, which takes one"),
    ("[[1,2],[3,4]][1,1,1]", "3 indices for an array of shape (2, 2), which takes 2 at most"),
])
def test_index_errors_are_in_gradclis_words(text, said) -> None:
    message = _error("eval", text)
    assert message.startswith(f"error: {said}")
    for numpy_words in ("out of bounds", "axis", "slice(", "size"):
        assert numpy_words not in message


def test_the_valid_indices_said_are_the_ones_that_work() -> None:
    message = _error("eval", "v = [10, 20, 30, 40]", "v[4]")
    low, high, nlow, nhigh = _claimed_valid(message)
    values = gradcli("eval", "v = [10, 20, 30, 40]", *(f"v[{k}]" for k in
                                                     (low, high, nlow, nhigh)))
    assert values.returncode == 0
    v = np.array([10, 20, 30, 40])
    assert [float(t) for t in values.stdout.split()] == [v[low], v[high], v[nlow], v[nhigh]]
    for outside in (high + 1, nlow - 1):
        assert "is out of range" in _error("eval", "v = [10, 20, 30, 40]", f"v[{outside}]")


def test_an_index_in_a_sweep_and_a_slice() -> None:
    assert _error("eval", "x[5]", "--at", "x=0:1:0.5").startswith(
        "error: index 5 is out of range for an array of 3 elements")
    # a slice takes what there is, as NumPy's
    assert gradcli("eval", "[1,2,3][1:10]").stdout == "[2, 3]\n"


# --------------------------------------------------------------------------
# 4. superscripts before a call


@pytest.mark.parametrize(("args", "said"), [
    (("sin²(x)",), "error: sin²(x) is not read as sin(x)^2: a superscript raises the name it "
     "follows; write sin(x)^2 (line 1, column 5)"),
    (("sin⁻¹(x)",), "error: sin⁻¹(x) is not read as asin(x) or sin(x)^-1: a superscript "
     "raises the name it follows; write asin(x) for the inverse, or sin(x)^-1 for the "
     "reciprocal (line 1, column 6)"),
    (("f(t) = t", "f²(2)"), "error: f²(2) is not read as f(2)^2 or f²*(2): a superscript "
     "raises the name it follows; write f(2)^2 for a power of the call, or f²*(2) for a "
     "product (line 2, column 3)"),
    (("1 + cosh³(2*(x+1))",), "write cosh(2*(x+1))^3 (line 1, column 10)"),
])
def test_a_superscript_before_a_call_says_what_to_write(args, said) -> None:
    done = gradcli("eval", *args)
    assert done.returncode == 2
    assert said in done.stderr.splitlines()[0]


def test_what_it_says_to_write_is_the_power_of_the_call() -> None:
    for typed, meant in (("sin²(x)", "sin(x)^2"), ("sin⁻¹(x)", "sin(x)^-1"),
                         ("sin⁻¹(x)", "asin(x)")):
        assert f"write {meant}" in _error("eval", typed) or f", or {meant}" in \
            _error("eval", typed)
        done = gradcli("eval", meant, "--at", "x=0.5")
        expected = {"sin(x)^2": math.sin(0.5) ** 2, "sin(x)^-1": 1 / math.sin(0.5),
                    "asin(x)": math.asin(0.5)}[meant]
        assert float(done.stdout) == pytest.approx(expected, rel=1e-15)
    # a superscript on a name or a number is still its power
    assert gradcli("eval", "x² + 2³", "--at", "x=3").stdout == "17\n"


# --------------------------------------------------------------------------
# 5. a series of formulas past the size limit


def test_a_series_of_formulas_past_the_limit_names_the_names_with_no_value() -> None:
    done = gradcli("eval", "x^x*y", "--wrt", "x", "--at", "x=1", "--series", "12")
    assert done.returncode == 1
    message = done.stderr.splitlines()[0]
    assert "y has no value, so the coefficients are formulas: give it a value for numbers " \
           "(--at y=1)" in message
    assert "--at x=1" not in message  # x has its value: that hint misled
    two = _error("eval", "x^x*y*z", "--wrt", "x", "--at", "x=1", "--series", "12")
    assert "y and z have no value" in two and "give each a value" in two
    # the way around works: with y given a value the series is numbers
    numbers = gradcli("eval", "x^x*y", "--wrt", "x", "--at", "x=1,y=2", "--series", "12",
                      "--format", "json")
    assert numbers.returncode == 0, numbers.stderr
    # --order's own message is unchanged where no other name is free
    assert "ask for numbers at a point instead (--at gives them: --at x=1)" in _error(
        "eval", "x^x", "--order", "12")


def test_with_order_the_orders_that_fit_come_before_the_error() -> None:
    done = gradcli("eval", "x^x*y", "--wrt", "x", "--at", "x=1", "--series", "12",
                   "--order", "12", "--format", "json")
    import json

    out = json.loads(done.stdout)
    assert len(out["derivative_formulas"]) == 8  # orders 1..8; order 9 passes the limit
    assert out["error"]["message"].startswith("the formula of order 9 has")


# --------------------------------------------------------------------------
# 6. CSV columns hold one kind


def _table(*args: str) -> list[dict[str, str]]:
    done = gradcli("eval", *args, "--format", "csv")
    assert done.returncode == 0, done.stderr
    return list(csv.DictReader(io.StringIO(done.stdout)))


@pytest.mark.parametrize("statements", [("x^2", "diff(y^3, y)"), ("diff(y^3, y)", "x^2")])
def test_numbers_and_formulas_in_either_order_keep_their_columns(statements) -> None:
    rows = {r["input"]: r for r in _table(*statements, "--at", "x=2")}
    assert list(rows["x^2"]) == ["input", "value", "formula", "error"]
    assert (rows["x^2"]["value"], rows["x^2"]["formula"]) == ("4", "")
    assert (rows["diff(y^3, y)"]["value"], rows["diff(y^3, y)"]["formula"]) == ("", "3*y^2")


def test_every_number_column_parses_as_a_number() -> None:
    for args in (("x^3", "y^2", "--at", "x=2", "--order", "2"),
                 ("y^2", "x^3", "--at", "x=2", "--order", "2"),
                 ("x^3", "y^2*x", "--wrt", "x", "--at", "x=2", "--series", "2"),
                 ("x^2", "y^2", "--at", "x=0:1:0.5", "--order", "1"),
                 ("x*y", "grad(x*z)", "--at", "x=2,y=1", "--grad")):
        rows = _table(*args)
        for row in rows:
            numeric = [k for k in row if k == "value" or k[:1] in "dc" and k[1:].isdigit()]
            for key in numeric:
                if row[key] and not row[key].startswith("x:"):
                    float(row[key])  # never a formula's text
            formulas = [k for k in row if k.startswith("formula")]
            if any(row[k] for k in formulas):
                assert not any(row[k] for k in numeric), row
        assert {r["input"] for r in rows} == {a for a in args[:2]}


def test_the_columns_are_the_same_through_standard_input() -> None:
    # a real pipe: the lines arrive together, as one batch (in process they
    # are read a line at a time)
    piped = subprocess.run([sys.executable, "-m", "gradcli", "eval", "-", "--at", "x=2",
                            "--format", "csv"], input="x^2\ndiff(y^3, y)\n",
                           capture_output=True, text=True, timeout=60)
    args = gradcli("eval", "x^2", "diff(y^3, y)", "--at", "x=2", "--format", "csv")
    assert piped.stdout == args.stdout


def test_only_formulas_or_only_numbers_keep_their_tables() -> None:
    assert list(_table("x^4", "x^2", "--order", "1")[0]) == ["input", "order", "formula",
                                                            "error"]
    assert list(_table("x^4", "x^2", "--at", "x=1", "--order", "1")[0]) == [
        "input", "wrt", "value", "d1", "error"]
