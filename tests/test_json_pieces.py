"""Large results are written as JSON in pieces, byte for byte as json.dumps
would write them, and running out of memory while writing is a clear error."""

from __future__ import annotations

import io
import json
import sys

import numpy as np
import pytest

from gradcli.render import json as render_json_module
from gradcli.render.json import json_pieces, render_json
from gradcli.render.output import Output
from gradcli.render.plain import RenderOptions
from gradcli.results import CheckEntry, Result


def _large(shape: tuple[int, ...], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape) * 10.0 ** rng.integers(-300, 300, shape)
    flat = a.reshape(-1)
    flat[::97] = np.nan
    flat[1::89] = np.inf
    flat[2::83] = -np.inf
    flat[3::79] = 0.0
    flat[4::71] = -0.0
    flat[5::67] = 3.0
    return a


# (70_001,) goes past a CHUNK of numbers; the others' rows are shorter than one, and
# their 10,800 numbers, in the seven arrays of the result, are past LARGE
@pytest.mark.parametrize("shape", [(70_001,), (120, 90), (3, 60, 60)])
def test_pieces_are_json_dumps_byte_for_byte(shape, monkeypatch) -> None:
    a = _large(shape, 1)
    res = Result(input="f(x)", at={"x": np.linspace(0, 1, a.size).reshape(shape)},
                 wrt="x", value=a, derivatives=[a * 2, a > 0], series=[a, a],
                 check=[CheckEntry(order=1, autodiff=a, numerical=a, abs_error=0.5,
                                   rel_error=float("nan"), ok=True)],
                 gradient={"x": a})
    whole = render_json(res)
    pieces = list(json_pieces(res))
    assert len(pieces) > 1  # large: in pieces
    assert "".join(pieces) == whole
    json.loads(whole)
    monkeypatch.setattr(render_json_module, "LARGE", 10)  # pieces for a small one too
    small = Result(input="x", at={"x": np.array([1.0, 2.0])}, value=np.array([np.nan, 1.0]))
    assert "".join(json_pieces(small)) == render_json(small)


def test_out_of_memory_while_writing_is_the_computing_error(monkeypatch, capsys) -> None:
    def starving(res):
        raise MemoryError
        yield ""

    monkeypatch.setattr(render_json_module, "json_pieces", starving)
    out = Output("json", RenderOptions(), "never", line_hints=False)
    out.out, out.err = io.StringIO(), io.StringIO()
    out.result(Result(input="big", value=np.zeros(3)), None)
    assert out.err.getvalue() == "error: not enough memory for this computation (line 1)\n"
    assert out.status == 1
    assert "internal error" not in out.err.getvalue() + str(sys.stderr)
