"""Imports point one way: errors -> core -> lang -> session -> render -> cli/repl.

Checked in fresh interpreters, so what one test imported cannot hide what
another module pulls in.
"""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

import pytest

SRC = pathlib.Path(__file__).resolve().parents[1] / "src" / "gradcli"

HEAVY = ("rich", "prompt_toolkit", "graphviz", "cupy", "typer", "lark", "sympy", "mpmath")


def _imported_after(code: str) -> set[str]:
    probe = (
        "import sys\n"
        f"{code}\n"
        "print(','.join(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    return set(out.strip().split(","))


def test_core_imports_no_language_or_ui_library() -> None:
    loaded = _imported_after(
        "import gradcli.core, gradcli.core.functions, gradcli.core.utils, gradcli.core.check"
    )
    assert not loaded & set(HEAVY), loaded & set(HEAVY)


def test_session_imports_no_ui_library() -> None:
    loaded = _imported_after("import gradcli.session")
    assert not loaded & {"rich", "prompt_toolkit", "graphviz", "cupy", "typer"}


def test_parsing_never_imports_lark_nor_writes_a_cache(tmp_path) -> None:
    # The parser tables are generated when gradcli is built (gradcli/lang/_tables.py):
    # a run, even the first with an empty cache, neither needs Lark nor writes.
    cache = tmp_path / "cache"
    code = f"import os; os.environ['XDG_CACHE_HOME'] = {str(cache)!r}\n" \
        "from gradcli.lang.parser import parse, parse_each\n" \
        "parse('2x + sin(y)'); parse_each('(1 +* 2\\nk = [1, 2]')"
    for _ in range(2):
        assert "lark" not in _imported_after(code)
    assert not cache.exists()
    assert "lark" not in _imported_after("import gradcli.lang.parser")


def _package_imports(path: pathlib.Path) -> set[str]:
    """Top-level gradcli subpackages a module imports (relative or absolute)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rel = path.relative_to(SRC).parts
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(rel[: len(rel) - node.level])
                target = base + (node.module.split(".") if node.module else [])
            elif node.module and node.module.startswith("gradcli."):
                target = node.module.split(".")[1:]
            else:
                continue
            if target:
                found.add(target[0].removesuffix(".py"))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("gradcli."):
                    found.add(alias.name.split(".")[1])
    return found


LAYERS = {
    "errors": 0, "record": 0, "atomic": 0, "rules": 0, "core": 1, "lang": 2, "formula": 2,
    "session": 3, "results": 3, "expression": 3, "formulas": 3, "checking": 3, "shadow": 3,
    "curves": 3, "variables": 3, "graphs": 4, "render": 4, "pipes": 4, "cli": 5, "repl": 5,
    "__main__": 6,
    "__init__": 0,
}


@pytest.mark.parametrize(
    "path", sorted(SRC.rglob("*.py")), ids=lambda p: str(p.relative_to(SRC))
)
def test_imports_point_one_way(path: pathlib.Path) -> None:
    owner = path.relative_to(SRC).parts[0].removesuffix(".py")
    level = LAYERS[owner]
    for target in _package_imports(path):
        if target == owner or target not in LAYERS:
            continue
        assert LAYERS[target] <= level, f"{owner} (layer {level}) imports {target}"


def test_ci_runs_the_readme_test_command() -> None:
    root = SRC.parents[1]
    readme = (root / "README.md").read_text(encoding="utf-8")
    ci = (root / ".ci" / "run").read_text(encoding="utf-8")
    command = "pip install '.[test]' && python -m pytest"
    assert command in readme
    assert command in ci
