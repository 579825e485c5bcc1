"""Ranges: --at x=START:STOP:STEP and --over x=A:B, their ends being expressions."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gradcli.errors import LimitError, UnknownNameError, UsageError
from gradcli.lang.ranges import at_range, is_range, over_range, range_points, split_range
from gradcli.session import Session


def number(text: str) -> float:
    """Evaluate as --at does, by a session (the caller's callback)."""
    return float(Session().bind_at("t", text))


@pytest.mark.parametrize(("text", "expected"), [
    ("0:1:0.25", [0, 0.25, 0.5, 0.75, 1]),
    ("0:1:0.3", [0, 0.3, 0.6, 0.9]),  # the stop is not on a step: left out
    ("1:0:-0.5", [1, 0.5, 0]),
    ("-1:-1:1", [-1]),
    ("2:3:2", [2]),
])
def test_points_of_a_range(text, expected):
    np.testing.assert_allclose(at_range("x", text, number), expected, rtol=0, atol=1e-15)


def test_the_stop_is_included_where_it_lands_within_rounding():
    points = at_range("x", "0:1:0.1", number)
    assert points.size == 11 and points[-1] == 1.0  # 10 * 0.1 is 0.9999999999999999
    np.testing.assert_array_equal(points[:-1], 0.1 * np.arange(10))
    points = at_range("x", "0:2pi:pi/4", number)
    assert points.size == 9 and points[-1] == 2 * math.pi
    assert range_points(0, 0.3, 0.1).size == 4  # 0.3/0.1 = 2.9999999999999996


def test_no_step_suggests_one_and_linspace():
    with pytest.raises(UsageError) as info:
        at_range("x", "0:1", number)
    message = info.value.message
    assert "x=0:1 has no step" in message
    assert "x=0:1:0.1" in message and "linspace(0, 1, N)" in message


@pytest.mark.parametrize(("text", "words"), [
    ("0:1:0", "step is 0"),
    ("0:1:-0.1", "leads away from the stop 1; use 0.1"),
    ("0:1:2:3", "not a range"),
    ("0::1", "not a range"),
    ("0:inf:1", "must be a finite number"),
])
def test_bad_ranges(text, words):
    with pytest.raises(UsageError) as info:
        at_range("x", text, number)
    assert words in info.value.message


def test_too_many_points_is_a_limit():
    with pytest.raises(LimitError):
        at_range("x", "0:1:1e-9", number)


def test_parts_are_the_callers_expressions_and_its_errors():
    seen = []

    def evaluate(text: str) -> float:
        seen.append(text)
        return number(text)

    at_range("x", " 0 : [1, 2][1] : 1/2 ", evaluate)
    assert seen == ["0", "[1, 2][1]", "1/2"]
    with pytest.raises(UnknownNameError):
        at_range("x", "0:b:1", number)


def test_colons_inside_brackets_do_not_split():
    assert split_range("A[0:2]") == ["A[0:2]"] and not is_range("A[0:2]")
    assert split_range("sum(A[0:2]):5:1") == ["sum(A[0:2])", "5", "1"]
    assert at_range("x", "linspace(0, 1, 3)", number) is None  # not a range: the caller's


def test_over_takes_two_ends():
    assert over_range("x", "0:2pi", number) == (0.0, 2 * math.pi)
    assert over_range("x", "-5:5", number) == (-5.0, 5.0)
    for text, words in (("0:1:0.1", "not an interval"), ("1:0", "is empty"),
                        ("3", "not an interval")):
        with pytest.raises(UsageError) as info:
            over_range("x", text, number)
        assert words in info.value.message


def test_session_number_sees_the_sessions_names_and_binds_nothing():
    from gradcli.session.curves import session_number

    s = Session()
    s.run("a = 3; f(t) = 2t")
    number = session_number(s)
    assert over_range("x", "-a:f(a)", number) == (-3.0, 6.0)
    np.testing.assert_array_equal(at_range("x", "0:a:1", number), [0, 1, 2, 3])
    assert set(s.values) == {"a"} and s.at == {}
    with pytest.raises(UsageError):
        number("[1, 2]")
