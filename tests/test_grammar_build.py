"""The parser module generated from the grammar when gradcli is built
(gradcli/lang/_lalr.py, by ``python -m gradcli.lang.grammar``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from gradcli.lang import grammar
from gradcli.lang.ast import Implicit, Name, Num
from gradcli.lang.builder import Builder


def test_the_committed_parser_module_is_current() -> None:
    # Regenerated in memory with the installed Lark; on failure run
    # `python -m gradcli.lang.grammar` and commit src/gradcli/lang/_lalr.py.
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


def test_check_mode_reports_a_current_module() -> None:
    done = subprocess.run([sys.executable, "-m", "gradcli.lang.grammar", "--check"],
                          capture_output=True, text=True)
    assert (done.returncode, done.stdout.strip()) == (0, "current")


def test_an_edited_grammar_gives_another_module() -> None:
    text = grammar.grammar_text()
    edited = text.replace('"@"', '"@" | "%"', 1)
    assert edited != text
    assert grammar.generate(edited) != grammar.generate(text)


def test_the_runtime_comes_from_the_package() -> None:
    runtime = grammar.load_runtime()
    assert Path(runtime.origin).resolve() == Path(grammar.GENERATED).resolve()
    built = runtime.new_parser(transformer=Builder(runtime.Tree))
    assert built.parse("2x") == Implicit(Num("2"), Name("x"))


def test_the_generated_parser_does_not_import_logging() -> None:
    source = Path(grammar.GENERATED).read_text(encoding="utf-8")
    assert "import logging" not in source
    check = ("import sys; from gradcli.lang.parser import parse; parse('x^2 + 1'); "
             "print('logging' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", check], check=True, capture_output=True,
                          text=True)
    assert done.stdout.strip() == "False"
    # a source that is not as expected is left as Lark wrote it
    odd = "import logging\nlogger = logging.getLogger('lark')\n"
    assert grammar._without_logging(odd) == odd
