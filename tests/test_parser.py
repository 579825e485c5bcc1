"""The expression language: grammar, parser, syntax tree (SPEC.md section 1)."""

from __future__ import annotations

import random
import subprocess
import sys
import time

import pytest

from gradcli.errors import ExitStatus, LimitError, ParseError
from gradcli.lang import grammar as grammar_module
from gradcli.lang import parser as parser_module
from gradcli.lang.ast import (
    Array,
    Assign,
    Call,
    Chain,
    Define,
    Implicit,
    Index,
    Name,
    Num,
    Power,
    Prime,
    Slice,
    Unary,
    children,
    walk,
)
from gradcli.lang.parser import (
    MAX_DEPTH,
    MAX_INPUT,
    MAX_STATEMENT,
    BadStatement,
    ParseLimitError,
    Statement,
    get_parser,
    parse,
    parse_each,
)
from gradcli.record import fields

x, y, v, A = Name("x"), Name("y"), Name("v"), Name("A")


def n(text: str) -> Num:
    return Num(text)


def one(text: str):
    """The tree of the only statement in ``text``."""
    statements = parse(text)
    assert len(statements) == 1, statements
    return statements[0].node


def error(text: str) -> ParseError:
    with pytest.raises(ParseError) as info:
        parse(text)
    return info.value


def tree_depth(node) -> int:
    """Non-leaf depth, computed without recursion."""
    deepest, stack = 0, [(node, 1)]
    while stack:
        current, depth = stack.pop()
        deepest = max(deepest, depth)
        for child in children(current):
            if not isinstance(child, (Num, Name)):
                stack.append((child, depth + 1))
    return deepest


# --------------------------------------------------------------------------
# Precedence and associativity


def test_power_is_right_associative_and_flat() -> None:
    assert one("2**3**2") == Power((n("2"), n("3"), n("2")))
    assert one("2^3^2") == one("2**3**2")


def test_unary_minus_binds_looser_than_power() -> None:
    assert one("-x**2") == Unary("-", Power((x, n("2"))))


def test_signed_exponent() -> None:
    assert one("2**-1") == Power((n("2"), Unary("-", n("1"))))
    # As in Python: 2**-x**2 is 2**(-(x**2)); the signed exponent ends the chain.
    assert one("2**3**-x**2") == Power((n("2"), n("3"), Unary("-", Power((x, n("2"))))))


def test_implicit_product_binds_tighter_than_division() -> None:
    assert one("1/2x") == Chain(n("1"), (("/", Implicit(n("2"), x)),))


def test_implicit_product_binds_looser_than_power() -> None:
    assert one("2x^2") == Implicit(n("2"), Power((x, n("2"))))
    assert one("2x**-1") == Implicit(n("2"), Power((x, Unary("-", n("1")))))


def test_sum_and_product_chains_are_left_to_right_and_flat() -> None:
    assert one("x - y - 1") == Chain(x, (("-", y), ("-", n("1"))))
    assert one("A @ v * 2 / x") == Chain(A, (("@", v), ("*", n("2")), ("/", x)))


def test_product_nests_inside_sum() -> None:
    assert one("x + y*2") == Chain(x, (("+", Chain(y, (("*", n("2")),))),))
    assert one("(x + y)*2") == Chain(Chain(x, (("+", y),)), (("*", n("2")),))


def test_sign_applies_to_whole_implicit_product() -> None:
    assert one("-2x") == Unary("-", Implicit(n("2"), x))


def test_power_of_postfix_expressions() -> None:
    assert one("f(x)**2") == Power((Call("f", (x,)), n("2")))
    assert one("-v[0]**2") == Unary("-", Power((Index(v, (n("0"),)), n("2"))))


def test_reference_expression_tree() -> None:
    two_x_squared = Chain(n("2"), (("*", Power((x, n("2")))),))
    assert one("x**4 - 2*x**2") == Chain(Power((x, n("4"))), (("-", two_x_squared),))


def test_parentheses_leave_no_node() -> None:
    assert one("((x))") == x
    assert one("(2)**(3)") == Power((n("2"), n("3")))


