"""Issue 25 and 23 wiring in the session: limits at removable singularities as
values, and expressions that mix an array's elements warned of or refused."""

from __future__ import annotations

import math

import pytest

from gradcli.cli.words import CLI_WORDS
from gradcli.session import EvalOptions, Session


def _last(text: str, **options: object):
    return Session(words=CLI_WORDS).run(text, EvalOptions(**options))[-1]


@pytest.mark.parametrize("text, want", [
    ("sin(x)/x", [1.0, 0.0, -1 / 3]),
    ("(exp(x) - 1)/x", [1.0, 0.5, 1 / 3]),
    ("x^2/x", [0.0, 1.0, 0.0]),
])
def test_the_value_at_a_removable_singularity_is_the_limit(text, want) -> None:
    res = _last(f"x = 0; {text}", order=2)
    got = [float(res.value), *map(float, res.derivatives)]
    assert got == pytest.approx(want, abs=1e-14)
    assert res.warnings == []  # no nan is left to warn of
    assert math.isnan(float(_last("x = 0; 1/x - 1/x").value))  # constant forms unchanged


@pytest.mark.parametrize("text", ["x*sum(x)", "A @ x", "x[0]*x"])
def test_an_expression_that_mixes_elements_warns_for_orders_and_diff(text) -> None:
    setup = "A = [[1, 2], [3, 4]]; x = [1, 2]; "
    for res in (_last(setup + text, order=1, wrt="x"), _last(setup + f"diff({text}, x)")):
        assert any("mixes the elements of x" in w for w in res.warnings), res.warnings
    assert _last(setup + "sin(x)*x", order=1).warnings == []


def test_a_series_refuses_an_expression_that_mixes_elements() -> None:
    res = _last("A = [[1, 2], [3, 4]]; x = [1, 1]; A @ x", series=1, wrt="x")
    assert res.error is not None and res.error.exit_status == 2
    assert "mixes the elements of x" in res.error.message
