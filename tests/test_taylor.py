"""Taylor mode (gradcli.core.taylor) against repeated backprop, SymPy and mpmath.

The registry walk names no function: every elementwise entry is checked through
its own ``domain`` and ``reference``, so a new entry is tested when registered.
"""

from __future__ import annotations

import functools
import math
import threading
import warnings

import mpmath
import numpy as np
import pytest
import sympy

import gradcli.core.functions as F
from gradcli.core import Function, Variable, higher_derivatives
from gradcli.core import derivatives as derivatives_module
from gradcli.core import taylor as T
from gradcli.core.fpe import capture_fp_errors
from gradcli.core.registry import REGISTRY
from gradcli.core.stack import stack
from gradcli.core.taylor import missing_rules, taylor_coefficients, taylor_derivatives
from gradcli.errors import LimitError, NumericWarning

ELEMENTWISE = sorted(name for name, b in REGISTRY.items() if b.kind == "elementwise")
X = sympy.Symbol("x", real=True)

FIVE = {
    "x**4 - 2*x**2": lambda x: x**4 - 2 * x**2,
    "sin(x)*exp(x)": lambda x: F.sin(x) * F.exp(x),
    "tanh(x)": lambda x: F.tanh(x),
    "1/(1+exp(-x))": lambda x: 1 / (1 + F.exp(-x)),
    "exp(sin(x))*log(1+x**2)": lambda x: F.exp(F.sin(x)) * F.log(1 + x**2),
}
MPMATH_FIVE = {
    "sin(x)*exp(x)": lambda x: mpmath.sin(x) * mpmath.exp(x),
    "exp(sin(x))*log(1+x**2)": lambda x: mpmath.exp(mpmath.sin(x)) * mpmath.log(1 + x**2),
    "1/(1+exp(-x))": lambda x: 1 / (1 + mpmath.exp(-x)),
}


def taylor(build, x0, order):
    x = Variable(np.array(x0, dtype=np.float64))
    return taylor_derivatives(build(x), x, order)


def backprop(build, x0, order):
    x = Variable(np.array(x0, dtype=np.float64))
    with np.errstate(all="ignore"):
        y = build(x)
        return [y.data] + [d.data for d in higher_derivatives(y, x, order)]


def assert_orders_close(got, want, rtol, what=""):
    """Each order within rtol, relative to the largest value of that order."""
    assert len(got) == len(want), what
    for k, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g, dtype=np.float64), np.asarray(w, dtype=np.float64)
        assert g.shape == w.shape, f"{what} order {k}: shape {g.shape} != {w.shape}"
        scale = float(np.max(np.abs(w))) if w.size else 0.0
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * scale,
                                   err_msg=f"{what} order {k}")


def points(name, count=5):
    lo, hi = REGISTRY[name].domain
    return np.linspace(lo, hi, count + 2)[1:-1]


def small_blocks(monkeypatch, threads=None):
    """Blocks of 512 elements from 1024 on, so that small arrays go block by block."""
    monkeypatch.setattr(T.blocks, "CHUNK", 512)
    monkeypatch.setattr(T.blocks, "CHUNK_MIN", 1024)
    if threads is not None:
        monkeypatch.setattr(T.blocks, "THREADS", threads)


# --- the registry ----------------------------------------------------------------------


def test_every_elementwise_builtin_has_a_taylor_rule():
    assert len(ELEMENTWISE) >= 19
    assert missing_rules() == []
    for name in ELEMENTWISE:
        entry = REGISTRY[name]
        assert entry.function.taylor_rule is entry.taylor


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_order_0_is_the_value_alone(name):
    # tan, tanh, sigmoid, log and the inverse functions wrote coefficient 1
    # regardless, an IndexError (gradcli eval 'tanh(x)' --series 0)
    a = points(name)
    for xs in (a, a[:1].reshape(())):
        x = Variable(xs)
        y = REGISTRY[name].call(x)
        for got in (taylor_coefficients(y, x, 0), taylor_derivatives(y, x, 0)):
            assert len(got) == 1 and got[0] is y.data


@pytest.mark.parametrize("name", ELEMENTWISE)
@pytest.mark.parametrize("inner", ["x", "nonlinear"])
def test_registry_function_matches_backprop_to_order_6(name, inner):
    """Orders 0..6, elementwise over points inside the domain, applied to x itself
    (closed forms) and to a nonlinear function of x equal to x at x0 (recurrences)."""
    call = REGISTRY[name].call
    a = points(name)

    if inner == "x":
        def build(x):
            return call(x)
    else:
        def build(x):
            d = x - a
            return call(a + 0.5 * d + 0.3 * d * d)

    assert_orders_close(taylor(build, a, 6), backprop(build, a, 6), 1e-8, name)
    # and one point at a time (one-element series take another code path)
    for a0 in a[[0, -1]]:
        assert_orders_close(taylor(build, a0, 6), backprop(build, a0, 6), 1e-8, name)


# --- SymPy and mpmath references ----------------------------------------------------


@functools.cache
def reference_derivatives(text, a, order):
    """The derivatives of SymPy's reading of ``text`` at ``a``, by mpmath's
    numerical differentiation at 60 digits: independent of gradcli and
    accurate far past float64 (it agrees with SymPy's repeated diff to 1e-58
    on the registry), at a fiftieth of diff's cost (log1p took 10 s)."""
    fn = sympy.lambdify(X, sympy.sympify(text, locals={"x": X}), "mpmath")
    with mpmath.workdps(60):
        return [float(v) for v in mpmath.diffs(fn, mpmath.mpf(a), order)]


@pytest.mark.parametrize("text", list(FIVE))
def test_five_formulas_match_mpmath_to_order_10(text):
    got = taylor(FIVE[text], 0.7, 10)
    want = reference_derivatives(text, 0.7, 10)
    for k, (g, w) in enumerate(zip(got, want)):
        assert abs(float(g) - w) <= 1e-9 * max(abs(w), 1e-300), (text, k, float(g), w)


