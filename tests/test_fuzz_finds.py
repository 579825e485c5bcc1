"""What benchmarks/fuzz.py found in its full configuration (extreme numbers and
huge arrays), each reduced to its smallest input: no internal error, and the
answer each should give."""

from __future__ import annotations

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

