"""A new user's review of main: each finding as it was typed, and the rule it
breaks (docs/cli.md, docs/language.md)."""

from __future__ import annotations

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
