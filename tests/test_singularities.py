"""Taylor mode at removable singularities: a quotient whose numerator and
denominator both vanish divides as l'Hôpital does (core/taylor/singular.py),
checked against SymPy's series; true poles and constant 0/0 stay nan."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy

import gradcli.core.functions as F
from gradcli.cli.words import CLI_WORDS
from gradcli.core import Variable
from gradcli.core.fpe import capture_fp_errors
from gradcli.core.taylor import (
    sample,
    taylor_coefficients,
    taylor_derivatives,
    taylor_derivatives_at,
)
from gradcli.session import EvalOptions, Session

X = sympy.Symbol("x")

REMOVABLE = {
    "sin(x)/x": (lambda x: F.sin(x) / x, sympy.sin(X) / X),
    "(exp(x)-1)/x": (lambda x: (F.exp(x) - 1) / x, (sympy.exp(X) - 1) / X),
    "(1-cos(x))/x^2": (lambda x: (1 - F.cos(x)) / x**2, (1 - sympy.cos(X)) / X**2),
    "x/sin(x)": (lambda x: x / F.sin(x), X / sympy.sin(X)),
    "x/tan(x)": (lambda x: x / F.tan(x), X / sympy.tan(X)),
    "log(1+x)/x": (lambda x: F.log(1 + x) / x, sympy.log(1 + X) / X),
    "x^2/x": (lambda x: x**2 / x, X),
    "sin(x)^3/x^3": (lambda x: F.sin(x) ** 3 / x**3, sympy.sin(X) ** 3 / X**3),
    "x^10/x^10": (lambda x: x**10 / x**10, sympy.Integer(1)),
    "0/x": (lambda x: 0 / x, sympy.Integer(0)),
    "(x-x^3)/(x+x^2)": (lambda x: (x - x**3) / (x + x**2), 1 - X),
    # a limit feeding another function, and one quotient of this kind feeding another
    "exp(sin(x)/x)": (lambda x: F.exp(F.sin(x) / x), sympy.exp(sympy.sin(X) / X)),
    "(sin(x)/x-1)/x^2": (lambda x: (F.sin(x) / x - 1) / x**2, (sympy.sin(X) / X - 1) / X**2),
    "cos(x)*(sin(x)/x)^2": (lambda x: F.cos(x) * (F.sin(x) / x) ** 2,
                            sympy.cos(X) * (sympy.sin(X) / X) ** 2),
}
ORDER = 6


def _sympy_coefficients(expr: sympy.Expr, n: int) -> list[float]:
    s = sympy.series(expr, X, 0, n + 1).removeO()
    return [float(s.coeff(X, k)) for k in range(n + 1)]


def _at_zero(make, dtype=np.float64) -> tuple[Variable, Variable]:
    x = Variable(np.array(0.0, dtype=dtype))
    with np.errstate(all="ignore"):
        return x, make(x)


@pytest.mark.parametrize("name", sorted(REMOVABLE))
def test_coefficients_match_sympy_series(name: str) -> None:
    make, expr = REMOVABLE[name]
    x, y = _at_zero(make)
    assert math.isnan(float(y.data))  # the forward pass met 0/0
    with capture_fp_errors() as messages:
        got = [float(c) for c in taylor_coefficients(y, x, ORDER)]
    assert messages == []
    want = _sympy_coefficients(expr, ORDER)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", sorted(REMOVABLE))
def test_derivatives_are_k_factorial_times_the_coefficients(name: str) -> None:
    make, expr = REMOVABLE[name]
    x, y = _at_zero(make)
    got = [float(d) for d in taylor_derivatives(y, x, 4)]
    want = [c * math.factorial(k) for k, c in enumerate(_sympy_coefficients(expr, 4))]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_sin_x_over_x_orders_0_to_2() -> None:
    x, y = _at_zero(lambda x: F.sin(x) / x)
    d = [float(v) for v in taylor_derivatives(y, x, 2)]
    assert d[0] == 1.0 and d[1] == 0.0 and math.isclose(d[2], -1 / 3, rel_tol=1e-15)
    assert not math.copysign(1.0, d[1]) < 0  # 0, not -0


def test_high_order_and_float32() -> None:
    x, y = _at_zero(lambda x: F.sin(x) / x)
    c = taylor_coefficients(y, x, 40)
    want = [0.0 if k % 2 else (-1) ** (k // 2) / math.factorial(k + 1) for k in range(41)]
    np.testing.assert_allclose([float(v) for v in c], want, rtol=1e-12, atol=1e-300)
    x32, y32 = _at_zero(lambda x: F.sin(x) / x, np.float32)
    d = taylor_derivatives(y32, x32, 2)
    assert d[0].dtype == np.float32 and d[2].dtype == np.float32
    assert [float(v) for v in d] == pytest.approx([1.0, 0.0, -1 / 3], rel=1e-6)


@pytest.mark.parametrize("make", [lambda x: 1 / x, lambda x: 1 / x**2,
                                  lambda x: F.sin(x) / x**2, lambda x: (x - x) / (x - x),
                                  lambda x: (1 + x) / (x - x)])
def test_poles_and_zero_functions_stay_undefined(make) -> None:
    x, y = _at_zero(make)
    with np.errstate(all="ignore"):
        d = taylor_derivatives(y, x, 3)
    assert all(not math.isfinite(float(v)) for v in d)


def test_only_the_vanishing_elements_change() -> None:
    xs = np.array([0.0, 0.5, -2.0, 0.0])
    x = Variable(xs.copy())
    with np.errstate(all="ignore"):
        y = F.sin(x) / x + x
    d = taylor_derivatives(y, x, 3)
    ok = xs != 0
    x2 = Variable(xs[ok])
    plain = taylor_derivatives(F.sin(x2) / x2 + x2, x2, 3)
    for a, b in zip(d, plain):
        np.testing.assert_array_equal(a[ok], b)
    want = [1.0, 1.0, -1 / 3, 0.0]  # sin(x)/x + x at 0
    for k in range(4):
        np.testing.assert_allclose(d[k][~ok], [want[k]] * 2, atol=1e-15)


def test_an_array_with_poles_and_limits_side_by_side() -> None:
    # (c + sin(x))/x at x = 0: removable where c = 0, a pole where c = 1
    x = Variable(np.zeros(3))
    c = Variable(np.array([0.0, 1.0, 0.0]))
    with np.errstate(all="ignore"):
        y = (c + F.sin(x)) / x
        d = taylor_derivatives(y, x, 2)
    np.testing.assert_allclose(d[0][[0, 2]], [1.0, 1.0])
    np.testing.assert_allclose(d[2][[0, 2]], [-1 / 3, -1 / 3])
    assert math.isinf(float(d[0][1]))


def test_blockwise_replay_resolves_the_point_too() -> None:
    v = np.linspace(-1, 1, 300001)
    i0 = 150000
    assert v[i0] == 0.0
    x = Variable(sample(v).copy())
    with np.errstate(all="ignore"):
        y = F.exp(F.sin(x) / x)
        ds = taylor_derivatives_at(y, x, v, 3)
    e = math.e
    np.testing.assert_allclose([float(d[i0]) for d in ds], [e, 0.0, -e / 3, 0.0], atol=1e-15)
    # the same numbers as the whole array recorded and replayed (block by block too)
    xv = Variable(v.copy())
    with np.errstate(all="ignore"):
        yv = F.exp(F.sin(xv) / xv)
    whole = taylor_derivatives(yv, xv, 3)
    for a, b in zip(ds, whole):
        np.testing.assert_array_equal(a, b)
    assert np.isfinite(whole[0]).all()


def _session(text: str, **options: object):
    return Session(words=CLI_WORDS).run(text, EvalOptions(**options))[-1]


def test_session_series_and_derivatives_without_a_nan_warning() -> None:
    res = _session("x = 0; sin(x)/x", order=2)
    assert [float(d) for d in res.derivatives] == pytest.approx([0.0, -1 / 3], abs=1e-15)
    res = _session("sin(x)/x", series=6)
    assert [float(c) for c in res.series] == pytest.approx(
        _sympy_coefficients(sympy.sin(X) / X, 6), abs=1e-15)
    pole = _session("x = 0; sin(x)/x^2", order=2)
    assert all(math.isnan(float(d)) for d in pole.derivatives)
    assert any("0/0" in w for w in pole.warnings)
    constant = _session("0/0", order=1)
    assert any("0/0" in w for w in constant.warnings)


def test_backprop_may_still_say_nan() -> None:
    res = Session(method="backprop", words=CLI_WORDS).run("x = 0; sin(x)/x",
                                                          EvalOptions(order=2))[-1]
    assert all(math.isnan(float(d)) for d in res.derivatives)


BIN = Path(sys.executable).with_name("gradcli")
GRADCLI = str(BIN) if BIN.exists() else shutil.which("gradcli")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    return subprocess.run([GRADCLI, *args], capture_output=True, text=True, timeout=60, env=env)


def test_cli_series_prints_the_limit_series() -> None:
    proc = _cli("eval", "sin(x)/x", "--series", "6", "--format", "plain")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "1 - x^2/6 + x^4/120 - x^6/5040"
    proc = _cli("eval", "(1-cos(x))/x^2", "--at", "x=0", "--series", "4", "--format", "json")
    series = json.loads(proc.stdout)["series"]
    assert series == pytest.approx(_sympy_coefficients((1 - sympy.cos(X)) / X**2, 4), abs=1e-15)


@pytest.mark.parametrize("text", ["abs(x)/x", "abs(x)^2/x", "x/abs(x)", "abs(sin(x))/sin(x)"])
def test_a_quotient_through_abs_at_its_kink_takes_no_limit(text: str) -> None:
    # abs(x)/x at 0 gave 0, 0, 0 by Taylor mode (|x|'s "series" there is sign(0)
    # = 0's) where sign(x) has no limit, and backprop gave nan
    for method in ("taylor", "backprop"):
        s = Session(method=method)
        s.run("x = 0")
        res = s.run(text, EvalOptions(order=2))[0]
        assert np.isnan(res.value) and all(np.isnan(d) for d in res.derivatives), (method, res)
        assert any("0/0" in w for w in res.warnings)


def test_a_removable_singularity_beside_abs_keeps_its_limit() -> None:
    s = Session()
    s.run("x = 0")
    res = s.run("abs(x) + sin(x)/x", EvalOptions(order=2))[0]
    assert float(res.value) == 1.0
    assert [float(d) for d in res.derivatives] == pytest.approx([0.0, -1 / 3])
