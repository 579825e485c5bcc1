"""Walk the one registry of built-ins: every elementwise entry is checked against
SymPy (value, derivatives up to order 5) and central differences (orders 1, 2).

Nothing here names a particular function: a new ``elementwise(...)`` entry is
tested as soon as it is registered.
"""

from __future__ import annotations

import functools
from typing import Any

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gradcli.core.functions as F
from gradcli.core import Function, Variable, higher_derivatives
from gradcli.core.check import central_difference, within_tolerance
from gradcli.core.registry import REGISTRY, Builtin, elementwise, lookup
from gradcli.errors import ArityError, MathError, UnknownNameError

ELEMENTWISE = sorted(name for name, b in REGISTRY.items() if b.kind == "elementwise")
MAX_ORDER = 5
X = sympy.Symbol("x", real=True)


def test_registry_has_the_spec_builtins() -> None:
    spec = (
        "sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh exp log log2 log10 "
        "sqrt abs sigmoid sum mean max min reshape transpose matmul linspace arange zeros ones"
    ).split()
    missing = [name for name in spec if name not in REGISTRY]
    assert missing == []
    # the walk below really walks something
    assert len(ELEMENTWISE) >= 19


def flat_steps(e: sympy.Expr) -> sympy.Expr:
    """floor's derivative, which SymPy leaves unevaluated, is 0 between its jumps."""
    for kind in (sympy.Subs, sympy.Derivative):  # Subs(Derivative(floor(u), u), u, x/y)
        e = e.replace(lambda t, kind=kind: isinstance(t, kind)
                      and t.has(sympy.floor, sympy.ceiling), lambda t: sympy.S.Zero)
    return e


# --- the reference: SymPy, evaluated with mpmath at 40 digits -------------------------


@functools.cache
def _reference(name: str, order: int) -> sympy.Expr:
    expr = sympy.sympify(REGISTRY[name].reference, locals={"x": X})
    assert expr.free_symbols <= {X}, f"{name}: reference must be an expression in x only"
    return flat_steps(sympy.diff(expr, X, order)) if order else expr


@functools.cache
def _reference_function(name: str, order: int):
    # DiracDelta(x - k) is 0 away from the kink k, where the domains' points are
    expr = _reference(name, order).replace(sympy.DiracDelta, lambda *args: sympy.S.Zero)
    return sympy.lambdify(X, expr, "mpmath")


@functools.cache
def reference(name: str, order: int, a: float) -> float:
    """The exact order-th derivative at a: SymPy's formula, evaluated by mpmath
    at 40 digits (its real part: some formulas pass through complex values)."""
    with mpmath.workdps(40):
        return float(mpmath.re(_reference_function(name, order)(mpmath.mpf(a))))


def _interior_points(name: str) -> list[float]:
    lo, hi = REGISTRY[name].domain
    return [lo + (hi - lo) * t for t in (0.03, 0.27, 0.5, 0.61, 0.97)]


def _domain_floats(name: str) -> st.SearchStrategy[float]:
    lo, hi = REGISTRY[name].domain
    return st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False)


def close(actual: float, expected: float, rel: float, scale: float = 1.0) -> bool:
    """|actual - expected| <= rel * max(|expected|, tiny * scale): relative, with a floor
    for values that are (nearly) zero where the derivative changes sign."""
    return abs(actual - expected) <= rel * max(abs(expected), 1e-3 * scale)


