"""The grammar file, and the Lark LALR parser code made from it.

Lark itself costs a shell script 40-50 ms on every start (``import lark``
pulls in its grammar compiler, logging, tempfile and hashlib, then the
cached tables are unpickled). Lark's own answer is its standalone
generator: one Python module holding Lark's LALR runtime (lexer, parser,
tokens, trees, exceptions) and this grammar's tables as literals. gradcli
generates that module once per grammar, with the installed Lark, into the
user's cache directory, and later processes import the module from there:
about 25 ms, and no ``import lark`` at all. The parser is still Lark's:
the same tables, the same LALR loop, the same exceptions, by name.

The cache file is Python code that gradcli imports, so it lives in the
user's own cache directory (made 0700), never in the shared temp directory
where another local user could plant one. Its name carries a checksum of
the grammar and generator options and the Python version, so an edited
grammar gets a new file. Where that directory cannot be written, the
installed Lark is used directly, uncached.
"""

from __future__ import annotations

import os
import sys
import zlib
from types import ModuleType
from typing import Any

__all__ = ["GRAMMAR_OPTIONS", "LarkRuntime", "cache_dir", "grammar_text", "load_runtime"]

#: The options the parser is built with, at generation and at load.
GRAMMAR_OPTIONS: dict[str, Any] = {
    "parser": "lalr",
    "lexer": "contextual",
    "start": "statement",
    "maybe_placeholders": True,  # a missing part of a slice arrives as None
}
# Bumped when what is generated changes without the grammar changing.
_GENERATOR_VERSION = 2


def grammar_text() -> str:
    """The text of grammars/gradcli.lark."""
    # Installed: the wheel carries the grammar inside the package. Editable
    # or source checkout: it sits at the repository root. Plain paths, not
    # importlib.resources, which alone costs ~16 ms of every start-up.
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for candidate in (
        os.path.join(package, "grammars", "gradcli.lark"),
        os.path.join(os.path.dirname(os.path.dirname(package)), "grammars", "gradcli.lark"),
    ):
        if os.path.isfile(candidate):
            with open(candidate, encoding="utf-8") as file:
                return file.read()
    raise FileNotFoundError("gradcli's grammar file grammars/gradcli.lark is missing")


def cache_dir() -> str:
    """The platform's per-user cache directory for gradcli, as platformdirs
    would give it (importing platformdirs costs ~40 ms per start)."""
    home = os.path.expanduser("~")
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
        return os.path.join(base, "gradcli", "Cache")
    if sys.platform == "darwin":
        return os.path.join(home, "Library", "Caches", "gradcli")
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    return os.path.join(xdg if os.path.isabs(xdg) else os.path.join(home, ".cache"), "gradcli")


class LarkRuntime:
    """What the parser module needs from Lark, from either source: a parser
    factory and the classes a parse returns and raises."""

    Token: type
    Tree: type
    LarkError: type
    UnexpectedInput: type
    UnexpectedToken: type
    UnexpectedCharacters: type
    UnexpectedEOF: type
    VisitError: type

    def __init__(self, factory: Any, origin: str, *namespaces: ModuleType) -> None:
        self.new_parser = factory  # (transformer=...) -> an object with .parse(text)
        self.origin = origin  # the generated file's path, or "lark" when uncached
        for name in self.__annotations__:
            found = (getattr(space, name) for space in namespaces if hasattr(space, name))
            setattr(self, name, next(found))


def _generated_path(text: str, directory: str) -> str:
    tag = f"{text}\n{sorted(GRAMMAR_OPTIONS.items())}\n{_GENERATOR_VERSION}".encode()
    version = f"py{sys.version_info[0]}{sys.version_info[1]}"
    return os.path.join(directory, f"parser-{zlib.crc32(tag):08x}-{version}.py")


def _generate(text: str) -> str:
    import io

    from lark import Lark
    from lark.tools.standalone import gen_standalone

    out = io.StringIO()
    gen_standalone(Lark(text, **GRAMMAR_OPTIONS), out=out)
    return _without_logging(out.getvalue())


