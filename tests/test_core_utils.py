"""gradcli.core.utils (DeZero's dezero.utils) and gradcli.core.fpe."""

from __future__ import annotations

import math
import os
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import gradcli.core.functions as F
from gradcli.core import Constant, Function, Variable
from gradcli.core.check import central_difference, within_tolerance
from gradcli.core.fpe import capture_fp_errors
from gradcli.core.utils import (
    CheckResult,
    get_dot_graph,
    gradient_check,
    numerical_diff,
    plot_dot_graph,
)
from gradcli.errors import ToolMissingError

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


# --- numerical_diff (step 4) ---------------------------------------------------------


def test_numerical_diff_step_4_numbers() -> None:
    # the book's numbers: 4.000000000004 for x**2 at 2, 3.2974426293330694 for the
    # composite exp(x**2)**2 at 0.5 (eps = 1e-4)
    d = numerical_diff(F.square, Variable(np.array([2.0])))
    assert float(d[0]) == pytest.approx(4.000000000004, rel=1e-12)

    def f(x: Variable) -> Variable:
        return F.square(F.exp(F.square(x)))

    d = numerical_diff(f, Variable(np.array([0.5])))
    assert float(d[0]) == pytest.approx(3.2974426293330694, rel=1e-12)
    # and against backprop
    x = Variable(np.array(0.5))
    f(x).backward()
    assert float(x.grad.data) == pytest.approx(float(d[0]), rel=1e-7)


def test_numerical_diff_on_a_0d_variable_as_in_the_book() -> None:
    d = numerical_diff(F.square, Variable(np.array(2.0)))
    assert float(d) == pytest.approx(4.000000000004, rel=1e-12)


def test_numerical_diff_eps_and_plain_inputs() -> None:
    d = numerical_diff(F.exp, np.array([0.0, 1.0]), eps=1e-6)
    np.testing.assert_allclose(d, [1.0, math.e], rtol=1e-9)


def test_central_difference_orders_and_tolerance() -> None:
    a = np.array([0.3, 1.0, 2.5, 100.0])
    np.testing.assert_allclose(central_difference(np.sin, a, 1), np.cos(a), rtol=1e-6)
    np.testing.assert_allclose(central_difference(np.exp, a[:3], 2), np.exp(a[:3]), rtol=1e-6)
    assert within_tolerance(1.0, 1.0 + 5e-5).all()
    assert not within_tolerance(1.0, 1.1).all()
    assert not within_tolerance(np.nan, np.nan).all()  # NaN never passes
    with pytest.raises(KeyError):
        central_difference(np.sin, a, 3)


# --- gradient_check ------------------------------------------------------------------


def test_gradient_check_passes_and_is_truthy() -> None:
    for f, x in [
        (F.sin, np.array([0.1, 1.0, 2.0])),
        (lambda v: F.sum(v @ v.T), np.random.default_rng(0).normal(size=(3, 2))),
        (lambda v: v**3 - 2 * v, Variable(np.array(1.5))),
        (F.tanh, np.array(0.3)),
    ]:
        res = gradient_check(f, x)
        assert isinstance(res, CheckResult)
        assert res
        assert bool(res) is True and res.ok
        assert "passed" in str(res)
        assert res.max_abs_error < 1e-6


class WrongSin(Function):
    """sin whose backward is deliberately wrong in one element."""

    def forward(self, x: np.ndarray) -> np.ndarray:
        return np.sin(x)

    def backward(self, gy: Variable) -> Variable:
        (x,) = self.inputs
        bump = np.zeros_like(x.data)
        bump.flat[2] = 0.5
        return gy * (F.cos(x) + bump)


def test_gradient_check_fails_and_says_where_and_by_how_much() -> None:
    x = np.array([0.1, 0.2, 0.3, 0.4])
    res = gradient_check(lambda v: WrongSin()(v), x)
    assert not res
    assert bool(res) is False
    assert res.worst_index == (2,)
    assert res.max_abs_error == pytest.approx(0.5, rel=1e-6)
    text = str(res)
    assert "failed" in text
    assert "(2,)" in text  # which element
    assert re.search(r"abs error 0\.5\b", text)  # by how much
    assert f"{math.cos(0.3) + 0.5:.6f}"[:6] in text  # the backprop value
    assert "np.float64" not in text  # plain numbers, not NumPy's reprs
    np.testing.assert_allclose(res.numerical, np.cos(x), rtol=1e-7)


def test_gradient_check_2d_failure_index_and_tolerances() -> None:
    class Scaled(Function):
        def forward(self, x: np.ndarray) -> np.ndarray:
            return x * x

        def backward(self, gy: Variable) -> Variable:
            return gy * 2.001 * self.inputs[0]  # 0.05% too large

    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    res = gradient_check(lambda v: Scaled()(v), x)
    assert not res
    assert res.worst_index == (1, 1)
    # loose tolerance: passes
    assert gradient_check(lambda v: Scaled()(v), x, rtol=1e-2)


