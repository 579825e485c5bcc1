"""Session-level choices of derivative method: Taylor, its limit, backprop's budget."""

from __future__ import annotations

import contextlib
import math

import numpy as np
import pytest

from gradcli.cli.words import CLI_WORDS
from gradcli.core.registry import REGISTRY
from gradcli.errors import LimitError
from gradcli.session import EvalOptions, Session, expression
from gradcli.session.graphs import graph


def _last(text: str, method: str = "auto", **options: object):
    return Session(method=method, words=CLI_WORDS).run(text, EvalOptions(**options))[-1]


def _checked(program: str) -> list[bool]:
    """Which orders --check passes for the program's last statement."""
    return [c.ok for c in _last(program, check=True).check]


def test_auto_uses_taylor_and_both_methods_agree() -> None:
    taylor = _last("x = 0.7; exp(sin(x))*log(1+x**2)", order=6)
    backprop = _last("x = 0.7; exp(sin(x))*log(1+x**2)", method="backprop", order=6)
    assert taylor.method == "taylor" and backprop.method == "backprop"
    for a, b in zip(taylor.derivatives, backprop.derivatives):
        assert math.isclose(float(a), float(b), rel_tol=1e-10)


@pytest.mark.parametrize("method", ["auto", "taylor"])
def test_taylor_mode_goes_past_order_170_where_k_factorial_overflows(method) -> None:
    # it stopped at 170 and auto fell back to backprop, which ran out of nodes
    res = _last("x = 1; sin(x)", method=method, order=1000)
    assert res.error is None and res.method == "taylor"
    # d^k sin = sin(x + k pi/2)
    for k in (170, 171, 999, 1000):
        want = math.sin(1.0 + k * math.pi / 2)
        assert float(res.derivatives[k - 1]) == pytest.approx(want, rel=1e-12), k
    # cos(x/3) at order 300 is 3^-300 cos(...) ~ 1e-144 (its series underflows)
    res = _last("x = 1; cos(x/3)", method=method, order=300)
    want = 3.0**-300 * math.cos(1 / 3 + 300 * math.pi / 2)
    assert float(res.derivatives[-1]) == pytest.approx(want, rel=1e-12)
    # a finite radius of convergence: the derivatives overflow, signed, not nan
    res = _last("x = 0.7; 1/(1+x^2)", method=method, order=300)
    assert float(res.derivatives[170]) == pytest.approx(-1.552913e294, rel=1e-6)
    assert float(res.derivatives[-1]) == -math.inf


def test_backprop_stops_on_its_node_budget_with_a_pointer_to_taylor() -> None:
    res = _last("x = 0.7; exp(sin(x))*log(1+x**2)", method="backprop", order=20)
    assert isinstance(res.error, LimitError)
    assert "--method taylor" in res.error.message
    assert res.error.kind == "math"


def test_power_gradient_by_the_exponent_at_a_zero_base_is_zero() -> None:
    res = Session().run("x = 0; y = 2; x^y", EvalOptions(grad=True))[-1]
    assert res.error is None and not res.warnings
    assert float(res.gradient["y"]) == 0.0 and float(res.gradient["x"]) == 0.0


def test_an_error_inside_a_function_points_at_the_call() -> None:
    res = Session().run("g(x) = sin(x, 2)\n1 + g(1)")[-1]
    assert res.error.message.startswith("in g(x): sin takes 1 argument")
    assert (res.error.line, res.error.column) == (2, 5)


def test_a_constant_has_zero_derivatives_and_no_variable() -> None:
    res = Session().run("pi", EvalOptions(order=2, series=1, check=True))[-1]
    assert res.error is None and res.wrt is None
    assert [float(d) for d in res.derivatives] == [0.0, 0.0]
    assert [float(c) for c in res.series] == [math.pi, 0.0]


def test_grad_of_a_constant_is_an_error() -> None:
    res = Session().run("grad(3)")[-1]
    assert res.error is not None and "no variable" in res.error.message


def test_plot_by_a_chosen_variable_names_the_output_apart_from_inputs() -> None:
    s = Session()
    s.run("x = 1; y = 2")
    g = graph(s, "sin(x)*y", order=1, wrt="y")
    assert g.wrt == "y" and g.nodes > 0
    assert 'label="out"' not in g.dot  # the order-1 graph is named for the derivative
    assert 'label="out"' in graph(s, "sin(x)*y").dot


@pytest.mark.parametrize("text", ["sin(x)*exp(x)", "x^x", "exp(x)/(1 + x^2)",
                                  "exp(sin(x))*log(1+x**2)", "2*(sin(x)*x) + 1"])
