"""The REPL's Session, created off the startup path.

Importing the evaluator (NumPy, Lark, the core) costs more than prompt_toolkit
itself. The interactive loop starts a SessionLoader right before its first
prompt, so the import runs in a background thread while the user reads the
banner and types; the first statement waits for it only if it is not done.
Anything that must not wait (the lexer, drawing every keystroke) asks
``ready`` first.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..session import Session


class SessionLoader:
    def __init__(self, dtype: str = "float64", device: str = "cpu", method: str = "auto") -> None:
        self.options = {"dtype": dtype, "device": device, "method": method}
        self._session: Session | None = None
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def _load(self) -> None:
        try:
            from ..session import Session  # the heavy import, here
            from .words import REPL_WORDS

            session = Session(**self.options)
            session.words = dict(REPL_WORDS)
            self._session = session
        except BaseException as exc:  # re-raised in the caller's thread by get()
            self._error = exc

    def start(self) -> None:
        """Begin loading in a daemon thread (once)."""
        with self._lock:
            if self._thread is None and self._session is None:
                self._thread = threading.Thread(
                    target=self._load, name="gradcli-session", daemon=True
                )
                self._thread.start()

    @property
    def ready(self) -> bool:
        return self._session is not None

    def get(self) -> Session:
        """The Session, waiting for the loader if need be; raises what creating it raised."""
        if self._session is None:
            self.start()
            assert self._thread is not None
            self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._session is not None
        return self._session

    def peek(self) -> Any:
        """The Session if it is ready, else None (never waits)."""
        return self._session