# --- metadata ------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_entry_is_documented(name: str) -> None:
    b = REGISTRY[name]
    assert isinstance(b, Builtin)
    assert b.name == name
    assert b.doc and "\n" not in b.doc and b.doc.strip() == b.doc
    assert b.signature.startswith(name + "(") and b.signature.endswith(")")
    assert callable(b.call)
    assert b.kind in {"elementwise", "several", "reduction", "shape", "linalg", "constructor"}
    assert b.min_args >= 0 and (b.max_args is None or b.max_args >= b.min_args)
    assert lookup(name) is b


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_elementwise_entry_has_domain_reference_and_class(name: str) -> None:
    b = REGISTRY[name]
    lo, hi = b.domain
    assert np.isfinite(lo) and np.isfinite(hi) and lo < hi
    assert isinstance(b.reference, str) and b.reference
    sympy.sympify(b.reference, locals={"x": X})  # parses
    # one input; log also takes a base: log(x[, b])
    assert b.signature == f"{name}(x)" or b.signature.startswith(f"{name}(x[")
    assert b.min_args == 1 and b.max_args >= 1
    assert issubclass(b.function, Function)
    # DeZero's naming: sin -> Sin, and the class and wrapper are importable from F
    assert b.function.__name__[0].isupper()
    assert getattr(F, name) is b.call
    assert getattr(F, b.function.__name__) is b.function
    assert b.function.__name__ in F.__all__ and name in F.__all__
    assert callable(b.derivative)


def test_arity_errors_name_the_signature() -> None:
    b = lookup("sin")
    b.check_arity(1)
    with pytest.raises(ArityError, match=r"sin takes 1 argument: sin\(x\); got 2"):
        b.check_arity(2)
    with pytest.raises(ArityError, match="linspace"):
        lookup("linspace").check_arity(2)
    lookup("zeros").check_arity(5)  # any number of dimensions


def test_unknown_name_is_a_lookup_error_with_a_hint() -> None:
    with pytest.raises(LookupError) as info:
        lookup("sinn")
    assert isinstance(info.value, UnknownNameError)
    assert not isinstance(info.value, AttributeError)
    assert "sinn" in str(info.value)
    assert "did you mean sin" in str(info.value)
    with pytest.raises(UnknownNameError) as info:
        lookup("qqqqqqq")
    assert "did you mean" not in str(info.value)


# --- values --------------------------------------------------------------------------


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_value_matches_sympy_on_an_array(name: str) -> None:
    pts = np.array(_interior_points(name))
    y = REGISTRY[name].call(Variable(pts))
    assert isinstance(y, Variable)
    assert y.shape == pts.shape and y.dtype == np.float64
    assert isinstance(y.creator, REGISTRY[name].function)
    for got, a in zip(y.data, pts):
        assert close(float(got), reference(name, 0, a), 1e-12), (name, a)


@pytest.mark.parametrize("name", ELEMENTWISE)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_value_matches_sympy(name: str, data: st.DataObject) -> None:
    a = data.draw(_domain_floats(name), label="x")
    y = REGISTRY[name].call(Variable(np.array(a)))
    assert y.shape == () and isinstance(y.data, np.ndarray)
    assert close(float(y.data), reference(name, 0, a), 1e-12), (name, a)


# --- first and second derivatives against central differences -------------------------


def _numpy_f(name: str):
    call = REGISTRY[name].call
    return lambda arr: call(Variable(np.asarray(arr, dtype=np.float64))).data


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_first_and_second_derivatives_vs_central_differences(name: str) -> None:
    pts = np.array(_interior_points(name))
    f = _numpy_f(name)
    est1 = central_difference(f, pts, 1)
    est2 = central_difference(f, pts, 2)

    # via higher_derivatives
    x = Variable(pts.copy())
    d1, d2 = higher_derivatives(REGISTRY[name].call(x), x, 2)
    assert d1.shape == d2.shape == pts.shape
    assert within_tolerance(d1.data, est1).all(), (name, d1.data, est1)
    assert within_tolerance(d2.data, est2, rtol=1e-3, atol=1e-4).all(), (name, d2.data, est2)

    # via raw DeZero-style create_graph backward
    x = Variable(pts.copy())
    y = REGISTRY[name].call(x)
    y.backward(create_graph=True)
    gx = x.grad
    # a differentiable graph of the gradient; a flat function's is the constant 0
    assert gx.creator is not None or REGISTRY[name].function.flat
    np.testing.assert_allclose(gx.data, d1.data, rtol=1e-14)
    x.cleargrad()
    gx.backward()
    # raw DeZero style: None where the second derivative vanishes identically (abs)
    raw2 = np.zeros_like(pts) if x.grad is None else x.grad.data
    if x.grad is None:
        assert not d2.data.any()
    np.testing.assert_allclose(raw2, d2.data, rtol=1e-14, atol=1e-300)
    assert within_tolerance(raw2, est2, rtol=1e-3, atol=1e-4).all()


