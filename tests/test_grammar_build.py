"""The parser module is generated when gradcli is built, not on a user's run:
the committed one is current, parses as Lark parses, and a run neither
imports Lark nor writes a cache."""

from __future__ import annotations

import os
import subprocess
import sys

from gradcli.lang import grammar
from gradcli.lang import parser as parser_module

SAMPLES = [
    "2x + sin(y)", "x**4 - 2*x**2", "f(x, y) = x*y + sin(x)", "v = [1, [2, 3], []]",
    "A[1, 0:2] @ v", "f''(2)", "diff(x^3, x, 2, 1)", "-x^-2^3", "a[::2]", "3e-5x",
    "grad(x*y, x)", "x = (1 +\n 2)", "1; 2; 3", "# only a comment", "",
]


def test_the_committed_parser_is_generated_from_the_current_grammar() -> None:
    assert grammar.generated_checksum() == grammar.checksum(), \
        "grammars/gradcli.lark changed: run `python -m gradcli.lang.grammar` and commit"
    assert grammar.checksum(grammar.grammar_text() + "\n// edited") != grammar.checksum()


def test_the_committed_parser_parses_as_lark_does() -> None:
    import lark

    reference = lark.Lark(grammar.grammar_text(), **grammar.GRAMMAR_OPTIONS)
    committed = grammar.load_runtime().new_parser()
    for text in SAMPLES:
        for statement in parser_module._split(text):
            if not statement.text.strip():
                continue
            assert committed.parse(statement.text) == reference.parse(statement.text), text


def test_a_run_imports_no_lark_and_writes_no_cache(tmp_path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "HOME": str(tmp_path)}
    code = ("import sys; from gradcli.lang.parser import parse; parse('2x + sin(y)'); "
            "print(sorted(m for m in ('lark', 'logging') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=True)
    assert done.stdout.strip() == "[]"
    assert not (tmp_path / "cache").exists()
    assert [p.name for p in tmp_path.iterdir()] == []
