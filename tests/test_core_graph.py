"""Variable, Function, Config and backprop: DeZero steps 1-40 and what gradcli adds.

The numbers are the book's where the book gives them.
"""

from __future__ import annotations

import gc
import math
import weakref

import numpy as np
import pytest

import gradcli.core as core
import gradcli.core.functions as F
from gradcli.core import (
    Config,
    Constant,
    Function,
    Variable,
    as_array,
    as_variable,
    higher_derivatives,
    no_grad,
    using_config,
)
from gradcli.core.dot import count_nodes
from gradcli.core.utils import get_dot_graph

# --- Variable basics (steps 1-2, 19) -----------------------------------------------


def test_variable_holds_data_and_name() -> None:
    data = np.array(1.0)
    x = Variable(data)
    assert x.data is data
    assert x.name is None and x.grad is None and x.creator is None
    assert x.generation == 0
    x.data = np.array(2.0)
    assert float(x.data) == 2.0
    named = Variable(np.array([1.0, 2.0]), "x")
    assert named.name == "x"
    assert Variable(np.array(1.0), name="w").name == "w"


@pytest.mark.parametrize("bad", [1.0, 1, "1", [1.0, 2.0], (1.0,), np.float64(1.0)])
def test_variable_rejects_non_arrays(bad: object) -> None:
    with pytest.raises(TypeError, match="is not supported"):
        Variable(bad)


def test_variable_accepts_none() -> None:
    assert Variable(None).data is None


def test_shape_ndim_size_dtype_len() -> None:
    x = Variable(np.array([[1, 2, 3], [4, 5, 6]]))
    assert x.shape == (2, 3)
    assert x.ndim == 2
    assert x.size == 6
    assert x.dtype == np.array([1]).dtype
    assert len(x) == 2
    s = Variable(np.array(1.0, dtype=np.float32))
    assert s.shape == () and s.ndim == 0 and s.size == 1 and s.dtype == np.float32
    with pytest.raises(TypeError):
        len(s)


def test_repr_is_dezeros() -> None:
    assert repr(Variable(np.array(1.0))) == "variable(1.0)"
    assert repr(Variable(None)) == "variable(None)"
    assert repr(Variable(np.array([1, 2, 3]))) == "variable([1 2 3])"
    assert repr(Variable(np.array([[1, 2, 3], [4, 5, 6]]))) == (
        "variable([[1 2 3]\n          [4 5 6]])"
    )
    three = repr(Variable(np.zeros((2, 1, 2))))
    lines = three.split("\n")
    assert lines[0] == "variable([[[0. 0.]]"
    # every continuation line is the array's own line shifted by 9 spaces
    body = str(np.zeros((2, 1, 2))).split("\n")
    assert lines[1:] == [" " * 9 + ln for ln in body[1:-1]] + [" " * 9 + body[-1] + ")"]
    assert str(Variable(np.array(2.5))) == "variable(2.5)"


def test_as_array_and_as_variable() -> None:
    a = as_array(1.5)
    assert isinstance(a, np.ndarray) and a.shape == () and float(a) == 1.5
    assert isinstance(as_array(np.float32(2.0)), np.ndarray)
    arr = np.array([1.0, 2.0])
    assert as_array(arr) is arr
    v = Variable(arr)
    assert as_variable(v) is v
    for number in (3, 2.5, np.float64(1.0), np.array(4.0)):
        w = as_variable(number)
        assert type(w) is Variable and w.shape == () and float(w.data) == float(number)
    seq = as_variable([1.0, 2.0, 3.0])
    assert seq.shape == (3,)


# --- forward, creator, generation (steps 7-16) ---------------------------------------


def test_creator_links_and_generation() -> None:
    x = Variable(np.array(0.5))
    a = F.square(x)
    b = F.exp(a)
    y = F.square(b)
    assert y.creator.inputs[0] is b
    assert b.creator.inputs[0] is a
    assert a.creator.inputs[0] is x
    assert x.creator is None
    assert [x.generation, a.generation, b.generation, y.generation] == [0, 1, 2, 3]
    assert [a.creator.generation, b.creator.generation, y.creator.generation] == [0, 1, 2]
    assert isinstance(y.creator, Function)
    assert y.creator.outputs[0]() is y
    # generation of a function is the max of its inputs'
    z = a + y
    assert z.creator.generation == 3 and z.generation == 4


