"""Renderers: Result objects to plain lines, JSON Lines, CSV rows and rich tables."""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pytest

from gradcli.errors import GradcliError
from gradcli.render import numbers
from gradcli.render.csv import CsvRenderer, header
from gradcli.render.errors import format_error
from gradcli.render.json import error_json, render_json, strict
from gradcli.render.numbers import format_number, format_value
from gradcli.render.plain import RenderOptions, render_plain, series_text
from gradcli.render.table import TableRenderer
from gradcli.session import EvalOptions, Session


def results(text: str, at: dict[str, str] | None = None, **options):
    s = Session()
    for name, value in (at or {}).items():
        s.bind_at(name, value)
    return s.run(text, EvalOptions(**options))


def one(text: str, at: dict[str, str] | None = None, **options):
    return results(text, at, **options)[-1]


# --- series polynomials ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("coefficients", "point", "digits", "expected"),
    [
        ([8, 12, 6, 1], 2, None, "8 + 12*(x - 2) + 6*(x - 2)^2 + (x - 2)^3"),
        ([1, 1, 0.5], 0, None, "1 + x + x^2/2"),
        ([0, -1, 0, 1 / 6], 0, 3, "-x + x^3/6"),
        ([-0.125, 0.75, -1.5, 1], -0.5, None,
         "-1/8 + 3*(x + 0.5)/4 - 3*(x + 0.5)^2/2 + (x + 0.5)^3"),
        ([0, 0, 0], 1, None, "0"),
        ([2, 0, -3], 1.5, None, "2 - 3*(x - 1.5)^2"),
        ([math.nan, math.inf, -math.inf], 0, None, "nan + inf*x - inf*x^2"),
        ([5], 3, None, "5"),
    ],
)
def test_series_text(coefficients, point, digits, expected):
    assert series_text(coefficients, "x", point, digits) == expected


def test_series_text_over_an_array_point():
    text = series_text([np.array([0.0, 1.0]), np.array([1.0, 2.0])], "t", np.array([0.0, 1.0]))
    assert text == "[0, 1] + [1, 2]*(t - [0, 1])"
    # all-zero terms left out, all-one coefficients not written; the value stays
    text = series_text([np.array([0.0, 0.0]), np.array([1.0, 1.0]), np.zeros(2),
                        np.array([0.0, np.nan])], "x", np.array([1.0, 2.0]))
    assert text == "[0, 0] + (x - [1, 2]) + [0, nan]*(x - [1, 2])^3"


# --- plain ---------------------------------------------------------------------------


def test_plain_prints_values_and_orders_only():
    opts = RenderOptions(order=2)
    res = results("x = 2; f(t) = t^2; x**4 - 2*x**2; sinn(1)", order=2)
    assert [render_plain(r, opts) for r in res] == [[], [], ["8", "24", "44"], []]


def test_plain_with_check_grad_and_digits():
    opts = RenderOptions(order=1, check=True, grad=True, digits=4)
    res = one("x*y", {"x": "2", "y": "3"}, order=1, check=True, grad=True, wrt="x")
    lines = render_plain(res, opts)
    assert lines[:2] == ["6", "3"]
    assert lines[2:4] == ["d/dx: 3", "d/dy: 2"]
    assert lines[4].startswith("check order 1: autodiff 3 numerical 3 abs_error ")
    assert lines[4].endswith(" pass")
    assert lines[5].startswith("check order 2: autodiff 0 ")


def test_plain_series_alone_is_one_line_and_with_orders_follows_them():
    res = one("x**3", {"x": "2"}, series=3)
    assert render_plain(res, RenderOptions(series=3), point=2.0) == [
        "8 + 12*(x - 2) + 6*(x - 2)^2 + (x - 2)^3"
    ]
    res = one("x**3", {"x": "2"}, series=1, order=1)
    assert render_plain(res, RenderOptions(series=1, order=1), point=2.0) == [
        "8", "12", "8 + 12*(x - 2)"
    ]


def test_plain_arrays_are_one_line_each():
    res = one("x**2", {"x": "[1, 2, 3]"}, order=1)
    assert render_plain(res, RenderOptions(order=1)) == ["[1, 4, 9]", "[2, 4, 6]"]


