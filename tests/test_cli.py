"""The command-line contract (SPEC section 2).

Most tests run a command line in this process (tests/inprocess.py: the
console script's handler, with piped standard streams); what only a process
shows (signals, pipes, bytes, the installed script, its help examples run by
sh) starts the real `gradcli` script, as a shell would.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from inprocess import gradcli, gradcli_all

from gradcli import __version__, cli
from gradcli.lang.reader import read_inputs
from gradcli.render.output import colour_enabled

BIN = Path(sys.executable).with_name("gradcli")
GRADCLI = str(BIN) if BIN.exists() else shutil.which("gradcli")
ESC = "\x1b["


def gradcli_process(*args: str, stdin: str | None = None,
                    env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the installed console script with piped stdout/stderr (and stdin)."""
    assert GRADCLI, "the gradcli console script is not installed"
    full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM")}
    full_env["TERM"] = "xterm-256color"
    full_env.update(env or {})
    return subprocess.run(
        [GRADCLI, *args], input=stdin if stdin is not None else "", capture_output=True,
        text=True, timeout=60, env=full_env,
    )


def concurrently(function, items):
    """[function(item) for item in items], run in threads (each waits on a child process)."""
    with ThreadPoolExecutor(max_workers=max(1, min(len(items), 8))) as pool:
        return list(pool.map(function, items))


def json_lines(text: str) -> list[dict]:
    def refuse(name: str):
        raise AssertionError(f"non-strict JSON constant {name}")

    return [json.loads(line, parse_constant=refuse) for line in text.splitlines()]