def test_step_9_composite_backward() -> None:
    # y = square(exp(square(x))) at 0.5: the book's 3.297442541400256
    x = Variable(np.array(0.5))
    y = F.square(F.exp(F.square(x)))
    y.backward()
    assert float(x.grad.data) == pytest.approx(3.297442541400256, rel=1e-15)
    assert isinstance(x.grad, Variable)  # step 32: grads are Variables


def test_seed_gradient_is_ones_like_output() -> None:
    x = Variable(np.array([1.0, 2.0, 3.0]))
    y = x * 2
    y.backward(retain_grad=True)
    np.testing.assert_array_equal(y.grad.data, np.ones(3))
    np.testing.assert_array_equal(x.grad.data, [2.0, 2.0, 2.0])


def test_gradient_accumulates_for_reused_variable() -> None:
    # step 14
    x = Variable(np.array(3.0))
    y = x + x
    y.backward()
    assert float(x.grad.data) == 2.0
    y = x + x + x
    x.cleargrad()
    y.backward()
    assert float(x.grad.data) == 3.0
    # without cleargrad, a second backward adds to the old grad (DeZero's behaviour)
    y = x + x
    y.backward()
    assert float(x.grad.data) == 5.0


def test_cleargrad() -> None:
    x = Variable(np.array(3.0))
    (x * x).backward()
    assert x.grad is not None
    x.cleargrad()
    assert x.grad is None


def test_diamond_generation_order() -> None:
    # step 16: y = add(square(a), square(a)), a = square(x); dy/dx = 64 at x = 2
    x = Variable(np.array(2.0))
    a = F.square(x)
    y = F.add(F.square(a), F.square(a))
    y.backward()
    assert float(y.data) == 32.0
    assert float(x.grad.data) == 64.0


def test_backward_visits_each_function_once_in_generation_order() -> None:
    calls: list[str] = []

    class Tracked(Function):
        def __init__(self, tag: str) -> None:
            self.tag = tag

        def forward(self, x: np.ndarray) -> np.ndarray:
            return x * 1.0

        def backward(self, gy: Variable) -> Variable:
            calls.append(self.tag)
            return gy

    x = Variable(np.array(1.0))
    a = Tracked("a")(x)
    b = Tracked("b")(a)
    c = Tracked("c")(a)
    d = Tracked("d")(b + c)  # generation: a < b, c < add < d
    d.backward()
    assert calls.count("a") == 1
    assert calls[0] == "d" and calls[-1] == "a"
    assert set(calls[1:3]) == {"b", "c"}
    assert float(x.grad.data) == 2.0


def test_intermediate_grads_freed_unless_retain_grad() -> None:
    # step 18
    x0 = Variable(np.array(1.0))
    x1 = Variable(np.array(1.0))
    t = F.add(x0, x1)
    y = F.add(x0, t)
    y.backward()
    assert y.grad is None and t.grad is None
    assert float(x0.grad.data) == 2.0 and float(x1.grad.data) == 1.0

    x0.cleargrad()
    x1.cleargrad()
    t = F.add(x0, x1)
    y = F.add(x0, t)
    y.backward(retain_grad=True)
    assert float(y.grad.data) == 1.0 and float(t.grad.data) == 1.0


# --- Config / no_grad (step 18) ----------------------------------------------------


def test_using_config_and_no_grad() -> None:
    assert Config.enable_backprop is True
    with using_config("enable_backprop", False):
        assert Config.enable_backprop is False
        y = F.square(Variable(np.array(2.0)))
        assert y.creator is None and y.generation == 0
    assert Config.enable_backprop is True
    with no_grad():
        x = Variable(np.ones((100, 100)))
        y = F.square(F.square(x)) + x
        assert y.creator is None
        assert float(y.data[0, 0]) == 2.0
    assert Config.enable_backprop is True
    x = Variable(np.array(2.0))
    assert F.square(x).creator is not None


def test_using_config_restores_after_an_error() -> None:
    with pytest.raises(RuntimeError):
        with no_grad():
            raise RuntimeError("boom")
    assert Config.enable_backprop is True
    with pytest.raises(RuntimeError):
        with using_config("enable_backprop", False):
            raise RuntimeError("boom")
    assert Config.enable_backprop is True