@pytest.mark.parametrize("chunk", [65536, 3])
@pytest.mark.parametrize("digits", [None, 4])
@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 1, 3), (1, 5), (5, 2)])
def test_arrays_are_formatted_as_their_numbers_one_by_one(monkeypatch, chunk, digits, shape):
    monkeypatch.setattr(numbers, "CHUNK", chunk)  # 3: chunks end inside rows and between
    special = [math.nan, math.inf, -math.inf, -0.0, 0.0, 3.0, -12.0, 1e16, 2.0**60, 1e-5,
               -2.5e-10, 0.1, 1 / 3, 123456.5]
    rng = np.random.default_rng(len(shape))
    arr = rng.choice(special, size=shape) * rng.choice([1.0, -1.0], size=shape)

    def one_by_one(a):
        if a.ndim == 0:
            return format_number(float(a), digits)
        return "[" + ", ".join(one_by_one(item) for item in a) + "]"

    assert format_value(arr, digits) == one_by_one(arr)
    assert format_value(arr.astype(np.float32), digits) == one_by_one(arr.astype(np.float32))
    ints = np.arange(int(np.prod(shape))).reshape(shape) - 3
    assert format_value(ints, digits) == one_by_one(ints)


def test_a_million_point_array_is_one_line_of_shortest_numbers():
    arr = np.linspace(-2.0, 2.0, 1_000_001)
    text = format_value(arr)
    assert text.startswith("[-2, -1.999996, ") and text.endswith(", 2]")
    assert text.count(",") == 1_000_000


# --- JSON ----------------------------------------------------------------------------


def test_strict_replaces_non_finite_numbers_only():
    data = {"a": [1.5, math.nan, [math.inf, -math.inf]], "b": "nan", "c": True, "d": None,
            "e": [0.5, 2.5], "f": [0.5, math.inf], "g": [0.5, "x", math.nan]}
    assert strict(data) == {"a": [1.5, "nan", ["inf", "-inf"]], "b": "nan", "c": True,
                            "d": None, "e": [0.5, 2.5], "f": [0.5, "inf"],
                            "g": [0.5, "x", "nan"]}


def test_json_lines_are_strict_and_full_precision():
    res = results("0.1 + 0.2; log(-1); [1/0, -1/0]; f(x) = x; sinn(2)")
    lines = [render_json(r) for r in res]
    objs = [json.loads(line, parse_constant=lambda c: pytest.fail(c)) for line in lines]
    assert objs[0]["value"] == 0.30000000000000004
    assert objs[1]["value"] == "nan"
    assert objs[2]["value"] == ["inf", "-inf"]
    assert objs[3] == {"input": "f(x) = x", "at": {}, "defined": "f(x)"}
    assert objs[4]["error"]["kind"] == "name"
    assert objs[4]["error"]["line"] == 1 and objs[4]["error"]["column"] == 44
    assert all("\n" not in line for line in lines)


def test_json_check_and_gradient_entries():
    res = one("x**2 * y", {"x": "2", "y": "3"}, wrt="x", order=1, check=True, grad=True)
    obj = json.loads(render_json(res))
    assert obj["gradient"] == {"x": 12.0, "y": 4.0}
    assert obj["derivatives"] == [12.0]
    assert obj["check"][0]["ok"] is True and obj["check"][1]["order"] == 2


def test_error_json_without_a_position():
    obj = json.loads(error_json("x", "device", "no GPU"))
    assert obj == {"input": "x", "error": {"kind": "device", "message": "no GPU"}}


# --- CSV -----------------------------------------------------------------------------


def test_csv_header_follows_the_options():
    assert header(RenderOptions()) == ["input", "value", "error"]
    cols = header(RenderOptions(order=2, grad=True, series=1, check=True))
    assert cols[:5] == ["input", "wrt", "value", "d1", "d2"]
    assert cols[5:8] == ["gradient", "c0", "c1"]
    assert cols[8:14] == ["check1_autodiff", "check1_numerical", "check1_abs_error",
                          "check1_rel_error", "check1_est_error", "check1_ok"]
    assert cols[-1] == "error"


def test_csv_rows_parse_back():
    opts = RenderOptions(order=1, grad=True)
    renderer = CsvRenderer(opts)
    text = renderer.header() + "".join(
        renderer.row(r)
        for r in results('x = 2; y = 3; x*y + max([x, y]); f(t) = t; 1/0; sinn(x)',
                         order=1, grad=True, wrt="x")
    )
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["input"] for r in rows] == ["x = 2", "y = 3", "x*y + max([x, y])", "f(t) = t",
                                          "1/0", "sinn(x)"]
    assert rows[0]["value"] == "2" and rows[0]["d1"] == ""
    assert rows[2]["value"] == "9" and rows[2]["d1"] == "3" and rows[2]["wrt"] == "x"
    assert rows[2]["gradient"] == "x: 3; y: 3"  # max([x, y]) follows y
    assert rows[3]["value"] == ""
    assert rows[4]["value"] == "inf"
    assert "did you mean sin" in rows[5]["error"] and rows[5]["value"] == ""
    assert text.count("\r") == 0


