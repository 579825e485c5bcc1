"""The parser tables generated from the grammar when gradcli is built
(gradcli/lang/_tables.py, by ``python -m gradcli.lang.grammar``), and the
runtime that reads them (gradcli.lang.lalr), against Lark's own runtime."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import lark
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcli.lang import _tables, grammar, lalr
from gradcli.lang.ast import Implicit, Name, Num
from gradcli.lang.builder import Assignment, Builder


def test_the_committed_tables_are_current() -> None:
    # Regenerated in memory with the installed Lark; on failure run
    # `python -m gradcli.lang.grammar` and commit src/gradcli/lang/_tables.py.
    committed = Path(grammar.GENERATED).read_text(encoding="utf-8")
    assert committed == grammar.generate(), "stale: run python -m gradcli.lang.grammar"


def test_generating_twice_gives_the_same_bytes() -> None:
    # Lark numbers states differently per process (set order): the canonical
    # renumbering is what makes the check above possible.
    code = "import sys; from gradcli.lang.grammar import generate; sys.stdout.write(generate())"
    outputs = {
        subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True,
                       env={**os.environ, "PYTHONHASHSEED": seed}).stdout
        for seed in ("1", "2")
    }
    assert len(outputs) == 1
    assert outputs == {Path(grammar.GENERATED).read_text(encoding="utf-8")}


def test_check_mode_reports_current_tables() -> None:
    done = subprocess.run([sys.executable, "-m", "gradcli.lang.grammar", "--check"],
                          capture_output=True, text=True)
    assert (done.returncode, done.stdout.strip()) == (0, "current")


def test_an_edited_grammar_gives_other_tables() -> None:
    text = grammar.grammar_text()
    edited = text.replace('"@"', '"@" | "%"', 1)
    assert edited != text
    assert grammar.generate(edited) != grammar.generate(text)


def test_the_tables_come_from_the_package_and_are_only_data() -> None:
    assert Path(_tables.__file__).resolve() == Path(grammar.GENERATED).resolve()
    assert lalr.Parser(_tables, Builder()).parse("2x") == Implicit(Num("2"), Name("x"))
    tree = ast.parse(Path(grammar.GENERATED).read_text(encoding="utf-8"))
    assert not [node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom
                                                              | ast.Call | ast.FunctionDef)]


def test_a_rule_without_a_method_fails_loudly() -> None:
    class Partial(Builder):
        call = None  # type: ignore[assignment]

    parser = lalr.Parser(_tables, Partial())
    assert parser.parse("x") == Name("x")
    with pytest.raises(AssertionError, match="'call' has no tree builder"):
        parser.parse("f(x)")


# --------------------------------------------------------------------------
# The same trees and the same errors as Lark's runtime


class _LarkBuilder(Builder):
    """Builder as Lark's inline transformer: Lark gives the '_' rules (which
    gradcli.lang.lalr splices itself) to __default__, as trees."""

    def __default__(self, data: str, children: list, meta: object) -> lark.Tree:
        return lark.Tree(data, children)


@pytest.fixture(scope="module")
def parsers() -> tuple[lalr.Parser, lark.Lark]:
    ours = lalr.Parser(_tables, Builder())
    theirs = lark.Lark(grammar.grammar_text(), transformer=_LarkBuilder(),
                       **grammar.GRAMMAR_OPTIONS)
    return ours, theirs


def _outcome(parse, text: str) -> tuple:
    try:
        tree = parse(text)
    except (lalr.UnexpectedToken, lark.UnexpectedToken) as exc:
        token = exc.token
        return ("token", token.type, str(token), token.start_pos, token.line, token.column,
                token.end_line, token.end_column, frozenset(exc.expected))
    except (lalr.UnexpectedCharacters, lark.UnexpectedCharacters) as exc:
        return ("characters", exc.pos_in_stream, exc.line, exc.column)
    if isinstance(tree, Assignment):
        return ("assignment", repr(tree.left), tree.equals.start_pos, repr(tree.right))
    return ("tree", repr(tree))  # reprs hold every position


CORPUS = [
    "x**4 - 2*x**2", "f(x) = sin(x)^2", "A[1:2, ::3]", "v[:]", "v[::]", "v[1:]", "v[:2:]",
    "2x(y)", "f''(1, 2)", "f'()", "[1,2,[3]]", "[]", "---x", "+-+x", "2**-1", "2^3^-x^2",
    "1/2x", "2e3x", "2ex", "2e+x", "2exp(1)", ".5x", "2.", "1E+3", "a @ b", "f(x)[0][1]",
    "(\n1 +\n 2)", "[1, # c\n 2]", "x  =  1", "f(x, y) = x*y", "g() = 1", "π^2", "x_1'",
    # errors
    "", "1 +", "sin x", "2 x", "(1", "x ∙ 2", "1 )", "x**2x", "x = = 1", "[1, 2)", "f'x",
    "2 (x)", ":x", "x²", "1 ++", "*", "x y z", "|x|", "(1)(2)", "x[", "x[1,", "a ** * b",
    "1\n)", "(1,\n 2", "'", "1 # only a comment", "$", "x\t\t+", "\n\n(", "2x**", "2(",
]


def test_the_corpus_parses_as_with_lark(parsers) -> None:
    ours, theirs = parsers
    for text in CORPUS:
        assert _outcome(ours.parse, text) == _outcome(theirs.parse, text), text


_PIECES = ["x", "y1", "f", "sin", "2", "2.5", ".5", "1e3", "2e", "(", ")", "[", "]", ",", ":",
           "+", "-", "*", "/", "@", "**", "^", "=", "'", " ", "\n", "#c\n", "∙", "|", "é"]


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(_PIECES), max_size=14).map("".join))
def test_random_texts_parse_or_fail_as_with_lark(parsers, text: str) -> None:
    ours, theirs = parsers
    assert _outcome(ours.parse, text) == _outcome(theirs.parse, text)


_ATOMS = st.sampled_from(["x", "y", "2", "0.5", "1e-3", "pi", "f'(x)", "[1, 2]", "v[0]"])


def _expressions() -> st.SearchStrategy[str]:
    def grow(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        spaced = st.sampled_from(["", " "])
        binary = st.tuples(inner, spaced, st.sampled_from(["+", "-", "*", "/", "**", "^", "@"]),
                           spaced, inner).map("".join)
        return st.one_of(
            binary,
            inner.map(lambda e: f"({e})"),
            inner.map(lambda e: f"-{e}"),
            inner.map(lambda e: f"2{e}" if e[0] in "x(" else f"sin({e})"),
            st.tuples(inner, inner).map(lambda p: f"g({p[0]}, {p[1]})"),
            st.tuples(inner, inner).map(lambda p: f"A[{p[0]}:{p[1]}, :]"),
        )

    return st.recursive(_ATOMS, grow, max_leaves=12)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(_expressions(), st.sampled_from(["", "h(x) = ", "y = "]))
def test_random_expressions_parse_as_with_lark(parsers, text: str, assigned: str) -> None:
    ours, theirs = parsers
    outcome = _outcome(ours.parse, assigned + text)
    assert outcome[0] in ("tree", "assignment")
    assert outcome == _outcome(theirs.parse, assigned + text)
