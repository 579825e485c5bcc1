"""A new user's review of main: each finding as it was typed, and the rule it
breaks (docs/cli.md, docs/language.md)."""

from __future__ import annotations

from inprocess import gradcli
from test_cli import gradcli_all

WRT_ABSENT = [
    # --wrt a name the expression does not read, with no value: derivatives 0,
    # as diff(x^2, y) gives (docs/cli.md, Formulas); was "'y' has no value"
    (("eval", "x^2", "--wrt", "y", "--order", "1", "--at", "x=1"), ["1", "0"]),
    (("eval", "diff(x^2, y)", "--at", "x=1"), ["0"]),
    (("eval", "x^2*y", "--wrt", "z", "--order", "2", "--at", "x=1,y=3"), ["3", "0", "0"]),
    (("eval", "sin(x)/x", "--wrt", "z", "--order", "1", "--at", "x=0"), ["1", "0"]),
    (("eval", "log(-x)", "--wrt", "z", "--order", "1", "--at", "x=1"), ["nan", "nan"]),
]


def test_wrt_a_name_the_expression_does_not_read_gives_zeros():
    done = gradcli_all(*(args for args, _ in WRT_ABSENT))
    for (args, lines), proc in zip(WRT_ABSENT, done):
        assert proc.returncode == 0, (args, proc.stderr)
        assert proc.stdout.splitlines() == lines, (args, proc.stdout)


def test_wrt_a_function_is_still_refused():
    (proc,) = gradcli_all(("eval", "x^2", "--wrt", "sin", "--order", "1", "--at", "x=1"))
    assert proc.returncode != 0 and "cannot differentiate by the function 'sin'" in proc.stderr


def test_superscripts_bind_as_a_postfix_and_follow_with_no_space():
    from gradcli.session import Session

    s = Session()
    s.bind_value("x", 2.0)
    assert [float(r.value) for r in s.run("x²^3; x^2^3; x²²; (x+1)³; (x²)²")] == [
        64, 256, 2**22, 27, 16]
    for text, column in (("x² ²", 4), ("x ²", 3), ("x⁻¹ ²", 5), ("(x+1) ²", 7)):
        (res,) = Session().run(text)
        assert res.error is not None and "with no space" in res.error.message, text
        assert res.error.column == column, text


def test_the_repl_lexer_reads_superscripts_as_powers():
    from gradcli.limits import SUPERSCRIPT_DIGITS
    from gradcli.repl.lexer import tokens

    pieces = tokens("x² + x⁻¹ + y" + SUPERSCRIPT_DIGITS, lambda name, call: "name")
    assert [t for style, t in pieces if style == "class:power"] == ["²", "⁻¹", SUPERSCRIPT_DIGITS]
    assert not any(style == "class:other" for style, _ in pieces)


def test_help_texts_say_what_the_docs_say():
    from gradcli.cli.options import check_help
    from gradcli.repl.helptext import LANGUAGE

    assert "inconclusive" in check_help().lower() and "exit status 0" in check_help()
    assert any("x²" in form and "x⁻¹" in form for form, _ in LANGUAGE)


def test_a_file_name_with_a_bidi_override_is_refused_as_an_escape_is(tmp_path):
    # U+202E was accepted (the file made) while ESC was refused, in Python's repr
    done = gradcli("repl", stdin="x = 1\n:plot x^2 a\u202egnp.dot\n:plot x^2 a\x1b[2J.png\n",
                   cwd=tmp_path)
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        "error: the file name has a control or format character, U+202E, at position 2: "
        "a\ufffdgnp.dot (line 2)",
        "error: the file name has a control or format character, U+001B, at position 2: "
        "a\ufffd[2J.png (line 3)"]
    assert not any("\u202e" in p.name for p in tmp_path.iterdir())
