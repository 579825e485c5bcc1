"""Every `console` example in README.md and docs/*.md runs, and prints what it shows.

A `console` block holds commands (`$ gradcli ...`), each followed by the
output it prints: standard output and standard error through one pipe, as
a terminal shows them (gradcli flushes its results before each message, so
the order is stable). Commands run from the repository root: those that
need a shell (a pipe, a redirection, `$?`) with `sh`, the rest in this
process, as tests/inprocess.py says.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from inprocess import gradcli

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]
BLOCK = re.compile(r"^```console\n(.*?)^```", re.MULTILINE | re.DOTALL)


def examples(page: Path) -> list[tuple[str, list[str]]]:
    found = []
    for block in BLOCK.findall(page.read_text(encoding="utf-8")):
        command, output = None, []
        for line in block.splitlines():
            if line.startswith("$ "):
                if command is not None:
                    found.append((command, output))
                command, output = line[2:], []
            else:
                assert command is not None, f"{page.name}: output before any command: {line!r}"
                output.append(line)
        if command is not None:
            found.append((command, output))
    return found


EXAMPLES = [(page.relative_to(ROOT).as_posix(), command, output)
            for page in PAGES for command, output in examples(page)]


def _text(page: str) -> str:
    """PAGE's text with its line breaks and runs of spaces made single spaces."""
    return " ".join((ROOT / page).read_text(encoding="utf-8").split())


def test_the_readme_and_docs_have_examples_and_each_runs_gradcli():
    # a floor, so that examples cannot vanish unnoticed: raise it when adding some
    assert len(EXAMPLES) >= 31
    assert {page for page, _, _ in EXAMPLES} >= {
        "README.md", "docs/language.md", "docs/cli.md", "docs/repl.md"}
    for page, command, _ in EXAMPLES:
        assert command.startswith(("gradcli ", "printf ")), f"{page}: {command}"
        assert "gradcli " in command, f"{page}: {command}"


def test_the_readme_links_every_page_of_the_docs():
    readme = README.read_text(encoding="utf-8")
    for page in sorted(DOCS.glob("*.md")):
        assert f"(docs/{page.name})" in readme, page.name


def test_every_relative_link_of_the_readme_and_docs_names_a_file_there():
    link = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
    for page in PAGES:
        for target in link.findall(page.read_text(encoding="utf-8")):
            if "://" in target:
                continue
            assert (page.parent / target).exists(), f"{page.name}: {target}"


def test_no_page_cites_a_spec_outside_the_repository():
    for page in PAGES:
        assert "SPEC.md" not in page.read_text(encoding="utf-8"), page.name


def test_the_readme_starts_with_install_and_test_commands():
    head = README.read_text(encoding="utf-8").split("\n## ")[0]
    assert 'pip install . && gradcli eval "x**4 - 2*x**2" --at x=2 --order 3 --check' in head
    assert "pip install '.[test]' && python -m pytest" in head


SHELL = re.compile(r"[|&;<>()$`\\*?~#{}\[\]]")
"""What only a shell reads, outside quotes: such examples run through sh, the
rest in this process (tests/inprocess.py) with their words as sh splits them."""
QUOTED = re.compile(r"'[^']*'|\"[^\"$`\\]*\"")


def _run(command: str) -> str:
    words = shlex.split(command)
    if words[0] == "gradcli" and not SHELL.search(QUOTED.sub("", command)):
        return gradcli(*words[1:], cwd=ROOT, merged=True).stdout
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    proc = subprocess.run(["sh", "-c", command], cwd=ROOT, env=env, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    return proc.stdout


@pytest.fixture(scope="module")
def outputs() -> dict[str, str]:
    """Every example's output (those run by sh concurrently: start-up dominates each)."""
    commands = sorted({command for _, command, _ in EXAMPLES})
    with ThreadPoolExecutor(max_workers=min(8, len(commands))) as pool:
        return dict(zip(commands, pool.map(_run, commands)))


@pytest.mark.parametrize(("page", "command", "expected"), EXAMPLES,
                         ids=[f"{p}:{c[:60]}" for p, c, _ in EXAMPLES])
def test_readme_example(page, command, expected, outputs):
    assert outputs[command].splitlines() == expected, page


def _plot_nodes(expr: str, at: str, order: int, tmp_path: Path) -> str:
    """What `gradcli plot` says of EXPR's order-N graph: its node count, as printed."""
    tmp_path.mkdir(exist_ok=True)
    proc = subprocess.run([sys.executable, "-m", "gradcli", "plot", expr, "-o",
                           str(tmp_path / "g.dot"), "--at", at, "--order", str(order)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    found = re.search(r"([\d,]+) nodes", proc.stdout + proc.stderr)
    assert found, proc.stdout + proc.stderr
    return found.group(1)


def test_the_graph_sizes_the_docs_state_are_what_plot_counts(tmp_path: Path) -> None:
    stated = re.search(r"it has (\d+) nodes at order 0, ([\d,]+) at order 4 and "
                       r"([\d,]+) at order 7", _text("docs/derivatives.md"))
    assert stated, "docs/derivatives.md's backprop graph sizes are gone"
    # the REPL session's `:plot 2 f(x) graph.png`, with f(x) = x**4 - 2*x**2 at x = 2
    shown = {doc: re.search(r"graph: (\d+) nodes \(order-2 derivative by x, written to "
                            r"graph.png\)", doc.read_text(encoding="utf-8"))
             for doc in (README, ROOT / "docs" / "repl.md")}
    for doc, found in shown.items():
        assert found, doc
    plots = [("exp(sin(x))*log(1+x**2)", "x=0.7", order) for order in (0, 4, 7)]
    plots.append(("x**4 - 2*x**2", "x=2", 2))
    with ThreadPoolExecutor(max_workers=len(plots)) as pool:  # each in a directory of its own
        counts = list(pool.map(lambda i: _plot_nodes(*plots[i], tmp_path / str(i)),
                               range(len(plots))))
    assert counts[:3] == list(stated.groups())
    for doc, found in shown.items():
        assert counts[3] == found.group(1), doc


def test_the_summary_of_a_large_array_the_docs_show_is_what_a_terminal_gets():
    # README showed `[0, 1e-05, 2e-05, ..., 1]`, where three numbers end it
    import numpy as np

    from gradcli.render.numbers import format_summary

    shown = re.search(r"`(\[0, 1e-05, [^`]*\] \(100001 values\))`", _text("docs/cli.md"))
    assert shown is not None
    assert shown.group(1) == format_summary(np.linspace(0, 1, 100001))
