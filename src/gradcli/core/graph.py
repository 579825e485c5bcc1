"""Variables and Functions: the nodes of the DeZero-style engine, and the one
place that links a Function's output into the graph.

The names and behaviour follow DeZero (steps 1-40 of "Deep Learning from
Scratch 3") so that code written against it runs unchanged. This module is
the bottom of the core: the modules above it give ``Variable`` its methods
(backprop.py ``backward``, operators.py the operators and shape methods).
Operands that are not Variables become ``Constant`` leaves, whose gradients
are never computed (a derivative of ``2 ** x`` never evaluates ``log`` of a
base the user cannot differentiate by).
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from .backend import as_cupy, as_numpy, get_array_module
from .running import NOW


class Config:
    enable_backprop = True


@contextlib.contextmanager
def using_config(name: str, value: Any) -> Iterator[None]:
    old_value = getattr(Config, name)
    setattr(Config, name, value)
    try:
        yield
    finally:
        setattr(Config, name, old_value)


def no_grad() -> contextlib.AbstractContextManager[None]:
    return using_config("enable_backprop", False)


def as_array(x: Any, array_module: Any = np) -> Any:
    """A scalar becomes a 0-d array; arrays pass through (DeZero's helper)."""
    if np.isscalar(x):
        return array_module.array(x)
    return x


def _is_array(data: Any) -> bool:
    return isinstance(data, np.ndarray) or type(data).__module__.startswith("cupy")


def as_data_array(y: Any) -> Any:
    if type(y) is np.ndarray:
        return y
    if isinstance(y, np.generic):
        return np.asarray(y)
    return as_array(y, get_array_module(y))


class Variable:
    __slots__ = ("data", "name", "grad", "creator", "generation", "__weakref__")
    __array_priority__ = 200

    def __init__(self, data: Any, name: str | None = None) -> None:
        if type(data) is not np.ndarray and data is not None and not _is_array(data):
            raise TypeError(f"{type(data)} is not supported")
        self.data = data
        self.name = name
        self.grad: Variable | None = None
        self.creator: Function | None = None
        self.generation = 0

    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    @property
    def ndim(self) -> int:
        return self.data.ndim

    @property
    def size(self) -> int:
        return self.data.size

    @property
    def dtype(self) -> Any:
        return self.data.dtype

    def __len__(self) -> int:
        return len(self.data)

    def __repr__(self) -> str:
        if self.data is None:
            return "variable(None)"
        p = str(self.data).replace("\n", "\n" + " " * 9)
        return "variable(" + p + ")"

    def set_creator(self, func: Function) -> None:
        self.creator = func
        self.generation = func.generation + 1

    def unchain(self) -> None:
        self.creator = None

    def cleargrad(self) -> None:
        self.grad = None

    def to_cpu(self) -> None:
        if self.data is not None:
            self.data = as_numpy(self.data)

    def to_gpu(self) -> None:
        if self.data is not None:
            self.data = as_cupy(self.data)

    def unchain_backward(self) -> None:
        if self.creator is None:
            return
        stack = [self.creator]
        seen = {id(self.creator)}
        while stack:
            f = stack.pop()
            for x in f.inputs:
                if x.creator is not None and id(x.creator) not in seen:
                    seen.add(id(x.creator))
                    stack.append(x.creator)
                    x.unchain()

    if TYPE_CHECKING:  # set on the class by backprop.py and operators.py, above this module
        def backward(self, retain_grad: bool = False, create_graph: bool = False) -> None: ...
        def reshape(self, *shape: Any) -> Variable: ...
        def transpose(self, *axes: Any) -> Variable: ...
        @property
        def T(self) -> Variable: ...
        def sum(self, axis: Any = None, keepdims: bool = False) -> Variable: ...
        def __add__(self, other: Any) -> Variable: ...
        def __radd__(self, other: Any) -> Variable: ...
        def __sub__(self, other: Any) -> Variable: ...
        def __rsub__(self, other: Any) -> Variable: ...
        def __mul__(self, other: Any) -> Variable: ...
        def __rmul__(self, other: Any) -> Variable: ...
        def __truediv__(self, other: Any) -> Variable: ...
        def __rtruediv__(self, other: Any) -> Variable: ...
        def __neg__(self) -> Variable: ...
        def __pow__(self, other: Any) -> Variable: ...
        def __rpow__(self, other: Any) -> Variable: ...
        def __matmul__(self, other: Any) -> Variable: ...
        def __rmatmul__(self, other: Any) -> Variable: ...
        def __getitem__(self, slices: Any) -> Variable: ...

    def __pos__(self) -> Variable:
        return self


class Constant(Variable):
    """A leaf made from a non-Variable operand: no gradient is ever computed for it.

    Unlike a user's ``Variable`` it also takes a NumPy scalar (what ``np.sign`` or a
    comparison returns for 0-d input) and stores it as a 0-d array.
    """

    __slots__ = ()

    def __init__(self, data: Any, name: str | None = None) -> None:
        if isinstance(data, np.generic):
            data = np.asarray(data)
        Variable.__init__(self, data, name)


def as_variable(obj: Any) -> Variable:
    """A Variable of ``obj``; plain numbers and sequences are accepted too."""
    if isinstance(obj, Variable):
        return obj
    if not _is_array(obj):
        obj = np.asarray(obj)
    return Variable(obj)


def _as_constant(obj: Any) -> Variable:
    if isinstance(obj, Variable):
        return obj
    if not _is_array(obj):
        obj = np.asarray(obj)
    return Constant(obj)


new_instance = object.__new__
_ref = weakref.ref
_ndarray = np.ndarray
_generic = np.generic
_asarray = np.asarray

def _array_out() -> Any:
    """``out=...`` makes a ufunc return a 0-d array rather than a scalar (NumPy >= 2.3;
    a Function's output is an array, and wrapping a scalar costs a third of a
    scalar sin); on older NumPy ``link_output`` wraps the scalar instead."""
    try:
        np.add(np.zeros(()), np.zeros(()), out=...)
    except TypeError:
        return None
    return ...


UFUNC_OUT = _array_out()

_const_tables: dict[Any, dict[Any, Constant]] = {}
_F64 = np.dtype(np.float64)
_f64_consts: dict[Any, Constant] = _const_tables.setdefault(_F64, {})


def operand_of(c: Any, like: Variable) -> Any:
    """Wrap a non-Variable operand, keeping a float Variable's dtype (NEP 50).

    Python numbers become shared read-only Constants: a chain that adds 0.001
    a thousand times makes one array, not a thousand. (Zero is not shared: 0.0
    and -0.0 are equal as keys but not as operands.)
    """
    tc = type(c)
    if tc is float or tc is int:
        data = like.data
        if type(data) is _ndarray and c:
            dt = data.dtype
            if dt is _F64:
                table = _f64_consts
            else:
                table = _const_tables.get(dt)  # type: ignore[assignment]
                if table is None:
                    if dt.kind != "f":
                        return Constant(np.asarray(c))
                    table = _const_tables[dt] = {}
            const = table.get(c)
            if const is None:
                if len(table) > 1024:
                    table.clear()
                arr = np.array(c, dtype=dt)
                arr.flags.writeable = False
                const = table[c] = Constant(arr)
            return const
    elif isinstance(c, Variable):
        return c
    xp = get_array_module(like.data)
    if isinstance(c, (int, float)) and like.data.dtype.kind == "f":
        return Constant(xp.asarray(c, dtype=like.data.dtype))
    return Constant(xp.asarray(c))


class Function:
    __slots__ = ("inputs", "outputs", "generation", "_visit", "__weakref__", "__dict__")
    op_name: str | None = None
    """How messages name this operation ('/', 'log'); None means the class name."""
    ufunc: Any = None
    """The NumPy ufunc that is this elementwise forward pass on NumPy arrays, if one
    is: a blockwise Taylor replay calls it with ``out=`` into its own buffers."""

    def __call__(self, *inputs: Any) -> Any:
        if len(inputs) == 1:
            return call_one(self, inputs[0])
        xs = [x if isinstance(x, Variable) else _as_constant(x) for x in inputs]
        outer = NOW.op
        NOW.op = self
        try:
            ys = self.forward(*[x.data for x in xs])
        finally:
            NOW.op = outer
        gen = max([x.generation for x in xs], default=0)
        if type(ys) is not tuple:
            return link_output(self, xs, ys, gen)
        return _link_all(self, xs, ys, gen)

    def forward(self, *xs: Any) -> Any:
        raise NotImplementedError()

    def backward(self, *gys: Any) -> Any:
        raise NotImplementedError()



_sharing: Any = None
"""While gradcli's repeated-derivative builder runs (``sharing``), what places
each new single-output node: a callable (f, inputs, out, gen) -> the Variable
to use, which may be a constant, an input, or an equal node built before.
None otherwise, so that DeZero's ``backward(create_graph=True)`` builds
DeZero's graph."""


@contextlib.contextmanager
def sharing(place: Any) -> Iterator[None]:
    """Let ``place`` (see ``_sharing``) decide every single-output node made
    inside, instead of linking it (core/derivatives.py folds and shares)."""
    global _sharing
    outer = _sharing
    _sharing = place
    try:
        yield
    finally:
        _sharing = outer


def attach(f: Function, inputs: list[Variable], out: Variable, gen: int) -> None:
    """Link ``out`` into the graph as the only output of ``f`` over ``inputs``
    (whose highest generation is ``gen``)."""
    f.generation = gen
    f._visit = 0
    f.inputs = inputs
    f.outputs = [_ref(out)]
    out.creator = f
    out.generation = gen + 1


def link_output(f: Function, inputs: list[Variable], y: Any, gen: int) -> Variable:
    """The output Variable of ``f`` holding ``y``, linked into the graph as the
    output of ``f`` over ``inputs`` (whose highest generation is ``gen``) while
    backprop is enabled; ``f``'s only output (a second call replaces the first).

    Every Function call and operator ends here: it is the innermost loop of every
    formula, so it builds the Variable without __init__'s checks.
    """
    out = new_instance(Variable)
    # NumPy ufuncs turn 0-d arrays into scalars; outputs are always arrays.
    out.data = (
        y if type(y) is _ndarray
        else _asarray(y) if isinstance(y, _generic)
        else as_data_array(y)
    )
    out.name = None
    out.grad = None
    if Config.enable_backprop:
        if _sharing is not None:
            out.creator = None
            out.generation = 0
            return _sharing(f, inputs, out, gen)  # type: ignore[no-any-return]
        f.generation = gen
        f._visit = 0
        f.inputs = inputs
        f.outputs = [_ref(out)]
        out.creator = f
        out.generation = gen + 1
    else:
        out.creator = None
        out.generation = 0
    return out


def _link_all(f: Function, inputs: list[Variable], ys: tuple[Any, ...], gen: int) -> Any:
    """``link_output`` for a Function of several outputs: a list of them (one: itself).
    They are never shared or folded: each stands for the Function's others too."""
    global _sharing
    outer = _sharing
    _sharing = None
    try:
        outputs = [link_output(f, inputs, y, gen) for y in ys]
    finally:
        _sharing = outer
    if Config.enable_backprop:
        f.outputs = [_ref(out) for out in outputs]
    return outputs if len(outputs) > 1 else outputs[0]


def call_one(f: Function, x: Any) -> Variable:
    """``f(x)`` for a Function of one input and one output: what ``__call__`` does,
    one call shorter (the built-ins call it with a Function made by ``new_instance``, not
    through ``type.__call__``: together a fifth of a scalar sin's time)."""
    if not isinstance(x, Variable):
        x = _as_constant(x)
    NOW.op = f  # forwards do not nest: no outer one to restore
    try:
        ys = f.forward(x.data)
    finally:
        NOW.op = None
    if type(ys) is not tuple:
        return link_output(f, [x], ys, x.generation)
    return _link_all(f, [x], ys, x.generation)
