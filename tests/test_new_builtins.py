"""Issue 31's built-ins in the language: keyword arguments, max and min of
several values, piecewise functions at their jumps, formulas that refuse."""

from __future__ import annotations

import numpy as np
import pytest

from gradcli.cli.words import CLI_WORDS
from gradcli.errors import ParseError
from gradcli.lang.parser import parse
from gradcli.session import EvalOptions, Session


def last(text: str, at: dict | None = None, method: str = "auto", **options):
    """The last result of ``text``, with the variables ``at`` bound first (--at)."""
    session = Session(words=CLI_WORDS, method=method)
    for name, v in (at or {}).items():
        session.values[name] = np.asarray(v, dtype=float)
    return session.run(text, EvalOptions(**options))[-1]


def test_keyword_arguments_parse_after_the_others() -> None:
    node = parse("max(A, axis=0)")[0].node
    assert node.func == "max" and [a.id for a in node.args] == ["A"]
    assert [(k, v.text) for k, v in node.keywords] == [("axis", "0")]
    with pytest.raises(ParseError, match="follows a keyword argument") as info:
        parse("max(axis=0, A)")
    assert (info.value.line, info.value.column) == (1, 13)
    with pytest.raises(ParseError, match="'axis' is given twice"):
        parse("sum(A, axis=0, axis=1)")
    with pytest.raises(ParseError):
        parse("[a=1]")  # an array holds no keywords


@pytest.mark.parametrize(("text", "message"), [
    ("sin(1, axis=0)", "sin takes no keyword arguments; got axis="),
    ("f(t) = t; f(1, axis=0)", "f takes no keyword arguments; got axis="),
    ("sum([1, 2], ax=0)", "sum takes axis= only; got ax="),
    ("max([1, 2], 3, axis=0)", "axis= goes with one array"),
])
def test_a_keyword_a_function_does_not_take_is_one_clear_error(text: str, message: str) -> None:
    res = last(text)
    assert res.error is not None and message in res.error.message, res.error


def test_max_and_min_of_several_values_and_of_one_array() -> None:
    assert float(last("max(2, 7, 3)").value) == 7 and float(last("min(2, 7, 3)").value) == 2
    res = last("A = [[1, 5], [3, 2]]; [max(A, axis=0), min(A, axis=1), sum(A, axis=0)]")
    np.testing.assert_array_equal(res.value, [[3, 5], [1, 2], [4, 7]])
    assert res.warnings == []
    # a ReLU over a sweep, and its derivative, element by element
    res = last("max(x, 0.0)", at={"x": np.array([-1.0, 0.5, 2.0])}, order=1)
    assert res.error is None and res.warnings == []
    np.testing.assert_array_equal(res.value, [0.0, 0.5, 2.0])
    np.testing.assert_array_equal(res.derivatives[0], [0.0, 1.0, 1.0])


def test_an_array_and_a_whole_number_warn_that_max_changed_meaning() -> None:
    res = last("A = [[1, 5], [3, 2]]; max(A, 2)")
    np.testing.assert_array_equal(res.value, [[2, 5], [3, 2]])
    assert res.warnings == ["max(array, 2) is now the larger of each element and 2; "
                            "for the largest along axis 2, write max(array, axis=2)"]
    assert last("max(2, [1, 3])").warnings == []  # a number first: no old meaning


@pytest.mark.parametrize("method", ["taylor", "backprop"])
@pytest.mark.parametrize(("text", "at", "want", "warning"), [
    ("floor(x)", 2.0, [2.0, 0.0, 0.0], "floor: the derivative is not defined at a jump"),
    ("floor(x)", 2.5, [2.0, 0.0, 0.0], None),
    ("max(x, 2)", 2.0, [2.0, 1.0, 0.0], "max: the derivative is not defined at a kink"),
    ("clip(x, 0, 1)", 1.0, [1.0, 1.0, 0.0], "clip: the derivative is not defined at a kink"),
    ("mod(x, 3)", 6.0, [0.0, 1.0, 0.0], "mod: the derivative is not defined at a jump"),
    ("mod(7, x)", 2.0, [1.0, -3.0, 0.0], None),
])
def test_piecewise_values_are_numpys_and_jumps_warn(text, at, want, warning, method) -> None:
    res = last(text, at={"x": np.array(at)}, order=2, method=method)
    assert res.error is None
    assert [float(res.value)] + [float(d) for d in res.derivatives] == want
    if warning is None:
        assert res.warnings == []
    else:
        assert len(res.warnings) == 1 and res.warnings[0].startswith(warning)


@pytest.mark.parametrize(("text", "formula"), [
    ("diff(max(x, 2), x)", "abs(x - 2)/(2*(x - 2)) + 1/2"),
    ("diff(floor(x)*x, x)", "floor(x)"),
    ("diff(hypot(x, 3), x)", "x/sqrt(x^2 + 9)"),
    ("diff(log(x, 2), x)", "1/(x*log(2))"),
    ("diff(ln(x), x)", "1/x"),
    ("diff(sec(x), x)", "sec(x)*tan(x)"),
    ("diff(erf(x), x)", "2*exp(-x^2)/sqrt(pi)"),
])
def test_formulas_of_the_new_functions(text: str, formula: str) -> None:
    from gradcli.formula.printing import plain

    res = last(text)
    assert res.error is None and [plain(f) for f in res.formulas] == [formula]


@pytest.mark.parametrize("text", ["diff(atan2(x, 1), x)", "diff(mod(x, 2), x)"])
def test_a_formula_that_is_not_covered_asks_for_a_point(text: str) -> None:
    res = last(text)
    assert res.error is not None and "give a point" in res.error.message
    assert float(last(text[:-1] + ", 1, 0.5)").value) != 0  # at a point it is a number


def test_max_over_an_array_variable_is_elementwise_not_mixing() -> None:
    res = last("max(x, 0.0)", at={"x": np.linspace(-1, 1, 5)}, order=1)
    assert not any("mixes" in w for w in res.warnings)
