"""core.mixing.mixes_elements: whether an expression mixes its variable's
elements, decided from the graph (issue 25, silent wrong numbers)."""

from __future__ import annotations

import numpy as np
import pytest

from gradcli.core import functions as F
from gradcli.core.graph import Constant, Variable
from gradcli.core.mixing import mixes_elements
from gradcli.lang.evaluate import Evaluator
from gradcli.lang.parser import parse
from gradcli.session import Session


def _graph(text: str, at: str) -> tuple[Variable, Variable]:
    """(y, x): ``text`` evaluated with its graph, after the assignments ``at``."""
    session = Session()
    session.run(at)
    ev = Evaluator(session, keep_graph=True)
    y = ev.eval(parse(text)[0].node)
    x = ev.leaf("x")
    assert x is not None and type(x) is not Constant
    return y, x


MIXING = [
    ("A @ x", "A = [[1, 2], [3, 4]]; x = [1, 1]"),
    ("x*sum(x)", "x = [1, 2]"),
    ("sum(x^2)", "x = [1, 2]"),
    ("x[0]*x", "x = [1, 2]"),
    ("max(x) + x", "x = [1, 2, 3]"),
    ("x - min(x)", "x = [1, 2, 3]"),
    ("transpose(x)*2", "x = [[1, 2], [3, 4]]"),
    ("[x[1], x[0]]", "x = [1, 2]"),
    ("reshape(x, 2, 2)", "x = [1, 2, 3, 4]"),
    ("x*ones(3, 2)", "x = [1, 2]"),  # x broadcast over a larger shape
    ("x[0]", "x = [1, 2]"),
]

ELEMENTWISE = [
    ("sin(x)*x + 2", "x = [1, 2]"),
    ("x^2", "x = [1, 2]"),
    ("exp(x)/(1 + x)", "x = [1, 2, 3]"),
    ("x*[1, 2] + a", "x = [1, 2]; a = 5"),  # constants broadcast, same shape
    ("tanh(x)^x - sqrt(abs(x))", "x = [[1, 2], [3, 4]]"),
    ("x*[1, 2, 3]", "x = 2"),  # one element of x pairs with every element of y
    ("sum(x)", "x = 2"),  # the sum of one element
    ("transpose(x)", "x = [1, 2, 3]"),  # 1-D: nothing moves
    ("7", "x = [1, 2]"),  # no dependence on x
]


@pytest.mark.parametrize(("text", "at"), MIXING)
def test_mixing_expressions_are_found(text: str, at: str) -> None:
    y, x = _graph(text, at)
    assert mixes_elements(y, x) is True


@pytest.mark.parametrize(("text", "at"), ELEMENTWISE)
def test_elementwise_expressions_are_not(text: str, at: str) -> None:
    y, x = _graph(text, at)
    assert mixes_elements(y, x) is False


def test_a_deep_elementwise_chain_does_not_recurse() -> None:
    x = Variable(np.array([0.1, 0.2]))
    y = x
    for _ in range(5000):
        y = F.sin(y) + x
    assert mixes_elements(y, x) is False
    assert mixes_elements(F.sum(y) * x, x) is True


def test_the_answer_agrees_with_the_jacobian() -> None:
    # elementwise exactly when the Jacobian of y by x is diagonal (central differences)
    a = np.array([0.3, 0.7, 1.1])
    cases = {
        "sin(x)*x + 2": lambda v: np.sin(v) * v + 2,
        "x*sum(x)": lambda v: v * np.sum(v),
        "x[0]*x": lambda v: v[0] * v,
        "exp(x)/(1 + x)": lambda v: np.exp(v) / (1 + v),
    }
    for text, f in cases.items():
        y, x = _graph(text, "x = [0.3, 0.7, 1.1]")
        jac = np.empty((3, 3))
        for j in range(3):
            e = np.zeros(3)
            e[j] = 1e-6
            jac[:, j] = (f(a + e) - f(a - e)) / 2e-6
        off_diagonal = np.abs(jac - np.diag(np.diag(jac))).max()
        assert mixes_elements(y, x) is bool(off_diagonal > 1e-8), text
