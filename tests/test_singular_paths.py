"""A removable singularity is its limit, and a nan value has no derivatives, on
every default path: --grad, --wrt another variable, diff by another variable,
grad(...), a sum over an array holding the point (the findings of a new
user's review, each as it was typed)."""

from __future__ import annotations

from test_cli import gradcli_all

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
