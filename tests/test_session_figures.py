"""Session.curve and Session.graph return data; the shells only parse and render."""

from __future__ import annotations

import numpy as np
import pytest

from gradcli.cli.words import CLI_WORDS
from gradcli.errors import GradcliError, UsageError
from gradcli.figures import Curves, GraphResult
from gradcli.session import Session
from gradcli.session.curves import drawn


def _items(*texts: str) -> list:
    return [drawn(t, "example", "many") for t in texts]


def test_curve_runs_each_setup_and_returns_curves() -> None:
    session = Session(words=CLI_WORDS)
    data = session.curve(_items("a = 2; a*sin(x)", "f(t) = t^3; f(x)"), "x", 0.0, 1.0,
                         points=5, order=1)
    assert isinstance(data, Curves)
    assert [c.label for c in data.curves] == ["a*sin(x)", "d/dx a*sin(x)", "f(x)", "d/dx f(x)"]
    x = np.linspace(0, 1, 5)
    np.testing.assert_allclose(data.curves[0].y, 2 * np.sin(x))
    np.testing.assert_allclose(data.curves[1].y, 2 * np.cos(x))
    np.testing.assert_allclose(data.curves[3].y, 3 * x**2)
    # the grid's binding and ans are gone; the setup's assignment stays
    assert "x" not in session.values and float(session.values["a"]) == 2


def test_a_curve_error_names_the_argument_it_is_positioned_in() -> None:
    session = Session(words=CLI_WORDS)
    with pytest.raises(GradcliError) as info:
        session.curve(_items("sin(x)", "y = 1; cos(x) + nosuch"), "x", 0.0, 1.0, points=3)
    assert info.value.source == "y = 1; cos(x) + nosuch"
    assert (info.value.line, info.value.column) == (1, 17)


def test_a_given_variable_that_the_expression_lacks_is_named() -> None:
    session = Session(words=CLI_WORDS)
    with pytest.raises(UsageError, match="has no x but y"):
        session.curve(_items("sin(y)"), "x", 0.0, 1.0, points=3, var_given=True)


def test_curve_variable_runs_the_setup_once_and_finds_the_variable() -> None:
    session = Session()
    var, item = session.curve_variable(drawn("g(t) = t*k; g(2)", "e", "m"))
    assert var == "k" and item.setup == [] and "g" in session.functions
    assert session.curve_variable(drawn("5", "e", "m"))[0] == "x"


def test_graph_is_data() -> None:
    session = Session()
    g = session.graph("f(t) = t^2; f(x)", order=1, stand_ins=True)
    assert isinstance(g, GraphResult) and g.order == 1 and g.wrt == "x"
    assert g.dot.startswith("digraph") and g.nodes > 0


def test_number_reads_a_range_end_and_binds_nothing() -> None:
    session = Session()
    session.run("a = 3")
    assert session.number("2a") == 6.0
    assert set(session.values) == {"a"} and session.at == {} and session.at_text == {}