def test_high_orders_of_a_product_warn_about_cancellation(text) -> None:
    noisy = Session().run(f"x = 1; {text}", EvalOptions(order=40))[-1]
    assert any("cancellation" in w for w in noisy.warnings), noisy.warnings


@pytest.mark.parametrize("text", ["x^3", "sin(x)", "tanh(2x + 1)", "3*exp(x/3) - cos(x)",
                                  "exp(sin(x))", "1/(1 + x^2)", "2^x", "sigmoid(x)"])
def test_high_orders_of_built_ins_and_sums_do_not_warn(text) -> None:
    """A built-in of x, compositions, sums and constant multiples keep their digits
    (a polynomial's high orders vanish): no warning of cancellation."""
    import mpmath
    import sympy

    res = Session().run(f"x = 0.7; {text}", EvalOptions(order=60))[-1]
    assert not res.warnings
    if text != "x^3":  # and the digits are there: order 60 against mpmath
        X = sympy.Symbol("x")
        f = sympy.lambdify(X, sympy.sympify(text.replace("2x", "2*x").replace("^", "**")
                                            .replace("sigmoid(x)", "1/(1+exp(-x))")), "mpmath")
        with mpmath.workdps(60):
            want = float(mpmath.diff(f, mpmath.mpf(0.7), 60))
        assert float(res.derivatives[-1]) == pytest.approx(want, rel=1e-12)


def test_an_at_value_too_large_for_float32_warns() -> None:
    session = Session(dtype="float32")
    assert np.isinf(session.bind_at("x", "1e39"))
    assert "the number 1e39 is too large for float32; it is inf" in \
        [w.split(": ", 1)[-1] for w in session.pending_warnings()]
    session.bind_at("y", "2")
    assert session.pending_warnings() == []  # each --at value has its own warnings


@pytest.mark.parametrize("text, dtype, warned", [
    ("1e-400", "float64", "the number 1e-400 is too small for floating point; it is 0"),
    ("3*1e-50", "float32", "the number 1e-50 is too small for float32; it is 0"),
    # quoted as typed, as float64's warning quotes it (it said 1e-46 for 0.1e-45)
    ("0.1e-45", "float32", "the number 0.1e-45 is too small for float32; it is 0"),
    ("1e-310", "float64", None),  # subnormal: kept, as Python keeps it
    ("0.000e-999", "float64", None),  # 0 written as 0
])
def test_a_number_too_small_for_the_dtype_warns_that_it_is_0(text, dtype, warned) -> None:
    # 1e-400 silently became 0
    res = Session(dtype=dtype).run(text)[-1]
    assert res.error is None
    if warned is None:
        assert res.warnings == []
    else:
        assert float(res.value) == 0.0 and warned in res.warnings


# --- large arrays: Taylor mode block by block from a graph of the first block ----------

LARGE = "x = linspace(-1.9, 1.9, 2500)\n"


@pytest.fixture
def blocks(monkeypatch):
    """Blocks of 512 elements from 1024 on; the list of taylor_derivatives_at's
    answers (True: it applied)."""
    from gradcli.core import taylor as T

    monkeypatch.setattr(T.blocks, "CHUNK", 512)
    monkeypatch.setattr(T.blocks, "CHUNK_MIN", 1024)
    calls = []
    real = T.taylor_derivatives_at

    def spy(*args):
        result = real(*args)
        calls.append(result is not None)
        return result

    monkeypatch.setattr(T, "taylor_derivatives_at", spy)
    return calls


def _same_results(got, want) -> None:
    assert got.error is None and want.error is None
    assert got.method == want.method
    assert got.wrt == want.wrt
    np.testing.assert_array_equal(got.point, want.point)
    np.testing.assert_array_equal(got.value, want.value)
    for name in ("derivatives", "series"):
        for a, b in zip(getattr(got, name) or [], getattr(want, name) or [], strict=True):
            np.testing.assert_array_equal(a, b)
    assert [(c.order, c.ok) for c in got.check or []] == [
        (c.order, c.ok) for c in want.check or []]
    assert sorted(got.warnings) == sorted(want.warnings)


@pytest.mark.parametrize("text", [
    "exp(sin(x))*log(1+x^2)", "tanh(2*x - 1)", "1/(1+exp(-x))", "x^3 - sqrt(x)",
    "log(x) + 2", "atan(x)/x",
])
def test_a_large_array_goes_block_by_block_with_the_whole_arrays_results(
        blocks, monkeypatch, text) -> None:
    options = {"order": 4, "series": 2, "check": True}
    got = _last(LARGE + text, **options)
    assert blocks == [True]
    monkeypatch.setattr(expression, "_over_blocks", lambda *args: None)
    want = _last(LARGE + text, **options)
    assert got.method == "taylor"
    _same_results(got, want)


