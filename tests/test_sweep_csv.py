"""Sweeps as tidy tables: CSV a row per point with a column per --at variable, JSON
--rows an object per point, both against the numbers eval gives point by point."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

from gradcli.render.csv import CsvRenderer, header
from gradcli.render.json import render_json, render_json_rows
from gradcli.render.numbers import format_value
from gradcli.render.plain import RenderOptions
from gradcli.render.sweep import point_shape, sweep_names
from gradcli.session import EvalOptions, Session


def sweep(text: str, at: dict[str, str], **options):
    s = Session()
    for name, value in at.items():
        s.bind_at(name, value)
    return s, s.run(text, EvalOptions(**options))


def table(text: str, at: dict[str, str], **options) -> list[dict[str, str]]:
    s, results = sweep(text, at, **options)
    shown = {k: v for k, v in options.items() if k != "wrt"}
    renderer = CsvRenderer(RenderOptions(**shown), sweep_names(s.at))
    out = renderer.header() + "".join(renderer.row(r) for r in results)
    assert "\r" not in out and out.endswith("\n")
    return list(csv.DictReader(io.StringIO(out)))


def eval_at(text: str, point: str, order: int):
    """What eval gives at one point: --at x=POINT --order N."""
    _, results = sweep(text, {"x": point}, order=order)
    return results[-1]


def test_one_row_per_point_with_the_values_eval_gives():
    rows = table("x^4 - 2x^2", {"x": "linspace(-2, 2, 9)"}, order=2)
    assert list(rows[0]) == ["input", "x", "value", "d1", "d2", "error"]
    assert [r["x"] for r in rows] == ["-2", "-1.5", "-1", "-0.5", "0", "0.5", "1", "1.5", "2"]
    for r in rows:
        one = eval_at("x^4 - 2x^2", r["x"], 2)
        assert r["input"] == "x^4 - 2x^2" and r["error"] == ""
        assert r["value"] == format_value(one.value)
        assert [r["d1"], r["d2"]] == [format_value(d) for d in one.derivatives]
        x = float(r["x"])
        assert float(r["d1"]) == pytest.approx(4 * x**3 - 4 * x, abs=1e-12)


def test_statements_follow_each_other_and_a_scalar_statement_is_one_row():
    rows = table("sin(x); 2 + 3; cos(x); f(t) = t; sinn(x)",
                 {"x": "linspace(0, 1, 3)", "a": "2"}, order=1)
    assert list(rows[0])[:5] == ["input", "x", "a", "value", "d1"]
    assert [r["input"] for r in rows] == ["sin(x)"] * 3 + ["2 + 3"] + ["cos(x)"] * 3 + [
        "f(t) = t", "sinn(x)"]
    assert [r["x"] for r in rows[:3]] == ["0", "0.5", "1"]
    assert all(r["a"] == "2" for r in rows[:8])  # a scalar --at value on every row
    scalar = rows[3]
    assert scalar["x"] == "" and scalar["value"] == "5" and scalar["d1"] == "0"
    for r, x in zip(rows[4:7], (0.0, 0.5, 1.0)):
        assert float(r["value"]) == np.cos(x) and float(r["d1"]) == -np.sin(x)
    assert rows[7]["value"] == "" and rows[7]["x"] == ""
    assert "did you mean sin" in rows[8]["error"] and rows[8]["x"] == ""


def test_two_array_variables_broadcast_to_their_points():
    rows = table("x*y", {"x": "[1, 2, 3]", "y": "[10, 20, 30]"}, wrt="x", order=1)
    assert [(r["x"], r["y"], r["value"], r["d1"]) for r in rows] == [
        ("1", "10", "10", "10"), ("2", "20", "40", "20"), ("3", "30", "90", "30")]


def test_a_result_of_another_shape_stays_one_row():
    rows = table("[x, x]", {"x": "linspace(0, 1, 3)"})
    assert len(rows) == 1 and rows[0]["value"] == "[[0, 0.5, 1], [0, 0.5, 1]]"


def test_check_and_gradient_columns_per_point():
    rows = table("x^3", {"x": "[1, 2]"}, order=1, check=True, grad=True)
    assert [r["check1_autodiff"] for r in rows] == ["3", "12"]
    assert all(r["check1_ok"] == "true" for r in rows)
    assert [r["gradient"] for r in rows] == ["x: 3", "x: 12"]
    assert float(rows[1]["check2_numerical"]) == pytest.approx(12, rel=1e-5)


def test_without_an_array_the_header_and_rows_are_as_before():
    s, results = sweep("x^2", {"x": "3"}, order=1)
    assert sweep_names(s.at) == []
    opts = RenderOptions(order=1)
    assert header(opts, sweep_names(s.at)) == ["input", "wrt", "value", "d1", "error"]
    assert CsvRenderer(opts, []).row(results[0]) == CsvRenderer(opts).row(results[0])


def test_a_million_points_are_a_million_rows():
    s, results = sweep("x^2", {"x": "linspace(0, 1, 1000001)"}, order=1)
    text = CsvRenderer(RenderOptions(order=1), ["x"]).row(results[0])
    lines = text.splitlines()
    assert len(lines) == 1_000_001
    assert lines[1] == "x^2,1e-06,1e-12,2e-06,"
    assert lines[-1] == "x^2,1,1,2,"


def test_json_rows_an_object_per_point_and_default_json_unchanged():
    s, results = sweep("x^2; 7", {"x": "linspace(0, 1, 3)"}, order=2)
    objs = [json.loads(line) for line in render_json_rows(results[0], ["x"]).splitlines()]
    assert objs == [
        {"input": "x^2", "at": {"x": 0.0}, "wrt": "x", "value": 0.0, "derivatives": [0.0, 2.0]},
        {"input": "x^2", "at": {"x": 0.5}, "wrt": "x", "value": 0.25,
         "derivatives": [1.0, 2.0]},
        {"input": "x^2", "at": {"x": 1.0}, "wrt": "x", "value": 1.0, "derivatives": [2.0, 2.0]},
    ]
    assert render_json_rows(results[1], ["x"]) == render_json(results[1])  # a scalar: as is
    whole = json.loads(render_json(results[0]))
    assert whole["value"] == [0.0, 0.25, 1.0] and whole["at"] == {"x": [0.0, 0.5, 1.0]}


def test_json_rows_write_nan_as_a_string():
    s, results = sweep("log(x)", {"x": "[-1, 1]"})
    objs = [json.loads(line) for line in render_json_rows(results[0], ["x"]).splitlines()]
    assert [o["value"] for o in objs] == ["nan", 0.0]


def test_point_shape_rules():
    s, results = sweep("x + 1; sum(x); x = 5", {"x": "[[1, 2], [3, 4]]"})
    assert point_shape(results[0], ["x"]) == (2, 2)
    assert point_shape(results[1], ["x"]) is None  # one number: one row
    assert point_shape(results[2], ["x"]) is None