@pytest.mark.parametrize("text", list(MPMATH_FIVE))
def test_order_30_matches_mpmath(text):
    with mpmath.workdps(50):
        want = [float(v) for v in mpmath.diffs(MPMATH_FIVE[text], mpmath.mpf("0.7"), 30)]
    got = taylor(FIVE[text], 0.7, 30)
    for k, (g, w) in enumerate(zip(got, want)):
        assert abs(float(g) - w) <= 1e-6 * abs(w), (text, k, float(g), w)


def test_registry_functions_match_mpmath_at_order_10_at_one_point():
    for name in ELEMENTWISE:
        a = float(points(name, 3)[1])
        got = taylor(REGISTRY[name].call, a, 10)
        want = reference_derivatives(REGISTRY[name].reference, a, 10)
        for k, (g, w) in enumerate(zip(got, want)):
            assert abs(float(g) - w) <= 1e-9 * max(abs(w), 1.0), (name, k, float(g), w)


# --- exactness, shapes and semantics ----------------------------------------------------


def test_x_squared_at_zero_is_exact():
    d = taylor(lambda x: x**2, 0.0, 5)
    assert [float(v) for v in d] == [0.0, 0.0, 2.0, 0.0, 0.0, 0.0]
    d = taylor(lambda x: x**3 - x, 0.0, 6)
    assert [float(v) for v in d] == [0.0, -1.0, 0.0, 6.0, 0.0, 0.0, 0.0]
    d = taylor(lambda x: (x * x + x) ** 3, 0.0, 8)  # a nonlinear base: repeated products
    want = [0.0, 0.0, 0.0, 6.0, 72.0, 360.0, 720.0, 0.0, 0.0]
    assert [float(v) for v in d] == want


def _nan_or(values):
    return [None if math.isnan(v) else v for v in map(float, values)]


@pytest.mark.parametrize("build, at, order, want", [
    # (x^2 - 1)^1.5 at 1: u = 2t + t^2, so y ~ (2t)^1.5: f' = 0, then a pole; the
    # first order is the same whatever the order asked for
    (lambda x: (x**2 - 1) ** 1.5, 1.0, 1, [0.0, 0.0]),
    (lambda x: (x**2 - 1) ** 1.5, 1.0, 3, [0.0, 0.0, math.inf, -math.inf]),
    (lambda x: F.sin(x) ** 2.5, 0.0, 4, [0.0, 0.0, 0.0, math.inf, -math.inf]),
    # |x|^3 = (x^2)^1.5: f' = f'' = 0, no third derivative
    (lambda x: (x**2) ** 1.5, 0.0, 4, [0.0, 0.0, 0.0, None, None]),
    (lambda x: F.sqrt(x**2), 0.0, 2, [0.0, None, None]),  # |x|
    # x^2 (1 + x)^0.5 = x^2 + x^3/2 - x^4/8 + x^5/16 - 5x^6/128, exactly analytic
    (lambda x: (x**4 + x**5) ** 0.5, 0.0, 6, [0.0, 0.0, 2.0, 3.0, -3.0, 7.5, -28.125]),
    # ... but at order 4 u's fifth coefficient is not known, nor what needs it
    (lambda x: (x**4 + x**5) ** 0.5, 0.0, 4, [0.0, 0.0, 2.0, None, None]),
])
def test_a_fractional_power_of_a_base_that_is_zero(build, at, order, want):
    # the recurrence divides by the base: these were all nan
    with np.errstate(all="ignore"):
        got = taylor(build, at, order)
    assert _nan_or(got) == want


@pytest.mark.parametrize("build, order, want", [
    # |x^2| is x^2 on both sides of 0 (it was all zeros: sign(0) times the rows)
    (lambda x: F.abs(x**2), 3, [0.0, 0.0, 2.0, 0.0]),
    (lambda x: F.abs(-(x**2)), 3, [0.0, 0.0, 2.0, 0.0]),
    (lambda x: F.exp(F.abs(F.sin(x) ** 2)), 4, [1.0, 0.0, 2.0, 0.0, 4.0]),
    # a kink (an odd order): sign(0) = 0, as backprop and SymPy's sign have it
    (lambda x: F.abs(x), 2, [0.0, 0.0, 0.0]),
    (lambda x: F.abs(x**3), 3, [0.0, 0.0, 0.0, 0.0]),
    # max of tied elements follows the one greater on both sides: x^2 at 0
    (lambda x: F.max(stack([x**2, x * 0.0])), 3, [0.0, 0.0, 2.0, 0.0]),
    (lambda x: F.min(stack([x**2, x**4])), 4, [0.0, 0.0, 0.0, 0.0, 24.0]),
    # ... and where they cross (|x| = max(x, -x)) they share: 0, as abs
    (lambda x: F.max(stack([x, -x])), 2, [0.0, 0.0, 0.0]),
    # the base x^2.5 vanishes to order 2.5, its series 0, 0, inf: the first
    # derivative of (x^2.5)^0.4 = x is not known, not 0
    (lambda x: (x**2.5) ** 0.4, 1, [0.0, None]),
    (lambda x: (x**2.5) ** 0.8, 2, [0.0, 0.0, None]),  # x^2: was 0 (u = O(t^3) assumed)
])
def test_singular_points_that_are_smooth_or_not(build, order, want):
    with np.errstate(all="ignore"):
        got = taylor(build, 0.0, order)
    assert _nan_or(got) == want