@pytest.mark.parametrize("name", ELEMENTWISE)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_first_derivative_vs_central_difference_anywhere(name: str, data: st.DataObject) -> None:
    a = data.draw(_domain_floats(name), label="x")
    x = Variable(np.array(a))
    y = REGISTRY[name].call(x)
    y.backward()
    est = central_difference(_numpy_f(name), np.array(a), 1)
    assert within_tolerance(x.grad.data, est, rtol=1e-4, atol=1e-5), (name, a)


# --- derivatives up to order 5 against SymPy ----------------------------------------


def _check_orders(name: str, a: float) -> None:
    x = Variable(np.array(a))
    ds = higher_derivatives(REGISTRY[name].call(x), x, MAX_ORDER)
    assert len(ds) == MAX_ORDER
    scale = max(abs(reference(name, k, a)) for k in range(MAX_ORDER + 1))
    for k, d in enumerate(ds, start=1):
        assert d is not None and d.shape == ()
        want = reference(name, k, a)
        assert close(float(d.data), want, 1e-9, scale), (name, a, k, float(d.data), want)


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_derivatives_to_order_5_vs_sympy_at_fixed_points(name: str) -> None:
    for a in _interior_points(name):
        _check_orders(name, a)


@pytest.mark.parametrize("name", ELEMENTWISE)
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_derivatives_to_order_5_vs_sympy(name: str, data: st.DataObject) -> None:
    _check_orders(name, data.draw(_domain_floats(name), label="x"))


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_derivatives_on_arrays_are_elementwise(name: str) -> None:
    pts = np.array(_interior_points(name))
    x = Variable(pts.copy())
    ds = higher_derivatives(REGISTRY[name].call(x), x, 3)
    for k, d in enumerate(ds, start=1):
        for got, a in zip(d.data, pts):
            scale = max(abs(reference(name, j, a)) for j in range(4))
            assert close(float(got), reference(name, k, a), 1e-9, scale), (name, k, a)


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_float32_is_preserved(name: str) -> None:
    lo, hi = REGISTRY[name].domain
    x = Variable(np.array([lo + (hi - lo) / 3, (lo + hi) / 2], dtype=np.float32))
    y = REGISTRY[name].call(x)
    assert y.dtype == np.float32
    y.backward()
    assert x.grad.dtype == np.float32


# --- adding a function is one elementwise(...) call ----------------------------------


def test_registering_a_new_function_is_one_call() -> None:
    assert "cube" not in REGISTRY
    try:
        cube = elementwise(
            "cube",
            forward=lambda xp, x: x * x * x,
            derivative=lambda x, y: 3 * x * x,
            doc="the cube x**3",
            domain=(-2.0, 2.0),
            reference="x**3",
        )
        entry = REGISTRY["cube"]
        assert entry.kind == "elementwise" and entry.call is cube
        assert issubclass(entry.function, Function)
        assert entry.function.__name__ == "Cube"
        assert cube.__name__ == "cube" and cube.__doc__ == "the cube x**3"
        assert lookup("cube") is entry

        x = Variable(np.array(2.0))
        y = cube(x)
        assert isinstance(y.creator, entry.function)
        assert float(y.data) == 8.0
        ds = higher_derivatives(y, x, 5)
        assert [float(d.data) for d in ds] == [12.0, 12.0, 6.0, 0.0, 0.0]
        for a in (-1.5, 0.3, 1.9):
            for k in range(MAX_ORDER + 1):
                want = float(sympy.diff(X**3, X, k).subs(X, a))
                if k == 0:
                    got = float(cube(Variable(np.array(a))).data)
                else:
                    xv = Variable(np.array(a))
                    got = float(higher_derivatives(cube(xv), xv, k)[-1].data)
                assert got == pytest.approx(want, rel=1e-12, abs=1e-12)

        with pytest.raises(ValueError, match="registered twice"):
            elementwise("cube", forward="exp", derivative=lambda x, y: y, doc="d",
                        domain=(0.0, 1.0), reference="x")
    finally:
        REGISTRY.pop("cube", None)
    assert "cube" not in REGISTRY
    with pytest.raises(UnknownNameError):
        lookup("cube")