@pytest.mark.parametrize("name", sorted(
    name for name, b in REGISTRY.items() if b.kind == "elementwise"))
def test_every_builtin_goes_block_by_block_with_the_whole_arrays_results(
        blocks, monkeypatch, name) -> None:
    lo, hi = REGISTRY[name].domain
    program = f"x = linspace({lo}, {hi}, 2500)\n{name}(0.5*x + {0.5 * (lo + hi) / 2}) * x"
    got = _last(program, order=3)
    assert blocks == [True]
    monkeypatch.setattr(expression, "_over_blocks", lambda *args: None)
    _same_results(got, _last(program, order=3))


@pytest.mark.parametrize("text, applied", [
    ("x*y", []),  # y has x's shape: the first block alone does not broadcast with it
    ("x[2000]*x", []),  # no element 2000 in the first block
    ("sum(x)*x", [False]),  # not elementwise
])
def test_what_cannot_go_block_by_block_is_evaluated_whole(
        blocks, monkeypatch, text, applied) -> None:
    program = LARGE + "y = x + 1\n" + text
    got = _last(program, order=2, wrt="x")
    assert blocks == applied
    monkeypatch.setattr(expression, "_over_blocks", lambda *args: None)
    _same_results(got, _last(program, order=2, wrt="x"))


def test_block_by_block_keeps_the_bindings_and_reports_errors_in_place(blocks) -> None:
    session = Session()
    results = session.run(LARGE + "tanh(x)\nx + nosuch\nsize(x)", EvalOptions(order=1))
    assert blocks == [True]
    assert results[1].value.shape == (2500,)
    np.testing.assert_array_equal(session.values["ans"].shape, (2500,))
    err = results[2].error
    assert err is not None and "nosuch" in err.message and err.column == 5
    assert session.values["x"].shape == (2500,)


@pytest.mark.parametrize("text", ["asin(x)", "acos(x)", "acosh(x)", "x^x", "x^(sin(x))"])
def test_gradient_warnings_name_the_function_written_not_its_derivatives_parts(text) -> None:
    # asin's derivative (1 - x^2)^-0.5 fails in its '**' outside [-1, 1]: that is
    # asin's warning, already given for its value
    program = "x = linspace(-2, 2, 41)\n" + text
    with_grad = _last(program, order=2, grad=True)
    assert with_grad.error is None and with_grad.warnings
    assert sorted(with_grad.warnings) == sorted(_last(program, order=2).warnings)


@pytest.mark.parametrize(("text", "order"), [("x = 2; (-2)^x", 1), ("x = 2; (-2)^x", 2),
                                             ("x = -1; 0^x", 1)])
def test_both_methods_word_a_derivative_of_a_power_alike(text, order) -> None:
    # backprop's first pass on arrays (Pow's _backward_data) said "'**': argument
    # outside the domain" where Taylor mode said "a derivative is undefined here"
    taylor = _last(text, method="taylor", order=order)
    backprop = _last(text, method="backprop", order=order)
    assert taylor.warnings and taylor.warnings == backprop.warnings
    assert not any("outside the domain" in w for w in backprop.warnings)


def test_no_warning_of_a_nan_that_no_result_holds() -> None:
    # backprop's third derivative of sqrt at 0 meets inf - inf midway and is inf:
    # it warned "'+': inf - inf is undefined; the result is nan"
    res = _last("x = 0; sqrt(x)", method="backprop", order=3)
    assert [float(d) for d in res.derivatives] == [math.inf, -math.inf, math.inf]
    assert res.warnings and not any(w.endswith("is nan") for w in res.warnings)
    # a nan that is a result still warns, and so does an infinity
    assert any(w.endswith("is nan") for w in _last("x = -1; log(x)", order=1).warnings)
    assert any("infinite" in w for w in _last("x = 0; 1/x").warnings)
    # an infinite derivative that only --check shows is one too
    assert any("infinite" in w for w in _last("x = 0; sqrt(x)", check=True).warnings)


def test_check_leaves_out_points_where_the_value_is_not_finite() -> None:
    # log at -2..0: nan and -inf, its derivatives too; the rest is checked
    res = _last("x = linspace(-2, 2, 11)\nlog(x)", check=True)
    assert [c.ok for c in res.check] == [True, True]
    assert all(0 < c.abs_error < 1e-5 for c in res.check)
    # a kink closer to a point than the smallest step still fails, at order 1;
    # at order 2 its estimate's error (thousands) confirms nothing: inconclusive
    assert _checked("x = [-2, 0, 2]\nabs(x - 1e-9) + sqrt(x + 1)") == [False, None]
    # with no point left, nothing passes: inconclusive (issue 30 §6; it failed)
    assert _checked("x = [-1, -2]\nlog(x)") == [None, None]
    # nor does an infinite derivative, though |inf - e| <= 1e-4 * inf (it passed)
    assert _checked("x = 0\n1/x") == [None, None]
    assert _checked("x = [0, 1, 2]\n1/x") == [True, True]  # the pole is left out


