"""Extrema at kinks and cusps, where f' changes sign without a root (f' does
not exist there): ``gradcli extrema``, ``:extrema`` and ``curve --mark``.

The truth is exact for these functions (piecewise linear, abs-based): the kink
and its kind are known, and each reported minimum or maximum is checked to be
one by central differences of f on either side, computed here with ``math``.
"""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest
from inprocess import gradcli

from gradcli.core.roots import extrema
from gradcli.session import Session
from gradcli.session.curves import drawn
from gradcli.session.extrema import expression_derivatives, find_extrema

ULP = 2 ** -52


def points(expr: str, over: str, *more: str) -> list[tuple[str, float, float]]:
    done = gradcli("extrema", expr, "--over", over, "--format", "json", *more)
    assert done.returncode == 0, done.stderr
    return [(p["kind"], p["x"], p["value"]) for p in json.loads(done.stdout)["extrema"]]


def inner(found: list[tuple[str, float, float]]) -> list[tuple[str, float, float]]:
    return [p for p in found if p[0] != "end"]


def slope_signs(f, x: float, h: float = 1e-6) -> tuple[int, int]:
    """The signs of f' just left and just right of x, by central differences."""
    def d(t: float) -> float:
        return (f(t + h / 4) - f(t - h / 4)) / (h / 2)
    return int(math.copysign(1, d(x - h))), int(math.copysign(1, d(x + h)))


def agrees(kind: str, f, x: float) -> bool:
    return slope_signs(f, x) == {"min": (-1, 1), "max": (1, -1)}[kind]


@pytest.mark.parametrize("over, more", [
    ("x=-1:1", ()), ("x=-1:2", ()), ("x=-1:1", ("--points", "2000")),
    ("x=-0.7:0.9", ("--points", "37")), ("x=-3:1", ())])
def test_abs_has_its_minimum_at_0_on_every_grid(over, more):
    # on -1:1, 0 is a grid point where abs' is 0 and abs'' is 0: it was called a max;
    # elsewhere f' jumps from -1 to 1 between grid points, and nothing was listed
    assert inner(points("abs(x)", over, *more)) == [("min", 0.0, 0.0)]


@pytest.mark.parametrize("expr, over, want", [
    ("abs(x-0.5)", "x=0:1", [("min", 0.5, 0.0)]),
    ("abs(x - 0.3)", "x=-1:1", [("min", 0.3, 0.0)]),
    ("abs(x - 0.3)", "x=-1:2", [("min", 0.3, 0.0)]),
    ("sqrt(x^2)", "x=-1:1", [("min", 0.0, 0.0)]),
    ("sqrt(x^2)", "x=-1:2", [("min", 0.0, 0.0)]),
    ("max(x,0) - x/2", "x=-1:1", [("min", 0.0, 0.0)]),
    ("max(x,0) - x/2", "x=-1:2", [("min", 0.0, 0.0)]),
    ("1 - abs(x - 0.25)", "x=-1:1", [("max", 0.25, 1.0)]),
    ("abs(x)^0.5", "x=-1:1", [("min", 0.0, 0.0)]),
    ("abs(x)^0.5", "x=-1:2", [("min", 0.0, 0.0)]),
    ("abs(x)^0.05", "x=-1:2", [("min", 0.0, 0.0)]),
    ("abs(x - 1e-9)", "x=0:1", [("min", 1e-9, 0.0)]),
    # the kink beats f'' = -2 there, which called it a max
    ("abs(x) - x^2", "x=-1:1", [("max", -0.5, 0.25), ("min", 0.0, 0.0), ("max", 0.5, 0.25)]),
])
def test_kinks_and_cusps_are_found_and_classified_exactly(expr, over, want):
    got = inner(points(expr, over))
    assert [p[0] for p in got] == [w[0] for w in want], got
    for (_, x, v), (_, wx, wv) in zip(got, want):
        assert abs(x - wx) <= 2 * ULP * max(1.0, abs(wx)), (x, wx)
        assert abs(v - wv) <= 4 * ULP * max(1.0, abs(wv)), (v, wv)


def test_piecewise_linear_kinks_within_a_few_ulps_and_the_slopes_agree():
    got = inner(points("clip(3*x,-1,1) - x", "x=-1:1"))
    assert [p[0] for p in got] == ["min", "max"]
    for (kind, x, v), want in zip(got, (-1 / 3, 1 / 3)):
        assert abs(x - want) <= 2 * ULP, x
        assert abs(v - 2 * want) <= 4 * ULP, v

        def f(t):
            return min(max(3 * t, -1.0), 1.0) - t
        assert agrees(kind, f, x)


def test_abs_of_sin_has_kinks_at_its_zeros():
    got = inner(points("abs(sin(x))", "x=-4:4"))
    want = [("min", -math.pi), ("max", -math.pi / 2), ("min", 0.0), ("max", math.pi / 2),
            ("min", math.pi)]
    assert [p[0] for p in got] == [w[0] for w in want], got
    for (kind, x, v), (_, wx) in zip(got, want):
        assert abs(x - wx) <= 4 * ULP * max(1, abs(wx)), (x, wx)
        assert abs(v - abs(math.sin(wx))) <= 1e-15
        assert agrees(kind, lambda t: abs(math.sin(t)), x)