# --------------------------------------------------------------------------
# Signs


def test_runs_of_signs_collapse_to_the_net_sign() -> None:
    assert one("--x") == Unary("+", x)
    assert one("---x") == Unary("-", x)
    assert one("-+x") == Unary("-", x)
    assert one("+x") == Unary("+", x)
    assert one("- - x") == Unary("+", x)
    assert one("-(-(x))") == Unary("+", x)


def test_binary_minus_then_sign() -> None:
    assert one("x--1") == Chain(x, (("-", Unary("-", n("1"))),))
    assert one("x*-y") == Chain(x, (("*", Unary("-", y)),))


# --------------------------------------------------------------------------
# Numbers and implicit products


@pytest.mark.parametrize("literal", ["2", "2.5", ".5", "1e-3", "1E+3", "2.", "2e3", "0.5e10"])
def test_number_literal_kept_as_typed(literal: str) -> None:
    node = one(literal)
    assert node == Num(literal)
    assert type(node.text) is str  # a plain str, not Lark's Token


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2x", Implicit(n("2"), x)),
        ("3(x + 1)", Implicit(n("3"), Chain(x, (("+", n("1")),)))),
        ("2pi", Implicit(n("2"), Name("pi"))),
        ("2sin(x)", Implicit(n("2"), Call("sin", (x,)))),
        ("2.5x", Implicit(n("2.5"), x)),
        (".5x", Implicit(n(".5"), x)),
        ("2x2", Implicit(n("2"), Name("x2"))),
        # A function call, as 2sin(x) is: 2x(y) is 2 * x(y).
        ("2x(y)", Implicit(n("2"), Call("x", (y,)))),
    ],
)
def test_implicit_product(text: str, expected: object) -> None:
    assert one(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2e3", n("2e3")),  # a float exponent wins whenever one can be read
        ("2e3x", Implicit(n("2e3"), x)),
        ("2e-3", n("2e-3")),
        ("2e", Implicit(n("2"), Name("e"))),  # otherwise e is the constant
        ("2ex", Implicit(n("2"), Name("ex"))),
        ("2exp(1)", Implicit(n("2"), Call("exp", (n("1"),)))),
        ("2e+x", Chain(Implicit(n("2"), Name("e")), (("+", x),))),
    ],
)
def test_the_letter_e_after_a_number(text: str, expected: object) -> None:
    assert one(text) == expected


def test_name_followed_by_parenthesis_is_a_call_not_a_product() -> None:
    assert one("x(2)") == Call("x", (n("2"),))


@pytest.mark.parametrize(("text", "column"), [("x y", 3), ("2 x", 3), ("2 (x)", 3), ("2 3", 3)])
def test_juxtaposition_is_an_error_unless_number_against_name(text: str, column: int) -> None:
    err = error(text)
    assert err.message.startswith("unexpected ")
    assert (err.line, err.column) == (1, column)


def test_no_implicit_product_in_an_exponent() -> None:
    err = error("x**2x")
    assert "exponent" in err.message and "parentheses" in err.message
    assert (err.line, err.column) == (1, 5)
    assert one("x**(2x)") == Power((x, Implicit(n("2"), x)))


def test_unicode_names() -> None:
    assert one("θ_1 + 2θ") == Chain(Name("θ_1"), (("+", Implicit(n("2"), Name("θ"))),))


def test_no_keywords() -> None:
    for word in ("pi", "e", "inf", "nan", "ans", "diff", "grad"):
        assert one(word) == Name(word)
        assert one(f"{word} = 1") == Assign(word, n("1"))


# --------------------------------------------------------------------------
# Calls, derivatives, indexing, arrays


def test_calls() -> None:
    assert one("f()") == Call("f", ())
    assert one("diff(x**2, x, 2, 3)") == Call("diff", (Power((x, n("2"))), x, n("2"), n("3")))
    assert one("g(f(x))") == Call("g", (Call("f", (x,)),))


def test_prime_counts_the_primes() -> None:
    assert one("f'(2)") == Prime("f", 1, (n("2"),))
    assert one("f''(x)") == Prime("f", 2, (x,))
    assert one("f'''(x + 1)").order == 3