def test_a_series_whose_derivatives_overflow_is_taylor_modes_coefficients() -> None:
    # c_k = 10**(k+1) for 1/(1-x) at 0.9: c_117 is 1e118, its derivative 117! 1e118
    # overflows, and the series said inf (with an overflow warning)
    res = _last("x = 0.9\n1/(1-x)", series=117)
    want = [10.0 ** (k + 1) for k in range(118)]
    np.testing.assert_allclose([float(c) for c in res.series], want, rtol=1e-12)
    assert res.warnings == [w for w in res.warnings if "overflow" not in w]
    # with the derivatives asked for too, they overflow as they must
    res = _last("x = 0.9\n1/(1-x)", series=117, order=117)
    assert float(res.series[117]) == pytest.approx(1e118, rel=1e-12)
    assert math.isinf(float(res.derivatives[116]))


def test_check_evaluates_again_with_the_ans_the_statement_read() -> None:
    # ans became this statement's value before --check evaluated it again: the
    # estimate of d(x*ans)/dx was 6, not 2, and a right derivative failed
    assert _checked("x = 3\n2\nx*ans") == [True, True]
    assert _checked("x = [1, 3]\n2\nsum(x*ans)") == [True]
    res = _last("x = 3\n2\nx*ans\nans", order=1)
    assert float(res.value) == 6.0  # then ans is the statement's value


def test_check_of_the_variable_itself_over_an_array_has_both_orders() -> None:
    # 'x' is elementwise as '2*x + 1' is; its order 2 was left out
    res = _last("x = [1, 2]\nx", check=True)
    assert [(c.order, c.ok) for c in res.check] == [(1, True), (2, True)]


def test_the_variable_of_diff_at_a_point_is_not_a_variable_of_the_expression() -> None:
    # diff(x^3, x, 1, 2) leaves x unbound: a constant, with zero derivatives
    res = _last("diff(x^3, x, 1, 2)", order=1)
    assert res.error is None and float(res.value) == 12.0
    assert [float(d) for d in res.derivatives] == [0.0]
    # its point's variables are the expression's: y alone, not (x, y)
    res = _last("y = 2\ndiff(x^3, x, 1, y)", order=2)
    assert res.wrt == "y" and [float(d) for d in res.derivatives] == [12.0, 6.0]
    # without a point, x is read where it is: a variable of the expression
    res = _last("x = 2\nx*diff(x^3, x)", order=1)
    assert res.wrt == "x" and float(res.derivatives[0]) == 36.0  # of 3x^3
    res = _last("x = 2\ny = 1\ny*diff(x^3, x, 1, y)", order=1)
    assert res.wrt == "y"
    # a function called inside the diff sees its x too; called outside, x is free
    res = _last("f(t) = t*x\ndiff(f(2), x, 1, 3)", order=1)
    assert res.error is None and [float(d) for d in res.derivatives] == [0.0]
    res = _last("f(t) = t*x\nx = 1\nf(2)*diff(f(2), x, 1, 3)", order=1)
    assert res.wrt == "x" and [float(d) for d in res.derivatives] == [4.0]


@pytest.mark.parametrize("program, shapes", [
    ("x = [1, 2, 3]\nsum(x^2)", "shape () and x (3,)"),
    ("x = 2\nx*[1, 2, 3]", "shape (3,) and x ()"),
])
def test_a_series_needs_a_result_of_the_variables_shape(program, shapes) -> None:
    # the derivatives of sum(x^2) are a gradient, not a polynomial's coefficients
    res = _last(program, series=2)
    assert res.error is not None and res.error.exit_status == 2
    assert shapes in res.error.message
    res = _last("x = [1, 2]\nx^2", series=2)
    np.testing.assert_array_equal(res.series[2], [1.0, 1.0])