def test_a_fractional_power_of_a_zero_base_over_an_array_mends_those_points_only():
    with np.errstate(all="ignore"):
        arr = taylor(lambda x: (x**2 - 1) ** 1.5, np.array([1.0, 2.0, -1.0]), 2)
        at2 = taylor(lambda x: (x**2 - 1) ** 1.5, 2.0, 2)
    assert [float(v[0]) for v in arr] == [0.0, 0.0, math.inf]
    assert [float(v[2]) for v in arr] == [0.0, 0.0, math.inf]
    assert_orders_close([v[1] for v in arr], at2, 1e-15, "x=2")


def test_polynomial_derivatives_are_exact_integers():
    d = taylor(FIVE["x**4 - 2*x**2"], 2.0, 6)
    assert [float(v) for v in d] == [8.0, 24.0, 44.0, 48.0, 24.0, 0.0, 0.0]


def test_array_input_matches_point_by_point():
    build = FIVE["exp(sin(x))*log(1+x**2)"]
    xs = np.linspace(-2.0, 2.0, 9)
    arr = taylor(build, xs, 8)
    assert all(np.shape(v) == xs.shape for v in arr)
    for i, a in enumerate(xs):
        one = taylor(build, a, 8)
        assert_orders_close([v[i] for v in arr], one, 1e-13, f"x={a}")


def test_large_arrays_go_block_by_block_with_the_same_results(monkeypatch):
    small_blocks(monkeypatch)
    xs = np.linspace(0.1, 2.0, 2500)
    for text, build in FIVE.items():
        blocked = taylor(build, xs, 4)
        with monkeypatch.context() as m:
            m.setattr(T.blocks, "CHUNK_MIN", 10**9)
            whole = taylor(build, xs, 4)
        assert_orders_close(blocked, whole, 1e-14, text)
        for i in (0, 511, 512, 2499):
            assert_orders_close([v[i] for v in blocked], taylor(build, xs[i], 4), 1e-12, text)
        # coefficients (no k! scaling of the rows a last rule wrote in place, and
        # none where it wrote derivatives itself)
        x = Variable(xs)
        y = build(x)
        coefs = taylor_coefficients(y, x, 4)
        derivs = taylor_derivatives(y, x, 4)
        assert_orders_close([c * math.factorial(k) for k, c in enumerate(coefs)], derivs,
                            1e-15, text)


def test_blockwise_results_and_buffers_start_on_64_byte_lines(monkeypatch):
    # np.empty's large arrays started 32 bytes into a line here: every AVX-512
    # store of a row split across two lines, and writing the result rows from a
    # block cost 7.2 ms per million elements of 4 rows where aligned rows took 4.2
    for shape, dtype in (((3, 1000), np.float64), (7, np.float32), ((2, 2, 5), np.float64)):
        a = T.rows.aligned_empty(shape, dtype)
        assert a.ctypes.data % 64 == 0 and a.flags.c_contiguous and a.flags.writeable
        assert a.shape == ((shape,) if isinstance(shape, int) else shape) and a.dtype == dtype
    small_blocks(monkeypatch)
    made = []
    get = T.rows.Arena.get

    def spy(self, shape, dtype):
        buf = get(self, shape, dtype)
        made.append(buf)
        return buf

    monkeypatch.setattr(T.rows.Arena, "get", spy)
    xs = np.linspace(0.1, 2.0, 2048)  # rows of 2048 float64: each a whole number of lines
    rows = taylor(FIVE["exp(sin(x))*log(1+x**2)"], xs, 3)
    assert len(rows) == 4 and made
    assert all(r.ctypes.data % 64 == 0 for r in rows[1:])
    assert all(b.ctypes.data % 64 == 0 for b in made)


SHARED = {
    # + 2 hands on sin's rows: the buffer is freed only when both nodes are dead
    "exp(sin(x) + 2) * sin(x) * 3": lambda x: (lambda u: F.exp(u + 2) * u * 3)(F.sin(x)),
    # a node read by steps far apart, and scratch rows given back at each step
    "log(1 + x^2) * tanh(x) / (1 + x^2)":
        lambda x: (lambda v: F.log(v) * F.tanh(x) / v)(1 + x**2),
}


@pytest.mark.parametrize("text", SHARED)
def test_the_block_arena_reuses_buffers_and_never_a_live_one(monkeypatch, text):
    small_blocks(monkeypatch, threads=1)
    build = SHARED[text]
    xs = np.linspace(0.1, 2.0, 2500)
    gets, made = [], []
    get = T.rows.Arena.get

    def counted_get(self, shape, dtype):
        before = len(self.ids)
        buf = get(self, shape, dtype)
        (made if len(self.ids) > before else gets).append(shape)
        return buf

    monkeypatch.setattr(T.rows.Arena, "get", counted_get)
    x = Variable(T.sample(xs))
    value, *blocked = T.taylor_derivatives_at(build(x), x, xs, 5)
    with monkeypatch.context() as m:
        m.setattr(T.blocks, "CHUNK_MIN", 10**9)
        whole = taylor(build, xs, 5)
    assert_orders_close([value, *blocked], whole, 1e-15, text)
    # the four full blocks' rules asked for buffers four times as often as the
    # arena made one, and more: freed ones went out again within a block too
    asked = sum(s[-1] == 512 for s in gets + made)
    new = sum(s[-1] == 512 for s in made)
    assert 0 < new < asked // 4


@pytest.mark.parametrize("name", ["tan", "tanh", "sigmoid"])
def test_riccati_rules_writing_derivatives_in_place_agree_to_order_12(monkeypatch, name):
    # the last rule of a blockwise replay writes k! c_k by its own recurrence
    small_blocks(monkeypatch)
    xs = np.linspace(-1.2, 1.2, 2500)
    x = Variable(xs)
    y = REGISTRY[name].call(x * 0.9 + 0.1)
    derivs = taylor_derivatives(y, x, 12)
    coefs = taylor_coefficients(y, x, 12)
    assert_orders_close(derivs, [c * math.factorial(k) for k, c in enumerate(coefs)],
                        1e-13, name)
    for i in (0, 1700):
        xi = Variable(np.array(xs[i]))
        assert_orders_close([d[i] for d in derivs], taylor_derivatives(
            REGISTRY[name].call(xi * 0.9 + 0.1), xi, 12), 1e-13)