def test_indexing_and_postfix_chains() -> None:
    assert one("v[0]") == Index(v, (n("0"),))
    assert one("A[1, 0]") == Index(A, (n("1"), n("0")))
    assert one("v[0][1]") == Index(Index(v, (n("0"),)), (n("1"),))
    assert one("f(x)[0]") == Index(Call("f", (x,)), (n("0"),))
    assert one("[1, 2][-1]") == Index(Array((n("1"), n("2"))), (Unary("-", n("1")),))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("v[1:3]", (Slice(n("1"), n("3"), None),)),
        ("v[:2]", (Slice(None, n("2"), None),)),
        ("v[1:]", (Slice(n("1"), None, None),)),
        ("v[::2]", (Slice(None, None, n("2")),)),
        ("v[1:5:2]", (Slice(n("1"), n("5"), n("2")),)),
        ("A[:, 0]", (Slice(None, None, None), n("0"))),
    ],
)
def test_slices(text: str, expected: tuple) -> None:
    assert one(text) == Index(Name(text[0]), expected)


def test_arrays_nest() -> None:
    assert one("[1, 2, 3]") == Array((n("1"), n("2"), n("3")))
    assert one("[[1, 2], [3, 4]]") == Array((Array((n("1"), n("2"))), Array((n("3"), n("4")))))
    assert one("[]") == Array(())


# --------------------------------------------------------------------------
# Statements: assignment, definition


def test_assignment() -> None:
    assert one("x = 2") == Assign("x", n("2"))
    assert one("v = [1, 2, 3]") == Assign("v", Array((n("1"), n("2"), n("3"))))


def test_definitions() -> None:
    body = one("x**4 - 2*x**2")
    assert one("f(x) = x**4 - 2*x**2") == Define("f", ("x",), body)
    assert one("g(x, y) = x*y + sin(x)").params == ("x", "y")
    assert one("c() = 1") == Define("c", (), n("1"))


@pytest.mark.parametrize(
    ("text", "column", "words"),
    [
        ("2*x = 3", 1, "cannot assign to '2*x'"),
        ("f'(x) = 1", 1, "cannot assign to"),
        ("1 = x", 1, "cannot assign to '1'"),
        ("  v[0] = 1", 3, "cannot assign to 'v[0]'"),
        # A bad parameter is pointed at itself.
        ("f(2) = 1", 3, "parameters must be plain names"),
        ("f(x, y, x) = 1", 9, "parameter 'x' appears twice"),
    ],
)
def test_bad_left_side(text: str, column: int, words: str) -> None:
    err = error(text)
    assert words in err.message
    assert (err.line, err.column) == (1, column)


def test_chained_assignment_is_an_error() -> None:
    err = error("x = y = 2")
    assert err.message == "unexpected '='"
    assert err.column == 7


# --------------------------------------------------------------------------
# Splitting text into statements


def test_semicolons_and_newlines_separate_statements() -> None:
    statements = parse("x = 2; y = 3\nx*y\n")
    assert [s.source for s in statements] == ["x = 2", "y = 3", "x*y"]
    assert [(s.line, s.column) for s in statements] == [(1, 1), (1, 8), (2, 1)]
    assert all(isinstance(s, Statement) for s in statements)


def test_comments_and_blank_statements_are_skipped() -> None:
    text = "# a comment\n\n  x = 1  # set x\n;;  ;\n   # another\n  x + 1 ;"
    statements = parse(text)
    assert [(s.source, s.line, s.column) for s in statements] == [
        ("x = 1", 3, 3),
        ("x + 1", 6, 3),
    ]
    assert parse("") == [] and parse("  \n ; # nothing\n") == []


def test_node_positions_count_lines_in_the_whole_text() -> None:
    statements = parse("a = 1\n\n   b = 2*zz")
    b = statements[1].node
    assert (b.line, b.column) == (3, 4)
    zz = b.value.rest[0][1]
    assert zz == Name("zz") and (zz.line, zz.column) == (3, 10)