def test_string_forward_and_cls_name() -> None:
    assert "expm1_t" not in REGISTRY
    try:
        f = elementwise(
            "expm1_t",
            forward="expm1",
            derivative=lambda x, y: y + 1,
            doc="exp(x) - 1",
            domain=(-1.0, 1.0),
            reference="exp(x) - 1",
            cls_name="Expm1T",
        )
        assert REGISTRY["expm1_t"].function.__name__ == "Expm1T"
        x = Variable(np.array(0.5))
        y = f(x)
        y.backward()
        assert float(x.grad.data) == pytest.approx(np.exp(0.5), rel=1e-15)
    finally:
        REGISTRY.pop("expm1_t", None)


# --- the non-elementwise built-ins: called through the registry --------------------


def test_non_elementwise_entries_are_callable() -> None:
    v = Variable(np.array([[1.0, 2.0], [3.0, 4.0]]))
    assert float(lookup("sum").call(v).data) == 10.0
    np.testing.assert_array_equal(lookup("sum").call(v, 0).data, [4.0, 6.0])
    assert float(lookup("mean").call(v).data) == 2.5
    assert float(lookup("max").call(v).data) == 4.0
    assert float(lookup("min").call(v).data) == 1.0
    assert lookup("reshape").call(v, 4).shape == (4,)
    assert lookup("reshape").call(v, 1, 4).shape == (1, 4)
    np.testing.assert_array_equal(lookup("transpose").call(v).data, v.data.T)
    np.testing.assert_array_equal(lookup("matmul").call(v, v).data, v.data @ v.data)
    np.testing.assert_allclose(lookup("linspace").call(0, 1, 5).data, np.linspace(0, 1, 5))
    np.testing.assert_array_equal(lookup("arange").call(3).data, [0.0, 1.0, 2.0])
    assert lookup("zeros").call(2, 3).shape == (2, 3)
    assert float(lookup("ones").call(3).data.sum()) == 3.0



def test_every_builtin_is_in_the_language_docs() -> None:
    import pathlib
    import re

    text = (pathlib.Path(__file__).parent.parent / "docs" / "language.md").read_text()
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
    assert sorted(set(REGISTRY) - words) == []


# --- issue 31's goal: orders 0-3 to 1e-12 by both methods, and as formulas -------------

from gradcli.core.taylor import taylor_derivatives  # noqa: E402
from gradcli.formula.diff import derivatives as formula_derivatives  # noqa: E402
from gradcli.formula.expr import Sym  # noqa: E402
from gradcli.formula.printing import plain  # noqa: E402

RTOL = 1e-12
NEW = sorted(  # issue 31's functions (the others have their own tests above)
    "ln sec csc cot asec acsc acot sech csch coth cbrt exp2 expm1 log1p erf erfc "
    "sign floor ceil round trunc".split())
SEVERAL = sorted(name for name, b in REGISTRY.items() if b.kind == "several")
ARGS = sympy.symbols("x y z", real=True)


def _by_backprop(call, args: list[float], i: int, order: int) -> list[float]:
    vs = [Variable(np.array(a)) for a in args]
    y = call(*vs)
    return [float(y.data)] + [float(d.data) for d in higher_derivatives(y, vs[i], order)]


