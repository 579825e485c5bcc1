"""What benchmarks/fuzz.py found in its full configuration (extreme numbers and
huge arrays), each reduced to its smallest input: no internal error, and the
answer each should give."""

from __future__ import annotations

import numpy as np

from gradcli.session import EvalOptions, Session


def _session(method: str = "auto", **at: str) -> Session:
    session = Session(method=method)
    for name, text in at.items():
        session.bind_at(name, text)
    return session


def test_checking_an_empty_value_is_inconclusive_not_an_internal_error() -> None:
    # was "internal error (TypeError: only 0-dimensional arrays can be converted ...)"
    (res,) = _session(y="[]").run("y", EvalOptions(check=True))
    assert res.error is None and res.exit_status == 0
    assert [c.ok for c in res.check] == [None, None]
    assert any("no points to compare" in w for w in res.warnings)


def test_backprop_folds_past_an_empty_constant() -> None:
    # was "internal error (IndexError: index 0 is out of bounds ...)" in the builder's folding
    session = _session("backprop", z="linspace(0, 1, 5)")
    (res,) = session.run("z ** zeros(0, 1)", EvalOptions(order=4))
    assert res.error is None
    assert np.asarray(res.value).shape == (0, 5)
    assert [np.asarray(d).tolist() for d in res.derivatives] == [[0.0] * 5] * 4
