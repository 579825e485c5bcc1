"""Imports point one way: errors -> core -> lang -> results -> session, render -> repl -> cli.

The layers and the circle test read every import in the source, at the top,
under TYPE_CHECKING or inside a function alike; the import sets are checked
in fresh interpreters, so what one test imported cannot hide what another
module pulls in.
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
    "__init__": 0, "errors": 0, "record": 0, "pipes": 0, "limits": 0, "rules": 0,
    "asked": 1, "atomic": 1, "core": 1,
    "lang": 2,
    "formula": 3, "figures": 3,
    "results": 4, "matrices": 4, "extrema": 4,
    # side by side, neither importing the other: renderers read results only
    "session": 5, "render": 5,
    "repl": 6,
    "cli": 7,
    "__main__": 8,
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
        assert LAYERS[target] < level, f"{owner} (layer {level}) imports {target}"


def test_renderers_never_import_the_session() -> None:
    for path in sorted((SRC / "render").rglob("*.py")):
        assert "session" not in _package_imports(path), path.name


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Each gradcli module and the gradcli modules it imports: every import
    statement (top level, under TYPE_CHECKING, inside a function), relative or
    absolute. ``from pkg import name`` is an edge to ``pkg.name`` where that is
    a module, else to ``pkg``; a package a module lives in is no edge (Python
    loads it first whatever the module imports)."""
    paths = {_module_name(p): p for p in SRC.rglob("*.py")}

    def known(name: str) -> str | None:
        while name and name not in paths:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        targets: set[str | None] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                if source.split(".")[0] != "gradcli":
                    continue
                for alias in node.names:
                    full = f"{source}.{alias.name}"
                    targets.add(full if full in paths else known(source))
                targets.add(known(source))
            elif isinstance(node, ast.Import):
                targets.update(known(a.name) for a in node.names
                               if a.name.split(".")[0] == "gradcli")
        graph[module] = {t for t in targets
                         if t and t != module and not module.startswith(t + ".")}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_cycle_finder_finds_a_circle_through_a_lazy_import() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    edges = import_graph()
    # a TYPE_CHECKING import and one inside a function are edges too
    assert "gradcli.session.context" in edges["gradcli.session.expression"]
    assert "gradcli.session.curves" in edges["gradcli.session.session"]


def test_no_import_circle_in_gradcli() -> None:
    assert cycles(import_graph()) == []


def test_ci_runs_the_readme_test_command() -> None:
    root = SRC.parents[1]
    readme = (root / "README.md").read_text(encoding="utf-8")
    ci = (root / ".ci" / "run").read_text(encoding="utf-8")
    command = "pip install '.[test]' && python -m pytest"
    assert command in readme
    assert command in ci