def test_positions_of_each_node_kind() -> None:
    node = one("  -2x + f(y)[0] - [1, v[:2]]")
    assert (node.line, node.column) == (1, 3)  # the Chain starts at its first operand
    unary, (_, index), (_, array) = node.first, node.rest[0], node.rest[1]
    assert (unary.line, unary.column) == (1, 3)
    assert (unary.operand.line, unary.operand.column) == (1, 4)
    assert (index.target.line, index.target.column) == (1, 9)
    assert (array.line, array.column) == (1, 19)
    slice_ = array.items[1].indices[0]
    assert isinstance(slice_, Slice) and (slice_.line, slice_.column) == (1, 25)


def test_newlines_inside_brackets_continue_the_statement() -> None:
    text = "A = [[1, 2],  # first row\n     [3, 4]]\nf(1,\n  2)"
    statements = parse(text)
    assert len(statements) == 2
    assert statements[0].source == "A = [[1, 2],  # first row\n     [3, 4]]"
    assert statements[0].node.value == Array((Array((n("1"), n("2"))), Array((n("3"), n("4")))))
    assert (statements[1].line, statements[1].column) == (3, 1)
    second_arg = statements[1].node.args[1]
    assert (second_arg.line, second_arg.column) == (4, 3)


def test_windows_line_endings() -> None:
    statements = parse("x = 1\r\ny = 2\r\n")
    assert [(s.source, s.line) for s in statements] == [("x = 1", 1), ("y = 2", 2)]


def test_a_byte_order_mark_is_ignored() -> None:
    statements = parse("\ufeffx = 1\ny")
    assert [(s.source, s.line, s.column) for s in statements] == [("x = 1", 1, 1), ("y", 2, 1)]


def test_a_semicolon_inside_brackets_is_an_error_not_a_split() -> None:
    err = error("f(1; 2)")
    assert err.message == "unexpected character ';'"
    assert (err.line, err.column) == (1, 4)


def test_parse_each_keeps_going_after_a_bad_statement() -> None:
    results = parse_each("x = 1; 2 +; y = 2\n(((")
    assert [type(r) for r in results] == [Statement, BadStatement, Statement, BadStatement]
    bad = results[1]
    assert bad.source == "2 +" and (bad.line, bad.column) == (1, 8)
    assert "unexpected end of input" in bad.error.message
    assert (bad.error.line, bad.error.column) == (1, 11)
    assert results[2].node == Assign("y", n("2"))
    assert results[3].line == 2


def test_a_bracket_left_open_is_the_error_and_the_lines_after_it_still_parse() -> None:
    # the '(' made every later line part of its statement: one error, at 'c'
    results = parse_each("a = 1\nb = (a + 2\nc = 3  # three\n a + c\n")
    assert [type(r) for r in results] == [Statement, BadStatement, Statement, Statement]
    bad = results[1]
    assert bad.source == "b = (a + 2" and (bad.line, bad.column) == (2, 1)
    assert bad.error.message == "'(' was never closed"
    assert (bad.error.line, bad.error.column) == (2, 5)
    assert results[2].node == Assign("c", n("3")) and results[2].line == 3
    assert (results[3].line, results[3].column) == (4, 2)
    # the first bracket left open, when another stays open after it; and on a
    # statement's first line the column counts from the start of that line
    results = parse_each("x; f(g(x\n y = [1, 2\n3")
    assert [r.error.message for r in results if isinstance(r, BadStatement)] == [
        "'(' was never closed", "'[' was never closed"]
    assert [(r.error.line, r.error.column) for r in results[1:3]] == [(1, 5), (2, 6)]
    assert results[-1].node == n("3")


def test_finding_unclosed_brackets_parses_the_text_again_within_a_budget(monkeypatch) -> None:
    text = "".join(f"a{i} = ({i}\n" for i in range(40)) + "z = 1\n"
    assert sum(isinstance(r, BadStatement) for r in parse_each(text)) == 40
    monkeypatch.setattr(parser_module, "RECOVERY_BUDGET", len(text) * 5)
    results = parse_each(text)  # past the budget: the rest is one error, as a whole
    assert 1 < len(results) < 10 and all(isinstance(r, BadStatement) for r in results)
    assert results[-1].source.endswith("a39 = (39\nz = 1")
    assert "a product needs" in results[-1].error.message