def _by_taylor(call, args: list[float], i: int, order: int) -> list[float]:
    vs = [Variable(np.array(a)) for a in args]
    y = call(*vs)
    ds = taylor_derivatives(y, vs[i], order)
    assert ds is not None, "Taylor mode applies"
    return [float(d) for d in ds]


def _sympy_orders(reference: str, args: list[float], i: int, order: int) -> list[float]:
    names = dict(zip("xyz", ARGS))
    expr = sympy.sympify(reference, locals=names)
    at = {s: sympy.Float(a, 40) for s, a in zip(ARGS, args)}
    out = []
    for k in range(order + 1):
        d = flat_steps(sympy.diff(expr, ARGS[i], k)) if k else expr
        d = d.replace(lambda t: isinstance(t, sympy.DiracDelta), lambda t: sympy.S.Zero)
        out.append(float(sympy.re(d.subs(at).evalf(40))))
    return out


def _assert_orders(got: list[float], want: list[float], what: Any) -> None:
    """Each order within RTOL of SymPy's, relative; where a derivative passes
    near 0 (sigma'' at 1e-7 is -1.5e-8), relative to 1e-4 of the largest order."""
    floor = 1e-4 * max(abs(w) for w in want)
    for k, (g, w) in enumerate(zip(got, want)):
        assert abs(g - w) <= RTOL * max(abs(w), floor) or abs(g - w) <= 1e-300, \
            (what, k, g, w)


@pytest.mark.parametrize("method", [_by_backprop, _by_taylor])
@pytest.mark.parametrize("name", NEW)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_orders_0_to_3_match_sympy_to_1e_12(name: str, method, data: st.DataObject) -> None:
    a = data.draw(_domain_floats(name), label="x")
    want = [reference(name, k, a) for k in range(4)]
    _assert_orders(method(REGISTRY[name].call, [a], 0, 3), want, (name, a, method.__name__))


def _several_points(name: str, seed: int) -> list[list[float]]:
    """Points of the domain, away from the kinks and jumps (clip: lo < hi)."""
    lo, hi = REGISTRY[name].domain
    rng = np.random.default_rng(seed)
    n = REGISTRY[name].min_args
    pts = []
    while len(pts) < 6:
        p = [float(v) for v in rng.uniform(lo, hi, n)]
        if name == "clip":
            p[1:] = sorted(p[1:])
        if name == "mod" and abs(p[0] / p[1] - round(p[0] / p[1])) < 1e-3:
            continue
        pts.append(p)
    return pts


@pytest.mark.parametrize("method", [_by_backprop, _by_taylor])
@pytest.mark.parametrize("name", SEVERAL)
def test_functions_of_several_arguments_match_sympy_to_1e_12(name: str, method) -> None:
    entry = REGISTRY[name]
    for args in _several_points(name, 31):
        for i in range(len(args)):
            want = _sympy_orders(entry.reference, args, i, 3)
            _assert_orders(method(entry.call, args, i, 3), want, (name, args, i))


@pytest.mark.parametrize("method", [_by_backprop, _by_taylor])
@pytest.mark.parametrize(("name", "reference"), [("max", "Max(x, y)"), ("min", "Min(x, y)")])
def test_max_and_min_of_two_match_sympy_to_1e_12(name: str, reference: str, method) -> None:
    call = REGISTRY[name].call
    for args in ([1.5, -0.25], [-2.0, 0.75], [0.3, 0.3000001]):
        for i in range(2):
            want = _sympy_orders(reference, args, i, 3)
            _assert_orders(method(call, args, i, 3), want, (name, args, i))


