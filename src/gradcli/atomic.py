"""Files written whole or not at all: ``gradcli curve -o`` and ``gradcli plot -o``.

A figure is written to a temporary file in the target's own directory (same
file system, so the rename is atomic), then renamed over the target with
``os.replace``. A render that fails midway, or is interrupted, leaves the old
file as it was, and no half-written one. The errors are GradcliErrors (exit
status 1) that name the path and say what is wrong with it.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator

from .errors import GradcliError


def writable_target(path: str) -> str:
    """The file that writing ``path`` replaces (a symbolic link's target, so the
    link stays a link), after checking it can be written: a GradcliError for a
    directory, a missing directory, or one without write permission."""
    if not path:
        raise GradcliError("no file name given to write to")
    target = os.path.realpath(path)
    if os.path.isdir(target):
        raise GradcliError(f"cannot write '{path}': it is a directory; give a file "
                           f"name, as in {os.path.join(path, 'out' + os.path.splitext(path)[1])}")
    folder = os.path.dirname(target) or "."
    if not os.path.isdir(folder):
        raise GradcliError(f"cannot write '{path}': the directory "
                           f"'{os.path.dirname(path) or '.'}' does not exist")
    if os.path.exists(target) and not os.access(target, os.W_OK):
        # os.replace would swap a read-only file out all the same
        raise GradcliError(f"cannot write '{path}': the file is read-only")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise GradcliError(f"cannot write '{path}': permission denied in "
                           f"'{os.path.dirname(path) or '.'}'")
    return target


@contextlib.contextmanager
def replacing(path: str) -> Iterator[str]:
    """A temporary path next to ``path``, with its extension (a renderer that
    picks its format by the name sees the same one), to write to in the
    ``with`` block; on leaving it normally the file is renamed onto ``path``.
    If the block raises, the temporary file is removed and ``path`` is left as
    it was. An OSError on the way is a GradcliError naming ``path``."""
    target = writable_target(path)
    folder, base = os.path.split(target)
    ext = os.path.splitext(base)[1]
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=f".tmp{ext}", dir=folder)
    except OSError as exc:
        raise _error(path, exc) from None
    os.close(fd)
    try:
        yield tmp
        os.chmod(tmp, _mode_for(target))
        os.replace(tmp, target)
    except OSError as exc:
        _remove(tmp)
        raise _error(path, exc) from None
    except BaseException:
        _remove(tmp)
        raise


def write_bytes(path: str, data: bytes) -> None:
    """``data`` as the whole content of ``path``, atomically (see ``replacing``)."""
    with replacing(path) as tmp, open(tmp, "wb") as fh:
        fh.write(data)


def _mode_for(target: str) -> int:
    """The permissions the file gets: an existing file's own, else what ``open``
    would give a new one (mkstemp's are 0600, private to the owner)."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _remove(tmp: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def _error(path: str, exc: OSError) -> GradcliError:
    reason = exc.strerror or str(exc)
    return GradcliError(f"cannot write '{path}': {reason}")


__all__ = ["replacing", "writable_target", "write_bytes"]