def test_check_leaves_out_points_whose_step_leaves_the_domain_without_a_warning() -> None:
    # at 1e-6 the larger steps reach log's negative side: the smaller ones give
    # the estimate, and the probe's nan is not the user's warning
    res = _last("x = [1e-6, 0.5, 1, 2]\nlog(x)", check=True)
    assert [c.ok for c in res.check] == [True, True]
    assert res.check[0].numerical[0] == pytest.approx(1e6, rel=1e-9)
    assert res.check[1].numerical[0] == pytest.approx(-1e12, rel=1e-9)
    assert all(0 < c.rel_error < 1e-9 for c in res.check)
    assert res.warnings == []
    # an infinite derivative at the edge (sqrt at 0) has no estimate: that point
    # is inconclusive, and so the check over the points (issue 30 §6; it passed)
    assert _checked("x = [0, 0.5, 1, 2]\nsqrt(x)") == [None, None]
    # a nan from autodiff where the estimate is a number still fails (order 2
    # at the kink has no estimate: inconclusive)
    assert _checked("x = [0, 1]\nsqrt(x^2)") == [False, None]
    # one point alone: nothing can be compared, so nothing passes
    assert _checked("x = 1e-6\nlog(x)") == [True, True]  # every step small enough
    assert _checked("x = 0\nsqrt(x)") == [None, None]
    # the gradient of an expression that mixes the points: probes quiet too
    res = _last("x = [1e-6, 1, 2]\nsum(log(x))", check=True)
    assert [c.ok for c in res.check] == [True]
    assert res.warnings == []


def test_backprop_by_one_variable_reads_the_others_as_constants() -> None:
    # x^n with n bound is an integer power, exact at 0 (was 0 0 2 nan) ...
    res = _last("x = 0\nn = 2\nx^n", method="backprop", order=3, wrt="x")
    assert [float(d) for d in res.derivatives] == [0.0, 2.0, 0.0]
    # ... and n's gradient, log(x) of a negative x, is not taken nor warned about
    res = _last("x = -2\nn = 3\nx^n", method="backprop", order=3, wrt="x")
    assert [float(d) for d in res.derivatives] == [12.0, -12.0, 6.0]
    assert res.warnings == []
    # by n, x is the constant: 2^n log(2)^k
    res = _last("x = 2\nn = 3\nx^n", method="backprop", order=2, wrt="n")
    np.testing.assert_allclose([float(d) for d in res.derivatives],
                               [8 * math.log(2), 8 * math.log(2) ** 2], rtol=1e-15)
    # --grad still differentiates by every variable
    res = _last("x = 2\ny = 3\nx*y^2", grad=True)
    assert {k: float(v) for k, v in res.gradient.items()} == {"x": 9.0, "y": 12.0}


def test_a_gradient_lists_the_variables_as_they_first_appear() -> None:
    # README: the expression's order, whatever the order of the bindings
    session = Session()
    for name, value in (("z", "3"), ("x", "1"), ("y", "2")):
        session.bind_at(name, value)
    res = session.run("y*x + z", EvalOptions(grad=True))[-1]
    assert list(res.gradient) == ["y", "x", "z"]
    named = session.run("grad(y*x + z, z, x)")[-1]
    assert list(named.value) == ["z", "x"]
    # names only in a called function's body come after those written (a came first)
    session.bind_at("a", "4")
    session.run("f(t) = t*a")
    for text, order in (("f(x)*y", ["x", "y", "a"]), ("y*f(x)", ["y", "x", "a"]),
                        ("grad(f(x) + z)", ["x", "z", "a"])):
        res = session.run(text, EvalOptions(grad=True))[-1]
        assert list(res.gradient if res.gradient is not None else res.value) == order, text


@pytest.mark.parametrize("text, order, want, warned", [
    # the base's series at order 3 stops short of what (x^4)^0.5 = x^2 needs: the
    # session asks for more orders rather than print nan
    ("(x^4)^0.5", 3, [0.0, 2.0, 0.0], False),
    ("(x^4 + x^5)^0.5", 4, [0.0, 2.0, 3.0, -3.0], False),
    # with one order, u = x^2 has one row, 0: the linear rule gave 0 * inf = nan
    ("(x^2)^0.75", 1, [0.0], False),
    # |x|^3 has no third derivative: nan, and said so
    ("(x^2)^1.5", 3, [0.0, 0.0, None], True),
])
def test_a_power_of_a_base_that_is_zero_is_the_same_whatever_the_order(
        text, order, want, warned) -> None:
    res = _last(f"x = 0\n{text}", order=order)
    assert res.method == "taylor"
    assert [None if math.isnan(d) else float(d) for d in res.derivatives] == want
    assert bool(res.warnings) == warned
    if warned:
        assert res.warnings == ["'**': a derivative is undefined here; the result is nan"]