TAILS = {
    "tanh": (F.tanh, mpmath.tanh),
    "sigmoid": (F.sigmoid, lambda u: 1 / (1 + mpmath.exp(-u))),
}


def mp_derivatives(fn, inner, a, order):
    with mpmath.workdps(50):
        return [float(v) for v in mpmath.diffs(lambda t: fn(inner(t)), mpmath.mpf(a), order)]


@pytest.mark.parametrize("name", TAILS)
@pytest.mark.parametrize("a", [-40.0, -20.0, 9.0, 20.0, 40.0])
@pytest.mark.parametrize("linear", [True, False])
def test_tanh_and_sigmoid_keep_their_digits_in_the_tails(name, a, linear):
    # 1 - y**2 and y (1 - y) cancel where y is near 1: tanh'(20) came out 0, not
    # 1.7e-17, and sigmoid(-40) 0, not 4.2e-18; x*1.5 - x/2 is x, but not a seed
    fn, mp_fn = TAILS[name]
    build = (lambda x: fn(x)) if linear else (lambda x: fn(x * 1.5 - x * x * 0.0 - x / 2))
    got = taylor(build, a, 5)
    want = mp_derivatives(mp_fn, lambda t: t, a, 5)
    for k, (g, w) in enumerate(zip(got, want)):
        assert float(g) == pytest.approx(w, rel=1e-12, abs=1e-300), f"{name} at {a}, order {k}"


EDGES = {
    "asin": (mpmath.asin, [1 - 2**-40, -1 + 2**-30]),
    "acos": (mpmath.acos, [1 - 2**-40, -1 + 2**-30]),
    "atanh": (mpmath.atanh, [1 - 2**-40, -1 + 2**-30]),
    "acosh": (mpmath.acosh, [1 + 2**-40, 1 + 2**-20]),
}


@pytest.mark.parametrize("name", EDGES)
@pytest.mark.parametrize("method", [taylor, backprop])
def test_inverse_functions_keep_their_digits_near_the_domain_edge(name, method):
    # 1 - x*x cancels there: asin'(1 - 2**-40) lost five digits
    mp_fn, points = EDGES[name]
    for a in points:
        got = method(REGISTRY[name].call, a, 3)
        want = mp_derivatives(mp_fn, lambda t: t, a, 3)
        for k, (g, w) in enumerate(zip(got, want)):
            assert float(g) == pytest.approx(w, rel=1e-12), f"{name} at {a}, order {k}"


@pytest.mark.parametrize("name", ["asin", "acos", "atanh"])
@pytest.mark.parametrize("method", [taylor, backprop])
def test_inverse_functions_keep_their_digits_near_zero(name, method):
    # backprop differentiated (1 - x)(1 + x) to (1 - x) - (1 + x), which cancels
    # near 0: asin'' at 1e-9 was 3e-8 off
    mp_fn = EDGES[name][0]
    for a in (1e-9, -3e-12):
        got = method(REGISTRY[name].call, a, 4)
        want = mp_derivatives(mp_fn, lambda t: t, a, 4)
        for k, (g, w) in enumerate(zip(got, want)):
            assert float(g) == pytest.approx(w, rel=1e-13, abs=0), f"{name} at {a}, order {k}"


@pytest.mark.parametrize("name", EDGES)
@pytest.mark.parametrize("inner", ["x", "-x", "2*x"])
def test_at_the_domain_edge_the_derivatives_are_the_limits_from_inside(name, inner):
    # the sign of each infinite derivative is that of the derivatives just inside
    # (acos at 1 gave -inf, inf, inf; atanh at 1 gave -inf, inf, nan)
    scale = {"x": 1.0, "-x": -1.0, "2*x": 2.0}[inner]
    fn = REGISTRY[name].call
    edges = [1.0] if name == "acosh" else [1.0, -1.0]
    for edge in edges:
        a = edge / scale
        inside = a * (1 + 1e-6) if name == "acosh" else a * (1 - 1e-6)
        with np.errstate(all="ignore"):  # infinite derivatives: NumPy's warnings
            got = taylor(lambda v: fn(v * scale), np.array(a), 3)
            near = taylor(lambda v: fn(v * scale), np.array(inside), 3)
        for k in range(1, 4):
            assert np.isinf(got[k]) and np.sign(got[k]) == np.sign(near[k]), \
                f"{name}({inner}) at {a}, order {k}: {got[k]}, inside {near[k]}"


@pytest.mark.parametrize("name", TAILS)
def test_tails_over_an_array_block_by_block_mend_those_elements_only(monkeypatch, name):
    small_blocks(monkeypatch)
    fn, mp_fn = TAILS[name]
    xs = np.linspace(-30.0, 30.0, 2501)
    got = taylor(fn, xs, 3)
    for i in (0, 300, 1000, 1240, 1400, 2500):  # -30, -22.8, -6, -0.24, 3.6, 30
        want = mp_derivatives(mp_fn, lambda t: t, xs[i], 3)
        for k in range(4):
            assert float(got[k][i]) == pytest.approx(want[k], rel=1e-12, abs=1e-300), \
                f"{name} at {xs[i]}, order {k}"


@pytest.mark.parametrize("name", TAILS)
def test_a_nan_beside_a_tail_leaves_the_tail_mended(name):
    fn, mp_fn = TAILS[name]
    xs = np.array([np.nan, 20.0, -25.0, 0.5])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = taylor(fn, xs, 2)
    assert all(np.isnan(g[0]) for g in got)
    for i in (1, 2, 3):
        want = mp_derivatives(mp_fn, lambda t: t, xs[i], 2)
        for k in (1, 2):
            assert float(got[k][i]) == pytest.approx(want[k], rel=1e-12, abs=0), (xs[i], k)


