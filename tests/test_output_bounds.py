"""Issue 30 §2 and §6: large results stream to the output in chunks, memory
refused up front, zero-size arrays within the element limit, and --check's
inconclusive verdict in every format and in sweeps."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import numpy as np
import pytest
from inprocess import gradcli

from gradcli.errors import LimitError
from gradcli.limits import FORMATS
from gradcli.render.csv import CsvRenderer
from gradcli.render.json import json_pieces, render_json
from gradcli.render.latex import latex_pieces, render_latex
from gradcli.render.numbers import CHUNK, empty_text, format_value, value_pieces
from gradcli.render.output import Output
from gradcli.render.plain import RenderOptions, plain_pieces, render_plain
from gradcli.session import EvalOptions, Session

PYTHON = sys.executable


def _gradcli(*args: str, env: dict[str, str] | None = None,
             stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return gradcli(*args, env=env, stdin=stdin)


# --- streaming ------------------------------------------------------------------

POINTS = 100_000
ORDER = 3


@pytest.fixture(scope="module")
def sweep_result():
    session = Session()
    session.bind_at("x", f"linspace(0, 1, {POINTS})")
    (res,) = session.run("exp(sin(x))", EvalOptions(order=ORDER, wrt="x"))
    assert res.error is None and np.shape(res.value) == (POINTS,)
    return res


class _Recorder(io.StringIO):
    """Standard output that keeps the size of each write (no ``buffer``: every
    piece is one ``write``)."""

    def __init__(self) -> None:
        super().__init__()
        self.sizes: list[int] = []

    def write(self, text: str) -> int:
        self.sizes.append(len(text))
        return super().write(text)

    def isatty(self) -> bool:
        return False


# about 25 characters a number: a piece is at most a chunk's text, with room
PIECE = 40 * CHUNK


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_large_result_is_written_a_chunk_at_a_time(fmt, sweep_result) -> None:
    opts = RenderOptions(order=ORDER)
    output = Output(fmt, opts, "never", line_hints=False)
    output.out = _Recorder()
    output.sweep_over({"x": sweep_result.at["x"]})
    output.result(sweep_result, None, sweep_result.point)
    output.finish()
    text = output.out.getvalue()
    numbers = (ORDER + 2) * POINTS  # x, the value and 3 derivatives
    assert len(text) > 15 * numbers  # every number is there
    assert max(output.out.sizes) <= PIECE, (fmt, max(output.out.sizes))
    assert len(output.out.sizes) >= numbers // CHUNK


def test_the_pieces_are_the_whole_text(sweep_result) -> None:
    opts = RenderOptions(order=ORDER)
    res = sweep_result
    assert "".join(plain_pieces(res, opts)) == "\n".join(render_plain(res, opts)) + "\n"
    assert "".join(latex_pieces(res, opts)) == "\n".join(render_latex(res, opts)) + "\n"
    assert "".join(json_pieces(res)) == render_json(res)
    renderer = CsvRenderer(opts, ["x"])
    rows = list(csv.DictReader(io.StringIO(renderer.header() + renderer.row(res))))
    assert len(rows) == POINTS
    assert [float(rows[-1][k]) for k in ("x", "d1")] == [1.0, float(res.derivatives[0][-1])]
    assert all(len(p) <= PIECE for p in renderer.pieces(res))


@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 4), (1, 1, 5), (70_000, 2),
                                   (3, 30_000, 2), (2, 1, 2, 1, 3)])
def test_value_pieces_nest_as_numpy_does(shape) -> None:
    a = (np.arange(int(np.prod(shape)), dtype=float).reshape(shape) + 0.5) / 7  # none whole
    expected = json.dumps(a.tolist())  # the same brackets and separators
    pieces = list(value_pieces(a))
    assert "".join(pieces) == expected
    assert max(map(len, pieces)) <= PIECE


def test_a_table_of_a_large_result_off_a_terminal_is_labelled_lines(sweep_result) -> None:
    output = Output("table", RenderOptions(order=ORDER), "never", line_hints=False)
    output.out = _Recorder()
    output.result(sweep_result, None, sweep_result.point)
    lines = output.out.getvalue().splitlines()
    assert lines[0].startswith("exp(sin(x))  at x = [0, 1.00001000010000")
    assert lines[0].endswith(", 1]  (d/dx)")
    assert lines[1:3] == ["order 0", lines[2]] and lines[2].startswith("  value  [1, 1.00001")
    assert [line for line in lines if line.startswith("order")] == [
        f"order {k}" for k in range(ORDER + 1)]
    # a small result is still the rich table
    session = Session()
    session.bind_at("x", "2")
    (small,) = session.run("x^2", EvalOptions(order=1, wrt="x"))
    output = Output("table", RenderOptions(order=1), "never", line_hints=False)
    output.out = _Recorder()
    output.result(small, None, small.point)
    assert "| order | value |" in output.out.getvalue()


def test_memory_past_the_limit_is_refused_up_front() -> None:
    done = _gradcli("eval", "exp(sin(x))*log(1+x^2)", "--at", "x=linspace(0, 1, 200000)",
                    "--order", "60", "--format", "csv", env={"GRADCLI_MAX_MEMORY": "64M"})
    assert done.returncode == 1
    assert "needs about" in done.stderr and "the limit is 64 MB (GRADCLI_MAX_MEMORY)" \
        in done.stderr and "ask for fewer points or a lower order" in done.stderr
    (row,) = csv.DictReader(io.StringIO(done.stdout))  # the error row, no numbers
    assert row["error"].startswith("Taylor mode needs about") and row["value"] == ""


# --- zero-size arrays -------------------------------------------------------------

@pytest.mark.parametrize(("text", "shape"), [
    ("zeros(1e8, 1e8, 0)", "(100000000, 100000000, 0)"),
    ("zeros(1e20, 1, 0)", "(1e+20, 1, 0)"),
    ("ones(1e19, 0)", "(1e+19, 0)"),
    ("reshape(zeros(0), 1e8, 1e8, 0)", "(100000000, 100000000, 0)"),
])
def test_an_empty_array_counts_its_zero_dimensions_as_one(text, shape) -> None:
    (res,) = Session().run(text)
    assert isinstance(res.error, LimitError), res.error
    assert f"an empty result of shape {shape}" in res.error.message
    assert "a zero dimension counted as 1" in res.error.message
    assert "the limit is 10,000,000" in res.error.message


def test_a_dimension_past_the_limit_is_refused_even_beside_a_zero() -> None:
    (res,) = Session().run("zeros(0, 2e7)")
    assert isinstance(res.error, LimitError) and "(0, 20000000)" in res.error.message
    (ok,) = Session().run("zeros(1e7, 0)")
    assert ok.error is None and np.shape(ok.value) == (10_000_000, 0)


def test_an_empty_array_of_many_rows_prints_its_shape() -> None:
    assert empty_text((10_000_000, 0)) == "[] (shape 10000000x0)"
    assert format_value(np.zeros((2, 0))) == "[[], []]"
    assert format_value(np.zeros((2, 3, 0))) == "[[[], [], []], [[], [], []]]"
    assert format_value(np.zeros((0, 3))) == "[]"
    outputs = {fmt: _gradcli("eval", "zeros(1e7, 0)", "zeros(2, 0)", "--format", fmt)
               for fmt in ("plain", "json", "csv", "table")}
    for done in outputs.values():
        assert done.returncode == 0, done.stderr
        assert len(done.stdout) < 200
    assert outputs["plain"].stdout == "[] (shape 10000000x0)\n[[], []]\n"
    assert [json.loads(line)["value"] for line in outputs["json"].stdout.splitlines()] == [
        "[] (shape 10000000x0)", [[], []]]
    assert "zeros(1e7, 0) = [] (shape 10000000x0)" in outputs["table"].stdout


# --- --check: inconclusive --------------------------------------------------------

def test_a_check_with_no_estimate_is_inconclusive_in_every_format() -> None:
    # by backprop, sin(x)/x at 0 is 0/0 and so are the samples order 2 needs
    # (by default they are its limit, and the check passes)
    args = ("eval", "sin(x)/x", "--at", "x=0", "--order", "3", "--check",
            "--method", "backprop")
    plain = _gradcli(*args, "--format", "plain")
    assert plain.returncode == 0
    lines = plain.stdout.splitlines()
    assert lines[-1].startswith("check order 2: autodiff nan numerical nan")
    assert lines[-1].endswith(" inconclusive")
    assert "warning: check order 2 is inconclusive: no numerical estimate could be made" \
        in plain.stderr
    js = _gradcli(*args, "--format", "json")
    assert js.returncode == 0
    check = json.loads(js.stdout)["check"]
    assert [c["ok"] for c in check][1] is None
    rows = list(csv.DictReader(io.StringIO(_gradcli(*args, "--format", "csv").stdout)))
    assert rows[0]["check2_ok"] == "" and rows[0]["check2_numerical"] == "nan"
    table = _gradcli(*args, "--format", "table")
    assert table.returncode == 0
    assert [line for line in table.stdout.splitlines() if line.startswith("| 2 ")][0] \
        .rstrip(" |").endswith("inconclusive")


def test_a_sweep_gives_each_point_its_own_verdict_and_est_error() -> None:
    # 0*log(abs(x)) is 0 * -inf at 0: no limit there, no sample for order 2
    f = "sin(x) + 0*log(abs(x))"
    done = _gradcli("eval", f, "--at", "x=-1:1:0.5", "--check", "--format", "csv")
    assert done.returncode == 0
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    assert [r["x"] for r in rows] == ["-1", "-0.5", "0", "0.5", "1"]
    assert [r["check2_ok"] for r in rows] == ["true", "true", "", "true", "true"]
    assert rows[2]["check2_numerical"] == "nan" and rows[2]["check2_est_error"] == "inf"
    est = [float(r["check1_est_error"]) for r in rows]
    assert len(set(est)) > 2  # each point's own, not the worst repeated
    assert "0 * inf is undefined" in done.stderr  # why, rather than "inconclusive"
    js = _gradcli("eval", f, "--at", "x=-1:1:0.5", "--check", "--format", "json", "--rows")
    objects = [json.loads(line) for line in js.stdout.splitlines()]
    assert [o["check"][1]["ok"] for o in objects] == [True, True, None, True, True]
    assert [o["check"][0]["est_error"] for o in objects] == est


def test_an_estimate_whose_error_is_not_small_is_inconclusive() -> None:
    (res,) = _run_at("abs(x)", 0.0)
    order2 = res.check[1]
    assert order2.ok is None and order2.est_error > order2.numerical > 1000
    assert res.exit_status == 0
    assert any("inconclusive" in w and "4.99e+03" in w for w in res.warnings)
    repl = _gradcli("repl", stdin="x = 0\n:check abs(x)\n")
    assert repl.returncode == 0
    assert repl.stdout.splitlines()[-1].endswith(" inconclusive")
    # a derivative of 0 confirmed by an estimate of 0: the floor, not the ratio
    (flat,) = _run_at("x^2", 0.0)
    assert [c.ok for c in flat.check] == [True, True]
    # a wrong slope that the estimate refutes is still a FAIL (exit status 3)
    (wrong,) = _run_at("sin(x)", 1e17)
    assert [c.ok for c in wrong.check] == [False, False] and wrong.exit_status == 3


def _run_at(text: str, x: float) -> list:
    session = Session()
    session.bind_at("x", repr(x))
    return session.run(text, EvalOptions(check=True))
