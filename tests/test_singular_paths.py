"""A removable singularity is its limit, and a nan value has no derivatives, on
every default path: --grad, --wrt another variable, diff by another variable,
grad(...), a sum over an array holding the point, --check and :check (the
findings of a new user's review, each as it was typed)."""

from __future__ import annotations

from test_cli import gradcli, gradcli_all

from gradcli.session import EvalOptions, Session

ROWS = [
    # (arguments, exit status, standard output lines)
    (("eval", "sin(x)/x", "--at", "x=0", "--grad"), 0, ["1", "d/dx: 0"]),
    (("eval", "sin(x)/x + y", "--at", "x=0,y=1", "--wrt", "y", "--order", "1"), 0, ["2", "1"]),
    (("eval", "diff(sin(x)/x*y, y)", "--at", "x=0,y=2"), 0, ["1"]),
    (("eval", "grad(sin(x)/x)", "--at", "x=0"), 0, ["d/dx: 0"]),
    (("eval", "sum(sin(x)/x)", "--at", "x=[0,1]", "--order", "1"), 0,
     ["1.8414709848078965", "[0, -0.30116867893975674]"]),
    (("eval", "sum(sin(x)/x)", "--at", "x=[0,1]", "--grad"), 0,
     ["1.8414709848078965", "d/dx: [0, -0.30116867893975674]"]),
    (("eval", "q(t) = sin(t)/t", "sum(q(x))", "--at", "x=[0,1]", "--order", "1"), 0,
     ["1.8414709848078965", "[0, -0.30116867893975674]"]),
    # a value that is nan has no derivative, whatever the path
    (("eval", "log(-y)", "--at", "y=1", "--grad"), 0, ["nan", "d/dy: nan"]),
    (("eval", "log(-y)", "--at", "y=1", "--order", "1"), 0, ["nan", "nan"]),
    (("eval", "log(-y)", "--at", "y=1", "--order", "1", "--method", "backprop"), 0,
     ["nan", "nan"]),
    (("eval", "diff(log(-y), y)", "--at", "y=1"), 0, ["nan"]),
    (("eval", "grad(log(-y))", "--at", "y=1"), 0, ["d/dy: nan"]),
]


def test_each_path_gives_the_limit():
    done = gradcli_all(*(args for args, *_ in ROWS))
    for (args, status, lines), proc in zip(ROWS, done):
        assert proc.returncode == status, (args, proc.stderr)
        assert proc.stdout.splitlines() == lines, (args, proc.stdout)
        if not any("nan" in line for line in lines):  # a 0/0 with a limit: no warning
            assert proc.stderr == "", (args, proc.stderr)


def test_grad_check_at_the_singularity_passes():
    # printed d/dx: nan, d/dy: nan and check d/dx ... FAIL, exit 3
    (proc,) = gradcli_all(("eval", "sin(x)/x*y", "--at", "x=0,y=2", "--grad", "--check"))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[:3] == ["2", "d/dx: 0", "d/dy: 1"]
    assert lines[3].startswith("check d/dx: autodiff 0 numerical 0") and lines[3].endswith("pass")
    assert lines[4].startswith("check d/dy: autodiff 1 numerical 1") and lines[4].endswith("pass")


def test_check_samples_the_limit():
    # order 2 was "numerical nan ... inconclusive": its sample at 0 was 0/0
    s = Session()
    s.bind_value("x", 0.0)
    (res,) = s.run("sin(x)/x", EvalOptions(order=3, check=True))
    assert [c.ok for c in res.check] == [True, True]
    assert abs(float(res.check[1].numerical) + 1 / 3) < 1e-9
    backprop = Session(method="backprop")
    backprop.bind_value("x", 0.0)
    (res,) = backprop.run("sin(x)/x", EvalOptions(order=2, check=True))
    assert res.check[1].ok is None  # inconclusive: backprop keeps the nan


def test_repl_check_by_the_other_variable():
    # reported "autodiff nan"
    done = gradcli("repl", stdin="x=0\ny=1\n:check sin(x)/x*y wrt y\n")
    assert done.returncode == 0, done.stderr
    line = next(t for t in done.stdout.splitlines() if t.startswith("check order 1"))
    assert line.startswith("check order 1: autodiff 1 numerical 1") and line.endswith("pass")
