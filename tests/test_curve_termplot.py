"""Curves in the terminal: braille text, the same for the same size (a stored
expectation), colour only when asked, and the 80x24 fallback for a 0x0 terminal."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest

from gradcli.render import termplot
from gradcli.render.termplot import render_terminal, terminal_size
from gradcli.session import Session
from gradcli.session.curves import sample_curves, session_evaluator

EXPECTED = Path(__file__).resolve().parent / "data" / "curve_sin_60x16.txt"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def data_of(exprs, a, b, points=200, order=0):
    return sample_curves(session_evaluator(Session()), exprs, "x", a, b, points, order)


def test_text_for_a_fixed_size_is_the_stored_one():
    text = render_terminal(data_of(["sin(x)"], 0, 6.3, order=1), 60, 16, colour=False)
    assert text == EXPECTED.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0].strip() == "f(x) = sin(x)"
    assert "f'" in lines[-1] and "\u28ff" in lines[-1]  # the legend, in braille samples
    assert all(len(line) <= 60 for line in lines) and len(lines) <= 15
    assert "\x1b" not in text
    braille = sum(1 for ch in text if 0x2801 <= ord(ch) <= 0x28FF)
    assert braille > 100  # two curves across the plot, not a blank frame


def test_colour_adds_escape_codes_only():
    data = data_of(["sin(x)"], 0, 6.3, order=1)
    coloured = render_terminal(data, 60, 16, colour=True)
    assert "\x1b[34m" in coloured and "\x1b[31m" in coloured  # f blue, f' red
    assert ANSI.sub("", coloured) == render_terminal(data, 60, 16, colour=False)


@pytest.mark.parametrize(("columns", "rows"), [(80, 24), (40, 12), (132, 50)])
def test_the_plot_fits_the_size_it_is_given(columns, rows):
    data = data_of(["tan(x)", "x/2"], -3, 3, points=400)
    lines = render_terminal(data, columns, rows, colour=False).splitlines()
    assert all(len(line) <= columns for line in lines)
    assert len(lines) <= rows - 1  # a row left for the prompt
    assert lines[-1].startswith("  y range clipped to")


def test_a_million_points_draw_in_the_terminal():
    data = data_of(["sin(x)"], 0, 10, points=1_000_000)
    text = render_terminal(data, 80, 24, colour=False)
    assert len(text.splitlines()) <= 23


def test_terminal_size_falls_back_to_80x24_on_0x0(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)
    monkeypatch.setattr(termplot.os, "get_terminal_size",
                        lambda fd: os.terminal_size((0, 0)))
    assert terminal_size() == (80, 24)
    monkeypatch.setattr(termplot.os, "get_terminal_size",
                        lambda fd: os.terminal_size((100, 30)))
    assert terminal_size() == (100, 30)

    def no_terminal(fd):
        raise OSError(25, "Inappropriate ioctl for device")

    monkeypatch.setattr(termplot.os, "get_terminal_size", no_terminal)
    assert terminal_size() == (80, 24)
    monkeypatch.setenv("COLUMNS", "120")
    assert terminal_size() == (120, 24)


def test_gaps_stay_gaps_in_the_terminal():
    # log(x) over -1:2 is undefined left of 0: nothing is drawn there
    data = data_of(["log(x)"], -1, 2)
    lines = render_terminal(data, 62, 20, colour=False).splitlines()
    plot = [line[1:61] for line in lines[2:-3] if line.startswith("\u2502")]
    left = [row[: len(row) // 3 - 1] for row in plot]  # x from -1 to about 0
    assert not any(0x2801 <= ord(ch) <= 0x28FF for row in left for ch in row)
    assert np.isnan(data.curves[0].y[0])


@pytest.mark.parametrize(("text", "unit"), [("1e300*x", "1e300"), ("1e-300*x", "1e-300")])
def test_huge_and_tiny_values_are_drawn_in_units_of_a_power_of_ten(text, unit):
    data = data_of([text], -1, 1)
    lines = render_terminal(data, 80, 24, colour=False).splitlines()
    assert lines[0].strip() == f"f(x) = {text}   (y in units of {unit})"
    assert sum(1 for line in lines for ch in line if 0x2801 <= ord(ch) <= 0x28FF) > 40