def test_no_graph_recorded_under_no_grad_means_no_references() -> None:
    x = Variable(np.array(2.0))
    with no_grad():
        y = x * 3 + 1
    assert y.creator is None
    y.backward()  # a leaf: backward seeds its grad and stops
    assert x.grad is None
    np.testing.assert_array_equal(y.grad.data, 1.0)


def test_backward_restores_config_even_on_error() -> None:
    class Broken(Function):
        def forward(self, x: np.ndarray) -> np.ndarray:
            return x

        def backward(self, gy: Variable) -> Variable:
            raise ValueError("broken backward")

    x = Variable(np.array(1.0))
    y = Broken()(x)
    gc_on = gc.isenabled()
    with pytest.raises(ValueError):
        y.backward(create_graph=False)
    assert Config.enable_backprop is True
    assert gc.isenabled() == gc_on


# --- weak references and memory (step 17) ------------------------------------------


def test_function_does_not_keep_outputs_alive() -> None:
    x = Variable(np.array(1.0))
    y = F.square(x)
    f = y.creator
    ref = weakref.ref(y)
    assert isinstance(f.outputs[0], weakref.ref)
    del y
    assert ref() is None
    assert f.outputs[0]() is None


def test_graph_is_freed_by_reference_counting() -> None:
    gc_on = gc.isenabled()
    gc.disable()
    try:
        x = Variable(np.array(1.0))
        y = F.exp(F.sin(x) * 2)
        refs = [weakref.ref(y.creator), weakref.ref(y.creator.inputs[0].creator)]
        del y
        assert [r() for r in refs] == [None, None]  # no cycle: freed without the gc
    finally:
        if gc_on:
            gc.enable()


def test_backward_through_dead_intermediate_outputs() -> None:
    # the user drops intermediate Variables; their functions still backprop
    x = Variable(np.array(0.3))
    y = F.sin(F.exp(x))  # the exp output is referenced only by Sin's inputs
    y.backward()
    assert float(x.grad.data) == pytest.approx(math.cos(math.exp(0.3)) * math.exp(0.3))


# --- long chains, no recursion -------------------------------------------------------


def test_100k_chain_forward_backward_and_frees_memory() -> None:
    x = Variable(np.array(0.5))
    y = F.sin(x)
    early = weakref.ref(y.creator)
    for i in range(100_000):
        y = y * 0.999999 if i % 2 else y + 1e-6
    assert y.generation == 100_001
    y.backward()
    assert x.grad is not None
    # d/dx: cos(0.5) * 0.999999 ** 50_000
    assert float(x.grad.data) == pytest.approx(math.cos(0.5) * 0.999999**50_000, rel=1e-9)
    assert early() is not None
    del y
    assert early() is None  # freed by reference counting, no recursion error on the way


def test_100k_chain_backward_with_create_graph() -> None:
    x = Variable(np.array(0.1))
    y = x
    for _ in range(100_000):
        y = y + 0.0
    y.backward(create_graph=True)
    assert float(x.grad.data) == 1.0
    del y
    x.cleargrad()


def test_unchain_backward_is_iterative() -> None:
    x = Variable(np.array(1.0))
    y = x
    for _ in range(50_000):
        y = y * 1.0
    mid = weakref.ref(y.creator.inputs[0].creator)
    y.unchain_backward()
    assert y.creator is not None  # the output itself keeps its creator
    assert y.creator.inputs[0].creator is None
    assert mid() is None


# --- the heap: wide and deep graphs ------------------------------------------------


def test_wide_and_deep_graph_gradient() -> None:
    # 200 branches, each a chain of different depth, reusing x and each other
    x = Variable(np.array(0.7))
    branches = []
    expected = 0.0
    h = x
    for k in range(1, 201):
        h = h * 1.001  # shared spine: depth k
        b = h
        for _ in range(k % 7):
            b = b + 0.5  # varying extra depth
        branches.append(F.square(b))
        hv = 0.7 * 1.001**k
        expected += 2 * (hv + 0.5 * (k % 7)) * 1.001**k
    y = branches[0]
    for b in branches[1:]:
        y = y + b
    y.backward()
    assert float(x.grad.data) == pytest.approx(expected, rel=1e-12)