@pytest.mark.parametrize("order", [2, 30])  # Python floats, then NumPy's convolve
def test_taylor_mode_warns_of_the_nan_in_a_product_with_an_infinite_series(order) -> None:
    # sqrt(x) at 0 has the series 0, inf, -inf: x*sqrt(x)'s first coefficient is
    # 0 * inf, nan; backprop says so, and Taylor mode said nothing
    for method in ("taylor", "backprop") if order == 2 else ("taylor",):
        res = _last("x = 0\nx*sqrt(x)", method=method, order=order)
        assert res.method == method and float(res.value) == 0.0
        assert math.isnan(float(res.derivatives[0]))
        if method == "backprop":  # its folded graph divides 0 by 0 before it multiplies
            assert "'/': 0/0 or inf/inf is undefined; the result is nan" in res.warnings
        else:
            assert "'*': 0 * inf is undefined; the result is nan" in res.warnings


def test_a_large_array_asks_for_more_orders_as_a_number_does() -> None:
    # block by block, (x^6)^(1/3) = x^2 at the 0 inside the array was nan
    program = "x = linspace(-1, 13, 140001)\n(x^6)^(1/3)"
    res = _last(program, order=3)
    i = int(np.argmin(np.abs(res.point)))
    assert res.point[i] == 0.0 and res.warnings == []
    assert [float(d[i]) for d in res.derivatives] == [0.0, 2.0, 0.0]


def test_grad_statement_says_the_derivative_options_do_not_apply() -> None:
    res = _last("x = 2\ny = 3\ngrad(x*y)", order=2, check=True)
    assert {k: float(v) for k, v in res.value.items()} == {"x": 3.0, "y": 2.0}
    assert res.warnings == [
        "grad(...) gives the first partial derivatives only; --order, --check did not apply to it"]
    assert _last("x = 2\ny = 3\ngrad(x*y)").warnings == []
    # in the REPL's words there: :d 1 grad(x*y) said "--order did not apply to it"
    from gradcli.repl.words import REPL_WORDS

    session = Session(words=REPL_WORDS)
    res = session.run("x = 2\ny = 3\ngrad(x*y)", EvalOptions(order=1))[-1]
    assert res.warnings == [
        "grad(...) gives the first partial derivatives only; :d's order did not apply to it"]


def test_eval_by_a_variable_the_expression_lacks_points_at_no_column() -> None:
    # the caret stood under the x of x^2 for --wrt y
    res = _last("x = 1\nx^2", order=1, wrt="pi")
    assert res.error.message == "cannot differentiate by the constant 'pi'"
    assert (res.error.line, res.error.column) == (2, None)
    # a name with no value that the expression does not read: derivatives 0, as
    # diff(x^2, y) gives (it was "--wrt y: 'y' has no value")
    absent = _last("x = 1\nx^2", order=1, wrt="y")
    assert absent.error is None and float(absent.derivatives[0]) == 0.0
    # y in the expression with no value: its formulas, x read as its value (issue 23)
    inside = _last("x = 1\nx^2 + y", order=1, wrt="y")
    assert inside.to_dict()["derivative_formulas"] == ["1"]


def test_eval_by_a_user_function_says_so() -> None:
    # it said "'f' has no value", exit 1
    res = _last("f(t) = t^2\nx = 1\nf(x)", order=1, wrt="f")
    assert res.error is not None and res.error.exit_status == 2
    assert res.error.message == "cannot differentiate by the function 'f'"


@pytest.mark.parametrize("wrt, message", [
    ("sin", "cannot differentiate by the function 'sin'"),
    ("pi", "cannot differentiate by the constant 'pi'"),
])
def test_eval_by_a_function_or_a_constant_says_so(wrt, message) -> None:
    # as plot does; 'sin' used to be "has no value; give one with --at sin=..."
    res = _last("x = 1\npi*sin(x)", order=1, wrt=wrt)
    assert res.error is not None and res.error.message == message
    assert res.error.exit_status == 2


def test_an_infinite_value_names_a_division_only_where_one_was_made():
    session = Session()
    log0, div0, pow0 = (session.run(text)[0] for text in ("log(0)", "1/0", "0^-1"))
    assert log0.warnings == ["log: infinite at a singularity; the result is infinite"]
    assert div0.warnings == ["'/': division by zero; the result is infinite"]
    assert pow0.warnings == ["'**': division by zero; the result is infinite"]
    # sqrt(0) is 0: only its derivatives are infinite, and the warning says so
    sqrt0 = _last("x = 0; sqrt(x)", order=2)
    assert float(sqrt0.value) == 0.0
    assert sqrt0.warnings == ["sqrt: a derivative is infinite at a singularity; "
                              "the result is infinite"]
    # x^0.5 the same: its derivative divides by 0, the user did not ("division by zero")
    root0 = _last("x = 0; x^0.5", order=2)
    assert float(root0.value) == 0.0
    assert root0.warnings == ["'**': a derivative is infinite at a singularity; "
                              "the result is infinite"]