@pytest.mark.parametrize("cells", [
    ["x"], [""], ["", ""], ["a,b", 'say "hi"', "two\nlines", " spaced ", ""],
    ["[1, 2.5]", "x: 3; y: 2", "'single'", "tab\tin", "é"], ["cr\r", "x"],
])
def test_csv_rows_are_quoted_as_the_csv_module_quotes_them(cells):
    from gradcli.render.csv import format_row

    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(cells)
    if not any("\r" in c for c in cells):
        assert format_row(cells) == buf.getvalue()
    # a lone carriage return is quoted too (the csv module, told the line ends
    # in "\n", leaves it bare, and its own reader then splits the row there)
    assert list(csv.reader(io.StringIO(format_row(cells)))) == [cells]


def test_csv_check_columns():
    opts = RenderOptions(check=True)
    res = one("sqrt(abs(x - 1e-9))", {"x": "0"}, check=True)
    row = dict(zip(header(opts), next(csv.reader(io.StringIO(CsvRenderer(opts).row(res))))))
    assert row["check1_ok"] == "false" and row["check2_ok"] == "false"
    assert float(row["check1_abs_error"]) > 0.5


# --- table ---------------------------------------------------------------------------


def table_text(res_list, opts: RenderOptions, *, colour=False, terminal=False,
               point=None) -> str:
    buf = io.StringIO()
    renderer = TableRenderer(buf, opts, colour=colour, terminal=terminal)
    for res in res_list:
        renderer.render(res, point)
    return buf.getvalue()


def test_table_off_a_terminal_is_ascii_without_colour():
    opts = RenderOptions(order=3, check=True)
    text = table_text([one("x**4 - 2*x**2", {"x": "2"}, order=3, check=True)], opts)
    assert text.isascii() and "\x1b" not in text
    lines = text.splitlines()
    assert lines[0] == "x**4 - 2*x**2  at x = 2  (d/dx)"
    assert "| order | value | numerical" in text
    assert any(line.startswith("| 3     | 48    |") for line in lines)
    assert text.count("pass") == 2


def test_table_title_names_the_point_of_a_variable_bound_by_a_statement():
    # x = 2 then x^2 --order 1 --at y=7 was titled "x^2  at y = 7": not where d/dx was taken
    opts = RenderOptions(order=1)
    res = results("x = 2\nx^2", {"y": "7"}, order=1)[-1]
    assert table_text([res], opts).splitlines()[0] == "x^2  at x = 2, y = 7  (d/dx)"
    bare = results("x = 2\nx^2", None, order=1)[-1]
    assert table_text([bare], opts).splitlines()[0] == "x^2  at x = 2  (d/dx)"
    # a value alone has no derivatives' point to name
    assert table_text([results("x = 2\nx^2", None)[-1]], RenderOptions()) == "x^2 = 4\n"


def test_table_marks_a_failed_check_and_colours_on_request():
    opts = RenderOptions(check=True)
    res = one("abs(x - 1e-9)", {"x": "0"}, check=True)
    plain = table_text([res], opts)
    assert "FAIL" in plain
    coloured = table_text([res], opts, colour=True, terminal=True)
    assert "\x1b[" in coloured and "FAIL" in coloured


def test_table_confirms_bindings_and_prints_simple_values_on_a_line():
    opts = RenderOptions()
    text = table_text(results("x = 2; f(t) = t^2; f(x) + 1; sinn(1)"), opts)
    assert text.splitlines() == ["x = 2", "defined f(t)", "f(x) + 1 = 5"]


def test_table_gradient_and_series():
    opts = RenderOptions(grad=True, series=2)
    res = one("x*y", {"x": "2", "y": "3"}, grad=True, series=2, wrt="x")
    text = table_text([res], opts, point=2.0)
    assert "| d/dx     |" in text and "| d/dy     |" in text
    assert text.rstrip().endswith("series: 6 + 3*(x - 2)")