def test_heap_order_matches_a_reference_topological_backprop() -> None:
    # a random DAG: gradients from the heap agree with a reference computed by
    # explicitly topologically sorted reverse accumulation on plain floats
    rng = np.random.default_rng(0)
    x = Variable(np.array(0.4))
    nodes = [x]
    vals = [0.4]
    parents: list[tuple[int, int, str]] = []
    for _ in range(300):
        i, j = (int(v) for v in rng.integers(0, len(nodes), 2))
        op = "add" if rng.random() < 0.5 else "mul"
        if op == "add":
            nodes.append(nodes[i] + nodes[j])
            vals.append(vals[i] + vals[j])
        else:
            nodes.append(nodes[i] * nodes[j] * 0.5)
            vals.append(vals[i] * vals[j] * 0.5)
        parents.append((i, j, op))
    y = nodes[-1]
    y.backward()
    adj = [0.0] * len(nodes)
    adj[-1] = 1.0
    for k in range(len(nodes) - 1, 0, -1):
        i, j, op = parents[k - 1]
        if op == "add":
            adj[i] += adj[k]
            adj[j] += adj[k]
        else:
            adj[i] += adj[k] * vals[j] * 0.5
            adj[j] += adj[k] * vals[i] * 0.5
    assert float(x.grad.data) == pytest.approx(adj[0], rel=1e-10)


# --- higher-order derivatives (steps 29-36) ------------------------------------------


def _book_loop(x: Variable, y: Variable, orders: int) -> list[Variable]:
    """x.grad after each of ``orders`` passes of the book's loop (steps 33-36):
    backward with create_graph, then backward of x.grad in turn."""
    y.backward(create_graph=True)
    grads = [x.grad]
    for _ in range(orders - 1):
        gx = x.grad
        x.cleargrad()
        gx.backward(create_graph=True)
        grads.append(x.grad)
    return grads


def test_book_polynomial_derivatives_24_44_48_24_then_zero() -> None:
    # step 33/36: f(x) = x**4 - 2x**2 at x = 2
    x = Variable(np.array(2.0))
    y = x**4 - 2 * x**2
    assert float(y.data) == 8.0
    # past the degree, DeZero 0.0.13 gives variable(0.0) at every order (its x**0
    # node stays in x's graph); the exact shortcuts left x.grad None, and a loop
    # reading x.grad.data failed
    grads = _book_loop(x, y, 7)
    assert all(isinstance(g, Variable) for g in grads)
    assert [float(g.data) for g in grads] == [24.0, 44.0, 48.0, 24.0, 0.0, 0.0, 0.0]
    # exactly: at 0 too, where DeZero's 0 * x**-1 is nan
    x = Variable(np.array(0.0))
    assert [float(g.data) for g in _book_loop(x, x**2, 5)] == [0.0, 2.0, 0.0, 0.0, 0.0]


def test_higher_derivatives_gives_zero_not_none() -> None:
    x = Variable(np.array(2.0))
    ds = higher_derivatives(x**4 - 2 * x**2, x, 7)
    assert [float(d.data) for d in ds] == [24.0, 44.0, 48.0, 24.0, 0.0, 0.0, 0.0]
    assert all(isinstance(d, Variable) and d.shape == () for d in ds)
    # and the input's own grad is left as found
    assert x.grad is None


def test_higher_derivatives_of_a_constant_and_of_x() -> None:
    x = Variable(np.array([1.0, 2.0]))
    c = Variable(np.array([3.0, 3.0]))
    ds = higher_derivatives(c, x, 2)
    assert all(d.shape == (2,) and not d.data.any() for d in ds)
    ds = higher_derivatives(x * 1.0, x, 3)
    np.testing.assert_array_equal(ds[0].data, [1.0, 1.0])
    np.testing.assert_array_equal(ds[1].data, [0.0, 0.0])


def test_core_grad_helper() -> None:
    x = Variable(np.array(3.0))
    w = Variable(np.array(2.0))
    z = Variable(np.array(5.0))
    x.grad = Variable(np.array(100.0))
    gx, gw, gz = core.grad(x * w + F.sin(x), [x, w, z])
    assert float(gx.data) == pytest.approx(2 + math.cos(3.0))
    assert float(gw.data) == 3.0
    assert float(gz.data) == 0.0  # not None
    assert float(x.grad.data) == 100.0  # left as found
    assert w.grad is None