def test_scalar_x_and_array_y_sum_as_backprop_does():
    c = np.array([1.0, 2.0, 3.0])

    def build(x):
        return F.sin(x * c)

    got = taylor(build, 0.7, 5)
    assert got[0].shape == (3,)  # the value itself
    assert all(np.shape(v) == () for v in got[1:])
    for k in range(1, 6):  # d^k/dx^k sum_i sin(c_i x) = sum_i c_i^k sin(c_i x + k pi/2)
        want = sum(ci**k * math.sin(ci * 0.7 + k * math.pi / 2) for ci in c)
        assert float(got[k]) == pytest.approx(want, rel=1e-12)
    assert_orders_close(got[1:], backprop(build, 0.7, 5)[1:], 1e-12)


STRUCTURAL = {
    "sum": lambda x: F.sum(F.sin(x * np.array([1.0, 2.0, 3.0])) ** 2),
    "sum axis": lambda x: F.sum(F.exp(x * np.arange(6.0).reshape(2, 3) / 4), axis=1),
    "mean": lambda x: F.mean(F.exp(x * np.array([1.0, 2.0, 3.0]))),
    "max": lambda x: F.max(F.sin(x * np.array([1.0, 2.0, 3.0]))),
    "min axis": lambda x: F.min(F.cos(x * np.array([[1.0, 2.0], [0.5, 3.0]])), 1),
    # ties share the derivative, as backprop splits the gradient: max(x, x) is x
    "max ties": lambda x: F.max(F.sin(x * np.array([1.0, 1.0, 0.5]))),
    "min axis ties": lambda x: F.min(F.exp(x * np.array([[2.0, 2.0, 3.0], [1.0, 4.0, 1.0]])),
                                     1),
    # an array literal of scalar items ([x, 2x] in the language); a constant item
    "stack": lambda x: F.sum(stack([F.sin(x), x**2, Variable(np.array(3.0)) * 1, x]) ** 2),
    "getitem": lambda x: F.exp(x * np.array([1.0, 2.0, 3.0]))[1:] * 2,
    "reshape": lambda x: F.reshape(F.tanh(x * np.arange(1.0, 7.0)), (2, 3)) ** 2,
    "transpose": lambda x: F.transpose(F.exp(x * np.ones((2, 3)))) * np.arange(3.0)[:, None],
    "matmul": lambda x: F.matmul(F.reshape(x * np.arange(1.0, 5.0), (2, 2)),
                                 F.exp(x * np.ones((2, 2)))),
    "matmul vector": lambda x: F.matmul(x * np.arange(1.0, 3.0),
                                        F.sin(x * np.array([[1.0, 2.0], [3.0, 4.0]]))),
    "broadcast_to": lambda x: F.broadcast_to(F.sin(x), (3,)) * np.arange(3.0),
    "sum_to": lambda x: F.sum_to(F.sin(x * np.ones((2, 3))), (1, 3)),
}


@pytest.mark.parametrize("name", list(STRUCTURAL))
def test_scalar_x_through_reductions_shapes_and_matmul(name):
    build = STRUCTURAL[name]
    assert_orders_close(taylor(build, 0.7, 5), backprop(build, 0.7, 5), 1e-10, name)


POWERS = {
    "x**2.5": lambda x: x**2.5,
    "x**-3": lambda x: x**-3,
    "(x+x**2)**0.3": lambda x: (x + x**2) ** 0.3,
    "(x+x**2)**-2": lambda x: (x + x**2) ** -2,
    "(x+x**2)**7": lambda x: (x + x**2) ** 7,
    "x**x": lambda x: x**x,
    "2**x": lambda x: 2**x,
    "0**x": lambda x: 0.0**x,  # 0 for x > 0: every derivative 0, not nan
    "x**sin(x)": lambda x: x ** F.sin(x),
    "x**[1,2,3.5]": lambda x: x ** np.array([1.0, 2.0, 3.5]),
    "exp(x)/x**2": lambda x: F.exp(x) / x**2,
    "x/(1+x)": lambda x: x / (1 + x),
    "abs(x-1)*x": lambda x: F.abs(x - 1) * x,
    "sin(x)/cos(x)": lambda x: F.sin(x) / F.cos(x),
}


@pytest.mark.parametrize("name", list(POWERS))
def test_powers_and_quotients_match_backprop(name):
    build = POWERS[name]
    assert_orders_close(taylor(build, 0.7, 6), backprop(build, 0.7, 6), 1e-9, name)
    xs = np.array([0.3, 0.7, 1.9])
    if name != "x**[1,2,3.5]":
        assert_orders_close(taylor(build, xs, 6), backprop(build, xs, 6), 1e-9, name)


# Arrays take their own code paths (rows updated in place, scratch rows from the
# block arena); one element takes Python floats. Each formula reaches a row path:
# linear inputs with a slope other than 1, constant and series numerators,
# denominators with fewer rows than the order.
ROW_PATHS = {
    "tanh(1.5*x-0.2)": lambda x: F.tanh(1.5 * x - 0.2),
    "sigmoid(-0.7*x)": lambda x: F.sigmoid(-0.7 * x),
    "tan(0.4*x)": lambda x: F.tan(0.4 * x),
    "tanh(x*x)": lambda x: F.tanh(x * x),
    "1/(1+exp(-x))": lambda x: 1 / (1 + F.exp(-x)),
    "2/(3+x)": lambda x: 2 / (3 + x),
    "sin(x)/(2+cos(x))": lambda x: F.sin(x) / (2 + F.cos(x)),
    "(x**3+1)/(2+exp(x))": lambda x: (x**3 + 1) / (2 + F.exp(x)),
    "atan(2*x)": lambda x: F.atan(2 * x),
    "log(1+x*x)": lambda x: F.log(1 + x * x),
    "log2(2+sin(x))": lambda x: F.log2(2 + F.sin(x)),
    "exp(sin(x))": lambda x: F.exp(F.sin(x)),
}