@pytest.mark.parametrize("text, warning", [
    ("0/0", "'/': 0/0 or inf/inf is undefined"),
    ("x = 1e308 * 10; x - x", "'-': inf - inf is undefined"),
    ("x = 1e308 * 10; 0 * x", "'*': 0 * inf is undefined"),
    ("x = 1e308 * 10; sin(x)", "sin: undefined where a value is infinite"),
    # a nan in exp's series, from sqrt's infinite one: exp's value is a number
    ("x = 0; exp(sqrt(x))", "exp: a derivative is undefined here"),
    # in a backward pass: sqrt'(0) = inf times 2 sqrt(0) = 0, at 0 inside the domain
    ("x = 0; sqrt(x)^2", "sqrt: a derivative is undefined here"),
    # these have a domain, and left it
    ("log(-1)", "log: argument outside the domain"),
    ("acosh(0.5)", "acosh: argument outside the domain"),
    ("(-8)^(1/3)", "'**': argument outside the domain"),
])
def test_a_nan_is_worded_by_how_the_operation_made_it(text, warning) -> None:
    # every nan said "argument outside the domain", 0/0 and exp's included
    res = _last(text, order=2)
    if text.endswith("sqrt(x)^2"):  # both backward passes, on arrays and on a graph
        graph = _last(text, method="backprop", order=2)
        assert graph.warnings[0] == f"{warning}; the result is nan"
        res = _last(text, method="backprop", order=1)
    assert res.error is None
    assert math.isnan(float(res.value)) or math.isnan(float(res.derivatives[-1]))
    assert f"{warning}; the result is nan" in res.warnings


@pytest.mark.parametrize("text, warning", [
    ("linspace(0, inf, 3)", "linspace: an infinite end leaves points undefined; the result is nan"),
    ("mean([inf, -inf])", "mean: inf - inf is undefined; the result is nan"),
    ("mean(linspace(1e308, 1e308, 3))", "mean: overflow; the result is infinite"),
    # the user's own operation in an argument is still named as the user wrote it
    ("mean([1e308] * 10)", "'*': overflow; the result is infinite"),
])
def test_a_built_in_made_of_operations_warns_by_its_own_name(text, warning) -> None:
    # linspace's nan was "'*': 0 * inf is undefined", mean's overflow "sum: overflow"
    res = _last(text)
    assert res.error is None
    assert res.warnings == [warning]


def test_a_result_is_at_the_value_it_was_computed_at_after_a_rebinding() -> None:
    # --at x=2, then x = 5: x^2 is 25, and its "at" (the table's title) said x = 2
    session = Session()
    session.bind_at("x", "2")
    session.bind_at("y", "3")
    first, rebind, after = session.run("x^2; x = 5; x^2*y", EvalOptions(order=1, wrt="x"))
    assert first.at == {"x": 2.0, "y": 3.0} and rebind.at == first.at
    assert float(after.value) == 75 and after.at == {"x": 5.0, "y": 3.0}


def test_an_ans_given_with_at_is_shown_at_its_value_as_each_result_rebinds_it() -> None:
    # --at ans=3: "ans+1" then "ans" printed 4 with "at": {"ans": 3}
    session = Session()
    session.bind_at("ans", "3")
    plus, again, bind, gradient, after = session.run(
        "ans + 1; ans; y = [1, 2]; grad(ans*y, ans, y); 7", EvalOptions())
    assert plus.at == {"ans": 3.0} and float(plus.value) == 4
    assert again.at == {"ans": 4.0} and float(again.value) == 4
    assert bind.error is None and gradient.error is None and gradient.at == {"ans": 4.0}
    # partial derivatives of two shapes leave ans no value: it is no longer "at" one
    assert after.at == {} and float(after.value) == 7


@pytest.mark.parametrize(
    ("text", "at", "derivative", "shapes"),
    [("[cos(t), sin(t)]", "t=0", 1.0, "(2,) and t ()"),
     ("t*[[1], [2]]", "t=[1, 2]", [3.0, 3.0], "(2, 2) and t (2,)")])
def test_a_result_shaped_unlike_its_variable_says_whose_derivative_it_is(
        text, at, derivative, shapes) -> None:
    # [cos(t), sin(t)] by t printed 1 (the sum's derivative) where a user expects [0, 1]
    session = Session()
    session.bind_at("t", at.split("=")[1])
    for method in ("taylor", "backprop"):
        session.method = method
        (res,) = session.run(text, EvalOptions(order=1))
        assert np.array_equal(res.derivatives[0], derivative), method
        assert res.warnings == [f"the result has shape {shapes}: its derivatives are those "
                                "of the sum of its elements; for one element's, index it, "
                                "as in (expr)[0]"], method
    for same in ("t * 2", "sum(t)"):  # elementwise, or one number: no word
        (res,) = session.run(same, EvalOptions(order=1))
        assert res.warnings == [], same


