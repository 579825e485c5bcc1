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
import itertools
import weakref
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from .backend import as_cupy, as_numpy, get_array_module
from .running import NOW, Running


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
        gc_was_enabled = gc.isenabled()
        gc.disable()
        old_backprop = Config.enable_backprop
        Config.enable_backprop = create_graph
        # each Function owns what runs while it is differentiated (see running.py);
        # inside an owner already named, a scratch object takes the names unread
        now = NOW if NOW.owner is None else Running()
        now.derivative = True
        try:
            if create_graph:
                _backward_graph(self, retain_grad, now)
            else:
                _backward_data(self, retain_grad, now)
        finally:
            now.owner = None
            now.derivative = False
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

    if TYPE_CHECKING:  # set on the class by ops.py, which sits above this module
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


class Function:
    __slots__ = ("inputs", "outputs", "generation", "_visit", "__weakref__", "__dict__")
    op_name: str | None = None
    """How messages name this operation ('/', 'log'); None means the class name."""
    ufunc: Any = None
    """The NumPy ufunc that is this elementwise forward pass on NumPy arrays, if one
    is: a blockwise Taylor replay calls it with ``out=`` into its own buffers."""

    def __call__(self, *inputs: Any) -> Any:
        if len(inputs) == 1:
            return _call1(self, inputs[0])
        xs = [x if isinstance(x, Variable) else _as_constant(x) for x in inputs]
        outer = NOW.op
        NOW.op = self
        try:
            ys = self.forward(*[x.data for x in xs])
        finally:
            NOW.op = outer
        gen = max([x.generation for x in xs], default=0)
        if type(ys) is not tuple:
            return _link(self, xs, ys, gen)
        return _link_all(self, xs, ys, gen)

    def forward(self, *xs: Any) -> Any:
        raise NotImplementedError()

    def backward(self, *gys: Any) -> Any:
        raise NotImplementedError()


_new = object.__new__
_ref = weakref.ref
_ndarray = np.ndarray
_generic = np.generic
_asarray = np.asarray
_epoch = itertools.count(1).__next__


def _link(f: Function, inputs: list[Variable], y: Any, gen: int) -> Variable:
    """The output Variable of ``f`` holding ``y``, linked into the graph as the
    output of ``f`` over ``inputs`` (whose highest generation is ``gen``) while
    backprop is enabled; ``f``'s only output (a second call replaces the first).

    Every Function call and operator ends here: it is the innermost loop of every
    formula, so it builds the Variable without __init__'s checks.
    """
    out = _new(Variable)
    # NumPy ufuncs turn 0-d arrays into scalars; outputs are always arrays.
    out.data = (
        y if type(y) is _ndarray
        else _asarray(y) if isinstance(y, _generic)
        else _to_array(y)
    )
    out.name = None
    out.grad = None
    if Config.enable_backprop:
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
    """``_link`` for a Function of several outputs: a list of them (one: itself)."""
    outputs = [_link(f, inputs, y, gen) for y in ys]
    if Config.enable_backprop:
        f.outputs = [_ref(out) for out in outputs]
    return outputs if len(outputs) > 1 else outputs[0]


def _call1(f: Function, x: Any) -> Variable:
    """``f(x)`` for a Function of one input and one output: what ``__call__`` does,
    one call shorter (the built-ins call it with a Function made by ``_new``, not
    through ``type.__call__``: together a fifth of a scalar sin's time)."""
    if not isinstance(x, Variable):
        x = _as_constant(x)
    NOW.op = f  # forwards do not nest: no outer one to restore
    try:
        ys = f.forward(x.data)
    finally:
        NOW.op = None
    if type(ys) is not tuple:
        return _link(f, [x], ys, x.generation)
    return _link_all(f, [x], ys, x.generation)


def _variable(data: Any) -> Variable:
    """A Variable of an array (or a NumPy scalar) without __init__'s checks."""
    v = _new(Variable)
    v.data = data if type(data) is np.ndarray else _to_array(data)
    v.name = None
    v.grad = None
    v.creator = None
    v.generation = 0
    return v


def _first_visit(f: Function, epoch: int) -> bool:
    """Mark ``f`` seen in this backward pass; True the first time."""
    try:
        if f._visit == epoch:
            return False
    except AttributeError:  # a Function linked by hand (set_creator), not by __call__
        pass
    f._visit = epoch
    return True


def _zero_data(f: Function, out: Variable | None) -> Any:
    """The gradient of an output no path reached: zeros of its shape."""
    data = out.data if out is not None else f.inputs[0].data
    return get_array_module(data).zeros_like(data)


def _backward_graph(y: Variable, retain_grad: bool, now: Running) -> None:
    """DeZero's backward on Variables (``create_graph=True``): every gradient is
    computed by core operations, so it is itself a differentiable graph.
    ``now.owner`` is each Function while its backward runs."""
    f0 = y.creator
    epoch = _epoch()
    _first_visit(f0, epoch)
    # The counter breaks generation ties in first-seen order and keeps the
    # heap from ever comparing two Function objects.
    counter = 1
    heap: list[tuple[int, int, Function]] = [(-f0.generation, 0, f0)]
    push, pop = heapq.heappush, heapq.heappop
    while heap:
        f = pop(heap)[2]
        outputs = f.outputs
        now.owner = f
        if len(outputs) == 1:
            out = outputs[0]()
            gy = out.grad if out is not None else None
            gxs = f.backward(gy if gy is not None else Variable(_zero_data(f, out)))
        else:
            gys = []
            for ref in outputs:
                out = ref()
                gy = out.grad if out is not None else None
                gys.append(gy if gy is not None else Variable(_zero_data(f, out)))
            gxs = f.backward(*gys)
        now.owner = None  # summing gradients: the '+' is its own operation
        if type(gxs) is not tuple:
            gxs = (gxs,)
        for x, gx in zip(f.inputs, gxs):
            if gx is None or type(x) is Constant:
                continue
            if not isinstance(gx, Variable):
                gx = Variable(_to_array(gx))
            if x.grad is None:
                x.grad = gx
            else:
                x.grad = x.grad + gx
            creator = x.creator
            if creator is not None and _first_visit(creator, epoch):
                push(heap, (-creator.generation, counter, creator))
                counter += 1
        if not retain_grad:
            for ref in outputs:
                out = ref()
                if out is not None:
                    out.grad = None


