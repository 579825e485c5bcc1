"""The one namespace the evaluator, the parser's hints and the REPL ask what a name is."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gradcli.errors import UsageError
from gradcli.lang import namespace
from gradcli.lang.namespace import (
    ANS,
    BUILTIN,
    CONSTANT,
    FUNCTION,
    SPECIAL,
    UNKNOWN,
    VARIABLE,
    Namespace,
)
from gradcli.repl.loader import SessionLoader


def _session_names() -> tuple[SessionLoader, Namespace]:
    loader = SessionLoader()
    session = loader.get()
    session.run("x = 2; pi = 3; f(t) = t^2")
    return loader, Namespace(session.values, session.functions)


@pytest.mark.parametrize(("name", "kind"), [
    ("f", FUNCTION), ("sin", BUILTIN), ("diff", SPECIAL), ("grad", SPECIAL),
    ("x", VARIABLE), ("pi", VARIABLE),  # a rebound constant is the user's
    ("e", CONSTANT), ("inf", CONSTANT), ("ans", ANS), ("zz", UNKNOWN), ("ln", BUILTIN),
    ("arcsec", UNKNOWN),
])
def test_what_each_kind_of_name_is(name: str, kind: str) -> None:
    _, names = _session_names()
    assert names.kind(name) == kind


def test_calls_and_names_without_a_session() -> None:
    names = Namespace()
    assert [names.call_kind(n) for n in ("sin", "diff", "f")] == [BUILTIN, SPECIAL, UNKNOWN]
    assert names.kind("pi") == CONSTANT and names.kind("x") == UNKNOWN
    assert names.is_function("exp") and not names.is_function("diff")
    assert namespace.is_builtin("grad") and namespace.is_builtin("tanh")
    assert not namespace.is_builtin("pi")
    assert namespace.alias_of("arcsec") == "asec" and namespace.alias_of("π") == "pi"
    assert namespace.alias_of("sin") is None
    known = names.known(["q"])
    assert known == sorted(known) and {"q", "sin", "diff", "pi"} <= set(known)


def test_the_evaluator_reads_the_constants_from_the_namespace() -> None:
    from gradcli.lang import evaluate

    assert evaluate.CONSTANTS is namespace.CONSTANTS
    assert evaluate.CONSTANT_ALIASES is namespace.CONSTANT_ALIASES


def test_lexer_completer_and_help_agree_with_the_namespace() -> None:
    from gradcli.repl.completer import GradcliCompleter
    from gradcli.repl.helptext import help_for
    from gradcli.repl.lexer import Names

    loader, names = _session_names()
    classify = Names(loader).classify
    lexed = {n: classify(n, False) for n in ("x", "pi", "e", "zz")}
    assert lexed == {"x": "variable", "pi": "variable", "e": "constant", "zz": "name"}
    assert [classify(n, True) for n in ("f", "diff", "sin", "zz")] == [
        "function", "special", "builtin", "call"]
    offered = {name for name, _, _ in GradcliCompleter(loader).candidates()}
    assert set(namespace.builtins()) | set(namespace.special_forms()) <= offered
    assert set(namespace.CONSTANTS) | {"x", "f"} <= offered
    session = loader.get()
    titles = {n: help_for(n, session)[0][0] for n in ("f", "sin", "diff", "x", "e")}
    assert titles == {"f": "Your function", "sin": "Built-in function",
                      "diff": "Differentiation", "x": "Variable", "e": "Constant"}
    with pytest.raises(UsageError, match="did you mean sin"):
        help_for("sinn", session)
    assert names.kind("sinn") == UNKNOWN


def test_importing_the_namespace_or_the_parser_loads_no_core() -> None:
    # the built-ins' names are read from the core's registry only when asked
    code = ("import sys; import gradcli.lang.namespace, gradcli.lang.parser; "
            "print(' '.join(m for m in sys.modules if m.startswith('gradcli.core') "
            "or m == 'numpy'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split() == []
