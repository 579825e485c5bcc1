"""Operators, broadcasting, shapes, matmul, indexing and reductions (steps 20-40)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import gradcli.core.functions as F
from gradcli.core import Variable, higher_derivatives
from gradcli.core.check import numerical_grad
from gradcli.errors import LimitError, ShapeError


def grads(f, *arrays):
    vs = [Variable(np.array(a, dtype=np.float64)) for a in arrays]
    y = f(*vs)
    y.backward()
    return y, [v.grad for v in vs]


# --- arithmetic operators (steps 20-22) -----------------------------------------------


def test_binary_operators_values_and_grads() -> None:
    a, b = 3.0, 2.0
    cases = [
        (lambda x, y: x + y, 5.0, 1.0, 1.0),
        (lambda x, y: x - y, 1.0, 1.0, -1.0),
        (lambda x, y: x * y, 6.0, 2.0, 3.0),
        (lambda x, y: x / y, 1.5, 0.5, -0.75),
        (lambda x, y: x**y, 9.0, 6.0, 9.0 * math.log(3.0)),
    ]
    for f, val, ga, gb in cases:
        y, (gx, gy) = grads(f, a, b)
        assert float(y.data) == pytest.approx(val, rel=1e-15)
        assert float(gx.data) == pytest.approx(ga, rel=1e-15)
        assert float(gy.data) == pytest.approx(gb, rel=1e-15)


def test_step_20_example() -> None:
    a = Variable(np.array(3.0))
    b = Variable(np.array(2.0))
    c = Variable(np.array(1.0))
    y = a * b + c
    y.backward()
    assert float(y.data) == 7.0
    assert float(a.grad.data) == 2.0 and float(b.grad.data) == 3.0


@pytest.mark.parametrize(
    "expr, value, grad",
    [
        (lambda x: x + 3.0, 5.0, 1.0),
        (lambda x: 3.0 + x, 5.0, 1.0),
        (lambda x: x - 3.0, -1.0, 1.0),
        (lambda x: 3.0 - x, 1.0, -1.0),
        (lambda x: x * 3.0, 6.0, 3.0),
        (lambda x: 3.0 * x, 6.0, 3.0),
        (lambda x: x / 4.0, 0.5, 0.25),
        (lambda x: 4.0 / x, 2.0, -1.0),
        (lambda x: x**3, 8.0, 12.0),
        (lambda x: 3**x, 9.0, 9.0 * math.log(3.0)),
        (lambda x: -x, -2.0, -1.0),
        (lambda x: +x, 2.0, 1.0),
        (lambda x: x + 3, 5.0, 1.0),
        (lambda x: 3 - x, 1.0, -1.0),
        (lambda x: np.array(3.0) + x, 5.0, 1.0),
        (lambda x: np.array(3.0) - x, 1.0, -1.0),
        (lambda x: np.array(3.0) * x, 6.0, 3.0),
        (lambda x: np.array(4.0) / x, 2.0, -1.0),
        (lambda x: np.array(3.0) ** x, 9.0, 9.0 * math.log(3.0)),
    ],
)
def test_scalar_and_reflected_operands(expr, value: float, grad: float) -> None:
    x = Variable(np.array(2.0))
    y = expr(x)
    assert type(y) is Variable  # an ndarray on the left gives a Variable too
    assert float(y.data) == pytest.approx(value, rel=1e-15)
    y.backward()
    assert float(x.grad.data) == pytest.approx(grad, rel=1e-15)


def test_ndarray_on_the_left_of_an_array_variable() -> None:
    x = Variable(np.array([1.0, 2.0]))
    y = np.array([2.0, 3.0]) * x
    assert type(y) is Variable
    np.testing.assert_array_equal(y.data, [2.0, 6.0])
    z = np.array([[1.0, 0.0], [0.0, 1.0]]) @ x
    assert type(z) is Variable
    np.testing.assert_array_equal(z.data, [1.0, 2.0])


def test_unary_negation_twice_differentiable() -> None:
    x = Variable(np.array(1.5))
    ds = higher_derivatives(-(x * x), x, 3)
    assert [float(d.data) for d in ds] == [-3.0, -2.0, 0.0]


def test_division_gradients_second_order() -> None:
    x = Variable(np.array(2.0))
    ds = higher_derivatives(1 / x, x, 4)
    assert [float(d.data) for d in ds] == pytest.approx([-0.25, 0.25, -0.375, 0.75], rel=1e-15)


# --- pow ----------------------------------------------------------------------------


def test_pow_with_variable_exponent() -> None:
    # x ** x at 2: d/dx = x**x (ln x + 1)
    x = Variable(np.array(2.0))
    y = x**x
    y.backward()
    assert float(y.data) == 4.0
    assert float(x.grad.data) == pytest.approx(4 * (math.log(2) + 1), rel=1e-15)
    # second derivative: x**x ((ln x + 1)**2 + 1/x)
    x = Variable(np.array(2.0))
    d1, d2 = higher_derivatives(x**x, x, 2)
    assert float(d2.data) == pytest.approx(4 * ((math.log(2) + 1) ** 2 + 0.5), rel=1e-14)
    # 2 ** x and its derivatives 2**x ln(2)**k
    x = Variable(np.array(1.5))
    ds = higher_derivatives(2**x, x, 4)
    for k, d in enumerate(ds, start=1):
        assert float(d.data) == pytest.approx(2**1.5 * math.log(2) ** k, rel=1e-14)


def test_pow_two_variables_partials() -> None:
    a = Variable(np.array(3.0))
    b = Variable(np.array(2.0))
    y = F.pow(a, b)
    y.backward()
    assert float(a.grad.data) == 6.0
    assert float(b.grad.data) == pytest.approx(9 * math.log(3), rel=1e-15)


def test_pow_broadcasting_variable_exponent() -> None:
    x = Variable(np.array([1.0, 2.0, 3.0]))
    e = Variable(np.array([2.0]))
    y = x**e
    y.backward()
    np.testing.assert_allclose(x.grad.data, [2.0, 4.0, 6.0])
    assert e.grad.shape == (1,)
    assert float(e.grad.data[0]) == pytest.approx(4 * math.log(2) + 9 * math.log(3), rel=1e-14)


def test_pow_with_array_exponent_constant() -> None:
    x = Variable(np.array([2.0, 3.0]))
    y = x ** np.array([2.0, 3.0])
    y.backward()
    np.testing.assert_allclose(y.data, [4.0, 27.0])
    np.testing.assert_allclose(x.grad.data, [4.0, 27.0])


def test_pow_numpy_scalar_exponent() -> None:
    x = Variable(np.array(2.0))
    y = x ** np.float64(3.0)
    y.backward()
    assert float(x.grad.data) == 12.0


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_exact_integer_powers_at_zero(n: int) -> None:
    x = Variable(np.array(0.0))
    ds = higher_derivatives(x**n, x, n + 2)
    want = [float(math.factorial(n)) if k == n else 0.0 for k in range(1, n + 3)]
    assert [float(d.data) for d in ds] == want


def test_square_and_zero_power() -> None:
    x = Variable(np.array(0.0))
    ds = higher_derivatives(F.square(x), x, 3)
    assert [float(d.data) for d in ds] == [0.0, 2.0, 0.0]
    x = Variable(np.array(0.0))
    y = x**0
    assert float(y.data) == 1.0
    y.backward()
    assert float(x.grad.data) == 0.0


def test_negative_and_fractional_powers() -> None:
    x = Variable(np.array(4.0))
    ds = higher_derivatives(x**0.5, x, 2)
    assert float(ds[0].data) == pytest.approx(0.25, rel=1e-15)
    assert float(ds[1].data) == pytest.approx(-1 / 32, rel=1e-15)
    x = Variable(np.array(2.0))
    ds = higher_derivatives(x**-2, x, 2)
    assert float(ds[0].data) == pytest.approx(-0.25, rel=1e-15)
    assert float(ds[1].data) == pytest.approx(0.375, rel=1e-15)


# --- dtypes -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expr",
    [
        lambda x: x + 1,
        lambda x: 1 + x,
        lambda x: x - 0.5,
        lambda x: 0.5 - x,
        lambda x: x * 2.5,
        lambda x: 2.5 * x,
        lambda x: x / 3,
        lambda x: 3 / x,
        lambda x: x**2,
        lambda x: x**2.5,
        lambda x: 2**x,
        lambda x: x**x,
        lambda x: F.sin(x) * 2 + 1,
        lambda x: F.sum(x * 3.0),
        lambda x: F.mean(x),
        lambda x: F.max(x),
        lambda x: F.broadcast_to(x, (2, 3)) * 0.5,
    ],
)
def test_float32_preserved_with_python_scalars(expr) -> None:
    x = Variable(np.array([1.0, 2.0, 3.0], dtype=np.float32))
    y = expr(x)
    assert y.dtype == np.float32
    y.backward(create_graph=True)
    assert x.grad.dtype == np.float32


def test_integer_arrays() -> None:
    x = Variable(np.array([1, 2, 3]))
    assert (x * 2).dtype.kind == "i"
    assert (x / 2).dtype == np.float64
    np.testing.assert_array_equal((x + 0.5).data, [1.5, 2.5, 3.5])


# --- broadcasting (steps 39-40) -----------------------------------------------------


def test_step_40_broadcast_add() -> None:
    x0 = Variable(np.array([1, 2, 3]))
    x1 = Variable(np.array([10]))
    y = x0 + x1
    np.testing.assert_array_equal(y.data, [11, 12, 13])
    y.backward()
    np.testing.assert_array_equal(x0.grad.data, [1, 1, 1])
    assert x1.grad.shape == (1,)
    np.testing.assert_array_equal(x1.grad.data, [3])


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "**"])
@pytest.mark.parametrize(
    "s0, s1", [((3,), (1,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 2)), ((4, 1, 2), (3, 1))]
)
def test_broadcast_grads_have_input_shapes(op: str, s0: tuple, s1: tuple) -> None:
    rng = np.random.default_rng(1)
    a = rng.uniform(0.5, 2.0, s0)
    b = rng.uniform(0.5, 2.0, s1)
    f = {
        "+": lambda u, v: u + v,
        "-": lambda u, v: u - v,
        "*": lambda u, v: u * v,
        "/": lambda u, v: u / v,
        "**": lambda u, v: u**v,
    }[op]
    x0, x1 = Variable(a.copy()), Variable(b.copy())
    y = f(x0, x1)
    assert y.shape == np.broadcast_shapes(s0, s1)
    y.backward()
    assert x0.grad.shape == s0 and x1.grad.shape == s1
    np.testing.assert_allclose(
        x0.grad.data, numerical_grad(lambda v: f(v, Variable(b)), a), rtol=1e-6, atol=1e-8
    )
    np.testing.assert_allclose(
        x1.grad.data, numerical_grad(lambda v: f(Variable(a), v), b), rtol=1e-6, atol=1e-8
    )


def test_broadcast_second_order() -> None:
    x0 = Variable(np.array([1.0, 2.0, 3.0]))
    x1 = Variable(np.array([2.0]))
    y = F.sum(x0 * x1 * x1)
    y.backward(create_graph=True)
    g1 = x1.grad
    assert g1.shape == (1,)
    assert float(g1.data[0]) == pytest.approx(2 * 2.0 * 6.0)
    x1.cleargrad()
    g1.backward()
    assert float(x1.grad.data[0]) == pytest.approx(2 * 6.0)


def test_broadcast_to_and_sum_to() -> None:
    x = Variable(np.array([1.0, 2.0, 3.0]))
    y = F.broadcast_to(x, (2, 3))
    assert y.shape == (2, 3)
    y.backward()
    np.testing.assert_array_equal(x.grad.data, [2.0, 2.0, 2.0])
    x = Variable(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    y = F.sum_to(x, (1, 3))
    np.testing.assert_array_equal(y.data, [[5.0, 7.0, 9.0]])
    y.backward()
    np.testing.assert_array_equal(x.grad.data, np.ones((2, 3)))
    y = F.sum_to(x, (2, 1))
    np.testing.assert_array_equal(y.data, [[6.0], [15.0]])
    assert F.sum_to(x, (2, 3)) is x and F.broadcast_to(x, (2, 3)) is x
    with pytest.raises(ShapeError, match=r"\(2, 3\).*\(4, 3\)"):
        F.broadcast_to(x, (4, 3))


# --- shape errors ---------------------------------------------------------------------


@pytest.mark.parametrize("op", [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b,
                                lambda a, b: a / b, lambda a, b: a**b])
def test_shape_mismatch_names_both_shapes(op) -> None:
    a = Variable(np.ones((2, 3)))
    b = Variable(np.ones((4,)))
    with pytest.raises(ShapeError) as info:
        op(a, b)
    msg = str(info.value)
    assert "(2, 3)" in msg and "(4,)" in msg
    assert isinstance(info.value, ValueError)  # still a ValueError for NumPy users
    with pytest.raises(ShapeError, match=r"\(2, 3\).*\(4,\)"):
        op(a, np.ones(4))


def test_matmul_shape_mismatch() -> None:
    with pytest.raises(ShapeError) as info:
        Variable(np.ones((2, 3))) @ Variable(np.ones((2, 3)))
    assert "(2, 3) and (2, 3)" in str(info.value)
    with pytest.raises(ShapeError, match=r"\(\)"):
        F.matmul(Variable(np.array(2.0)), Variable(np.ones((2, 2))))


def test_reshape_transpose_sum_errors() -> None:
    x = Variable(np.ones((2, 3)))
    with pytest.raises(ShapeError, match=r"\(2, 3\).*\(4,\)"):
        x.reshape(4)
    with pytest.raises(ShapeError, match=r"\(2, 3\)"):
        x.transpose(0, 2)
    with pytest.raises(ShapeError, match="axis"):
        x.sum(axis=5)
    with pytest.raises(ShapeError, match=r"\(2, 3\)"):
        x[5]
    with pytest.raises(ShapeError, match="empty"):
        F.max(Variable(np.zeros((0,))))
    with pytest.raises(ShapeError, match="mean of an empty array"):
        F.mean(Variable(np.zeros((0,))))
    with pytest.raises(ShapeError, match="mean of an empty array"):
        F.mean(Variable(np.zeros((3, 0))), axis=1)
    # an empty result is no error: nothing is averaged
    assert F.mean(Variable(np.zeros((0, 3))), axis=1).shape == (0,)


def test_size_limit() -> None:
    from gradcli.core.shapes import MAX_ELEMENTS

    x = Variable(np.ones((MAX_ELEMENTS // 10 + 1, 1)))
    with pytest.raises(LimitError, match="elements"):
        x + Variable(np.ones((1, 11)))
    with pytest.raises(LimitError):
        F.broadcast_to(Variable(np.ones(1)), (MAX_ELEMENTS + 1,))


@pytest.mark.parametrize("shape, text", [
    ((10**300,), "shape (1e+300,) has about 1e+300 elements"),
    ((10**200, 10**200), "shape (1e+200, 1e+200) has about 1e+400 elements"),
    ((123556789012345678, 2), "shape (1.24e+17, 2) has about 2.47e+17 elements"),
    ((10**10,), "shape (10000000000,) has 10,000,000,000 elements"),
])
def test_a_huge_shape_is_told_in_a_few_digits(shape, text) -> None:
    from gradcli.core.shapes import check_size

    with pytest.raises(LimitError) as info:
        check_size(shape, "zeros")
    assert text in str(info.value)
    assert len(str(info.value)) < 120


# --- reshape / transpose / sum (steps 37-39) ---------------------------------------------


def test_reshape_forms_and_grad() -> None:
    x = Variable(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    assert x.reshape((6,)).shape == (6,)
    assert x.reshape([3, 2]).shape == (3, 2)
    assert x.reshape(3, 2).shape == (3, 2)
    assert F.reshape(x, 6).shape == (6,)
    assert F.reshape(x, (2, 3)) is x  # DeZero: same shape returns the input
    y = F.reshape(x, (6,))
    y.backward(retain_grad=True)
    assert y.grad.shape == (6,)
    assert x.grad.shape == (2, 3)


def test_transpose_forms_and_grad() -> None:
    x = Variable(np.arange(24.0).reshape(2, 3, 4))
    assert x.T.shape == (4, 3, 2)
    assert x.transpose().shape == (4, 3, 2)
    assert x.transpose(1, 0, 2).shape == (3, 2, 4)
    assert x.transpose((2, 0, 1)).shape == (4, 2, 3)
    assert x.transpose([2, 0, 1]).shape == (4, 2, 3)
    assert F.transpose(x, (1, 2, 0)).shape == (3, 4, 2)
    w = Variable(np.arange(24.0).reshape(4, 2, 3))
    y = F.sum(x.transpose(2, 0, 1) * w)
    y.backward()
    np.testing.assert_array_equal(x.grad.data, w.data.transpose(1, 2, 0))
    x.cleargrad()
    y = F.sum(x.transpose(-1, 0, 1) * w)
    y.backward()
    np.testing.assert_array_equal(x.grad.data, w.data.transpose(1, 2, 0))
    m = Variable(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    y = m.T
    y.backward()
    assert m.grad.shape == (2, 3)


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1), -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_sum_axes_and_grad(axis, keepdims: bool) -> None:
    data = np.arange(1.0, 25.0).reshape(2, 3, 4)
    x = Variable(data.copy())
    y = x.sum(axis=axis, keepdims=keepdims)
    np.testing.assert_array_equal(y.data, data.sum(axis=axis, keepdims=keepdims))
    w = np.random.default_rng(0).normal(size=y.shape)
    z = F.sum(y * w)
    z.backward()
    assert x.grad.shape == data.shape
    num = numerical_grad(lambda v: F.sum(F.sum(v, axis, keepdims) * w), data)
    np.testing.assert_allclose(x.grad.data, num, rtol=1e-6)


def test_sum_method_step_39() -> None:
    x = Variable(np.array([[1, 2, 3], [4, 5, 6]]))
    y = F.sum(x, axis=0)
    y.backward()
    np.testing.assert_array_equal(y.data, [5, 7, 9])
    np.testing.assert_array_equal(x.grad.data, np.ones((2, 3)))
    x = Variable(np.random.randn(2, 3, 4, 5))
    assert x.sum(keepdims=True).shape == (1, 1, 1, 1)


def test_mean() -> None:
    x = Variable(np.array([[1.0, 2.0], [3.0, 6.0]]))
    y = F.mean(x)
    assert float(y.data) == 3.0
    y.backward()
    np.testing.assert_array_equal(x.grad.data, np.full((2, 2), 0.25))
    x.cleargrad()
    y = F.mean(x, axis=0)
    np.testing.assert_array_equal(y.data, [2.0, 4.0])
    F.sum(y).backward()
    np.testing.assert_array_equal(x.grad.data, np.full((2, 2), 0.5))


# --- matmul -------------------------------------------------------------------------


def test_matmul_2d_grads() -> None:
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=(2, 3)), rng.normal(size=(3, 4))
    x, W = Variable(a), Variable(b)
    y = F.matmul(x, W)
    y.backward()
    assert x.grad.shape == (2, 3) and W.grad.shape == (3, 4)
    np.testing.assert_allclose(x.grad.data, np.ones((2, 4)) @ b.T)
    np.testing.assert_allclose(W.grad.data, a.T @ np.ones((2, 4)))


@pytest.mark.parametrize(
    "sa, sb",
    [((3,), (3, 4)), ((2, 3), (3,)), ((3,), (3,)), ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)),
     ((5, 2, 3), (5, 3, 4)), ((3,), (5, 3, 4)), ((5, 2, 3), (3,))],
)
def test_matmul_grads_vs_numerical(sa: tuple, sb: tuple) -> None:
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=sa), rng.normal(size=sb)
    w = rng.normal(size=np.matmul(a, b).shape)
    x, W = Variable(a.copy()), Variable(b.copy())
    y = x @ W
    np.testing.assert_allclose(y.data, a @ b)
    F.sum(y * w).backward()
    assert x.grad.shape == sa and W.grad.shape == sb
    np.testing.assert_allclose(
        x.grad.data, numerical_grad(lambda v: F.sum((v @ Variable(b)) * w), a), rtol=1e-6,
        atol=1e-8,
    )
    np.testing.assert_allclose(
        W.grad.data, numerical_grad(lambda v: F.sum((Variable(a) @ v) * w), b), rtol=1e-6,
        atol=1e-8,
    )


def test_matmul_second_order() -> None:
    # d2/dx2 of sum((x @ x)) for a 2x2 x is a constant; check the grad-of-grad shape
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    x = Variable(a.copy())
    y = F.sum(x @ x)
    y.backward(create_graph=True)
    gx = x.grad
    assert gx.shape == (2, 2)
    x.cleargrad()
    F.sum(gx).backward()
    assert x.grad.shape == (2, 2)
    num = numerical_grad(lambda v: F.sum(F.sum(v @ v) * 0 + _grad_sum(v)), a)
    np.testing.assert_allclose(x.grad.data, num, rtol=1e-5, atol=1e-7)


def _grad_sum(v: Variable) -> Variable:
    # sum of d sum(v @ v) / dv, written out: ones @ v.T + v.T @ ones
    one = np.ones((2, 2))
    return F.sum(F.matmul(one, v.T) + F.matmul(v.T, one))


def test_matmul_with_constant_operand() -> None:
    x = Variable(np.array([[1.0, 2.0]]))
    y = x @ np.array([[1.0], [1.0]])
    y.backward()
    np.testing.assert_array_equal(x.grad.data, [[1.0, 1.0]])


# --- indexing -------------------------------------------------------------------------


def test_get_item_forms() -> None:
    data = np.arange(12.0).reshape(3, 4)
    x = Variable(data.copy())
    np.testing.assert_array_equal(x[1].data, data[1])
    np.testing.assert_array_equal(x[1, 2].data, data[1, 2])
    np.testing.assert_array_equal(x[:, 1:3].data, data[:, 1:3])
    np.testing.assert_array_equal(x[np.array([0, 2])].data, data[[0, 2]])
    y = F.get_item(x, (slice(None), 0))
    np.testing.assert_array_equal(y.data, data[:, 0])


def test_get_item_grad_with_repeated_indices() -> None:
    x = Variable(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    indices = np.array([0, 0, 1])
    y = F.get_item(x, indices)
    np.testing.assert_array_equal(y.data, [[1, 2, 3], [1, 2, 3], [4, 5, 6]])
    y.backward()
    np.testing.assert_array_equal(x.grad.data, [[2, 2, 2], [1, 1, 1]])
    v = Variable(np.array([1.0, 2.0, 3.0]))
    F.sum(v[np.array([2, 2, 2, 0])] * np.array([1.0, 2.0, 3.0, 4.0])).backward()
    np.testing.assert_array_equal(v.grad.data, [4.0, 0.0, 6.0])


def test_get_item_second_order() -> None:
    x = Variable(np.array([1.0, 2.0, 3.0]))
    y = F.sum(x[np.array([0, 0, 2])] ** 3)
    y.backward(create_graph=True)
    np.testing.assert_allclose(x.grad.data, [6.0, 0.0, 27.0])
    gx = x.grad
    x.cleargrad()
    F.sum(gx).backward()
    np.testing.assert_allclose(x.grad.data, [12.0, 0.0, 18.0])


# --- max / min ------------------------------------------------------------------------


def test_max_min_grads() -> None:
    x = Variable(np.array([[1.0, 5.0, 3.0], [7.0, 2.0, 0.0]]))
    y = F.max(x)
    assert float(y.data) == 7.0
    y.backward()
    np.testing.assert_array_equal(x.grad.data, [[0, 0, 0], [1, 0, 0]])
    x.cleargrad()
    y = F.max(x, axis=1)
    np.testing.assert_array_equal(y.data, [5.0, 7.0])
    F.sum(y * np.array([2.0, 3.0])).backward()
    np.testing.assert_array_equal(x.grad.data, [[0, 2, 0], [3, 0, 0]])
    x.cleargrad()
    y = F.min(x, axis=0, keepdims=True)
    assert y.shape == (1, 3)
    y.backward()
    np.testing.assert_array_equal(x.grad.data, [[1, 0, 0], [0, 1, 1]])


def test_max_ties_share_and_scalar() -> None:
    # Tied elements split the gradient, so max(x, x) has derivative 1 in x.
    x = Variable(np.array([1.0, 4.0, 4.0]))
    F.max(x).backward()
    np.testing.assert_array_equal(x.grad.data, [0.0, 0.5, 0.5])
    t = Variable(np.array(2.0))
    F.max(t * np.ones(2)).backward()
    assert float(t.grad.data) == 1.0
    s = Variable(np.array(3.0))
    F.max(s).backward()
    assert float(s.grad.data) == 1.0
    s = Variable(np.array(3.0))
    F.min(s * 2).backward()
    assert float(s.grad.data) == 2.0


def test_abs_on_scalars_and_arrays() -> None:
    x = Variable(np.array(-2.0))
    y = F.abs(x)
    y.backward()
    assert float(y.data) == 2.0 and float(x.grad.data) == -1.0
    x = Variable(np.array([-1.0, 3.0]))
    F.sum(F.abs(x)).backward()
    np.testing.assert_array_equal(x.grad.data, [-1.0, 1.0])


# --- constructors -------------------------------------------------------------------------


def test_linspace_differentiable_in_ends() -> None:
    a = Variable(np.array(0.0))
    b = Variable(np.array(1.0))
    y = F.linspace(a, b, 5)
    np.testing.assert_allclose(y.data, np.linspace(0, 1, 5))
    F.sum(y).backward()
    assert float(a.grad.data) == pytest.approx(2.5)
    assert float(b.grad.data) == pytest.approx(2.5)


def test_zeros_and_ones_take_a_shape_as_numpy_does() -> None:
    # F.zeros((2, 3)) raised AttributeError: 'tuple' object has no attribute 'tolist'
    for shape in ((2, 3), [2, 3]):
        assert F.zeros(shape).shape == (2, 3)
        np.testing.assert_array_equal(F.ones(shape).data, np.ones((2, 3)))
    assert F.zeros(2, 3).shape == (2, 3)
    assert F.ones(()).shape == ()