def test_a_bracket_closed_nowhere_after_it_costs_only_its_line() -> None:
    # the parser tripped mid-line later ('=' of x = 2) and every line after the
    # bracket went into its one error; or a line ('3') went with the bracket's
    for text, sources in [
        ("y = sin(\nx = 2\nx^2\n7", ["x = 2", "x^2", "7"]),
        ("sin(\n3\n4", ["3", "4"]),
        ("sin(\n\n3", ["3"]),
        ("f(1) + g(\n2", ["2"]),
    ]:
        bad, *rest = parse_each(text)
        assert isinstance(bad, BadStatement) and bad.error.message == "'(' was never closed"
        assert bad.error.line == text[:text.index("(\n")].count("\n") + 1
        assert [r.source for r in rest] == sources
        assert all(isinstance(r, Statement) for r in rest)
        assert [r.line for r in rest][-1] == text.count("\n") + 1


@pytest.mark.parametrize("text", ["y = (1 +\n  * 2)\nz = 3", "f(x,\n)", "(1 +\n  2 2)"])
def test_an_error_inside_a_bracket_that_spans_lines_stays_where_it_is(text) -> None:
    bad = parse_each(text)[0]
    assert isinstance(bad, BadStatement) and "never closed" not in bad.error.message
    assert bad.error.line == 2


# --------------------------------------------------------------------------
# Errors


CALL_PRIMES = ", expected '(': a derivative is called, as in f'(x)"


@pytest.mark.parametrize(
    ("text", "position", "message"),
    [
        ("2 +", (1, 4), "unexpected end of input, expected an expression"),
        ("sin(x", (1, 4), "'(' was never closed"),
        ("[1, 2", (1, 1), "'[' was never closed"),
        ("a = 1; b = 2 +", (1, 15), "unexpected end of input, expected an expression"),
        ("x = 1\ny = (2 *\n  3", (2, 5), "'(' was never closed"),
        ("2 * * 3", (1, 5), "unexpected '*', expected an expression"),
        ("[1, 2)", (1, 6), "unexpected ')', expected ']'"),
        ("x)", (1, 2), "unexpected ')'"),
        ("2 $ 3", (1, 3), "unexpected character '$'"),
        ("x +\x00", (1, 4), "unexpected character U+0000"),
        ("f'", (1, 3), "unexpected end of input" + CALL_PRIMES),
        ("f'' + 1", (1, 5), "unexpected '+'" + CALL_PRIMES),
        ("1; [1, (2", (1, 4), "'[' was never closed"),
        (":help", (1, 1), "unexpected ':'; ':' commands (:help, :vars ...) are the REPL's"),
        ("x := 2", (1, 3), "unexpected ':'"),
        ("x\n  y = 1 +* 2", (2, 10), "unexpected '*', expected an expression"),
    ],
)
def test_error_messages_and_positions(text: str, position: tuple, message: str) -> None:
    err = error(text)
    assert err.message == message
    assert (err.line, err.column) == position
    assert err.kind == "parse" and err.exit_status == ExitStatus.USAGE


def test_long_tokens_are_shortened_in_messages() -> None:
    err = error("x " + "y" * 500)
    quoted = err.message.split(";")[0].removeprefix("unexpected ")
    assert len(quoted) < 40 and quoted.endswith("...'")


@pytest.mark.parametrize("text, column", [("2 x", 3), ("x y", 3), ("2 (x + 1)", 3),
                                          ("(x + 1) (x - 1)", 9), ("sin(x) 2", 8)])
def test_two_operands_apart_say_a_product_needs_a_star(text, column) -> None:
    err = error(text)
    assert err.message.endswith("; a product needs '*' (2*x), or a number right against it (2x)")
    assert err.column == column
    # not where an operand is expected anyway
    assert "product" not in error("x +* 2").message