@pytest.mark.parametrize("name", list(ROW_PATHS))
def test_array_row_paths_match_one_element_at_a_time(name):
    build = ROW_PATHS[name]
    xs = np.linspace(-1.3, 1.1, 7)
    arr = taylor(build, xs, 12)
    for i in (0, 3, 6):
        assert_orders_close([v[i] for v in arr], taylor(build, xs[i], 12), 1e-12,
                            f"{name} at x={xs[i]}")


@pytest.mark.parametrize("p", [2, 3, 4, 7])
@pytest.mark.parametrize("slope", [1.0, -0.5])
def test_integer_powers_of_a_linear_array_match_each_element_alone(p, slope):
    # an array's rows are built pass by pass (x**2's are 2 x and 1), a single
    # element's in Python floats from the binomial formula
    xs = np.array([-1.5, -0.25, 0.0, 0.7, 3.0])

    def build(x):
        return (x * slope + 0.25) ** p

    for order in (1, 2, p - 1, p, p + 2):
        arr = taylor(build, xs, order)
        for i, a in enumerate(xs):
            assert_orders_close([v[i] for v in arr], taylor(build, a, order), 1e-15,
                                f"p={p} order={order} x={a}")


@pytest.mark.parametrize("dtype", [np.int64, np.int16, np.uint8])
def test_integer_powers_of_an_integer_array_do_not_wrap_around(dtype):
    # u0 * u0 in the integers wrapped: int16 [200, 300] ** 3.0 had slope -76608
    xs = np.array([20, 30], dtype=dtype) * (10 if np.dtype(dtype).itemsize > 1 else 1)
    x = Variable(xs)
    got = taylor_derivatives(x**3.0, x, 3)
    a = xs.astype(np.float64)
    for g, w in zip(got, [a**3, 3 * a**2, 6 * a, np.full_like(a, 6.0)]):
        np.testing.assert_allclose(g, w, rtol=1e-15)


def test_a_variable_power_whose_base_is_lifted_to_the_exponents_shape():
    # the base has shape (3,), the exponent x (1, 1): the base's rows are lifted
    def build(x):
        return (np.array([1.0, 2.0, 3.0]) / F.sum(x)) ** x

    assert_orders_close(taylor(build, [[0.5]], 4), backprop(build, [[0.5]], 4), 1e-9)


def test_array_x_broadcast_against_a_constant_sums_like_backprop():
    def build(x):
        return F.sin(x * np.array([[1.0], [2.0]]))

    xs = np.array([0.1, 0.5, -0.7])
    got = taylor(build, xs, 4)
    assert all(v.shape == (3,) for v in got[1:])
    assert_orders_close(got[1:], backprop(build, xs, 4)[1:], 1e-12)


def test_array_x_through_a_non_elementwise_op_falls_back():
    x = Variable(np.array([0.1, 0.2, 0.3]))
    assert taylor_derivatives(F.sum(F.sin(x)), x, 3) is None
    x = Variable(np.array([0.1, 0.2, 0.3, 0.4]))
    assert taylor_derivatives(F.reshape(x, (2, 2)) * 2, x, 3) is None
    assert taylor_derivatives(F.max(x * x), x, 2) is None


def test_a_function_without_a_rule_falls_back():
    class Cube(Function):
        def forward(self, x):
            return x**3

        def backward(self, gy):
            return gy * 3 * self.inputs[0] ** 2

    x = Variable(np.array(0.5))
    assert taylor_derivatives(F.sin(Cube()(x)), x, 3) is None
    # ... but a ruleless Function that does not depend on x is only a constant
    c = Cube()(Variable(np.array(2.0)))
    assert taylor_derivatives(F.sin(x) * c, x, 2) is not None


def test_constants_and_x_itself():
    x = Variable(np.array(0.5))
    d = taylor_derivatives(x, x, 3)
    assert [float(v) for v in d] == [0.5, 1.0, 0.0, 0.0]
    y = F.sin(Variable(np.array(2.0))) + 0 * x
    assert [float(v) for v in taylor_derivatives(y, x, 2)[1:]] == [0.0, 0.0]


def test_coefficients_are_derivatives_over_factorials():
    x = Variable(np.array(0.7))
    y = FIVE["exp(sin(x))*log(1+x**2)"](x)
    c = taylor_coefficients(y, x, 12)
    d = taylor_derivatives(y, x, 12)
    for k in range(13):
        assert float(c[k]) * math.factorial(k) == pytest.approx(float(d[k]), rel=1e-14)


def test_order_limit():
    x = Variable(np.array(0.3))
    y = F.exp(x)
    d = taylor_derivatives(y, x, T.MAX_ORDER)
    assert float(d[-1]) == pytest.approx(math.exp(0.3), rel=1e-12)
    with pytest.raises(LimitError):
        taylor_derivatives(y, x, T.MAX_ORDER + 1)
    assert len(taylor_coefficients(y, x, 200)) == 201