def test_gradient_check_of_a_constant_function() -> None:
    res = gradient_check(lambda v: Variable(np.array(1.0)) + 0 * F.sum(v) * 0, np.ones(3))
    assert res


# --- DOT graphs (steps 25-26) -----------------------------------------------------------


def _graph() -> Variable:
    x = Variable(np.array(1.0), name="x")
    w = Variable(np.array([[1.0, 2.0]]), name="w")
    y = F.sin(x) + F.sum(w * x)
    y.name = "y"
    return y


def test_get_dot_graph_labels() -> None:
    y = _graph()
    text = get_dot_graph(y, verbose=False)
    assert text.startswith("digraph g {") and text.rstrip().endswith("}")
    fn_labels = re.findall(r'label="([^"]*)", color=lightblue', text)
    assert sorted(fn_labels) == ["Add", "Mul", "Sin", "Sum"]
    var_labels = re.findall(r'label="([^"]*)", color=orange', text)
    assert sorted(v for v in var_labels if v) == ["w", "x", "y"]
    assert "" in var_labels  # unnamed intermediates are blank
    assert "float64" not in text and "()" not in text
    # edges: every node appears in an edge
    assert len(re.findall(r"->", text)) == 4 * 2 - 1 + 3  # inputs + outputs
    # shape=box for functions
    assert text.count("shape=box") == 4


def test_get_dot_graph_verbose_and_values() -> None:
    y = _graph()
    verbose = get_dot_graph(y, verbose=True)
    assert 'label="x: () float64"' in verbose
    assert 'label="w: (1, 2) float64"' in verbose
    assert "0.841471" not in verbose
    valued = get_dot_graph(y, verbose=True, values=True)
    assert "0.841471" in valued  # sin(1)
    assert "[[1., 2.]]" in valued
    big = Variable(np.arange(100.0), name="big")
    text = get_dot_graph(F.sum(big), values=True)
    assert "[100 values]" in text


def test_get_dot_graph_is_deterministic() -> None:
    a = get_dot_graph(_graph())
    b = get_dot_graph(_graph())
    assert a == b
    y = _graph()
    assert get_dot_graph(y) == get_dot_graph(y)
    assert "0x" not in a  # no ids or addresses


def test_get_dot_graph_of_higher_order_graph_and_leaf() -> None:
    x = Variable(np.array(2.0), name="x")
    assert get_dot_graph(x, verbose=False) == (
        'digraph g {\nv0 [label="x", color=orange, style=filled]\n}\n'
    )
    y = x**3
    y.backward(create_graph=True)
    gx = x.grad
    gx.name = "gx"
    text = get_dot_graph(gx, verbose=False)
    assert 'label="gx"' in text and "Pow" in text and "Mul" in text


def test_get_dot_graph_escapes_quotes_in_names() -> None:
    x = Variable(np.array(1.0), name='say "hi"')
    text = get_dot_graph(F.sin(x), verbose=False)
    assert 'label="say \\"hi\\""' in text


def test_plot_dot_graph_png_and_svg(tmp_path: Path) -> None:
    if not any(os.access(os.path.join(p, "dot"), os.X_OK)
               for p in os.environ.get("PATH", "").split(os.pathsep) if p):
        pytest.fail("Graphviz 'dot' is required for these tests (apt-get install graphviz)")
    y = _graph()
    png = tmp_path / "g.png"
    plot_dot_graph(y, verbose=True, to_file=str(png))
    data = png.read_bytes()
    assert data[:8] == PNG_SIGNATURE and len(data) > 100
    svg = tmp_path / "g.svg"
    plot_dot_graph(y, verbose=False, to_file=str(svg))
    text = svg.read_text()
    assert "<svg" in text and "Sin" in text
    dot = tmp_path / "g.dot"
    plot_dot_graph(y, to_file=str(dot))
    assert dot.read_text() == get_dot_graph(y)


def test_values_label_renders_on_two_lines(tmp_path: Path) -> None:
    x = Variable(np.array(1.0), name="x")
    svg = tmp_path / "v.svg"
    plot_dot_graph(F.sin(x), to_file=str(svg), values=True)
    text = svg.read_text()
    assert "\\n" not in text
    assert ">x: () float64<" in text


def test_plot_dot_graph_without_dot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    y = _graph()
    with pytest.raises(ToolMissingError) as info:
        plot_dot_graph(y, to_file=str(tmp_path / "g.png"))
    msg = str(info.value)
    assert "dot" in msg and "Graphviz" in msg and "install" in msg
    assert "apt-get install graphviz" in msg
    assert not (tmp_path / "g.png").exists()
    # writing DOT text needs no external program
    plot_dot_graph(y, to_file=str(tmp_path / "g.dot"))
    assert (tmp_path / "g.dot").read_text().startswith("digraph g {")