@pytest.mark.parametrize("expr, over", [
    ("abs(x) + 2*x", "x=-1:1"),        # f' is 1 then 3: a kink, no extremum
    ("abs(x) + 2*x", "x=-1:2"),
    ("max(x, 0)", "x=-1:2"),           # f' 0 then 1: f is flat, no strict extremum
    ("floor(x)", "x=-1.5:1.5"),        # a step: f' is 0 on either side
    ("1/x^2", "x=-1:2"),               # f' changes sign at a pole of f
    ("1/x^2", "x=-1:1"),
    ("1/(x - 0.3)^2", "x=-1:1"),
    ("1/abs(x)", "x=-1:2"),
    ("1 - log(abs(3*x - 1))", "x=-1:1"),  # a log singularity: f grows without bound
    ("1 - log(abs(x))", "x=-1:1"),
    ("1 - log(abs(x))", "x=-1:2"),     # off the grid: f' overflows before 0
    ("abs(x) + floor(x)", "x=-1:2"),   # f jumps from -1 to 0 at 0: no minimum is attained
])
def test_no_extremum_where_f_keeps_rising_or_is_not_continuous(expr, over):
    assert [p for p in inner(points(expr, over)) if p[0] != "inflection"] == []


def test_a_kink_at_an_end_is_an_end():
    assert points("abs(x)", "x=0:1") == [("end", 0.0, 0.0), ("end", 1.0, 1.0)]
    assert points("abs(x)", "x=-1:0") == [("end", -1.0, 1.0), ("end", 0.0, 0.0)]


def test_a_jump_of_f2_is_an_inflection_point_on_every_grid():
    for over in ("x=-1:1", "x=-1:2"):
        assert inner(points("x*abs(x)", over)) == [("inflection", 0.0, 0.0)]


def test_random_kinks_on_random_grids():
    # abs(x - c) and 1 - 2*abs(x - c) + x/2: one minimum (maximum) at c, on grids that
    # put c between samples, on a sample, or within a cell of an end
    rng = random.Random(20261207)
    session = Session()
    for _ in range(40):
        a = rng.uniform(-3, 0)
        b = a + rng.choice([1e-6, 0.01, 1.0, 7.0])
        n = rng.choice([5, 17, 200, 2001, 2000])
        grid = np.linspace(a, b, n)
        c = float(rng.choice([rng.uniform(a, b), grid[rng.randrange(1, n - 1)],
                              a + (b - a) * 1e-4]))
        for text, kind, f in ((f"abs(x - {c!r})", "min", lambda t, c=c: abs(t - c)),
                              (f"1 - 2*abs(x - {c!r}) + x/2", "max",
                               lambda t, c=c: 1 - 2 * abs(t - c) + t / 2)):
            found = extrema(expression_derivatives(session, text, "x", []), a, b, n)
            got = [(p.kind, p.x) for p in found if p.kind != "end"]
            assert len(got) == 1 and got[0][0] == kind, (text, a, b, n, got)
            assert abs(got[0][1] - c) <= 2 * np.spacing(abs(c)), (text, a, b, n, got)
            assert agrees(kind, f, got[0][1]) or b - a < 1e-3


def test_smooth_extrema_keep_their_derivative_test():
    # a double root of f' is no extremum, a root of odd multiplicity is, and
    # close roots inside one grid cell keep their kinds
    assert inner(points("x^3", "x=-1:1")) == [("inflection", 0.0, 0.0)]
    assert [p[0] for p in inner(points("x^4", "x=-1:2"))] == ["min"]
    close = inner(points("x^4/4 - 1e-6*x^2/2", "x=-1:1"))
    assert [p[0] for p in close if p[0] != "inflection"] == ["min", "max", "min"]


def test_the_repl_and_curve_marks():
    done = gradcli("repl", stdin=":extrema abs(x) -1 1\n:extrema abs(x) -1 2\n")
    assert done.stdout.splitlines() == ["end  x = -1  f = 1", "min  x = 0  f = 0",
                                       "end  x = 1  f = 1", "min  x = 0  f = 0",
                                       "end  x = 2  f = 2"]
    from gradcli.render.curve import figure

    session = Session()
    item = drawn("abs(x)", "", "")
    marks = find_extrema(session, item, "x", -1, 1).points
    assert [(m.kind, m.x) for m in marks] == [("end", -1.0), ("min", 0.0), ("end", 1.0)]
    fig = figure(session.curve([item], "x", -1, 1), marks)
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["f", "min", "end"]


def test_two_kinks_in_one_cell_are_missed_as_documented_and_found_on_a_narrower_interval():
    notch = "x - 3*clip(x - 0.3, 0, 1e-6)"  # f' is 1, then -2 for 1e-6, then 1 again
    assert inner(points(notch, "x=-1:2")) == []
    got = inner(points(notch, "x=0.2999:0.3002"))
    assert [p[0] for p in got] == ["max", "min"]
    assert abs(got[0][1] - 0.3) <= 2 * ULP and abs(got[1][1] - 0.300001) <= 2 * ULP
    assert abs(got[0][2] - 0.3) <= 2 * ULP and abs(got[1][2] - 0.299998) <= 4 * ULP