@pytest.mark.parametrize("shape", [(), (5,)])
def test_orders_a_lower_order_holds_are_the_same_past_factorial_order(shape, monkeypatch):
    # past order 170 the series is scaled, and its roundings made the second
    # derivative of x^2 2.0000000000000004; every order to 170 is now what an
    # order-170 call gives, whole arrays and (small blocks) block by block
    small_blocks(monkeypatch)
    xs = np.full(shape, 0.7) if shape else np.array(0.7)
    for build in (lambda v: v * v, lambda v: F.exp(F.sin(v)) * F.log(1 + v**2)):
        x = Variable(xs)
        y = build(x)
        with np.errstate(all="ignore"):  # k! c_k overflows for log's series past 170
            high = taylor_derivatives(y, x, 200)
        low = taylor_derivatives(y, x, T.FACTORIAL_ORDER)
        for k in range(T.FACTORIAL_ORDER + 1):
            np.testing.assert_array_equal(high[k], low[k])
        if shape:
            x = Variable(T.sample(np.full(2048, 0.7)))
            with np.errstate(all="ignore"):
                at = T.taylor_derivatives_at(build(x), x, np.full(2048, 0.7), 200)
            assert float(at[2][-1]) == float(low[2][0])


def _inverse_square_derivatives(a: str, n: int) -> list:
    """d^k/dx^k 1/(1+x^2) at a, k = 0..n: (-1)^k k! sin((k+1) acot a) / (1+a^2)^((k+1)/2)."""
    mpmath.mp.dps = 40
    x = mpmath.mpf(a)
    return [(-1) ** k * mpmath.factorial(k) * mpmath.sin((k + 1) * mpmath.acot(x))
            / (1 + x**2) ** (mpmath.mpf(k + 1) / 2) for k in range(n + 1)]


def _assert_signed(got, true) -> None:
    got = np.asarray(got).reshape(-1)
    if abs(true) < 1.7e308:
        np.testing.assert_allclose(got, float(true), rtol=1e-12)
    else:
        assert np.all(got == (math.inf if true > 0 else -math.inf)), (got, true)


def test_a_derivative_beyond_float64_is_its_signed_infinity(monkeypatch):
    # 1/(1+x^2) at 0.7 is past float64 from order 178: to order 1000 (400 block by
    # block) orders 171 on were nan, "0/0 or inf/inf is undefined"
    true = _inverse_square_derivatives("0.7", 1000)
    for x, n in ((Variable(np.array(0.7)), 1000), (Variable(np.array([0.7, 0.7])), 400)):
        with capture_fp_errors() as messages:
            d = taylor_derivatives(1 / (1 + x**2), x, n)
        assert messages == ["derivative: overflow; the result is infinite"]
        for k in (*range(171, 200), n - 1, n):
            _assert_signed(d[k], true[k])
    small_blocks(monkeypatch)
    xs = np.full(2048, 0.7)
    x = Variable(T.sample(xs))
    with capture_fp_errors() as messages:
        at = T.taylor_derivatives_at(1 / (1 + x**2), x, xs, 400)
    assert messages == ["derivative: overflow; the result is infinite"]
    for k in (171, 176, 177, 399, 400):
        _assert_signed(at[k], true[k])


@pytest.mark.parametrize("dtype, scale, a, n", [
    (np.float32, 1.0, -60.0, 20),   # exp(-60) = 8.8e-27: c_20 = 3.6e-45, below float32's normals
    (np.float32, 1.0, 1.0, 40),     # c_39 = e/39! = 1.3e-46: orders 38-40 were 0
    (np.float64, 1e-290, 0.0, 40),  # c_40 = 1.2e-338: orders 38-40 were 0
    (np.float64, 1.0, -700.0, 25),  # orders 21 on were 0
])
def test_a_derivative_whose_coefficient_underflows_keeps_its_digits(dtype, scale, a, n):
    # the rescaled series was taken only past order 60, tuned to float64's range:
    # below it such derivatives came out 0 or short of digits, silently
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    true = scale * math.exp(a)
    for xs in (np.array(a, dtype=dtype), np.full(3, a, dtype=dtype)):
        x = Variable(xs)
        d = taylor_derivatives(F.exp(x) * scale if scale != 1.0 else F.exp(x), x, n)
        for k in range(n + 1):
            np.testing.assert_allclose(np.asarray(d[k], dtype=float), true, rtol=rtol,
                                       err_msg=f"order {k}")


def test_exact_zeros_of_a_polynomial_are_not_taken_for_underflow(monkeypatch):
    # a zero coefficient with no subnormal one beside it is exact: no rescaled pass
    calls = []
    real = T.api._coefficients_at
    monkeypatch.setattr(T.api, "_coefficients_at", lambda *a: calls.append(a[-1]) or real(*a))
    x = Variable(np.array(0.7))
    d = taylor_derivatives(x**4 - 2 * x**2, x, 12)
    assert [float(v) for v in d[5:]] == [0.0] * 8 and calls == [1.0]


def test_float32_stays_float32():
    x = Variable(np.array([0.5, 0.7], dtype=np.float32))
    d = taylor_derivatives(F.tanh(x) * F.exp(x), x, 4)
    assert all(v.dtype == np.float32 for v in d)
    ref = taylor(lambda v: F.tanh(v) * F.exp(v), np.array([0.5, 0.7]), 4)
    assert_orders_close(d, ref, 1e-5)


def test_floating_point_errors_name_the_function():
    x = Variable(np.array(0.0))
    with capture_fp_errors() as messages:
        y = F.log(x)
        messages.clear()  # the forward pass's own message
        d = taylor_derivatives(y, x, 3)
    assert np.isinf(float(d[1]))
    assert messages and all(m.startswith("log") for m in messages), messages


def test_threads_give_the_same_blocks_as_one(monkeypatch):
    small_blocks(monkeypatch)
    xs = np.linspace(0.1, 2.0, 5000)  # 10 blocks
    build = FIVE["exp(sin(x))*log(1+x**2)"]
    results = {}
    for threads in (1, 2, 3):
        monkeypatch.setattr(T.blocks, "THREADS", threads)
        results[threads] = taylor(build, xs, 4)
    for threads in (2, 3):
        for got, want in zip(results[threads], results[1]):
            np.testing.assert_array_equal(got, want)