# --- floating-point errors --------------------------------------------------------------


def test_capture_log_of_negative() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with capture_fp_errors() as messages:
            y = F.log(Variable(np.array(-1.0)))
        assert np.isnan(float(y.data))
        assert len(messages) == 1
        assert "log" in messages[0] and "nan" in messages[0]


def test_capture_division_by_zero() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with capture_fp_errors() as messages:
            y = 1 / Variable(np.array(0.0))
        assert float(y.data) == math.inf
        assert len(messages) == 1
        assert "'/'" in messages[0] and "inf" in messages[0]
        with capture_fp_errors() as messages:
            y = Variable(np.array(1.0)) / Variable(np.array(0.0))
        assert float(y.data) == math.inf and messages and "'/'" in messages[0]


def test_capture_several_kinds_once_each() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with capture_fp_errors() as messages:
            F.log(Variable(np.array([0.0, 0.0])))
            F.log(Variable(np.array(0.0)))  # same op and kind: no second message
            F.sqrt(Variable(np.array([-1.0, 4.0])))
            F.exp(Variable(np.array(1000.0)))
    assert len(messages) == 3
    assert messages[0].startswith("log:") and "inf" in messages[0]
    assert messages[1].startswith("sqrt:") and "nan" in messages[1]
    assert messages[2].startswith("exp:") and "overflow" in messages[2]


def test_capture_in_backward_and_restores_numpy_state() -> None:
    before = np.geterr()
    old_call = np.geterrcall()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with capture_fp_errors() as messages:
            x = Variable(np.array(0.0))
            y = F.sqrt(x)
            y.backward()  # 0.5 / sqrt(0): a division by zero inside backward
        assert float(x.grad.data) == math.inf
        assert messages
    assert np.geterr() == before
    assert np.geterrcall() is old_call


def test_no_capture_leaves_numpy_warnings_alone() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning), np.errstate(divide="warn"):
            np.log(np.array(0.0))


def test_dezero_test_helpers_are_in_utils() -> None:
    # DeZero's own tests import array_equal, array_allclose and sum_to from dezero.utils
    from gradcli.core.utils import array_allclose, array_equal, sum_to

    assert array_equal(Variable(np.array([1.0, 2.0])), np.array([1.0, 2.0]))
    assert not array_equal(np.array([1.0]), np.array([1.0 + 1e-12]))
    assert array_allclose(np.ones(2), np.ones(2) + 1e-6)
    assert not array_allclose(Variable(np.array(1.0)), 1.1)
    np.testing.assert_array_equal(sum_to(np.arange(6.0).reshape(2, 3), (1, 3)), [[3, 5, 7]])
    np.testing.assert_array_equal(sum_to(np.arange(6.0).reshape(2, 3), (3,)), [3, 5, 7])


def test_an_index_past_the_end_is_an_index_error_so_iteration_stops() -> None:
    # it was a ShapeError (a ValueError): a, b = x and list(x) failed
    x = Variable(np.array([1.0, 2.0]))
    a, b = x
    assert float(a.data) == 1.0 and float(b.data) == 2.0
    assert [float(v.data) for v in x] == [1.0, 2.0]
    with pytest.raises(IndexError):
        x[2]
    with pytest.raises(IndexError):
        F.sum(x, axis=3)
    with pytest.raises(IndexError):
        Variable(np.ones((2, 3))).transpose(0, 2)


def test_get_dot_graph_labels_constants_by_value_and_powers_by_exponent() -> None:
    # x**4 and x**2 looked the same, and constants were blank ellipses
    x = Variable(np.array(2.0), name="x")
    y = x**4 - 3 * x**2 + 2.0**x
    text = get_dot_graph(y, verbose=False)
    fn_labels = re.findall(r'label="([^"]*)", color=lightblue', text)
    assert sorted(fn_labels) == ["Add", "Mul", "Pow", "Pow\\n** 2", "Pow\\n** 4", "Sub"]
    var_labels = re.findall(r'label="([^"]*)", color=orange', text)
    assert "3" in var_labels and "2" in var_labels  # 3 * ..., and the base of 2 ** x
    assert "x" in var_labels and "= 2" not in text  # a variable's value only with values
    # verbose: shape and dtype, and the constants keep their values
    verbose = get_dot_graph(y, verbose=True)
    assert 'label="() float64\\n= 3"' in verbose and 'label="x: () float64"' in verbose
    assert "Pow\\n** 4" in verbose
    # a named constant keeps its name, an array constant shows its elements
    c = Constant(np.array([0.5, 1.5]), name="c")
    text = get_dot_graph(F.sum(x * c) + Constant(np.arange(100.0)), verbose=False)
    assert 'label="c\\n= [0.5, 1.5]"' in text and 'label="[100 values]"' in text
    assert re.search(r'label="Pow\\n\*\* 0\.5"', get_dot_graph(x**0.5, verbose=False))