_MISSING = object()
_SUM = "'+'"  # how fpe.py names the sums of gradients in the pass on arrays
_FAST: dict[type, Any] = {}


def _fast_backward_for(cls: type) -> Any:
    """The array-level backward of ``cls``, or None to call its ``backward``.

    A class gets the fast path only when the class that defines its ``backward``
    also defines ``_backward_data`` (the same derivative on arrays; the
    registry's elementwise classes carry theirs). A user's subclass that
    overrides ``backward`` is always called as written.
    """
    fast = None
    for klass in cls.__mro__:
        if "backward" in klass.__dict__:
            fast = klass.__dict__.get("_backward_data")
            break
    _FAST[cls] = fast
    return fast


def _call_backward(f: Function, gys: list[Any]) -> tuple[Any, ...]:
    """Call a Function's own ``backward`` on Variables; array gradients back."""
    wrapped = []
    for gy in gys:
        wrapped.append(_variable(gy))
    gxs = f.backward(*wrapped)
    if type(gxs) is not tuple:
        gxs = (gxs,)
    out = []
    for gx in gxs:
        out.append(gx.data if isinstance(gx, Variable) else gx)
    return tuple(out)


def _backward_data(y: Variable, retain_grad: bool, now: Running) -> None:
    """Backward without a graph of the gradient (``create_graph=False``).

    The result is DeZero's, computed with less machinery: while the pass runs,
    the gradients of intermediate variables are kept as bare arrays (or NumPy
    scalars) in a dict, built-in functions differentiate on arrays through
    ``_backward_data``, and only what DeZero leaves visible becomes a Variable:
    the ``grad`` of each input leaf, and of every variable under ``retain_grad``.
    Other Functions get Variables and run their ``backward`` as written.
    """
    f = y.creator
    epoch = _epoch()
    _first_visit(f, epoch)
    grads: dict[Variable, Any] = {y: y.grad.data}  # type: ignore[union-attr]
    counter = 1
    heap: list[tuple[int, int, Function]] = []
    push, pop = heapq.heappush, heapq.heappop
    fast_for = _FAST.get
    while True:
        now.owner = f
        outputs = f.outputs
        if len(outputs) == 1:
            out = outputs[0]()
            if out is None:
                gy = _zero_data(f, out)
            else:
                gy = grads.pop(out, None)
                if gy is None:
                    gy = _zero_data(f, out)
                out.grad = _variable(gy) if retain_grad else None
            fast = fast_for(type(f), _MISSING)
            if fast is _MISSING:
                fast = _fast_backward_for(type(f))
            if fast is not None:
                gxs = fast(f, gy)
            else:
                gxs = _call_backward(f, [gy])
        else:
            gys = []
            for ref in outputs:
                out = ref()
                gy = None if out is None else grads.pop(out, None)
                if gy is None:
                    gy = _zero_data(f, out)
                if out is not None:
                    out.grad = _variable(gy) if retain_grad else None
                gys.append(gy)
            gxs = _call_backward(f, gys)

        now.owner = _SUM
        inputs = f.inputs
        if len(inputs) == 1:
            if type(gxs) is tuple:
                gxs = gxs[0]
            x = inputs[0]
            if gxs is None or type(x) is Constant:
                nxt = None
            else:
                nxt = x.creator
                if nxt is None:  # an input leaf: its grad is what the user reads
                    g = x.grad
                    x.grad = _variable(gxs if g is None else g.data + gxs)
                else:
                    g = grads.get(x)
                    if g is None:
                        g = x.grad
                        grads[x] = gxs if g is None else g.data + gxs
                    else:
                        grads[x] = g + gxs
                    try:
                        if nxt._visit == epoch:
                            nxt = None
                        else:
                            nxt._visit = epoch
                    except AttributeError:
                        nxt._visit = epoch
            nxt_count = counter
            counter += 1
        else:
            if type(gxs) is not tuple:
                gxs = (gxs,)
            nxt = None
            nxt_count = 0
            for x, gx in zip(inputs, gxs):
                if gx is None or type(x) is Constant:
                    continue
                c = x.creator
                if c is None:
                    g = x.grad
                    x.grad = _variable(gx if g is None else g.data + gx)
                    continue
                g = grads.get(x)
                if g is None:
                    g = x.grad
                    grads[x] = gx if g is None else g.data + gx
                else:
                    grads[x] = g + gx
                try:
                    if c._visit == epoch:
                        continue
                except AttributeError:
                    pass
                c._visit = epoch
                if nxt is None:
                    nxt, nxt_count = c, counter
                else:
                    push(heap, (-c.generation, counter, c))
                counter += 1

        # A chain needs no heap: when nothing else is pending, the one new
        # creator is next.
        if nxt is not None:
            if not heap:
                f = nxt
                continue
            push(heap, (-nxt.generation, nxt_count, nxt))
        if not heap:
            break
        f = pop(heap)[2]
