"""Each limit and list of choices is assigned once, in gradcli/limits.py, and
the docs state the numbers it holds."""

from __future__ import annotations

import ast
import pathlib
import re

import pytest

from gradcli import limits

ROOT = pathlib.Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "gradcli"
DOCS = ROOT / "docs"


def _doc(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def _limits_table() -> dict[str, str]:
    """docs/language.md's Limits table: what -> limit."""
    section = _doc("language.md").split("## Limits", 1)[1]
    rows = re.findall(r"^\| ([^|]+?) \| ([^|]+?) \|$", section, re.MULTILINE)
    return {what: limit for what, limit in rows if what not in ("what", "---")}


def test_the_language_limits_table_states_the_limits() -> None:
    table = _limits_table()
    assert table["bracket nesting"] == f"{limits.MAX_DEPTH} deep"
    assert table["one statement"] == f"{limits.MAX_STATEMENT:,} characters"
    assert table["one array"] == f"{limits.MAX_ELEMENTS:,} elements, {limits.MAX_DIMS} dimensions"
    assert table["derivative order"] == str(limits.MAX_ORDER)
    backprop = table["repeated backprop"]
    assert backprop.startswith(f"graphs adding up to {limits.BACKPROP_MAX_NODES:,} nodes")
    assert f"up to order {limits.MAX_ORDER};" in backprop
    assert table["`gradcli plot --order N`"].startswith(f"{limits.PLOT_MAX_NODES:,} nodes drawn")


def test_the_command_line_docs_state_the_choices_and_limits() -> None:
    cli = _doc("cli.md")
    synopsis = cli.split("```", 2)[1]
    assert f"[--method {'|'.join(limits.METHODS)}]" in synopsis
    assert f"[--format {'|'.join(limits.FORMATS)}]" in synopsis
    assert f"[--dtype {'|'.join(limits.DTYPES)}]" in synopsis
    assert [line.split()[1] for line in synopsis.splitlines()
            if line.startswith("gradcli ") and line.split()[1].isalpha()] == list(limits.COMMANDS)
    assert f"print orders 0..N (N ≤ {limits.MAX_ORDER})" in cli
    assert "`float64` (default) or `float32`" in cli and limits.DTYPES[0] == "float64"
    assert f"order 0, {limits.CURVE_POINTS} points;" in cli
    assert f"up to the {limits.PLOT_MAX_NODES:,} nodes drawn at most" in " ".join(cli.split())
    assert f"as l'Hôpital does, up to order {limits.SERIES_LIMIT_ORDER} " in " ".join(cli.split())


def test_the_curve_docs_state_its_points() -> None:
    curve = _doc("curve.md")
    m = re.search(r"\(`--points`, ([\d,]+) by default, at most ([\d,]+)\)", curve)
    assert m is not None
    assert (_number(m.group(1)), _number(m.group(2))) == (
        limits.CURVE_POINTS, limits.MAX_CURVE_POINTS)
    # a --at range is one array: the elements' limit
    m = re.search(r"more than ([\d,]+) points are errors too", curve)
    assert m is not None and _number(m.group(1)) == limits.MAX_ELEMENTS


def test_the_repl_docs_state_the_curve_order_and_the_line_length() -> None:
    repl = _doc("repl.md")
    m = re.search(r"N is a whole number from 0 to (\d+)", repl)
    assert m is not None and int(m.group(1)) == limits.CURVE_MAX_ORDER
    m = re.search(r"a line holds at most ([\d,]+) characters", repl)
    assert m is not None and _number(m.group(1)) == limits.MAX_INPUT


def test_help_reads_the_limits() -> None:
    from gradcli.cli.options import COMMANDS, build

    assert tuple(COMMANDS) == limits.COMMANDS
    curve = " ".join(build("curve").format_help().split())
    assert f"[default: 0; 0 to {limits.CURVE_MAX_ORDER}]" in curve
    assert f"[default: {limits.CURVE_POINTS}; 2 to {limits.MAX_CURVE_POINTS}]" in curve
    text = " ".join(build("eval").format_help().split())
    assert f"[default: 0; 0 to {limits.MAX_ORDER}]" in text
    for choice in (*limits.METHODS, *limits.FORMATS, *limits.DTYPES):
        assert choice in text


def _literal(node: ast.AST) -> object:
    try:
        return ast.literal_eval(node)
    except ValueError:  # computed (from limits, say): no copy of a fact
        return None


def _copies() -> list[str]:
    """Every assignment, at any depth and in any module but limits.py, of a
    literal that is a value limits.py holds: under the same name, or any
    list of choices (the superscript digits too) under another."""
    values = {name: getattr(limits, name) for name in limits.__all__}
    choices = [v for v in values.values() if isinstance(v, (tuple, str))]
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if path.name in ("limits.py", "_tables.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                targets, value = [node.target], node.value
            else:
                continue
            literal = _literal(value)
            if literal is None:
                continue
            for target in targets:
                name = target.id if isinstance(target, ast.Name) else None
                if (name in values and literal == values[name]) or literal in choices:
                    found.append(f"{path.relative_to(SRC)}:{node.lineno} {name}")
    return found


def test_each_limit_is_assigned_in_limits_py_only() -> None:
    assert _copies() == []


@pytest.mark.parametrize("value", [limits.MAX_INPUT, limits.FACTORIAL_ORDER,
                                   limits.BACKPROP_MAX_NODES])
def test_no_module_writes_a_limit_as_a_number(value: int) -> None:
    # 10_000_000 stood for three limits in five places, 170 in two (400 and 1000
    # are other facts too: a decimal precision, a graph's size)
    written = []
    for path in sorted(SRC.rglob("*.py")):
        if path.name in ("limits.py", "_tables.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and type(node.value) is int and node.value == value:
                written.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert written == []


def test_limits_is_the_bottom_layer() -> None:
    tree = ast.parse((SRC / "limits.py").read_text(encoding="utf-8"))
    imports = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert all(isinstance(n, ast.ImportFrom) and n.module == "__future__" for n in imports)
