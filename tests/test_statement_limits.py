"""Limits and notes of single statements (issue: answers a user can trust)."""

from __future__ import annotations

import pytest

from gradcli.cli.words import CLI_WORDS
from gradcli.lang.evaluate import MAX_STEPS
from gradcli.session import EvalOptions, Session


def _last(text: str, **options: object):
    return Session(words=CLI_WORDS).run(text, EvalOptions(**options))[-1]


def _chain(n: int, doubling: bool) -> str:
    lines = ["f0(t) = t"]
    for i in range(1, n + 1):
        body = f"f{i - 1}(f{i - 1}(t))" if doubling else f"f{i - 1}(t) + 1"
        lines.append(f"f{i}(t) = {body}")
    return "\n".join(lines)


def test_a_deep_chain_of_distinct_functions_does_not_suggest_recursion() -> None:
    res = _last(_chain(69, doubling=False) + "\nf64(1)")
    assert res.error is not None and "nested deeper than 64" in res.error.message
    assert "itself" not in res.error.message
    recursive = _last("g(t) = g(t) + 1\ng(1)")
    assert "is g defined in terms of itself?" in recursive.error.message


def test_calls_of_calls_stop_on_the_step_budget_promptly() -> None:
    import time

    start = time.perf_counter()
    res = _last(_chain(40, doubling=True) + "\nf40(1)", order=1)
    assert res.error is not None and f"{MAX_STEPS:,} steps" in res.error.message
    assert not res.error.message.startswith("in ")
    assert time.perf_counter() - start < 20
    assert float(_last(_chain(8, doubling=True) + "\nf8(2)").value) == 2.0


@pytest.mark.parametrize("text", [
    "a = linspace(0, 1, 4000000); b = [a, a]; c = [b, b]",
    "a = reshape(linspace(0, 1, 1000000), [1000000, 1]); "
    "b = reshape(linspace(0, 1, 100), [1, 100]); a @ b",
])
def test_the_element_limit_holds_for_array_literals_and_matmul(text: str) -> None:
    res = _last(text)
    assert res.error is not None and res.error.kind == "math"
    assert "the limit is 10,000,000" in res.error.message


@pytest.mark.parametrize("options", [
    {}, {"order": 1}, {"check": True}, {"series": 2}, {"order": 3, "wrt": "x"}, {"grad": True},
])
def test_a_closed_statement_gives_its_value_under_every_option(options) -> None:
    res = _last("x = 2\ndiff(x^3, x, 1000, 1)", **options)
    assert res.error is None, res.error
    assert float(res.value) == 0.0
    for d in res.derivatives or []:
        assert float(d) == 0.0


def test_diff_of_a_value_says_it_holds_no_formula() -> None:
    res = _last("x = 2; y = x^2; diff(y, x)")
    assert float(res.value) == 0.0
    assert any("'y' holds a value, not a formula in x" in w and "y(x) = ..." in w
               for w in res.warnings)
    assert _last("x = 2; y(x) = x^2; diff(y(x), x)").warnings == []
    assert float(_last("x = 2; y(x) = x^2; diff(y(x), x)").value) == 4.0