def test_table_series_is_a_coefficient_column():
    # --series 3 alone printed a one-row table of order 0, the coefficients nowhere
    alone = table_text([one("x**3", {"x": "2"}, series=3)], RenderOptions(series=3),
                       point=2.0).splitlines()
    assert alone[2] == "| order | coefficient |"
    assert [line.split("|")[1:3] for line in alone[4:8]] == [
        [f" {k}     ", f" {c:<11} "] for k, c in enumerate([8, 12, 6, 1])]
    assert alone[-1] == "series: 8 + 12*(x - 2) + 6*(x - 2)^2 + (x - 2)^3"
    opts = RenderOptions(series=1, order=2)
    both = table_text([one("x**3", {"x": "2"}, series=1, order=2)], opts).splitlines()
    assert both[2] == "| order | value | coefficient |"
    assert [line.replace(" ", "") for line in both[4:7]] == [
        "|0|8|8|", "|1|12|12|", "|2|12||"]


def test_summaries_show_the_ends_of_each_axis_and_the_size():
    line = np.linspace(0, 1, 100_001)
    assert numbers.format_summary(line) == (
        f"[0, 1e-05, 2e-05, ..., {format_number(line[-3])}, 0.99999, 1] (100001 values)")
    grid = np.arange(2000.0).reshape(40, 50)
    text = numbers.format_summary(grid)
    assert text.startswith("[[0, 1, 2, ..., 47, 48, 49], [50, 51, 52, ..., 97, 98, 99], ")
    assert text.endswith(", [1950, 1951, 1952, ..., 1997, 1998, 1999]] (shape 40x50)")
    assert text.count("...") == 7  # one between the row groups, one in each of 6 rows
    small = np.arange(float(numbers.SUMMARY_SIZE))
    assert numbers.format_summary(small) == format_value(small)


def test_a_terminal_table_summarises_large_arrays_and_a_file_gets_every_number():
    opts = RenderOptions(order=1)
    res = one("x^2", {"x": "linspace(0, 1, 5000)"}, order=1)
    on_terminal = table_text([res], opts, terminal=True)
    assert on_terminal.count("(5000 values)") == 3  # the point and orders 0 and 1
    assert "..." in on_terminal and len(on_terminal) < 2000
    in_file = table_text([res], opts)  # rows of over 100,000 characters, not cropped
    assert "..." not in in_file and "| order |" in in_file
    assert format_value(res.derivatives[0]) in in_file


def test_table_digits_round_values():
    opts = RenderOptions(digits=3)
    text = table_text([one("pi")], opts)
    assert text.strip() == "pi = 3.14"


def test_the_caret_stands_under_a_character_after_wide_ones():
    # 日本 takes four cells on a terminal: the caret stood under '+', not '@'
    err = GradcliError("unexpected '@'").at(1, 6)
    text = format_error(err, "日本 + @")
    assert text.splitlines()[-1] == "  " + " " * 7 + "^"


def test_a_long_line_is_shown_around_the_column_only():
    # a 200,000-character statement was echoed whole under its error
    line = "1+" * 5000 + "* 2" + "+1" * 5000
    err = GradcliError("unexpected '*'").at(1, 10001)
    shown, caret = format_error(err, line).splitlines()[1:]
    assert len(shown) < 120 and shown.startswith("  ...") and shown.endswith("...")
    assert shown[len(caret) - 1] == "*"
    short = format_error(GradcliError("x").at(1, 3), "1 +* 2").splitlines()[1:]
    assert short == ["  1 +* 2", "    ^"]


def test_a_table_too_wide_for_the_terminal_never_splits_a_number(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    opts = RenderOptions(order=1, check=True)
    res = one("sin(x)", {"x": "linspace(0, 1, 5)"}, order=1, check=True)
    text = table_text([res], opts, terminal=True)
    numbers = {format_number(float(v)) for v in np.sin(np.linspace(0, 1, 5))}
    words = {w.strip("[],") for line in text.splitlines() for w in line.split()}
    assert numbers <= words  # each value whole on some line
    assert "order 1" in text and "  numerical  " in text
    narrow = table_text([one("x**4 - 2*x**2", {"x": "2"}, order=1, check=True)], opts,
                        terminal=True)
    assert "╭" in narrow  # a table that fits stays one


def test_an_echoed_line_cannot_drive_the_terminal():
    # eval $'1 + \x1b[31m' echoed ESC to the terminal with the error
    for bad in ("\x1b", "\u202e", "\x07"):
        text = format_error(GradcliError("unexpected character").at(1, 5), f"1 + {bad}[31m")
        shown, caret = text.splitlines()[1:]
        assert bad not in text
        assert shown == "  1 + \ufffd[31m" and caret == "      ^"