@pytest.mark.parametrize(("text", "column"), [("(1)(2)", 4), ("(a+b)x", 6), ("sin(1)cos(1)", 7),
                                              ("[1, 2]x", 7)])
def test_an_operand_right_after_a_bracket_says_a_product_needs_a_star(text, column) -> None:
    err = error(text)
    assert err.message.endswith("; a product needs '*' after a bracket: (a)*(b)")
    assert err.column == column


def test_no_lark_exception_ever_escapes() -> None:
    # Random strings over the language's own alphabet hit every parser
    # state's error path; each must parse or fail as a positioned ParseError.
    alphabet = list("xy2.5e+-*/@^()[],:;='#\n $") + ["**", "sin", "f'"]
    rng = random.Random(1234)
    failures = 0
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
        try:
            parse(text)
        except ParseError as err:
            failures += 1
            assert isinstance(err.line, int) and err.line >= 1, text
            assert isinstance(err.column, int) and err.column >= 1, text
            assert "Token" not in err.message and "Lark" not in err.message, text
    assert failures > 100  # the sample really did exercise the error paths


# --------------------------------------------------------------------------
# Limits on hostile input


def test_deep_parentheses_are_refused_before_parsing() -> None:
    start = time.perf_counter()
    err = error("(" * 5000 + "x" + ")" * 5000)
    assert time.perf_counter() - start < 2
    assert isinstance(err, ParseLimitError) and isinstance(err, LimitError)
    assert str(MAX_DEPTH) in err.message and "nested" in err.message
    assert (err.line, err.column) == (1, MAX_DEPTH + 1)


@pytest.mark.parametrize(("opener", "closer"), [("(", ")"), ("[", "]"), ("f(", ")"), ("v[", "]")])
def test_nesting_up_to_the_limit_is_accepted(opener: str, closer: str) -> None:
    assert parse(opener * MAX_DEPTH + "1" + closer * MAX_DEPTH)
    err = error(opener * (MAX_DEPTH + 1) + "1" + closer * (MAX_DEPTH + 1))
    assert isinstance(err, ParseLimitError)


def test_deep_trees_without_brackets_are_refused() -> None:
    # Signed exponents nest (2**-(2**-(...))) without a single bracket.
    err = error("2**-" * 20_000 + "2")
    assert isinstance(err, ParseLimitError) and str(MAX_DEPTH) in err.message


def test_no_parsed_tree_is_deeper_than_the_limit() -> None:
    for text in ("-(2*" * 120 + "x" + ")" * 120, "x" + "[0]" * 200, "2**-" * 100 + "2"):
        assert tree_depth(one(text)) <= MAX_DEPTH


def test_long_flat_sum_is_one_chain() -> None:
    text = "+".join(["x"] * 10_000)  # 19,999 characters, ten times Python's recursion limit
    start = time.perf_counter()
    node = one(text)
    elapsed = time.perf_counter() - start
    assert isinstance(node, Chain) and len(node.rest) == 9_999
    assert all(op == "+" and operand == x for op, operand in node.rest)
    assert elapsed < 10  # about 0.3 s on a laptop; loose for slow shared CI


def test_parse_time_grows_linearly() -> None:
    def best_time(terms: int) -> float:
        text = "*".join(["x"] * terms)
        times = []
        for _ in range(2):
            start = time.perf_counter()
            parse(text)
            times.append(time.perf_counter() - start)
        return min(times)

    small, large = best_time(2_000), best_time(20_000)
    assert large < 30 * small  # quadratic would be ~100 times


def test_a_run_of_fifty_thousand_signs_is_one_unary() -> None:
    assert one("-" * 50_000 + "x") == Unary("+", x)
    assert one("-" * 50_001 + "x") == Unary("-", x)


def test_twenty_thousand_powers_are_one_flat_power() -> None:
    node = one("**".join(["2"] * 20_000))
    assert isinstance(node, Power) and len(node.operands) == 20_000
    assert tree_depth(node) == 1


