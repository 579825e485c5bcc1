"""Backprop: ``Variable.backward``, set on the class here (graph.py, below this
module, defines the nodes it walks).

The result is DeZero's; the mechanics differ where DeZero is slow or fragile:

* functions are popped from a heap keyed by generation instead of re-sorting a
  list on every insert, and the cyclic garbage collector is paused, since it
  otherwise rescans the growing graph many times during a long backward;
* nothing walks the graph recursively, so chains of any length work;
* without ``create_graph`` the gradients are arrays, not Variables (see
  ``_backward_data``); ``Constant`` inputs get none.
"""

from __future__ import annotations

import gc
import heapq
import itertools
from typing import Any

import numpy as np

from .backend import get_array_module
from .graph import Config, Constant, Function, Variable, as_data_array, new_instance
from .running import NOW, Running

_epoch = itertools.count(1).__next__


def backward(self: Variable, retain_grad: bool = False, create_graph: bool = False) -> None:
    """DeZero's ``Variable.backward``: the gradient of this variable by every
    variable it depends on, left in their ``grad`` (``create_graph``: as a graph
    that can be differentiated again)."""
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


def _variable(data: Any) -> Variable:
    """A Variable of an array (or a NumPy scalar) without __init__'s checks."""
    v = new_instance(Variable)
    v.data = data if type(data) is np.ndarray else as_data_array(data)
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
                gx = Variable(as_data_array(gx))
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


Variable.backward = backward  # type: ignore[method-assign]
