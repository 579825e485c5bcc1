"""Variables, Functions and backprop: the heart of the DeZero-style engine.

The names and behaviour follow DeZero (steps 1-40 of "Deep Learning from
Scratch 3") so that code written against it runs unchanged. Where DeZero is
slow or fragile the mechanics differ, not the interface:

* backward pops functions from a heap keyed by generation instead of
  re-sorting a list on every insert, and pauses the cyclic garbage collector,
  which otherwise rescans the growing graph many times during a long backward;
* nothing walks the graph recursively, so chains of any length work;
* operands that are not Variables become ``Constant`` leaves, whose gradients
  are never computed (a derivative of ``2 ** x`` never evaluates ``log`` of a
  base the user cannot differentiate by).
"""

from __future__ import annotations

import contextlib
import gc
import heapq
import weakref
from collections.abc import Iterator
from typing import Any

import numpy as np

from .backend import as_cupy, as_numpy, get_array_module


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


def _to_array(y: Any) -> Any:
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

    def backward(self, retain_grad: bool = False, create_graph: bool = False) -> None:
        if self.grad is None:
            xp = get_array_module(self.data)
            self.grad = Variable(xp.ones_like(self.data))
        if self.creator is None:
            return

        # The counter breaks generation ties in first-seen order and keeps the
        # heap from ever comparing two Function objects.
        counter = 1
        heap: list[tuple[int, int, Function]] = [(-self.creator.generation, 0, self.creator)]
        seen = {id(self.creator)}
        push, pop = heapq.heappush, heapq.heappop
        gc_was_enabled = gc.isenabled()
        gc.disable()
        old_backprop = Config.enable_backprop
        Config.enable_backprop = create_graph
        try:
            while heap:
                f = pop(heap)[2]
                outputs = f.outputs
                if len(outputs) == 1:
                    out = outputs[0]()
                    gy = out.grad if out is not None else None
                    gxs = f.backward(gy if gy is not None else _zero_grad(f, out))
                else:
                    gys = []
                    for ref in outputs:
                        out = ref()
                        gy = out.grad if out is not None else None
                        gys.append(gy if gy is not None else _zero_grad(f, out))
                    gxs = f.backward(*gys)
                if type(gxs) is not tuple:
                    gxs = (gxs,)
                for x, gx in zip(f.inputs, gxs):
                    if gx is None or type(x) is Constant:
                        continue
                    if x.grad is None:
                        x.grad = gx
                    else:
                        x.grad = x.grad + gx
                    creator = x.creator
                    if creator is not None and id(creator) not in seen:
                        seen.add(id(creator))
                        push(heap, (-creator.generation, counter, creator))
                        counter += 1
                if not retain_grad:
                    for ref in outputs:
                        out = ref()
                        if out is not None:
                            out.grad = None
        finally:
            Config.enable_backprop = old_backprop
            if gc_was_enabled:
                gc.enable()

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

    def reshape(self, *shape: Any) -> Variable:
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return reshape(self, shape)

    def transpose(self, *axes: Any) -> Variable:
        if len(axes) == 0:
            axes = None
        elif len(axes) == 1 and (isinstance(axes[0], (tuple, list)) or axes[0] is None):
            axes = axes[0]
        return transpose(self, axes)

    @property
    def T(self) -> Variable:
        return transpose(self)

    def sum(self, axis: Any = None, keepdims: bool = False) -> Variable:
        return sum(self, axis, keepdims)

    # Operators are plain methods (no monkeypatching): the functions they call
    # are bound at the bottom of this module, once ops.py exists.
    def __add__(self, other: Any) -> Variable:
        return add(self, other)

    def __radd__(self, other: Any) -> Variable:
        return add(self, other)

    def __sub__(self, other: Any) -> Variable:
        return sub(self, other)

    def __rsub__(self, other: Any) -> Variable:
        return rsub(self, other)

    def __mul__(self, other: Any) -> Variable:
        return mul(self, other)

    def __rmul__(self, other: Any) -> Variable:
        return mul(self, other)

    def __truediv__(self, other: Any) -> Variable:
        return div(self, other)

    def __rtruediv__(self, other: Any) -> Variable:
        return rdiv(self, other)

    def __neg__(self) -> Variable:
        return neg(self)

    def __pos__(self) -> Variable:
        return self

    def __pow__(self, other: Any) -> Variable:
        return pow(self, other)

    def __rpow__(self, other: Any) -> Variable:
        return rpow(self, other)

    def __matmul__(self, other: Any) -> Variable:
        return matmul(self, other)

    def __rmatmul__(self, other: Any) -> Variable:
        return matmul(other, self)

    def __getitem__(self, slices: Any) -> Variable:
        return get_item(self, slices)


def _zero_grad(f: Function, out: Variable | None) -> Variable:
    """The gradient of an output no path reached: zeros of its shape."""
    data = out.data if out is not None else f.inputs[0].data
    return Variable(get_array_module(data).zeros_like(data))


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


class Function:
    __slots__ = ("inputs", "outputs", "generation", "__weakref__", "__dict__")
    op_name: str | None = None
    """How messages name this operation ('/', 'log'); None means the class name."""

    def __call__(self, *inputs: Any) -> Any:
        # Written without comprehensions: on CPython 3.11 each one costs about
        # as much as the NumPy operation itself for the scalar case.
        if len(inputs) == 1:
            x = inputs[0]
            if not isinstance(x, Variable):
                x = _as_constant(x)
            inputs = [x]
            gen = x.generation
            ys = self.forward(x.data)
        else:
            inputs = list(inputs)
            datas = []
            gen = 0
            for i, x in enumerate(inputs):
                if not isinstance(x, Variable):
                    x = inputs[i] = _as_constant(x)
                datas.append(x.data)
                if x.generation > gen:
                    gen = x.generation
            ys = self.forward(*datas)
        if type(ys) is not tuple:
            # NumPy ufuncs turn 0-d arrays into scalars; outputs are always arrays.
            out = Variable(ys if type(ys) is np.ndarray else _to_array(ys))
            if Config.enable_backprop:
                self.generation = gen
                out.creator = self
                out.generation = gen + 1
                self.inputs = inputs
                self.outputs = [weakref.ref(out)]
            return out
        outputs = [Variable(_to_array(y)) for y in ys]
        if Config.enable_backprop:
            self.generation = gen
            for out in outputs:
                out.creator = self
                out.generation = gen + 1
            self.inputs = inputs
            self.outputs = [weakref.ref(out) for out in outputs]
        return outputs if len(outputs) > 1 else outputs[0]

    def forward(self, *xs: Any) -> Any:
        raise NotImplementedError()

    def backward(self, *gys: Any) -> Any:
        raise NotImplementedError()


# Bound last: ops.py builds on Variable and Function above.
from .ops import (  # noqa: E402
    add,
    div,
    get_item,
    matmul,
    mul,
    neg,
    pow,
    rdiv,
    reshape,
    rpow,
    rsub,
    sub,
    sum,
    transpose,
)