def test_input_length_limit() -> None:
    err = error("x" * (MAX_INPUT + 1))
    assert isinstance(err, ParseLimitError)
    assert "10,000,000" in err.message
    assert (err.line, err.column) == (1, MAX_INPUT + 1)


def test_statement_length_limit() -> None:
    err = error("1;" + "x" * (MAX_STATEMENT + 1))
    assert isinstance(err, ParseLimitError)
    assert "200,000" in err.message
    assert (err.line, err.column) == (1, 3)
    assert one("x" * MAX_STATEMENT) == Name("x" * MAX_STATEMENT)


def test_many_statements_may_exceed_one_statement_limit() -> None:
    # statements of 99 characters and a newline (long names: few tokens to parse),
    # 200,100 characters in all
    count = MAX_STATEMENT // 100 + 1
    text = ("x" * 95 + " + 1\n") * count
    assert len(text) > MAX_STATEMENT
    assert len(parse(text)) == count


def test_hostile_inputs_finish_with_a_result_or_a_parse_error() -> None:
    hostile = [
        "(" * 100_000,
        ")" * 100_000,
        "()" * 50_000,
        "[" * 50_000 + "]" * 50_000,
        "1" * 100_000 + "x",
        "#" * 100_000,
        "x" * 100_000 + "(",
        "f(" + ",".join(["x"] * 20_000) + ")",
        "2x" * 10_000,
    ]
    for text in hostile:
        start = time.perf_counter()
        try:
            parse(text)
        except ParseError as err:
            assert err.line is not None and err.column is not None
        assert time.perf_counter() - start < 10, text[:20]


# --------------------------------------------------------------------------
# The parser object and the grammar file


def test_parser_is_built_once() -> None:
    parse("x + 1")
    first = get_parser()
    parse("y * 2")
    assert get_parser() is first
    assert parser_module._parser is first


def test_grammar_has_no_function_names() -> None:
    grammar = grammar_module.grammar_text()
    assert "statement:" in grammar
    for name in ("sin", "cos", "exp", "log", "sqrt", "diff", "grad", "linspace"):
        assert f'"{name}"' not in grammar


# --------------------------------------------------------------------------
# The syntax tree itself


def test_positions_do_not_take_part_in_equality() -> None:
    parsed = parse("x = 2")[0].node
    assert parsed == Assign("x", Num("2"))
    assert (parsed.line, parsed.column) == (1, 1)
    assert (parsed.value.line, parsed.value.column) == (1, 5)
    assert hash(parsed) == hash(Assign("x", Num("2")))


def test_nodes_are_frozen_and_slotted() -> None:
    node = one("x + 1")
    with pytest.raises(AttributeError, match="immutable"):
        node.first = y  # type: ignore[misc]
    assert not hasattr(node, "__dict__")
    assert fields(node)[-2:] == ("line", "column")


def test_walk_visits_every_node_in_order() -> None:
    tree = one("f(x) = 2x + v[1:y]")
    kinds = [type(node).__name__ for node in walk(tree)]
    assert " ".join(kinds) == "Define Chain Implicit Num Name Index Name Slice Num Name"


def test_walk_handles_any_depth() -> None:
    deep = Name("x")
    for _ in range(10_000):
        deep = Unary("-", deep)
    assert sum(1 for _ in walk(deep)) == 10_001


@pytest.mark.parametrize(("text", "column", "hint"), [
    ("sin x", 5, "; a function's argument goes in brackets: sin(x)"),
    ("2 + exp 1", 9, "; a function's argument goes in brackets: exp(1)"),
    ("sin^2(x)", 6, "; a power of a function's value follows the call: sin(...)^2"),
    ("1 + tanh**3(x)", 12, "; a power of a function's value follows the call: tanh(...)^3"),
])
def test_a_built_in_written_as_typeset_says_how_to_call_it(text, column, hint) -> None:
    # sin x said "a product needs '*'", and sin*x then failed; sin^2(x) said "an
    # exponent cannot be an implicit product"
    err = error(text)
    assert err.message.endswith(hint)
    assert err.column == column
    # a name that is no built-in keeps the product's hint
    assert error("sinx x").message.endswith("or a number right against it (2x)")
    assert error("x^2(x)").message.endswith("an exponent cannot be an implicit product, "
                                            "use parentheses")