def test_floating_point_errors_in_other_threads_are_captured(monkeypatch):
    small_blocks(monkeypatch, threads=2)
    xs = np.linspace(-1.0, 1.0, 4096)
    xs[-1] = 0.0  # in the last block, which the second thread replays
    x = Variable(xs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning leaking from a thread fails here
        with capture_fp_errors() as messages:
            y = F.log(x * x)
            messages.clear()
            d = taylor_derivatives(y, x, 2)
    assert np.isinf(d[1][-1]) or np.isnan(d[1][-1])
    assert messages and all(m.startswith(("log", "'*'", "derivative")) for m in messages), messages


def test_an_error_in_another_thread_is_raised_in_the_caller(monkeypatch):
    small_blocks(monkeypatch, threads=2)
    x = Variable(np.linspace(0.1, 2.0, 4096))
    y = F.exp(x)
    calls = []

    def failing(*args):
        calls.append(threading.current_thread())
        if threading.current_thread() is not threading.main_thread():
            raise MemoryError("boom")
        return T.elementary.exp_rule(*args)

    monkeypatch.setattr(type(y.creator), "taylor_rule", staticmethod(failing))
    with pytest.raises(MemoryError, match="boom"):
        taylor_derivatives(y, x, 3)
    assert len(set(calls)) == 2


def test_the_last_rule_writes_into_the_result_and_an_error_leaves_no_block_offered(monkeypatch):
    small_blocks(monkeypatch, threads=1)
    x = Variable(np.linspace(0.1, 2.0, 2048))
    y = F.tanh(x)
    written = []

    def recording(u0, U, y0, n):
        rows = T.elementary.tanh_rule(u0, U, y0, n)
        written.append(rows)
        if len(written) == 2:
            raise ArithmeticError("boom")
        return rows

    monkeypatch.setattr(type(y.creator), "taylor_rule", staticmethod(recording))
    with pytest.raises(ArithmeticError, match="boom"):
        taylor_derivatives(y, x, 3)
    # the first block's rows were the result's own memory, not a copy
    assert written[0].base is not None and written[0].shape == (3, 512)
    assert getattr(T.rows.block_state, "target", None) is None


def test_backprop_warns_before_its_graph_blows_up(monkeypatch):
    monkeypatch.setattr(derivatives_module, "GRAPH_WARN_NODES", 300)
    x = Variable(np.array(0.7))
    y = FIVE["exp(sin(x))*log(1+x**2)"](x)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ds = higher_derivatives(y, x, 6)
    msgs = [str(w.message) for w in caught if issubclass(w.category, NumericWarning)]
    assert len(msgs) == 1
    assert "Taylor mode gives every order" in msgs[0] and "nodes" in msgs[0]
    assert float(ds[-1].data) == pytest.approx(float(taylor(FIVE["exp(sin(x))*log(1+x**2)"],
                                                            0.7, 6)[6]), rel=1e-12)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x = Variable(np.array(0.7))
        higher_derivatives(FIVE["tanh(x)"](x), x, 2)
    assert not [w for w in caught if issubclass(w.category, NumericWarning)]


@pytest.mark.parametrize("name, build, a, scale, orders", [
    ("exp(x/10)", lambda x: F.exp(x / 10), 0.0, 0.1, range(100, 171)),
    ("exp(x/100)", lambda x: F.exp(x / 100), 0.0, 0.01, range(60, 171)),
    ("exp(x/2) at 1000", lambda x: F.exp(x / 2), 1000.0, 0.5, range(150, 171)),
    ("exp(x/100), order 300", lambda x: F.exp(x / 100), 0.0, 0.01, range(60, 301)),
])
def test_derivatives_whose_taylor_coefficients_underflow_keep_their_digits(
        name, build, a, scale, orders):
    # d^k/dx^k exp(s x) = s^k exp(s a): within float64 while s^k / k! is not
    top = orders[-1]
    got = taylor(build, a, top)
    with mpmath.workdps(40):
        for k in orders:
            want = mpmath.mpf(scale) ** k * mpmath.exp(mpmath.mpf(scale) * a)
            if abs(want) < 1e-300:  # beyond float64's normal numbers
                assert abs(float(got[k])) < 1e-290
                continue
            assert float(got[k]) == pytest.approx(float(want), rel=1e-12, abs=0), (name, k)


@pytest.mark.parametrize("da, db, m", [(2, 2, 2), (6, 4, 8), (4, 6, 5), (41, 41, 40), (8, 3, 9)])
def test_the_cauchy_product_for_cupy_sums_its_own_products(da, db, m):
    """The product of two one-element series on CuPy (whose convolve takes an FFT,
    noise at high orders): on NumPy arrays it must give NumPy's convolve, to the
    last bits, with tiny high-order coefficients kept."""
    rng = np.random.default_rng(da * 100 + db)
    k = np.arange(max(da, db))
    a = rng.normal(size=da) * np.exp(-k[:da] * 2.0)  # c_k falling fast, as 1/k! does
    b = rng.normal(size=db) * np.exp(-k[:db] * 2.0)
    want = np.convolve(a, b)[1 : m + 1]
    got = T.series._cauchy(a, b, m)
    assert got.shape == want.shape == (m,)
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)


def test_the_entry_points_return_arrays_only() -> None:
    # taylor_coefficients gave [array(0.76), np.float64(2.37), ...], a mixed list
    from gradcli.core.taylor import taylor_coefficients, taylor_derivatives

    for value in (np.array(0.7), np.array([0.1, 0.2])):
        x = Variable(value)
        y = F.sin(x) * F.exp(x)
        for got in (taylor_coefficients(y, x, 3), taylor_derivatives(y, x, 3)):
            assert [type(c) for c in got] == [np.ndarray] * 4
            assert all(c.shape == value.shape for c in got)
