"""Where the REPL keeps its history, and the prompt_toolkit history object.

The file is ``history`` in the user's data directory (platformdirs: for example
``~/.local/share/gradcli/history`` on Linux). ``GRADCLI_HISTORY`` names another
file; set to the empty string it turns the file off (history then lasts one
session). Only the interactive loop uses this: piped input writes no history.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prompt_toolkit.history import History

ENV = "GRADCLI_HISTORY"


def history_path() -> Path | None:
    """The history file, or None when ``GRADCLI_HISTORY`` is set but empty."""
    override = os.environ.get(ENV)
    if override is not None:
        return Path(override).expanduser() if override.strip() else None
    from platformdirs import user_data_dir

    return Path(user_data_dir("gradcli", appauthor=False)) / "history"


def make_history(path: Path | None = None) -> tuple[History, str | None]:
    """A FileHistory at ``path`` (default: history_path()), and a warning if none could be.

    When the file cannot be created (a read-only home, a directory in its
    place) the REPL still runs, with an in-memory history and one warning.
    """
    from prompt_toolkit.history import FileHistory, InMemoryHistory

    path = path if path is not None else history_path()
    if path is None:
        return InMemoryHistory(), None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "ab"):
            pass
    except OSError as exc:
        reason = exc.strerror or str(exc)
        return InMemoryHistory(), (
            f"history is not saved: cannot write {path} ({reason}); set {ENV} to another file"
        )
    return FileHistory(str(path)), None