# --------------------------------------------------------------------------
# The one bracket scanner


def test_the_bracket_scanner_skips_comments_and_stray_closers() -> None:
    from gradcli.lang import brackets

    assert brackets.open_depth("f(1, [2") == 2
    assert brackets.open_depth(") ] (") == 1  # a stray closer never goes below 0
    assert brackets.open_depth("g(x # (\n") == 1
    assert brackets.open_depth("1)", 2) == 1
    assert brackets.first_unclosed("x + 1\n  (y # [\n[]") == (8, "(")
    assert brackets.first_unclosed("(a) + [b]") is None
    assert brackets.innermost_open("f([1, 2)", 7) == "["
    assert list(brackets.marks("a;(b # ;)\nc]")) == [(1, ";"), (2, "("), (9, "\n"), (11, "]")]
    # the parser and the REPL ask the same scanner
    from gradcli.repl import keys

    assert keys.open_depth is brackets.open_depth
    assert import_cost_free("gradcli.lang.brackets")


def import_cost_free(module: str) -> bool:
    """The module imports nothing beyond the standard start-up set."""
    code = f"import sys; before = set(sys.modules); import {module}; " \
        "print(' '.join(sorted(set(sys.modules) - before)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    return out.split() == ["gradcli", "gradcli.lang", module]


# --------------------------------------------------------------------------
# Issue 25: hints and limits that cost only their own lines


@pytest.mark.parametrize(("text", "hint"), [
    ("|x|", "abs(x)"), ("2*|x - 1| + 1", "abs(x - 1)"), ("y = |", "abs(x)"),
])
def test_bars_suggest_abs(text: str, hint: str) -> None:
    with pytest.raises(ParseError) as err:
        parse(text)
    assert err.value.message == f"unexpected character '|'; did you mean {hint}?"


def _kinds(text: str) -> list[tuple[str, int, str]]:
    return [(type(s).__name__, s.line, s.source if isinstance(s, Statement) else
             s.error.message) for s in parse_each(text)]


@pytest.mark.parametrize("opens", [["(" * 257 + "1"], ["(" * 200, "(" * 100]])
def test_too_deep_inside_an_open_bracket_costs_only_its_lines(opens: list[str]) -> None:
    text = "\n".join(["k = 42", *opens, "k"])
    deep = f"expression nested deeper than {MAX_DEPTH} levels"
    assert _kinds(text) == [("Statement", 1, "k = 42"), ("BadStatement", 2, deep),
                            ("Statement", 2 + len(opens), "k")]
    # with 256 it is an unclosed bracket, as before
    assert _kinds("k = 42\n" + "(" * 256 + "1\nk")[2] == ("Statement", 3, "k")


def test_too_long_inside_an_open_bracket_costs_only_its_lines() -> None:
    long = "x+" * 125_000 + "x"
    text = f"k = 42\n((\n{long}\nk\n"
    too_long = f"statement longer than {MAX_STATEMENT:,} characters"
    assert _kinds(text) == [("Statement", 1, "k = 42"), ("BadStatement", 2, too_long),
                            ("Statement", 4, "k")]
    # the REPL's case from the issue: the line after the long one is a statement (of
    # 199,991 characters as there, one name that parses at once in place of "x+x+...x")
    text = "\n".join(["k = 42", "(", "(", "x+" * 240_000 + "x", "x" * 199_991, "k"])
    got = _kinds(text)
    assert [g[:2] for g in got] == [("Statement", 1), ("BadStatement", 2), ("Statement", 5),
                                    ("Statement", 6)]
    assert got[-1][2] == "k"


def test_a_limit_inside_closed_brackets_still_stands_for_the_whole_statement() -> None:
    text = "(" * 257 + "1\n" + ")" * 257 + "\nk"
    got = _kinds(text)
    assert got == [("BadStatement", 1, f"expression nested deeper than {MAX_DEPTH} levels"),
                   ("Statement", 3, "k")]