# Lark's runtime keeps a logger set to CRITICAL that a built parser never calls;
# importing logging for it costs a gradcli process ~6 ms of its ~50 ms start.
_LOGGING = {
    "import logging\n": "",
    'logger: logging.Logger = logging.getLogger("lark")\n': "logger = _Silent()\n",
    "logger.addHandler(logging.StreamHandler())\n": "",
    "logger.setLevel(logging.CRITICAL)\n": "",
}
_SILENT = '''
class _Silent:
    """Lark's logger, set to CRITICAL: says nothing."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: None
'''


def _without_logging(source: str) -> str:
    """The generated module with its logger replaced by a silent one; unchanged
    if any expected line is missing or logging is used elsewhere (another Lark)."""
    for line in _LOGGING:
        if source.count(line) != 1:
            return source
    edited = source
    for line, replacement in _LOGGING.items():
        edited = edited.replace(line, replacement)
    if "logging" in edited:
        return source
    at = edited.index("logger = _Silent()")
    return edited[:at] + _SILENT.lstrip("\n") + "\n\n" + edited[at:]


def _write(path: str, source: str) -> None:
    import py_compile

    # Another gradcli process may be loading the same name: it must see the
    # whole file or none.
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        with open(temporary, "w", encoding="utf-8") as file:
            file.write(source)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)
    # Its byte code too, even under PYTHONDONTWRITEBYTECODE (which only stops
    # the import system writing it): compiling the 3,500 lines costs ~65 ms.
    py_compile.compile(path, doraise=True)


STALE_AFTER_DAYS = 30
"""An old parser file is deleted once it is this old: sooner, two installed
versions sharing the cache (a pipx install and a checkout) would delete each
other's on every switch."""


def _remove_stale(directory: str, keep: str) -> None:
    """Delete the parsers an earlier grammar or gradcli wrote for this Python (and
    their byte code) STALE_AFTER_DAYS ago or more: a new one is written only when
    the grammar changes, so the cache would otherwise grow by a file per upgrade."""
    import glob
    import time

    version = f"py{sys.version_info[0]}{sys.version_info[1]}"
    stale = glob.glob(os.path.join(directory, f"parser-*-{version}.py"))
    stale += glob.glob(os.path.join(directory, "__pycache__", f"parser-*-{version}.*.pyc"))
    # and the pickled tables of an older scheme
    stale += glob.glob(os.path.join(directory, f"grammar-*-{version}.lark-cache"))
    mine = os.path.splitext(os.path.basename(keep))[0]
    before = time.time() - STALE_AFTER_DAYS * 86400
    for file in stale:
        if not os.path.basename(file).startswith(mine + "."):
            try:
                if os.path.getmtime(file) < before:
                    os.remove(file)
            except OSError:  # another process got there first
                pass


def _import_file(path: str) -> ModuleType:
    from importlib.util import module_from_spec, spec_from_file_location

    name = "gradcli._lark_parser"
    spec = spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = module_from_spec(spec)
    # Registered before it runs, as importing does: its dataclasses look
    # their module up by name.
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _uncached(text: str) -> LarkRuntime:
    import lark
    import lark.exceptions

    def factory(**options: Any) -> Any:
        return lark.Lark(text, **GRAMMAR_OPTIONS, **options)

    return LarkRuntime(factory, "lark", lark, lark.exceptions)


def load_runtime(directory: str | None = None) -> LarkRuntime:
    """Lark's LALR runtime for the grammar: the generated module from the
    cache (written first if missing, and again if it fails to load), or the
    installed Lark if the cache directory cannot be used."""
    text = grammar_text()
    try:
        directory = directory or cache_dir()
        path = _generated_path(text, directory)
        if not os.path.isfile(path):
            os.makedirs(directory, mode=0o700, exist_ok=True)
            _write(path, _generate(text))
            _remove_stale(directory, path)
        try:
            module = _import_file(path)
        except Exception:
            # A damaged file (a full disk, an editor): make it again, once.
            _write(path, _generate(text))
            module = _import_file(path)
    except Exception:
        # No usable cache directory (read-only home, no home at all), or a
        # file that still will not load: Lark works the same uncached.
        return _uncached(text)
    return LarkRuntime(module.Lark_StandAlone, path, module)
