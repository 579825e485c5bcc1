"""No import circle anywhere in src/gradcli, counting imports made inside
functions (a lazy import is still a dependency); those under
``if TYPE_CHECKING:`` are for the type checker only and do not count.

Module-level granularity: ``from .graph import Function`` is an edge to
``gradcli.core.graph``; ``from . import functions`` one to
``gradcli.core.functions``. Importing a submodule runs its package's
``__init__`` too, but that is no edge of the importing module's own making:
counting it would make every package that re-exports its parts a circle.
"""

from __future__ import annotations

import ast
import functools
import pathlib

SRC = pathlib.Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "gradcli"


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement, at any depth, except under ``if TYPE_CHECKING:``."""
    found: list[ast.Import | ast.ImportFrom] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
            continue
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)  # the else branch runs
            continue
        stack.extend(ast.iter_child_nodes(node))
    return found


def _resolve(name: str) -> str | None:
    """The gradcli module that ``name`` is, or the module that holds it."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def imports_of(module: str) -> set[str]:
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    targets: set[str] = set()
    for node in _import_nodes(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            # ``from . import functions`` names a module; ``from .graph import X`` a member
            names = [f"{stem}.{alias.name}" for alias in node.names]
            names = [n if n in MODULES else stem for n in names]
        for name in names:
            target = _resolve(name)
            if target is not None and target != module:
                targets.add(target)
    return targets


def import_graph() -> dict[str, set[str]]:
    return {module: set(targets) for module, targets in _import_graph().items()}


@functools.cache
def _import_graph() -> dict[str, set[str]]:
    """Read once for the tests that use it (parsing every module takes a third of a second)."""
    return {module: imports_of(module) for module in MODULES}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of the graph (its modules, the first repeated at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for root in sorted(graph):
        if state.get(root):
            continue
        path = [root]
        iters = [iter(sorted(graph[root]))]
        state[root] = 1
        while iters:
            nxt = next(iters[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                iters.pop()
                continue
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                iters.append(iter(sorted(graph.get(nxt, ()))))
    return None


def test_the_cycle_finder_finds_a_circle_and_only_one() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_imports_inside_functions_count_and_type_checking_ones_do_not() -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from .a import A\n"
        "def f():\n    from .b import B\n"
    )
    assert sorted(n.module for n in _import_nodes(tree)) == ["b", "typing"]


def test_the_graph_sees_the_core_modules() -> None:
    graph = import_graph()
    assert "gradcli.core.graph" in graph["gradcli.core.ops"]
    assert "gradcli.core.ops" in graph["gradcli.core.functions"]


def test_no_import_circle_in_the_core() -> None:
    graph = {m: {t for t in ts if t.startswith("gradcli.core")}
             for m, ts in import_graph().items() if m.startswith("gradcli.core")}
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


def test_no_import_circle_in_gradcli() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, " -> ".join(cycle or [])
