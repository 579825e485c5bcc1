"""Floating-point warnings name the operation that the running code named
(core/running.py), never one found by looking at stack frames."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

import gradcli.core.functions as F
from gradcli.core import Function, Variable
from gradcli.core.fpe import capture_fp_errors
from gradcli.core.running import NOW, builtin, current, operation, rename


class Reciprocal(Function):
    """A user's Function: its forward divides, its backward divides again."""

    def forward(self, x: Any) -> Any:
        return 1.0 / x

    def backward(self, gy: Variable) -> Variable:
        (x,) = self.inputs
        return -gy / (x * x)


def test_a_user_function_is_named_by_its_class() -> None:
    with capture_fp_errors() as messages:
        y = Reciprocal()(Variable(np.array(0.0)))
    assert np.isinf(y.data)
    assert messages == ["reciprocal: infinite at a singularity; the result is infinite"]


def test_locals_of_the_callers_frame_name_nothing() -> None:
    # the old frame walk took a local called fpe_op (or fpe_builtin) for the name
    fpe_op = "'+'"  # noqa: F841
    fpe_builtin = "mean"  # noqa: F841
    with capture_fp_errors() as messages:
        F.log(Variable(np.array(-1.0)))
    assert messages == ["log: argument outside the domain; the result is nan"]


def test_a_derivative_is_named_by_the_function_differentiated() -> None:
    # Reciprocal's backward divides by zero in '/' and '*': that is its derivative
    for create_graph in (False, True):
        x = Variable(np.array(0.0))
        with capture_fp_errors() as messages:
            y = Reciprocal()(x)
            messages.clear()
            y.backward(create_graph=create_graph)
        assert messages, create_graph
        assert all(m.startswith("reciprocal: ") for m in messages), messages


def test_arithmetic_outside_any_operation_is_arithmetic() -> None:
    with capture_fp_errors() as messages, np.errstate(divide="call"):
        np.array(1.0) / np.array(0.0)
    assert messages == ["arithmetic: division by zero; the result is infinite"]


def test_what_runs_is_forgotten_after_an_operation_fails() -> None:
    class Broken(Function):
        def forward(self, x: Any) -> Any:
            raise RuntimeError("no")

    with pytest.raises(RuntimeError):
        Broken()(Variable(np.array(1.0)))
    with pytest.raises(RuntimeError), builtin("mean"):
        raise RuntimeError("no")
    assert (NOW.op, NOW.owner, NOW.derivative) == (None, None, False)
    assert current() == (None, False)


def test_an_outer_builtin_owns_the_operations_inside() -> None:
    with builtin("linspace"):
        with builtin("mean"):
            assert current() == ("linspace", False)
        F.sin(Variable(np.array(1.0)))
        assert current() == ("linspace", False)
    assert current() == (None, False)


def test_names_of_a_thread_are_its_own() -> None:
    seen: list[tuple[Any, bool]] = []

    def worker() -> None:
        with operation("derivative"):
            rename("sin", True)
            seen.append(current())
        seen.append(current())

    with operation("outer"):
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert current() == ("outer", False)
    assert seen == [("sin", True), (None, False)]
