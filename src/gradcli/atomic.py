"""Files written whole or not at all: ``gradcli curve -o`` and ``gradcli plot -o``.

A regular file (or a symbolic link to one, which stays a link) is written to
a temporary file in the target's own directory (same file system, so the
rename is atomic), then renamed over the target with ``os.replace``. A render
that fails midway, is interrupted (Ctrl-C) or terminated (SIGTERM) leaves the
old file as it was, and no half-written one nor the temporary file.

What is not a regular file is never renamed over: a character or block
device or a FIFO (or a link to one) is written to directly, as the shell's
``>`` does (the figure is rendered to a private temporary file first, then
copied in); a socket or a directory is refused. The format always comes from
the name the user gave, never from a link's target. The errors are
GradcliErrors (exit status 1) that name the path and say what is wrong.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import stat
import tempfile
from collections.abc import Iterator
from typing import Any

from .errors import GradcliError


def writable_target(path: str) -> str:
    """The file that writing ``path`` writes (a symbolic link's target, so the
    link stays a link), after checking it can be written: a GradcliError for a
    directory, a socket, a missing directory, or one without write permission."""
    if not path:
        raise GradcliError("no file name given to write to")
    target = os.path.realpath(path)
    if os.path.isdir(target):
        raise GradcliError(f"cannot write '{path}': it is a directory; give a file "
                           f"name, as in {os.path.join(path, 'out' + os.path.splitext(path)[1])}")
    mode = _mode_of(target)
    if mode is not None and stat.S_ISSOCK(mode):
        raise GradcliError(f"cannot write '{path}': it is a socket; give a file name")
    if mode is not None and not stat.S_ISREG(mode):  # a device or a FIFO: written in place
        if not os.access(target, os.W_OK):
            raise GradcliError(f"cannot write '{path}': permission denied")
        return target
    folder = os.path.dirname(target) or "."
    if not os.path.isdir(folder):
        raise GradcliError(f"cannot write '{path}': the directory "
                           f"'{os.path.dirname(path) or '.'}' does not exist")
    if mode is not None and not os.access(target, os.W_OK):
        # os.replace would swap a read-only file out all the same
        raise GradcliError(f"cannot write '{path}': the file is read-only")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise GradcliError(f"cannot write '{path}': permission denied in "
                           f"'{os.path.dirname(path) or '.'}'")
    return target


def is_special(target: str) -> bool:
    """Whether ``target`` exists and is not a regular file (a device, a FIFO):
    written to in place, never renamed over."""
    mode = _mode_of(target)
    return mode is not None and not stat.S_ISREG(mode)


@contextlib.contextmanager
def replacing(path: str) -> Iterator[str]:
    """A temporary path with the extension of ``path`` as given (a renderer that
    picks its format by the name sees the user's), to write to in the ``with``
    block; on leaving it normally its content becomes ``path``'s: renamed onto
    a regular file, copied into a device or FIFO. If the block raises or the
    process gets SIGTERM, the temporary file is removed and ``path`` is left
    as it was. An OSError on the way is a GradcliError naming ``path``."""
    target = writable_target(path)
    special = is_special(target)
    folder, base = os.path.split(target)
    ext = os.path.splitext(path)[1]
    with _terminate_as_exit():  # from before the temporary exists
        try:
            # beside the target for the atomic rename; a device's folder (/dev)
            # is no place for it, and it is only copied from there
            fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=f".tmp{ext}",
                                       dir=None if special else folder)
        except OSError as exc:
            raise _error(path, exc) from None
        os.close(fd)
        try:
            yield tmp
            if special:
                _copy_into(tmp, target)
            else:
                os.chmod(tmp, _mode_for(target))
                os.replace(tmp, target)
        except OSError as exc:
            _remove(tmp)
            raise _error(path, exc) from None
        except BaseException:
            _remove(tmp)
            raise
        if special:
            _remove(tmp)


def write_bytes(path: str, data: bytes) -> None:
    """``data`` as the whole content of ``path`` (see ``replacing``)."""
    with replacing(path) as tmp, open(tmp, "wb") as fh:
        fh.write(data)


TERMINATED = 128 + signal.SIGTERM
"""The exit status after SIGTERM, as a shell reports a process it ended."""


@contextlib.contextmanager
def _terminate_as_exit() -> Iterator[None]:
    """SIGTERM inside the block raises SystemExit(TERMINATED), so that the
    cleanup that Ctrl-C gets runs for it too. Only the main thread can set a
    handler; elsewhere, and where one is already set, nothing changes."""
    try:
        previous = signal.getsignal(signal.SIGTERM)
    except ValueError:
        previous = None
    if previous is not signal.SIG_DFL:
        yield
        return

    def terminated(signum: int, frame: Any) -> None:
        raise SystemExit(TERMINATED)

    try:
        signal.signal(signal.SIGTERM, terminated)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _copy_into(tmp: str, target: str) -> None:
    """``tmp``'s bytes written into the device or FIFO ``target``, as ``>`` does
    (opened for writing without O_CREAT or O_TRUNC, which a device ignores)."""
    fd = os.open(target, os.O_WRONLY)
    with open(tmp, "rb") as src, os.fdopen(fd, "wb") as dst:
        shutil.copyfileobj(src, dst)


def _mode_of(target: str) -> int | None:
    try:
        return os.stat(target).st_mode
    except OSError:
        return None


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


__all__ = ["TERMINATED", "is_special", "replacing", "writable_target", "write_bytes"]
