"""series_text: Taylor polynomials that read like mathematics, from the
float coefficients Taylor mode computes (checked against SymPy's series)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import sympy

from gradcli.core import functions as F
from gradcli.core.graph import Variable
from gradcli.core.taylor.api import taylor_coefficients
from gradcli.formula.series_text import exact_coefficient, series_text
from gradcli.lang.parser import parse
from gradcli.session import Session


def coefficients(f, at: float, n: int) -> list[float]:
    x = Variable(np.array(at))
    return [float(c) for c in taylor_coefficients(f(x), x, n)]


def test_the_issue_example() -> None:
    cs = coefficients(lambda x: F.exp(x) * F.sin(x), 0.0, 6)
    assert series_text(cs, "x") == "x + x^2 + x^3/3 - x^5/30 - x^6/90"


def test_rounding_noise_drops_out_and_the_point_is_written_as_given() -> None:
    cs = coefficients(F.cos, math.pi, 6)
    assert any(0 < abs(c) < 1e-15 for c in cs[1::2])  # the noise is really there
    assert series_text(cs, "x", "pi") == "-1 + (x - pi)^2/2 - (x - pi)^4/24 + (x - pi)^6/720"


def test_negative_and_numeric_points() -> None:
    assert series_text([1.0, 2.0], "x", "-0.5") == "1 + 2*(x + 0.5)"
    assert series_text([1.0, 2.0], "t", 0.25) == "1 + 2*(t - 0.25)"
    assert series_text([1.0, 2.0], "x", None) == "1 + 2*x"
    assert series_text([1.0, 2.0], "x", "0") == "1 + 2*x"


@pytest.mark.parametrize(("make", "reference", "n"), [
    (F.sin, "sin(x)", 11),
    (F.tan, "tan(x)", 13),
    (F.exp, "exp(x)", 9),
    (lambda x: F.log(1 + x), "log(1 + x)", 8),
    (lambda x: F.sqrt(1 + x), "sqrt(1 + x)", 6),
    (F.atan, "atan(x)", 9),
])
def test_exact_coefficients_match_sympy_series(make, reference: str, n: int) -> None:
    text = series_text(coefficients(make, 0.0, n), "x")
    x = sympy.Symbol("x")
    expected = sympy.series(sympy.sympify(reference), x, 0, n + 1).removeO()
    ours = sympy.sympify(text.replace("^", "**"), locals={"x": x})
    assert sympy.expand(ours - expected) == 0, text
    assert "." not in text  # every coefficient exact


def test_irrational_coefficients_stay_numbers() -> None:
    text = series_text(coefficients(F.sin, 0.7, 2), "x", "0.7")
    assert text.startswith("0.644217687237691 + 0.7648421872844885*(x - 0.7) - ")
    assert exact_coefficient(math.sqrt(2)) is None
    assert exact_coefficient(math.pi / 4) is None


def test_custom_number_format_and_edge_cases() -> None:
    assert series_text([math.e, 0.0, -math.e], "x", number=lambda v: f"{v:.3g}") == \
        "2.72 - 2.72*x^2"
    assert series_text([0.0, 0.0]) == "0"
    assert series_text([]) == "0"
    assert series_text([1.0, math.nan], "x") == "1 + nan*x"
    assert series_text([-1.0, -1 / 3], "x") == "-1 - x/3"
    assert exact_coefficient(1 / 3 + 1e-9) is None  # not within rounding
    assert exact_coefficient(1 / 362880, 9) == Fraction(1, 362880)


def test_text_is_gradcli_input_that_evaluates_to_the_polynomial() -> None:
    cs = coefficients(F.exp, 1.0, 4)
    text = series_text(coefficients(F.tan, 0.0, 9), "x")
    parse(text)  # no ParseError
    session = Session()
    session.run("x = 0.3")
    value = float(session.run(text)[0].value)
    assert value == pytest.approx(sum(c * 0.3**k for k, c in
                                      enumerate(coefficients(F.tan, 0.0, 9))), rel=1e-15)
    text = series_text(cs, "x", "1")
    assert float(session.run(text)[0].value) == pytest.approx(
        sum(c * (0.3 - 1) ** k for k, c in enumerate(cs)), rel=1e-14)


@pytest.mark.parametrize(("at", "point"),
                         [(1e-20, "1e-20"), (4e-15, "4e-15"), (-2.5e-16, "-2.5e-16")])
def test_a_small_value_is_the_value_not_noise(at: float, point: str) -> None:
    # sin about a tiny point: its value is tiny beside the slope 1, but it is
    # the true value (mpmath, 30 digits), not the point's rounding as at pi.
    import mpmath

    mpmath.mp.dps = 30
    cs = coefficients(F.sin, at, 3)
    assert cs[0] == pytest.approx(float(mpmath.sin(mpmath.mpf(point))), rel=1e-15)
    text = series_text(cs, "x", point, at=at)
    assert text.startswith(repr(cs[0]) + " + ")
    pi_text = series_text(coefficients(F.sin, math.pi, 3), "x", "pi", at=math.pi)
    assert pi_text == "-(x - pi) + (x - pi)^3/6"  # sin(pi) = 1.2e-16: the point's rounding


def test_a_value_off_by_the_points_rounding_is_noise() -> None:
    cs = coefficients(lambda x: 3 * x - 0.3, 0.1, 2)
    assert 0 < abs(cs[0]) < 1e-16  # 3*0.1 - 0.3 in floats
    assert series_text(cs, "x", "0.1", at=0.1) == "3*(x - 0.1)"


def test_a_value_beside_the_points_rounding_stays() -> None:
    # sin(pi) is the point's rounding; the 1e-15 added to it is the user's
    cs = coefficients(lambda x: F.sin(x) + 1e-15, math.pi, 1)
    assert series_text(cs, "x", "pi", at=math.pi) == f"{cs[0]!r} - (x - pi)"


@pytest.mark.parametrize(("point", "base"), [
    ("1+1", "(x - (1+1))"), ("-1-1", "(x - (-1-1))"), ("pi - 3", "(x - (pi - 3))"),
    ("2e - 3", "(x - (2e - 3))"), ("1e-3", "(x - 1e-3)"), ("-1E+3", "(x + 1E+3)"),
    ("2*-1", "(x - 2*-1)"), ("-(1+1)", "(x + (1+1))"), ("f(1-2)", "(x - f(1-2))"),
])
def test_a_point_written_as_a_sum_is_bracketed(point: str, base: str) -> None:
    text = series_text([1.0, 2.0], "x", point)
    assert text == f"1 + 2*{base}"
    # pasted back, the polynomial is the same function of x
    s = Session()
    s.run("f(t) = t")
    x0 = 0.37
    s.run(f"x = {x0}")
    got = s.run(text)[0].value
    a = float(np.asarray(s.run(point)[0].value))
    assert float(np.asarray(got)) == pytest.approx(1 + 2 * (x0 - a))


def test_latex_series() -> None:
    # --format latex printed the polynomial as plain text
    cs = coefficients(F.exp, 0.0, 4)
    assert series_text(cs, "x", None, latex=True) == (
        r"1 + x + \frac{x^{2}}{2} + \frac{x^{3}}{6} + \frac{x^{4}}{24}")
    cs = coefficients(F.cos, math.pi, 4)
    assert series_text(cs, "x", "pi", latex=True, at=math.pi) == (
        r"-1 + \frac{\left(x - \pi\right)^{2}}{2} - \frac{\left(x - \pi\right)^{4}}{24}")
    assert series_text([1.0, 2.0], "t", "-pi/2", latex=True) == (
        r"1 + 2 \left(t + \frac{\pi}{2}\right)")
    assert series_text([1e-20, 1.0], "x", "1e-20", latex=True, at=1e-20) == (
        r"1 \cdot 10^{-20} + \left(x - 1 \cdot 10^{-20}\right)")
    assert series_text([0.5403023058681398, 1.0], "x", "1", latex=True) == (
        r"0.5403023058681398 + \left(x - 1\right)")
    cs = coefficients(F.sin, 1.0, 2)
    assert series_text(cs, "x", "1", latex=True) == (
        rf"{cs[0]!r} + {cs[1]!r} \left(x - 1\right) - {-cs[2]!r} \left(x - 1\right)^{{2}}")


@pytest.mark.parametrize(("point", "base"), [
    ("pi-3", r"\left(x - \left(\pi - 3\right)\right)"),
    ("-(pi-3)", r"\left(x - \left(3 - \pi\right)\right)"),
    ("2*(pi-3)", r"\left(x - \left(2 \pi - 6\right)\right)"),
    ("-pi/2", r"\left(x + \frac{\pi}{2}\right)"), ("1+1", r"\left(x - 2\right)"),
])
def test_a_latex_point_that_is_a_sum_is_bracketed(point: str, base: str) -> None:
    # pi-3 was written \left(x - \pi - 3\right), the wrong sign on the 3
    assert series_text([1.0, 2.0], "x", point, latex=True) == rf"1 + 2 {base}"


def test_a_small_coefficient_beside_a_smaller_one_is_kept() -> None:
    # about 1e-15, x^2 lost its 2e-15*(x - a): it was judged against the larger
    # neighbour only, where the docs say both
    cs = coefficients(lambda x: x**3, 1e-20, 3)
    text = series_text(cs, "x", "1e-20", at=1e-20)
    assert text == f"{cs[0]!r} + {cs[1]!r}*(x - 1e-20) + {cs[2]!r}*(x - 1e-20)^2 + (x - 1e-20)^3"
    s = Session()
    s.run("x = 2e-20")  # pasted back: x^3 there, within rounding
    assert float(s.run(text)[0].value) == pytest.approx(8e-60, rel=1e-12)


def test_a_typed_decimal_is_no_rounding_of_a_simple_rational():
    # 0.333333333333 (12 digits, 1e-12 from 1/3) printed as 1/3
    from gradcli.formula.series_text import TOLERANCE, exact_coefficient

    assert exact_coefficient(0.333333333333) is None
    assert exact_coefficient(1 / 3 * (1 + 4e-16)) == Fraction(1, 3)
    assert exact_coefficient(1 / 362880 * (1 - 8e-16), 9) == Fraction(1, 362880)
    assert TOLERANCE <= 1e-13


def test_float32_noise_is_judged_in_float32_and_its_numbers_stay_numbers():
    from gradcli.render.plain import RenderOptions, render_plain
    from gradcli.session import EvalOptions, Session

    def series(text: str, at: str) -> str:
        s = Session(dtype="float32")
        s.bind_at("x", at)
        (r,) = s.run(text, EvalOptions(series=3))
        return render_plain(r, RenderOptions(series=3), r.point)[-1]

    # sin about pi in float32: -8.7e-08 and 4.4e-08*(x - pi)^2 are its rounding
    assert series("sin(x)", "pi") == "-(x - pi) + 0.1666666716337204*(x - pi)^3"
    # float32's rounding is wider than the spacing of simple rationals: no 775/921
    assert series("sin(x)", "1").startswith("0.8414710164070129 + ")