@pytest.mark.parametrize("name", NEW)
def test_formulas_match_sympy_to_1e_12_at_orders_1_to_3(name: str) -> None:
    # the printed formula, evaluated at 40 digits, against SymPy's derivative
    entry = REGISTRY[name]
    ours = formula_derivatives(sympy_free_call(entry), "x", 3)
    lo, hi = entry.domain
    names = {"sign": sympy.sign, "abs": sympy.Abs, "cbrt": lambda u: sympy.real_root(u, 3),
             "log2": lambda u: sympy.log(u, 2), "log10": lambda u: sympy.log(u, 10),
             "exp2": lambda u: 2**u, "expm1": lambda u: sympy.exp(u) - 1,
             "log1p": lambda u: sympy.log(1 + u), "sigmoid": lambda u: 1 / (1 + sympy.exp(-u)),
             "x": X, "pi": sympy.pi, "e": sympy.E}
    for t in (0.13, 0.52, 0.91):
        a = lo + (hi - lo) * t
        for k, formula in enumerate(ours, start=1):
            mine = sympy.parse_expr(plain(formula).replace("^", "**"), local_dict=names)
            got = float(sympy.re(mine.subs(X, sympy.Float(a, 40)).evalf(40)))
            want = reference(name, k, a)
            assert abs(got - want) <= RTOL * abs(want) or abs(got - want) <= 1e-300, \
                (name, k, a, plain(formula), got, want)


def sympy_free_call(entry: Builtin):
    return entry.call(Sym("x"))


def test_max_of_several_is_element_wise_and_one_argument_reduces() -> None:
    call = REGISTRY["max"].call
    v = Variable(np.array([-2.0, 0.5, 3.0]))
    np.testing.assert_array_equal(call(v, 0.0).data, [0.0, 0.5, 3.0])  # ReLU
    np.testing.assert_array_equal(call(v, 1.0, Variable(np.array(2.0))).data, [2.0, 2.0, 3.0])
    A = Variable(np.array([[1.0, 5.0], [3.0, 2.0]]))
    np.testing.assert_array_equal(call(A, axis=0).data, [3.0, 5.0])
    np.testing.assert_array_equal(REGISTRY["min"].call(A, axis=1).data, [1.0, 2.0])
    np.testing.assert_array_equal(REGISTRY["sum"].call(A, axis=1).data, [6.0, 5.0])
    np.testing.assert_array_equal(REGISTRY["mean"].call(A, 0).data, [2.0, 3.5])
    with pytest.raises(MathError, match="axis= goes with one array"):
        call(A, 1.0, axis=0)


def test_special_values_of_the_new_functions() -> None:
    import math

    import mpmath

    def val(name: str, *a: float) -> float:
        return float(REGISTRY[name].call(*(Variable(np.array(v)) for v in a)).data)

    assert val("log1p", 1e-10) == float(mpmath.log1p(mpmath.mpf(1e-10)))  # to the last digit
    assert val("expm1", 1e-10) == float(mpmath.expm1(mpmath.mpf(1e-10)))
    assert val("cbrt", -8.0) == -2.0 and val("cbrt", 27.0) == pytest.approx(3.0, rel=3e-16)
    assert val("log", 8.0, 2.0) == pytest.approx(3.0, rel=1e-15)
    assert val("ln", math.e) == 1.0
    assert val("atan2", 1.0, -1.0) == pytest.approx(3 * math.pi / 4, rel=1e-15)
    assert val("hypot", 3e200, 4e200) == pytest.approx(5e200, rel=1e-15)  # no overflow
    assert val("mod", -7.0, 3.0) == 2.0 and val("clip", 5.0, 0.0, 1.0) == 1.0
    assert [val(n, -2.5) for n in ("floor", "ceil", "round", "trunc", "sign")] == \
        [-3.0, -2.0, -2.0, -2.0, -1.0]
    with mpmath.workdps(40):
        for a in (-30.0, -6.0, -2.0, -1.999, -0.5, -1e-300, 0.0, 1e-8, 0.3, 1.99, 2.0, 5.0,
                  9.0, 26.5, 27.5):
            for name, mp in (("erf", mpmath.erf), ("erfc", mpmath.erfc)):
                want = float(mp(mpmath.mpf(a)))
                assert val(name, a) == pytest.approx(want, rel=4e-16, abs=1e-320), (name, a)