def test_newtons_method_step_33() -> None:
    def f(x: Variable) -> Variable:
        return x**4 - 2 * x**2

    x = Variable(np.array(2.0))
    history = []
    for _ in range(10):
        history.append(float(x.data))
        y = f(x)
        x.cleargrad()
        y.backward(create_graph=True)
        gx = x.grad
        x.cleargrad()
        gx.backward()
        gx2 = x.grad
        x.data = x.data - gx.data / gx2.data
    expected = [
        2.0,
        1.4545454545454546,
        1.1510467893775467,
        1.0253259289766978,
        1.0009084519430513,
        1.0000012353089454,
        1.000000000002289,
        1.0,
        1.0,
        1.0,
    ]
    assert history == pytest.approx(expected, rel=1e-14, abs=0)


def test_sin_higher_derivatives_step_34() -> None:
    x = Variable(np.linspace(-7, 7, 200))
    y = F.sin(x)
    y.backward(create_graph=True)
    logs = [y.data]
    for _ in range(3):
        logs.append(x.grad.data)
        gx = x.grad
        x.cleargrad()
        gx.backward(create_graph=True)
    t = np.linspace(-7, 7, 200)
    np.testing.assert_allclose(logs[0], np.sin(t), rtol=1e-15)
    np.testing.assert_allclose(logs[1], np.cos(t), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(logs[2], -np.sin(t), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(logs[3], -np.cos(t), rtol=1e-14, atol=1e-15)
    # the 4th: sin again
    np.testing.assert_allclose(x.grad.data, np.sin(t), rtol=1e-13, atol=1e-15)


def test_tanh_high_order_graph_step_35() -> None:
    import sympy

    s = sympy.Symbol("s")
    x = Variable(np.array(1.0))
    x.name = "x"
    y = F.tanh(x)
    y.name = "y"
    y.backward(create_graph=True)
    iters = 5
    sizes = []
    for i in range(iters):
        gx = x.grad
        x.cleargrad()
        gx.backward(create_graph=True)
        want = float(sympy.diff(sympy.tanh(s), s, i + 2).subs(s, 1.0))
        assert float(x.grad.data) == pytest.approx(want, rel=1e-12)
        sizes.append(count_nodes(x.grad))
    gx = x.grad
    gx.name = "gx" + str(iters + 1)
    # the graph of each derivative is larger than the last
    assert sizes == sorted(sizes) and sizes[-1] > sizes[0] * 4
    text = get_dot_graph(gx, verbose=False)
    assert 'label="gx6"' in text and "Tanh" in text


def test_double_backprop_step_36() -> None:
    # z = gx**3 + y with y = x**2, gx = dy/dx; dz/dx at 2 = 100
    x = Variable(np.array(2.0))
    y = x**2
    y.backward(create_graph=True)
    gx = x.grad
    x.cleargrad()
    z = gx**3 + y
    z.backward()
    assert float(x.grad.data) == 100.0


def test_create_graph_false_records_no_graph_of_gradient() -> None:
    x = Variable(np.array(2.0))
    y = x**3
    y.backward()
    assert x.grad.creator is None
    x.cleargrad()
    y = x**3
    y.backward(create_graph=True)
    assert x.grad.creator is not None


def test_exact_integer_powers() -> None:
    x = Variable(np.array(0.0))
    ds = higher_derivatives(x**2, x, 4)
    assert [float(d.data) for d in ds] == [0.0, 2.0, 0.0, 0.0]
    x = Variable(np.array(0.0))
    ds = higher_derivatives(x**3, x, 4)
    assert [float(d.data) for d in ds] == [0.0, 0.0, 6.0, 0.0]
    assert not any(np.isnan(float(d.data)) for d in ds)
    x = Variable(np.array(0.0))
    y = x**2
    y.backward(create_graph=True)
    for _ in range(2):
        gx = x.grad
        x.cleargrad()
        gx.backward(create_graph=True)
    assert x.grad is None or float(x.grad.data) == 0.0


# --- custom Functions, DeZero style ------------------------------------------------


def test_user_defined_function_dezero_style() -> None:
    class Square(Function):
        def forward(self, x: np.ndarray) -> np.ndarray:
            return x**2

        def backward(self, gy: Variable) -> Variable:
            (x,) = self.inputs
            return 2 * x * gy

    x = Variable(np.array(3.0))
    y = Square()(x)
    assert type(y) is Variable and float(y.data) == 9.0
    y.backward(create_graph=True)
    assert float(x.grad.data) == 6.0
    gx = x.grad
    x.cleargrad()
    gx.backward()
    assert float(x.grad.data) == 2.0


def test_multi_output_function_and_missing_output_grad() -> None:
    class Split(Function):
        def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return x * 2, x * 3

        def backward(self, gy0: Variable, gy1: Variable) -> Variable:
            return gy0 * 2 + gy1 * 3

    x = Variable(np.array([1.0, 2.0]))
    a, b = Split()(x)
    assert a.creator is b.creator and a.generation == b.generation == 1
    (a * 5).backward()  # only a reaches the output; b's gradient is zeros
    np.testing.assert_array_equal(x.grad.data, [10.0, 10.0])
    x.cleargrad()
    a, b = Split()(x)
    (a + b).backward()
    np.testing.assert_array_equal(x.grad.data, [5.0, 5.0])


def test_scalar_outputs_become_arrays() -> None:
    class Total(Function):
        def forward(self, x: np.ndarray) -> float:
            return float(x.sum())  # a Python float, not an array

        def backward(self, gy: Variable) -> Variable:
            return F.broadcast_to(gy, self.inputs[0].shape)

    y = Total()(Variable(np.array([1.0, 2.0])))
    assert isinstance(y.data, np.ndarray) and y.shape == ()
    y2 = F.sin(Variable(np.array(0.5)))
    assert type(y2.data) is np.ndarray  # ufuncs return numpy scalars for 0-d input


def test_function_attributes() -> None:
    x = Variable(np.array(1.0))
    y = F.sin(x)
    f = y.creator
    assert f.inputs == [x] or f.inputs == (x,) or list(f.inputs) == [x]
    assert f.generation == 0
    assert len(f.outputs) == 1


def test_constant_operands_get_no_gradient() -> None:
    x = Variable(np.array(2.0))
    y = x * 3.0
    c = y.creator.inputs[1]
    assert isinstance(c, Constant) and isinstance(c, Variable)
    y.backward()
    assert c.grad is None
    assert float(x.grad.data) == 3.0
    # a Constant may be built from a NumPy scalar (unlike a user's Variable)
    k = Constant(np.float64(2.0))
    assert isinstance(k.data, np.ndarray) and k.shape == ()


def test_constant_inputs_gradients_not_computed(monkeypatch: pytest.MonkeyPatch) -> None:
    import gradcli.core.ops as ops

    made: list[object] = []
    real_init = ops.Pow.__init__

    def spy(self, c=None):
        made.append(c)
        real_init(self, c)

    # 2 ** x: the base is a Constant, so its gradient x * 2 ** (x - 1) is never built
    # (the graph-building backward makes a Pow for it when the base is a Variable)
    x = Variable(np.array(3.0))
    y = 2.0**x
    monkeypatch.setattr(ops.Pow, "__init__", spy)
    y.backward(create_graph=True)
    assert float(x.grad.data) == pytest.approx(8 * math.log(2), rel=1e-15)
    assert made == []
    base = Variable(np.array(2.0))
    x.cleargrad()
    y = base**x
    made.clear()
    y.backward(create_graph=True)
    assert float(base.grad.data) == 12.0
    assert float(x.grad.data) == pytest.approx(8 * math.log(2), rel=1e-15)
    assert len(made) == 1  # x0 ** (x1 - 1) inside the base's gradient
    # the plain backward agrees
    x.cleargrad()
    base.cleargrad()
    y = base**x
    y.backward()
    assert float(base.grad.data) == 12.0
    assert float(x.grad.data) == pytest.approx(8 * math.log(2), rel=1e-15)


# --- the plain backward (array fast path) agrees with the graph-building one -------


class _UserSquare(Function):
    """A DeZero-style user Function: its backward always runs as written."""

    def forward(self, x: np.ndarray) -> np.ndarray:
        return x**2

    def backward(self, gy: Variable) -> Variable:
        return 2 * self.inputs[0] * gy


class _UserSplit(Function):
    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return x * 2.0, x * x

    def backward(self, g0: Variable, g1: Variable) -> Variable:
        return g0 * 2.0 + g1 * 2.0 * self.inputs[0]


class _SubclassedMul(F.Mul):
    """Overrides backward: the built-in array path must not be used for it."""

    def backward(self, gy: Variable) -> tuple[Variable, Variable]:
        x0, x1 = self.inputs
        return gy * x1 * 3.0, gy * x0 * 3.0


def _split_sum(v: Variable) -> Variable:
    a, b = _UserSplit()(v)
    return a + b


_A = np.array([[0.3, -1.2, 2.0], [0.7, 1.5, -0.4]])
_B = np.array([1.1, -0.6, 0.9])
_PATHS = {
    "chain": (lambda x: F.sin(x) * 0.999 + 0.001, _A),
    "arith": (lambda x: (x * x - 3.0 * x) / (x * x + 1.0) - (-x) + 2.0 / (x + 5.0), _A),
    "rsub_rdiv": (lambda x: 1.0 - x / 2.0 + 1.0 / (x + 3.0), _A),
    "pow_const": (lambda x: x**3 + (x * x + 1.0) ** 2.5 + (x * x + 1.0) ** 0.5 + x**1 + x**0, _A),
    "pow_var": (lambda x: (x * x + 1.0) ** (x * 0.5) + 2.0**x, _A),
    "broadcast": (lambda x: F.sum(x * Variable(_B) + Variable(_B) / (x * x + 1.0)), _A),
    "broadcast_self": (lambda x: x + F.reshape(F.sum(x, axis=0), (1, 3)) * x, _A),
    "reductions": (lambda x: F.sum(x, axis=1, keepdims=True) * F.sum(x) + F.mean(x, 0), _A),
    "shapes": (lambda x: F.transpose(F.reshape(x, (3, 2)), (1, 0)) * F.transpose(x.T), _A),
    "broadcast_to": (lambda x: F.sum_to(F.broadcast_to(x[0], (4, 3)) * 2.0, (1, 3)), _A),
    "matmul": (lambda x: F.matmul(x, x.T) @ x + F.sum(x[0] @ x.T), _A),
    "getitem": (lambda x: x[np.array([0, 0, 1])] * x[1] + F.sum(x[:, 1:]), _A),
    "max_min": (lambda x: F.max(x * x, axis=0) - F.min(x, axis=1, keepdims=True), _A),
    "elementwise": (
        lambda x: F.tanh(x) + F.exp(F.sin(x)) * F.cos(x) + F.sigmoid(x) + F.atan(x)
        + F.sqrt(x * x + 1.0) + F.log(x * x + 2.0) + F.abs(x),
        _A,
    ),
    "user_functions": (lambda x: _UserSquare()(F.sin(x)) + _split_sum(x), _A),
    "subclass_override": (lambda x: _SubclassedMul()(x, F.exp(x)), _A),
    "scalar": (lambda x: F.sin(x * x) * x / (x + 1.0), np.array(0.7)),
    "float32": (lambda x: F.sin(x) * 0.5 + x * x / 3.0, _A.astype(np.float32)),
    "reuse": (lambda x: (lambda t: t * t + t * 3.0 + F.exp(t))(F.sin(x) + x), _A),
}


@pytest.mark.parametrize("name", sorted(_PATHS))
def test_plain_backward_matches_graph_backward(name: str) -> None:
    f, data = _PATHS[name]
    results = []
    for create_graph in (False, True):
        x = Variable(data.copy())
        y = f(x)
        y.backward(create_graph=create_graph)
        results.append(x.grad)
        assert (x.grad.creator is not None) == create_graph or name == "broadcast_to"
    plain, graph = results
    assert type(plain) is Variable and type(plain.data) is np.ndarray
    assert plain.shape == data.shape and plain.dtype == data.dtype
    assert graph.shape == data.shape and graph.dtype == data.dtype
    rtol = 1e-5 if data.dtype == np.float32 else 1e-13
    np.testing.assert_allclose(plain.data, graph.data, rtol=rtol, atol=1e-12)
    if name == "subclass_override":  # its own (deliberately tripled) backward ran
        e = np.exp(data)
        np.testing.assert_allclose(plain.data, 3 * (e + data * e), rtol=1e-13)
    # and both against central differences of the sum
    from gradcli.core.check import numerical_grad

    if data.dtype == np.float64 and name != "subclass_override":
        num = numerical_grad(f, data)
        np.testing.assert_allclose(plain.data, num, rtol=1e-5, atol=1e-6)


def test_plain_backward_retain_grad_and_accumulation() -> None:
    for create_graph in (False, True):
        x = Variable(np.array([0.5, 1.5]))
        t = F.sin(x)
        u = t * t
        y = u + t
        y.backward(retain_grad=True, create_graph=create_graph)
        assert type(t.grad) is Variable and type(u.grad) is Variable
        np.testing.assert_allclose(u.grad.data, [1.0, 1.0])
        np.testing.assert_allclose(t.grad.data, 2 * np.sin([0.5, 1.5]) + 1)
        np.testing.assert_allclose(y.grad.data, [1.0, 1.0])
        g1 = x.grad.data.copy()
        # a second backward accumulates into the leaf, as DeZero does
        y2 = F.sin(x) * 2.0
        y2.backward(create_graph=create_graph)
        np.testing.assert_allclose(x.grad.data, g1 + 2 * np.cos([0.5, 1.5]))


def test_plain_backward_with_a_user_seed_and_existing_intermediate_grad() -> None:
    x = Variable(np.array(2.0))
    y = x * 3.0
    y.grad = Variable(np.array(10.0))
    y.backward()
    assert float(x.grad.data) == 30.0
    assert y.grad is None
    # an intermediate whose grad was kept from an earlier pass is accumulated into,
    # exactly as DeZero does
    for create_graph in (False, True):
        x = Variable(np.array(2.0))
        t = x * 3.0
        y = t * 1.0
        y.backward(retain_grad=True)
        assert float(t.grad.data) == 1.0
        x.cleargrad()
        y.backward(create_graph=create_graph)
        assert float(x.grad.data) == 6.0  # t.grad was 1 already, plus 1


def test_plain_backward_leaves_no_arrays_in_grad_after_an_error() -> None:
    class Boom(Function):
        def forward(self, x: np.ndarray) -> np.ndarray:
            return x * 1.0

        def backward(self, gy: Variable) -> Variable:
            raise ZeroDivisionError("boom")

    x = Variable(np.array(1.0))
    t = Boom()(x)
    u = F.sin(t)
    y = u * 2.0
    with pytest.raises(ZeroDivisionError):
        y.backward()
    for v in (x, t, u, y):
        assert v.grad is None or type(v.grad) is Variable
    assert Config.enable_backprop is True


def test_a_quotients_gradient_is_the_same_with_create_graph_or_without() -> None:
    # the two backward paths wrote -x0/x1**2 two ways: 1 ulp apart in 41% of elements
    rng = np.random.default_rng(7)
    a0, a1 = rng.uniform(-3, 3, 1000), rng.uniform(0.5, 3, 1000)
    grads = []
    for create_graph in (False, True):
        x0, x1 = Variable(a0.copy()), Variable(a1.copy())
        F.sum(x0 / x1).backward(create_graph=create_graph)
        grads.append((x0.grad.data, x1.grad.data))
    np.testing.assert_array_equal(grads[0][0], grads[1][0])
    np.testing.assert_array_equal(grads[0][1], grads[1][1])


def test_repeated_backprop_of_a_power_stops_growing_past_its_degree() -> None:
    # x^3's derivative graphs grew by 6 nodes per order after the third (the x**0
    # node's zero times the whole chain of gradients above it), and the
    # calculator's 150,000-node budget stopped it at order 223; x*x*x reached 1000
    from gradcli.core.derivatives import graph_size

    x = Variable(np.array(1.0))
    ds = higher_derivatives(x**3, x, 300, max_nodes=150_000)
    assert [float(d.data) for d in ds[:5]] == [3.0, 6.0, 6.0, 0.0, 0.0]
    assert not any(float(d.data) for d in ds[3:])
    y = x**4 - 2 * x**2
    sizes = []
    for _ in range(12):
        y.backward(create_graph=True)
        y, x.grad = x.grad, None
        sizes.append(graph_size(y, 10**6))
    assert float(y.data) == 0.0
    assert len(set(sizes[6:])) == 1, sizes  # the same few nodes at every order
    # and the zero is still x's (DeZero's book loop reads x.grad at every order)
    assert x.grad is None and y.creator is not None


def test_the_zero_derivative_of_x_to_the_0_is_nan_where_the_gradient_is_not_finite() -> None:
    # 0 * inf is nan: only a finite incoming gradient is left behind
    for scale, want in ((np.inf, True), (2.0, False)):
        x = Variable(np.array(3.0))
        y = x**0 * scale
        with np.errstate(invalid="ignore"):
            y.backward(create_graph=True)
        assert math.isnan(float(x.grad.data)) == want