def no_traceback(proc: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in proc.stderr
    assert "Exception ignored" not in proc.stderr


# --- basics ------------------------------------------------------------------------


def test_version_and_help():
    version, top, proc = gradcli_all(("--version",), ("--help",), ("eval", "--help"))
    assert version.returncode == 0
    assert version.stdout.strip() == f"gradcli {__version__}"
    assert top.returncode == 0
    for command in ("eval", "plot", "repl"):
        assert command in top.stdout
    # eval --help: every option, and --check's step rule and tolerances
    assert proc.returncode == 0
    for option in ("--at", "--wrt", "--order", "--grad", "--check", "--method", "--series",
                   "--format", "--digits", "--color", "--device", "--dtype"):
        assert re.search(rf"(^|\s){re.escape(option)}\b", proc.stdout), option
    text = " ".join(proc.stdout.split())
    from gradcli.rules import CHECK_ESTIMATE, CHECK_PASS_RULE, SERIES_ABOUT

    for fragment in (CHECK_ESTIMATE, CHECK_PASS_RULE, "Ridders'", "est_error + 32*eps*|autodiff|",
                     SERIES_ABOUT, "about 0 when it has no value"):
        assert fragment in text
    assert "\x1b" not in proc.stdout  # no rich markup when piped


def test_help_speaks_of_expressions_not_python_types():
    # Typer showed "EXPR <list[str]>", "EXPR <str>", "{EXPR}" and "[default: 0; 0<=x<=1000]"
    evals, plot = gradcli_all(("eval", "--help"), ("plot", "--help"))
    for proc in (evals, plot):
        assert proc.returncode == 0
        assert not re.search(r"<(list\[)?str\]?>|<=x<=|\{EXPR\}", proc.stdout), proc.stdout
    assert evals.stdout.startswith("Usage: gradcli eval [OPTIONS] [EXPR]...")
    assert plot.stdout.startswith("Usage: gradcli plot [OPTIONS] EXPR\n")
    assert re.search(r"\n  EXPR +Statements to run", evals.stdout)
    text = " ".join(evals.stdout.split())  # argparse wraps where the terminal ends
    assert "[default: 0; 0 to 1000]" in text and "[1 to 17]" in text


def test_bad_option_values_are_worded_plainly():
    method, fraction, high, low = gradcli_all(
        ("eval", "1", "--method", "foo"), ("eval", "1", "--order", "1.5"),
        ("eval", "1", "--order", "2000"), ("eval", "1", "--digits", "0"))
    assert method.stderr.endswith(
        "Error: Invalid value for '--method': 'foo' is not one of 'auto', 'taylor', "
        "'backprop'.\n")
    assert fraction.stderr.endswith("'--order': expected a whole number\n")
    assert high.stderr.endswith("'--order': expected at most 1000\n")
    assert low.stderr.endswith("'--digits': expected at least 1\n")
    assert {p.returncode for p in (method, fraction, high, low)} == {2}


def test_a_formula_in_place_of_a_command_is_told_how_to_evaluate_it():
    formula, typo = gradcli_all(("x^2", "--at", "x=3"), ("evl", "1"))
    assert formula.returncode == typo.returncode == 2
    assert "No such command 'x^2'. To evaluate an expression: gradcli eval 'x^2' --at x=3" \
        in formula.stderr
    assert "Did you mean 'eval'?" in typo.stderr and "To evaluate" not in typo.stderr
    no_traceback(formula)


def test_a_formula_with_a_leading_minus_in_place_of_a_command_is_told_about_dashes():
    minus, dashes, version, typo, in_eval, in_plot = gradcli_all(
        ("-x**2", "--at", "x=2"), ("--", "-sin(x)"), ("--version", "extra"), ("--fromat", "json"),
        ("eval", "pi", "-1e-20/3"), ("plot", "-x^2", "-o", "g.dot"))
    assert {p.returncode for p in (minus, dashes, version, typo, in_eval, in_plot)} == {2}
    hint = "An expression that starts with '-' goes after '--': gradcli eval [OPTIONS] -- "
    assert f"No such option: -x. {hint}'-x**2'" in minus.stderr
    assert f"{hint}'-sin(x)'" in dashes.stderr
    # after the command too: `gradcli eval -x^2` said only "No such option: -x"
    assert f"No such option: -1. {hint}-1e-20/3" in in_eval.stderr
    assert "gradcli plot [OPTIONS] -- '-x^2'" in in_plot.stderr
    # an option's word after a top-level option is no formula: it said "gradcli eval
    # --version extra", and a mistyped long option is no formula either
    assert "No such command 'extra'." in version.stderr and "To evaluate" not in version.stderr
    assert "To evaluate" not in typo.stderr and "goes after" not in typo.stderr
    for p in (minus, dashes, version, typo, in_eval, in_plot):
        no_traceback(p)


def test_help_as_a_command_shows_the_help():
    # `gradcli help` said "No such command 'help'. To evaluate: gradcli eval help"
    top, command, repl, unknown, dashed = gradcli_all(
        ("help",), ("help", "plot"), ("help", "repl"), ("help", "nope"), ("--help",))
    assert top.returncode == command.returncode == repl.returncode == 0
    assert top.stdout == dashed.stdout and "Commands" in top.stdout
    assert command.stdout.startswith("Usage: gradcli plot")
    # `help repl` and `help nope` said "No such command 'help'. To evaluate an
    # expression: gradcli eval help nope"
    assert repl.stdout.startswith("Usage: gradcli repl")
    assert unknown.returncode == 2 and unknown.stdout == ""
    assert unknown.stderr.endswith(
        "Error: no help for 'nope'; the commands are eval, plot, curve, extrema and repl\n")


def test_options_and_statements_mix_and_options_are_never_abbreviated():
    mixed, abbreviated, negative = gradcli_all(
        ("eval", "1+1", "--format", "plain", "2+2"), ("eval", "--or", "1", "x"),
        ("eval", "x", "-1", "--at", "x=2", "--order", "1"))
    assert (mixed.returncode, mixed.stdout) == (0, "2\n4\n")
    assert (abbreviated.returncode, abbreviated.stdout) == (2, "")
    assert abbreviated.stderr.endswith("Error: No such option: --or "
                                       "(Possible options: --color, --order, --wrt)\n")
    # a negative number is no option (argparse's rule): it is a statement
    assert (negative.returncode, negative.stdout) == (0, "2\n1\n-1\n0\n")


def test_usage_errors_say_so_on_stderr_only_with_status_2():
    procs = gradcli_all(("eval", "x", "--order"), ("eval", "--grad=1", "x"), ("plot", "x"),
                        ("plot", "-o", "g.dot"), ("plot", "a", "b", "-o", "g.dot"),
                        ("repl", "--bogus"), ("repl", "extra"), ("eval", "--digits", "1e3"),
                        ("eval", "--order", "9" * 5000, "x"), ("--version", "extra"))
    for proc in procs:
        assert (proc.returncode, proc.stdout) == (2, ""), proc.args
        assert proc.stderr.startswith("Usage: gradcli") and "\nError: " in proc.stderr
        no_traceback(proc)
    assert "'--order': expected at most 1000" in procs[-2].stderr


def test_every_example_in_the_help_runs(tmp_path):
    texts = gradcli_all(("--help",), ("eval", "--help"), ("plot", "--help"),
                        ("repl", "--help"))
    examples = [line.strip() for proc in texts
                for line in proc.stdout.split("Examples:\n", 1)[1].splitlines()]
    assert len(examples) >= 12 and all("gradcli " in e for e in examples)
    env = dict(os.environ, PATH=f"{Path(GRADCLI).parent}{os.pathsep}{os.environ['PATH']}")

    def run(numbered: tuple[int, str]) -> subprocess.CompletedProcess[str]:
        # each in a directory of its own, as they run at once
        cwd = tmp_path / str(numbered[0])
        cwd.mkdir()
        return subprocess.run(["sh", "-c", numbered[1]], cwd=cwd, env=env, input="",
                              capture_output=True, text=True, timeout=60)

    distinct = list(dict.fromkeys(examples))  # some are in two help texts
    for example, proc in zip(distinct, concurrently(run, list(enumerate(distinct)))):
        assert proc.returncode == 0, (example, proc.stderr)
        if example != "gradcli repl":  # which reads an empty standard input
            assert proc.stdout or "written to" in proc.stderr, example


def test_json_matches_the_spec_example():
    proc = gradcli("eval", "x**4 - 2*x**2", "--at", "x=2", "--order", "2", "--check",
                   "--format", "json")
    assert proc.returncode == 0, proc.stderr
    (obj,) = json_lines(proc.stdout)
    assert obj["input"] == "x**4 - 2*x**2"
    assert obj["at"] == {"x": 2.0}
    assert obj["wrt"] == "x"
    assert obj["value"] == 8.0
    assert obj["derivatives"] == [24.0, 44.0]
    assert [c["order"] for c in obj["check"]] == [1, 2]
    assert all(c["ok"] for c in obj["check"])
    assert abs(obj["check"][0]["numerical"] - 24) < 1e-6
    assert set(obj["check"][0]) == {"order", "autodiff", "numerical", "abs_error", "rel_error",
                                    "est_error", "ok"}
    # what was checked is there too, as plain and table show it
    assert [c["autodiff"] for c in obj["check"]] == obj["derivatives"][:2]
    assert "gradient" not in obj and "series" not in obj


def test_plain_is_the_default_when_piped():
    proc = gradcli("eval", "x**4 - 2*x**2", "--at", "x=2", "--order", "3")
    assert proc.returncode == 0
    assert proc.stdout == "8\n24\n44\n48\n"
    assert proc.stderr == ""


def test_bindings_print_nothing_in_plain_and_one_object_in_json():
    args = ("eval", "x = 2", "f(t) = t^2 + 1", "f(x)")
    plain, as_json = gradcli_all(args, (*args, "--format", "json"))
    assert plain.stdout == "5\n"
    objs = json_lines(as_json.stdout)
    assert objs[0] == {"input": "x = 2", "at": {}, "value": 2.0}
    assert objs[1]["defined"] == "f(t)" and "value" not in objs[1]
    assert objs[2]["value"] == 5.0


def test_json_is_strict_for_nan_and_inf():
    proc = gradcli("eval", "log(-1)", "1/0", "log(0)", "[1, 1/0, log(-1)]", "--format", "json")
    assert proc.returncode == 0
    objs = json_lines(proc.stdout)  # raises on NaN/Infinity
    assert [o["value"] for o in objs] == ["nan", "inf", "-inf", [1.0, "inf", "nan"]]
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 5
    assert "log" in warnings[0] and "/" in warnings[1]
    assert all(ord(ch) < 128 for ch in proc.stdout)


def test_series_is_one_polynomial_line():
    proc, about_zero, as_json, moving = gradcli_all(
        ("eval", "x**3", "--at", "x=-0.5", "--series", "3"),
        ("eval", "exp(x)", "--at", "x=0", "--series", "3", "--digits", "3"),
        ("eval", "x**3", "--at", "x=2", "--series", "3", "--format", "json"),
        {"args": ("eval", "--series", "1"), "stdin": "x = 1\nx^2\nx = 2; x^2; x = 3\nx^2\n"},
    )
    # each series about the value x had when its statement ran
    assert moving.stdout == "1 + 2*(x - 1)\n4 + 4*(x - 2)\n9 + 6*(x - 3)\n"
    # simple rationals print exactly (issue 23)
    assert proc.stdout == "-1/8 + 3*(x + 0.5)/4 - 3*(x + 0.5)^2/2 + (x + 0.5)^3\n"
    assert about_zero.stdout == "1 + x + x^2/2 + x^3/6\n"
    objs = json_lines(as_json.stdout)
    assert objs[0]["series"] == [8.0, 12.0, 6.0, 1.0]


def test_grad_option_and_grad_statement():
    proc, plain = gradcli_all(
        ("eval", "x*y + y", "--at", "x=2,y=3", "--grad", "--format", "json"),
        ("eval", "x = 2; y = 3; grad(x*y)"),
    )
    obj = json_lines(proc.stdout)[0]
    assert obj["gradient"] == {"x": 3.0, "y": 3.0}
    assert obj["at"] == {"x": 2.0, "y": 3.0}
    assert plain.stdout == "d/dx: 3\nd/dy: 2\n"


def test_float32_and_digits():
    proc, third, digits, digits_json = gradcli_all(
        ("eval", "1/3", "x**2", "--at", "x=3", "--dtype", "float32", "--format", "json",
         "--order", "1"),
        ("eval", "1/3", "--dtype", "float32", "--format", "json"),
        ("eval", "pi", "--digits", "3"),
        ("eval", "pi", "--digits", "3", "--format", "json"),
    )
    objs = json_lines(proc.stdout)
    # 1/3 has no variable: a constant, whose derivative is 0 (and no "wrt")
    assert objs[0]["derivatives"] == [0.0] and "wrt" not in objs[0]
    assert objs[1]["value"] == 9.0 and objs[1]["derivatives"] == [6.0]
    # float32's 1/3, at full precision
    assert json_lines(third.stdout)[0]["value"] == 0.3333333432674408
    assert digits.stdout == "3.14\n"
    assert json_lines(digits_json.stdout)[0]["value"] == 3.141592653589793


def test_csv_has_a_header_and_one_row_per_statement():
    proc = gradcli("eval", "x = 2", "x**2, 1", "x**2", "--order", "2", "--format", "csv")
    rows = proc.stdout.splitlines()
    assert rows[0] == "input,wrt,value,d1,d2,error"
    assert rows[1] == "x = 2,,2,,,"
    assert rows[2].startswith('"x**2, 1",,,,,')  # a parse error, quoted input
    assert rows[3] == "x**2,x,4,4,2,"
    assert proc.returncode == 2


def test_at_values_are_expressions_with_commas_and_may_repeat():
    proc, as_json = gradcli_all(
        ("eval", "x + y + z", "--at", "x=sum(linspace(0,1,5)),y=2", "--at", "z=3"),
        ("eval", "x**2", "--at", "x=linspace(0,1,3)", "--order", "1", "--format", "json"),
    )
    assert proc.stdout == "7.5\n"
    arr = json_lines(as_json.stdout)[0]
    assert arr["at"] == {"x": [0.0, 0.5, 1.0]}
    assert arr["derivatives"] == [[0.0, 1.0, 2.0]]


def test_a_bad_at_value_is_a_positioned_error():
    proc, missing = gradcli_all(("eval", "x", "--at", "x=1 +* 2"), ("eval", "x", "--at", "x"))
    assert proc.returncode == 2
    assert "--at x=1 +* 2" in proc.stderr and "^" in proc.stderr
    assert missing.returncode == 2 and "NAME=VALUE" in missing.stderr
    # the column counts in "x=1 +* 2", the input the error shows (and JSON gives)
    assert "(line 1, column 6)" in proc.stderr
    assert "  x=1 +* 2\n       ^" in proc.stderr



def test_an_at_value_of_two_statements_is_named_once():
    proc = gradcli("eval", "x", "--at", "x=1;y=2")
    assert proc.returncode == 2
    assert proc.stderr.startswith(
        "error: --at x=1;y=2: the value must be one expression, got '1;y=2'")


def test_at_cannot_bind_a_built_in_function():
    # as 'sin = 3' is refused in the language; sin*2 used to print 6
    proc, diff = gradcli_all(("eval", "sin*2", "--at", "sin=3"),
                             ("eval", "x", "--at", "x=1,diff=2"))
    assert proc.returncode == 2 and proc.stdout == ""
    assert "--at sin=3: 'sin' is a built-in function" in proc.stderr
    assert diff.returncode == 2 and "'diff' is a built-in function" in diff.stderr


# --- several statements, stdin, -- ----------------------------------------------------


def test_several_expr_arguments_are_never_joined():
    proc = gradcli("eval", "1", "+2", "3 *", "4")
    assert proc.stdout == "1\n2\n4\n"
    assert "(line 3, column 4)" in proc.stderr
    assert proc.returncode == 2


def test_an_expression_starting_with_minus_follows_double_dash():
    proc, unknown, late, late_valued = gradcli_all(
        ("eval", "--at", "x=3", "--", "-x**2", "-1", "--x", "-(-order)"),
        ("eval", "-x**2"),
        ("eval", "--", "-x**2", "--order", "1"),
        ("eval", "--", "-x**2", "--at=x=3"),
    )
    assert proc.returncode == 1  # "--x" after "--" is a statement: -(-x)
    assert proc.stdout == "-9\n-1\n3\n"
    assert "unknown name 'order'" in proc.stderr
    assert "(line 4, column 4)" in proc.stderr
    assert unknown.returncode == 2  # an unknown option
    # an option after "--" was meant as one: a usage error, not -(-order) and 1
    for p, option in ((late, "--order"), (late_valued, "--at")):
        assert p.returncode == 2 and p.stdout == ""
        assert f"Error: {option} came after '--', so it was read as an expression; " \
            "put options before '--'" in p.stderr


def test_statements_from_stdin_keep_their_line_numbers():
    script = "x = 2\n# a comment\nA = [[1, 2],\n     [3, 4]]\nA[1, 0] * x\nsinn(x)\nx^2\n"
    proc, bare, no_args = gradcli_all(
        {"args": ("eval", "-", "--format", "json"), "stdin": script},
        {"args": (), "stdin": "2 + 2\n3 * 3\n"},  # plain `gradcli` with a pipe
        {"args": ("eval", "--order", "1"), "stdin": "x = 3; x^2\n"},
    )
    objs = json_lines(proc.stdout)
    assert [o["input"] for o in objs][-3:] == ["A[1, 0] * x", "sinn(x)", "x^2"]
    assert objs[2]["value"] == 6.0 and objs[-1]["value"] == 4.0
    assert objs[3]["error"] == {"kind": "name", "line": 6, "column": 1,
                                "message": "unknown function 'sinn'; did you mean sin?"}
    assert "(line 6, column 1)" in proc.stderr
    assert proc.returncode == 1
    assert bare.stdout == "4\n9\n" and bare.returncode == 0
    assert no_args.stdout == "9\n6\n"


def test_a_stray_bracket_in_a_script_costs_only_its_own_statement():
    script = "a = 1\nb = (a + 2\nc = 3\na + c\n"
    proc = gradcli("eval", "-", "--format", "json", stdin=script)
    objs = json_lines(proc.stdout)
    assert [o["input"] for o in objs] == ["a = 1", "b = (a + 2", "c = 3", "a + c"]
    assert objs[1]["error"] == {"kind": "parse", "message": "'(' was never closed",
                                "line": 2, "column": 5}
    assert objs[3]["value"] == 4.0
    assert proc.returncode == 2


def test_a_parse_error_in_an_open_bracket_costs_only_its_line():
    # '(1 +* 2' took 'k = 42' and 'k' into its one error, in eval - and the piped REPL
    script = "(1 +* 2\nk = 42\nk\n"
    evals, repl = gradcli_all({"args": ("eval", "-"), "stdin": script},
                              {"args": ("repl",), "stdin": script})
    for proc in (evals, repl):
        assert (proc.returncode, proc.stdout) == (2, "42\n"), proc.stderr
        assert proc.stderr.startswith(
            "error: unexpected '*', expected an expression (line 1, column 5)")


@pytest.mark.parametrize("lines", [
    ["(" * 257 + "1"],  # nested past the parser's limit, never closed
    ["(" * 200, "(" * 100],  # the same, over two lines
    ["((", "x+" * 125_000 + "x"],  # a statement past 200,000 characters inside
], ids=["deep", "deep-over-lines", "long-inside"])
def test_a_bracket_that_runs_into_a_limit_costs_only_its_own_lines(lines):
    script = "\n".join(["k = 42", *lines, "k"]) + "\n"
    evals, repl = gradcli_all({"args": ("eval", "-"), "stdin": script},
                              {"args": ("repl",), "stdin": script})
    for proc in (evals, repl):
        assert proc.returncode == 2 and proc.stdout == "42\n", proc.stderr[:500]
        assert "(line 2, column" in proc.stderr
        no_traceback(proc)


def test_a_line_past_ten_million_characters_is_an_error_at_its_own_line():
    # it took its neighbours with it, and was reported at line 1
    script = "k = 42\n" + "x+" * 5_000_000 + "x\nk\n"
    plain, as_json, repl = gradcli_all(
        {"args": ("eval", "-"), "stdin": script},
        {"args": ("eval", "-", "--format", "json"), "stdin": script},
        {"args": ("repl",), "stdin": script})
    for proc in (plain, repl):
        assert (proc.returncode, proc.stdout) == (2, "42\n")
        assert proc.stderr.startswith(
            "error: line longer than 10,000,000 characters (line 2, column 10000001)")
    objs = json_lines(as_json.stdout)
    assert [o.get("value") for o in objs] == [42.0, None, 42.0]
    assert objs[1]["error"]["line"] == 2 and objs[1]["input"] == "x+" * 100


def test_a_piped_repl_takes_bare_quit_and_exit_for_names():
    # `quit` silently ended the script: k never printed, and the status was 0
    quits, bound = gradcli_all({"args": ("repl",), "stdin": "k = 42\nquit\nk\n:quit\nk\n"},
                               {"args": ("repl",), "stdin": "exit = 3\nexit\n"})
    assert (quits.returncode, quits.stdout) == (1, "42\n")
    assert quits.stderr.splitlines() == [
        "error: unknown name 'quit'; to leave the REPL, type :quit (line 2, column 1)",
        "  quit", "  ^"]
    assert (bound.returncode, bound.stdout, bound.stderr) == (0, "3\n", "")


def test_stdin_results_stream_before_end_of_input():
    proc = subprocess.Popen([GRADCLI, "eval", "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        proc.stdin.write("6 * 7\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "42\n"  # while stdin is still open
        proc.stdin.write("1 + 1\n")
        proc.stdin.close()
        assert proc.stdout.read() == "2\n"
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
        proc.wait()
        for stream in (proc.stdout, proc.stderr):
            stream.close()


# --- errors and exit statuses ------------------------------------------------------


def test_errors_have_a_caret_under_the_column():
    proc = gradcli("eval", "1 +* 2")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.splitlines() == [
        "error: unexpected '*', expected an expression (line 1, column 4)",
        "  1 +* 2",
        "     ^",
    ]


EXIT_CASES = [
        (("eval", "2 + 2"), 0),
        (("eval", "sinn(1)"), 1),
        (("eval", "[1, 2] + [1, 2, 3]"), 1),
        (("eval", "1 +"), 2),
        (("eval", "x", "--order", "-1"), 2),
        (("eval", "x", "--format", "xml"), 2),
        (("eval", "--bogus", "x"), 2),
        (("eval", "x*y", "--at", "x=1,y=2", "--order", "1"), 2),
        (("nosuchcommand",), 2),
]


def test_exit_statuses():
    # a real process's statuses, as a shell script sees them
    procs = concurrently(lambda args: gradcli_process(*args), [args for args, _ in EXIT_CASES])
    for (args, status), proc in zip(EXIT_CASES, procs):
        assert proc.returncode == status, (args, proc.stderr)
        no_traceback(proc)
        assert bool(proc.stderr) == bool(status), args


def test_the_highest_status_wins_and_every_statement_runs():
    proc, with_check = gradcli_all(
        ("eval", "sinn(1)", "1 +", "2", "--format", "json"),
        ("eval", "1 +", "abs(x - 1e-9)", "x^2", "--at", "x=0", "--check"),
    )
    objs = json_lines(proc.stdout)
    assert len(objs) == 3
    assert objs[0]["error"]["kind"] == "name" and objs[1]["error"]["kind"] == "parse"
    assert objs[2]["value"] == 2.0
    assert proc.returncode == 2
    assert with_check.returncode == 3


def test_check_fails_at_a_kink_and_passes_elsewhere():
    # the kink 1e-9 away from 0, closer than the smallest step (1/64): no
    # estimate resolves the side it is on
    bad, good = gradcli_all(("eval", "abs(x - 1e-9)", "--at", "x=0", "--check", "--format",
                             "json"),
                            ("eval", "abs(x)", "--at", "x=0.5", "--check"))
    assert bad.returncode == 3
    obj = json_lines(bad.stdout)[0]
    assert obj["check"][0]["ok"] is False
    assert obj["check"][0]["abs_error"] > 0.5  # the estimate straddles the kink
    assert good.returncode == 0
    assert good.stdout.splitlines()[1].endswith(" pass")


def test_gpu_without_a_gpu_is_a_device_error():
    if shutil.which("nvidia-smi"):
        pytest.skip("a GPU may be present")
    proc = gradcli("eval", "x + 1", "--at", "x=1", "--device", "gpu", "--format", "json")
    assert proc.returncode == 1
    obj = json_lines(proc.stdout)[0]
    assert obj["error"]["kind"] == "device"
    assert "GPU" in proc.stderr
    no_traceback(proc)


def test_hostile_input_never_shows_a_traceback():
    hostile = "\n".join([
        "(" * 5000 + "1" + ")" * 5000,
        "10**10**10",
        "linspace(0, 1, 10**12)",
        "diff(x^2, x, 10000, 1)",
        "\x00\x01\x7f",
        "\u202e1+1",
        "x = = 2",
        ")))",
        "f(x) = f(x); f(1)",
        "ones(5000) @ ones(5000)",
        "[" * 3000,  # a bracket never closed costs only its own line
        "1 + 1",
    ])
    start = time.perf_counter()
    proc = gradcli("eval", "-", "--format", "json", stdin=hostile)
    assert time.perf_counter() - start < 30
    no_traceback(proc)
    objs = json_lines(proc.stdout)
    assert len(objs) == 13
    assert proc.returncode == 2
    assert all(("error" in o) + ("value" in o) + ("defined" in o) == 1 for o in objs)
    assert objs[1]["value"] == "inf" and objs[-2]["error"]["kind"] == "parse"
    assert objs[-1]["value"] == 2.0
    binary = subprocess.run([GRADCLI, "eval", "-"], input=b"1 + \xff\xfe\n2\n",
                            capture_output=True, timeout=60)
    assert binary.stdout == b"2\n"
    assert b"Traceback" not in binary.stderr


def test_a_closed_pipe_is_quiet():
    proc = subprocess.Popen([GRADCLI, "eval", "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdin.write(b"1\n" * 2000)
    proc.stdin.flush()
    proc.stdout.readline()
    proc.stdout.close()
    # more statements, whose results certainly come after the reader left (gradcli
    # may have ended by then, as it may on a closed output)
    with contextlib.suppress(BrokenPipeError):
        proc.stdin.write(b"1\n" * 2000)
        proc.stdin.flush()
    with contextlib.suppress(BrokenPipeError):
        proc.stdin.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    proc.stderr.close()
    assert "Traceback" not in err and "Exception ignored" not in err


@pytest.mark.parametrize("fmt", ["plain", "json", "csv", "table", "repl"])
def test_a_reader_that_leaves_during_a_large_result_gives_status_1(fmt):
    # one large write that the pipe took only part of was counted as written:
    # the rest of the array was dropped and the run exited 0 (the table and the
    # piped REPL did so after aa45cab, and the REPL then said 0 for any reader
    # that left)
    if fmt == "repl":
        argv, stdin = [GRADCLI, "repl"], subprocess.PIPE
    else:
        argv, stdin = [GRADCLI, "eval", "linspace(0, 1, 200000)", "--format", fmt], None
    # 200,000 numbers are 4 MB in every format, written 1.3 MB or more at a time: far
    # past what a pipe holds (64 KiB)
    proc = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if stdin is not None:
        proc.stdin.write(b"linspace(0, 1, 200000)\n")
        proc.stdin.close()
    assert proc.stdout.read(10)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 1
    assert err == ""


def test_closed_standard_streams_are_no_crash():
    scripts = (f'"{GRADCLI}" eval - <&- ; echo "in $?"',
               f'"{GRADCLI}" eval "x" --at x=2 >&- ; echo "out $?"',
               f'"{GRADCLI}" eval "sinn(1)" 2>&- ; echo "err $?"')
    closed_in, closed_out, closed_err = concurrently(
        lambda script: subprocess.run(["sh", "-c", script], capture_output=True, text=True,
                                      timeout=60), scripts)
    # a closed stdout fails the write, as echo's does (it exited 0, having printed nothing)
    assert [p.stdout for p in (closed_in, closed_out, closed_err)] == [
        "in 0\n", "out 1\n", "err 1\n"]
    assert closed_in.stderr == closed_err.stderr == ""
    assert closed_out.stderr == "error: cannot write the output: Bad file descriptor\n"


# --- colour and terminals ---------------------------------------------------------


def test_colour_is_off_when_piped_and_on_when_forced():
    piped, forced, never = gradcli_all(
        ("eval", "sinn(1)", "log(-1)", "--format", "table"),
        ("eval", "sinn(1)", "--color", "always"),
        ("eval", "sinn(1)", "--color", "never"),
    )
    assert ESC not in piped.stdout + piped.stderr
    assert all(ord(ch) < 128 for ch in piped.stdout)
    assert f"{ESC}1;31merror:" in forced.stderr
    assert ESC not in never.stderr


def test_color_always_wins_over_a_dumb_terminal_in_tables_too():
    # SPEC: TERM=dumb turns colour off in auto only; rich alone would pick no colours
    forced, auto = gradcli_all(
        {"args": ("eval", "abs(x - 1e-9)", "--at", "x=0", "--check", "--format", "table",
                  "--color", "always"), "env": {"TERM": "dumb"}},
        {"args": ("eval", "abs(x - 1e-9)", "--at", "x=0", "--check", "--format", "table"),
         "env": {"TERM": "dumb"}},
    )
    assert forced.returncode == auto.returncode == 3
    assert f"{ESC}1;31mFAIL" in forced.stdout
    assert ESC not in auto.stdout and "FAIL" in auto.stdout


def test_table_format_when_piped_is_ascii_and_unwrapped():
    long_input = " + ".join(["x"] * 60)
    proc = gradcli("eval", "x**4 - 2*x**2", long_input, "--at", "x=2", "--order", "2",
                   "--check", "--format", "table")
    assert proc.returncode == 0
    assert all(ord(ch) < 128 for ch in proc.stdout)
    assert ESC not in proc.stdout
    assert "| 1     | 24    |" in proc.stdout
    assert "pass" in proc.stdout
    assert any(long_input in line for line in proc.stdout.splitlines())  # not wrapped


def _spawn(args: list[str], env: dict[str, str]) -> str:
    pexpect = pytest.importorskip("pexpect")
    full_env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    full_env.update(env)
    child = pexpect.spawn(GRADCLI, args, env=full_env, encoding="utf-8", timeout=60,
                          dimensions=(40, 120))
    child.expect(pexpect.EOF)
    child.close()
    return child.before


def test_a_terminal_gets_a_coloured_table_unless_no_color():
    args = ["eval", "x**2", "sinn(1)", "--at", "x=3", "--order", "1"]
    coloured, plain, dumb = concurrently(
        lambda env: _spawn(args, env),
        [{"TERM": "xterm-256color"}, {"TERM": "xterm-256color", "NO_COLOR": "1"},
         {"TERM": "dumb"}])
    assert "│" in coloured or "╭" in coloured  # rich's box on a terminal
    assert ESC in coloured
    assert "│" in plain and ESC not in plain
    assert ESC not in dumb


# --- plot, and what eval must not import ---------------------------------------------


def test_plot_writes_a_dot_file(tmp_path):
    out = tmp_path / "g.dot"
    proc, bad = gradcli_all(("plot", "sin(x) * x", "-o", str(out), "--at", "x=2"),
                            ("plot", "sinn(x)", "-o", str(tmp_path / "h.dot"), "--at", "x=2"))
    assert proc.returncode == 0, proc.stderr
    assert out.read_text().lstrip().startswith("digraph")
    assert bad.returncode == 1 and "did you mean sin" in bad.stderr


def test_plot_file_names_are_read_as_a_shell_reads_them(tmp_path):
    # :plot took '"unterminated.png' and '"two" "files.png"' for names, echoed an
    # ESC raw, failed with an internal error on a NUL byte, and expanded ~ when
    # plot -o did not: a quoted ~ is now a ~ in both, as in a shell
    (tmp_path / "~").mkdir()
    script = ('x = 2\n:plot x "my graph.dot"\n:plot x "unterminated.dot\n'
              ':plot x "two" "files.dot"\n:plot x a\x1bb.dot\n:plot x a\x00b.dot\n'
              ':plot x ~/home.dot\n:plot x "~/quoted.dot"\n')
    env = {"HOME": str(tmp_path / "home")}
    (tmp_path / "home").mkdir()
    repl, cli, escape = concurrently(lambda run: run(), [
        lambda: subprocess.run([GRADCLI, "repl"], input=script, capture_output=True, text=True,
                               timeout=60, cwd=tmp_path, env={**os.environ, **env}),
        lambda: subprocess.run([GRADCLI, "plot", "x", "--at", "x=2", "-o", "~/cli.dot"],
                               capture_output=True, text=True, timeout=60, cwd=tmp_path),
        lambda: subprocess.run([GRADCLI, "plot", "x", "--at", "x=2", "-o", "a\x1bb.dot"],
                               capture_output=True, text=True, timeout=60, cwd=tmp_path)])
    assert cli.returncode == 0, cli.stderr
    assert sorted(p.name for p in tmp_path.rglob("*.dot")) == [
        "cli.dot", "home.dot", "my graph.dot", "quoted.dot"]
    assert (tmp_path / "home" / "home.dot").exists() and (tmp_path / "~" / "quoted.dot").exists()
    errors = [line for line in repl.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        "error: the file name has a quote that is never closed (line 3)",
        "error: unexpected character '\"' (line 4, column 9)",
        "error: the file name has a control or format character, U+001B, at position 2: "
        "a\ufffdb.dot (line 5)",
        "error: the file name has a control or format character, U+0000, at position 2: "
        "a\ufffdb.dot (line 6)",
    ]
    assert "\x1b" not in repl.stderr + escape.stderr and "internal" not in repl.stderr
    assert (escape.returncode, escape.stdout) == (2, "")
    assert "Invalid value for '--output': the file name has a control or format character" \
        in escape.stderr


def _imports(*args: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    proc = subprocess.run([sys.executable, "-X", "importtime", GRADCLI, *args],
                          capture_output=True, text=True, timeout=60)
    return proc, {line.split("|")[-1].strip() for line in proc.stderr.splitlines()
                  if line.startswith("import time:")}


def test_eval_imports_no_rich_typer_or_prompt_toolkit():
    proc, imported = _imports("eval", "x**4 - 2*x**2", "--at", "x=2", "--order", "2",
                              "--format", "json")
    assert proc.returncode == 0
    assert "gradcli.session" in imported
    for heavy in ("rich", "prompt_toolkit", "graphviz", "cupy", "pydantic", "typer"):
        assert heavy not in imported, heavy


def test_version_imports_neither_typer_nor_numpy():
    proc, imported = _imports("--version")
    assert proc.returncode == 0 and proc.stdout == f"gradcli {__version__}\n"
    assert not {"typer", "numpy", "click"} & imported


# --- in-process: the CLI's own pieces -------------------------------------------------


def test_max_order_matches_the_evaluator():
    from gradcli.core import taylor
    from gradcli.lang.evaluate import MAX_ORDER

    assert cli.MAX_ORDER == MAX_ORDER
    # Taylor mode reaches every order the language allows (the session relies on it)
    assert taylor.MAX_ORDER == MAX_ORDER


@pytest.mark.parametrize(
    ("text", "pairs"),
    [
        ("x=2", [("x", "2")]),
        ("x=2,y=3", [("x", "2"), ("y", "3")]),
        ("x=linspace(0,1,5)", [("x", "linspace(0,1,5)")]),
        ("x = [1, 2], y=max([1,2]) , z=3", [("x", "[1, 2]"), ("y", "max([1,2])"), ("z", "3")]),
        # any name the language takes ('x₁'.isidentifier() is False)
        ("x₁=2,½=0.5", [("x₁", "2"), ("½", "0.5")]),
    ],
)
def test_split_at(text, pairs):
    assert cli.split_at(text) == pairs


def test_at_and_wrt_take_every_name_the_language_takes():
    from gradcli.lang.grammar import grammar_text
    from gradcli.lang.names import NAME

    assert re.search(r"^NAME: /(.*)/$", grammar_text(), re.M).group(1) == NAME.pattern
    done = gradcli("eval", "x₁^2 + y", "--at", "x₁=3,y=1", "--wrt", "x₁", "--order", "1")
    assert (done.returncode, done.stdout.split()) == (0, ["10", "6"])


@pytest.mark.parametrize("text", ["x", "=2", "x=", "2=3", "x=1,,y=2"])
def test_split_at_refuses_malformed_bindings(text):
    if text == "x=1,,y=2":  # the value "1," is left for the parser to refuse
        assert cli.split_at(text) == [("x", "1,"), ("y", "2")]
        return
    with pytest.raises(cli.UsageProblem):
        cli.split_at(text)


def test_stdin_inputs_join_open_brackets_and_keep_line_numbers():
    stream = io.StringIO("a = 1\nb = [1,\n 2] # ( not counted\nc = (1 +\n\n 2)\nd\n")
    inputs = [item for batch in read_inputs(stream) for item in batch]
    assert [item.line for item in inputs] == [1, 2, 4, 7]
    assert inputs[1].text == "b = [1,\n 2] # ( not counted"
    assert all(item.closed and item.error is None for item in inputs)


def test_stdin_inputs_batch_what_arrived_together_on_a_pipe():
    read_fd, write_fd = os.pipe()
    with os.fdopen(read_fd, "r", encoding="utf-8") as stream:
        batches = read_inputs(stream)
        os.write(write_fd, b"a = 1\nb = 2\nc = [1,\n")
        # together; the open bracket waits
        assert [tuple(i[:2]) for i in next(batches)] == [("a = 1", 1), ("b = 2", 2)]
        os.write(write_fd, "2]\nd \u00e9".encode())
        assert [tuple(i[:2]) for i in next(batches)] == [("c = [1,\n2]", 3)]
        os.write(write_fd, b"\xff\n")
        os.close(write_fd)
        assert [tuple(i[:2]) for i in next(batches)] == [("d \u00e9\ufffd", 5)]  # U+FFFD
        assert [item for batch in batches for item in batch] == []


def test_colour_rules(monkeypatch):
    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr(sys, "stdout", Tty())
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert colour_enabled("auto", Tty())
    assert not colour_enabled("auto", io.StringIO())  # stderr piped
    assert not colour_enabled("never", Tty())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not colour_enabled("auto", Tty())
    assert colour_enabled("always", io.StringIO())
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("TERM", "dumb")
    assert not colour_enabled("auto", Tty())


def test_plain_gradcli_on_a_terminal_starts_the_repl_and_repl_reads_a_pipe(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    # no cursor position request, which pexpect never answers: prompt_toolkit waited a
    # second for the reply as the REPL ended (as tests/test_repl.py's terminal does)
    env.update(TERM="xterm", GRADCLI_HISTORY=str(tmp_path / "history"),
               PROMPT_TOOLKIT_NO_CPR="1")
    with ThreadPoolExecutor(max_workers=1) as pool:  # the piped REPL meanwhile
        piped_run = pool.submit(gradcli, "repl", stdin="1 + 1\nx = 3\nx^2\n")
        child = pexpect.spawn(GRADCLI, [], env=env, encoding="utf-8", timeout=60)
        child.expect(":help")  # the REPL's greeting, not the eval usage error
        child.expect(">")  # its prompt
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
        child.close()
        piped = piped_run.result()
    assert child.exitstatus == 0
    assert piped.returncode == 0
    assert piped.stdout.split() == ["2", "9"]


def test_errors_before_any_statement_get_a_csv_row_per_statement():
    # a bad --at or a missing GPU printed only the CSV header: no row, no error
    bad_at, no_gpu = gradcli_all(
        ("eval", "x", "--at", "x=1 +", "--format", "csv"),
        ("eval", "x^2", "x^3", "--at", "x=1", "--device", "gpu", "--format", "csv"))
    rows = list(csv.reader(io.StringIO(bad_at.stdout)))
    assert bad_at.returncode == 2 and rows[0] == ["input", "value", "error"]
    assert rows[1][0] == "x=1 +" and "unexpected end of input" in rows[1][2]
    if no_gpu.returncode == 1:  # no CuPy or no GPU here: one row per statement
        rows = list(csv.reader(io.StringIO(no_gpu.stdout)))
        assert [r[0] for r in rows[1:]] == ["x^2", "x^3"] and all(r[2] for r in rows[1:])


def test_plot_of_nothing_is_a_usage_error(tmp_path):
    # an empty expression was an internal error (and the handler of it failed too)
    texts = ("", "   ", "# a comment")
    procs = gradcli_all(*(("plot", text, "-o", str(tmp_path / "g.dot")) for text in texts))
    for text, proc in zip(texts, procs):
        assert proc.returncode == 2 and "plot needs an expression" in proc.stderr, text
        no_traceback(proc)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs Linux's /dev/full")
def test_a_full_disk_is_an_error_of_its_own_not_an_internal_one():
    def run(args: list[str]) -> subprocess.CompletedProcess[str]:
        with open("/dev/full", "w") as full:
            return subprocess.run([GRADCLI, "eval", *args], stdout=full, stderr=subprocess.PIPE,
                                  text=True, timeout=60)

    for proc in concurrently(run, [["x", "--at", "x=1"],
                                   ["x", "--at", "x=linspace(0, 1, 100000)"]]):
        assert proc.returncode == 1
        assert proc.stderr.strip() == "error: cannot write the output: No space left on device"


def test_wrt_alone_says_it_has_no_effect():
    alone, with_order = gradcli_all(("eval", "x*y", "--at", "x=1,y=2", "--wrt", "y"),
                                    ("eval", "x*y", "--at", "x=1,y=2", "--wrt", "y",
                                     "--order", "1"))
    assert alone.returncode == 0 and alone.stdout == "2\n"
    assert alone.stderr == \
        "warning: --wrt y has no effect without --order, --series, --check or --formula\n"
    assert with_order.returncode == 0 and with_order.stderr == ""
    assert with_order.stdout.split() == ["2", "1"]