class _LikeGPU(Session):
    """A session whose arrays report no floating-point errors, as CuPy's do not."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._reports_fp_errors = False

    @contextlib.contextmanager
    def _capture_fp_errors(self):
        with np.errstate(all="ignore"):
            yield []


@pytest.mark.parametrize("program, options", [
    ("log(-1); 1/0; y = log(0); y; 0/0; exp(1000); linspace(0, inf, 3)", {}),
    ("x = 0; sqrt(x); x^0.5; (x^2)^1.5; log(x); abs(x)", {"order": 3}),
    ("x = 0; sqrt(x); log(x)", {"order": 2, "method": "backprop", "check": True}),
    ("x = 0.7; 1/(1+x^2)", {"order": 300}),
    ("v = [-1, 0, 1]; log(v); sqrt(v)", {"order": 2}),
    ("x = 2; y = log(x - 2); grad(x * y)", {}),
])
def test_a_session_whose_arrays_report_no_fp_errors_warns_as_numpy_does(program, options):
    """CuPy has no floating-point error flags: a GPU session runs a statement whose
    result is nan or infinite again on the CPU, to word its warnings (which
    operation, what happened) as the CPU session does, and keeps its bindings."""
    method = options.pop("method", "auto")
    cpu, gpu = Session(method=method), _LikeGPU(method=method)
    want = cpu.run(program, EvalOptions(**options))
    got = gpu.run(program, EvalOptions(**options))
    assert any(r.warnings for r in want)
    assert [r.warnings for r in got] == [r.warnings for r in want]
    assert gpu.values.keys() == cpu.values.keys()
    # the rerun is what words them: a silent session not told it is silent lacks them
    silent = _LikeGPU(method=method)
    silent._reports_fp_errors = True
    assert [r.warnings for r in silent.run(program, EvalOptions(**options))] != \
        [r.warnings for r in want]


def test_an_at_value_that_is_not_finite_warns_without_fp_errors() -> None:
    cpu, gpu = Session(), _LikeGPU()
    for s in (cpu, gpu):
        s.bind_at("x", "log(-1)")
    assert gpu.pending_warnings() == cpu.pending_warnings() != []


@pytest.mark.parametrize("program, options", [
    ("t = 0.5; diff([cos(t), sin(t)], t)", {}),
    ("t = 0.5; diff([cos(t), sin(t)], t)", {"order": 1}),
    ("t = 0.5; grad([cos(t), sin(t)])", {}),
    ("t = 0.5; f(s) = [cos(s), sin(s)]; f'(t)", {}),
    ("t = 0.5; [cos(t), sin(t)]", {"grad": True}),
    ("t = 0.5; [cos(t), sin(t)]", {"order": 1}),
    ("v = [5, 6]; diff(v*[[1], [2]], v)", {}),
])
def test_every_way_to_differentiate_a_result_larger_than_its_variable_says_so(
        program, options) -> None:
    """diff, grad, f', --grad and --order all take the derivative of the sum (DeZero's
    rule); each says so, as README promises (only --order did)."""
    res = Session().run(program, EvalOptions(**options))[-1]
    assert res.error is None
    assert sum("derivatives are those of the sum" in w for w in res.warnings) == 1, res.warnings


def test_a_result_of_its_variables_shape_or_one_number_does_not_warn() -> None:
    for program in ("v = [5, 6]; diff(sum(v^2), v)", "v = [5, 6]; diff(v^2, v)",
                    "t = 0.5; grad(sin(t))", "v = [1, 2]; grad(v @ v)"):
        res = Session().run(program)[-1]
        assert res.error is None and res.warnings == [], (program, res.warnings)


@pytest.mark.parametrize("method", ["auto", "backprop"])
@pytest.mark.parametrize("text, op", [("1/x", "'/'"), ("log(x)", None)])
def test_a_derivative_that_overflows_says_so_not_that_the_value_did(method, text, op) -> None:
    """1/x at 1e-200 is 1e200 and its derivative -1e400: the warning said
    "'/': overflow; the result is infinite" beside a finite value."""
    res = Session(method=method).run(f"x = 1e-200; {text}", EvalOptions(order=2))[-1]
    assert np.isfinite(res.value) and not np.isfinite(res.derivatives[-1])
    assert res.warnings and all("a derivative overflows" in w for w in res.warnings), \
        res.warnings
    if op is not None or method == "auto":
        assert res.warnings[0].startswith(f"{op or 'log'}: ")
