"""Parts of a blockwise replay run side by side in threads, and stopped together.

NumPy's ufuncs release the GIL, so the blocks' arithmetic runs in parallel.
A Ctrl-C reaches only the calling thread (Python runs signal handlers there):
it raises KeyboardInterrupt between two of that thread's NumPy calls, and the
other threads must then stop too, and soon, or they go on at full speed for
seconds (a block at order 150 takes one to three) holding their memory.
Each part checks ``cancel`` between blocks; a thread in the middle of a long
block is also sent ``Stop``, which Python raises in it at its next bytecode
(PyThreadState_SetAsyncExc), that is after the NumPy call under way. The
calling thread waits for them all before it raises, so that nothing of the
replay runs or holds memory once the caller has the exception.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np


class Stop(BaseException):
    """Raised in a worker thread to end it; caught there, never seen outside."""


Run = Callable[[range, threading.Event], None]

NEVER = threading.Event()
"""The ``cancel`` of a replay in one thread (a Ctrl-C raises in it directly)."""


def run_parts(run: Run, parts: list[range]) -> None:
    """run(part, cancel) for each part, one thread each (this one runs the first).

    The other threads get this thread's floating-point error settings
    (fpe.capture_fp_errors is active here when the session calls). The first
    exception of any of them, or this thread's own (a KeyboardInterrupt),
    sets ``cancel`` and stops the others; it is raised here once every thread
    has ended.
    """
    errors: list[BaseException] = []
    cancel = threading.Event()
    lock = threading.Lock()
    busy: set[int] = set()  # the threads that may be sent Stop
    settings, call = np.geterr(), np.geterrcall()

    def worker(part: range) -> None:
        me = threading.get_ident()
        try:
            try:
                with lock:
                    busy.add(me)
                if not cancel.is_set():
                    with np.errstate(call=call, **settings):
                        run(part, cancel)
            except Stop:
                pass
            except BaseException as exc:  # handed to the calling thread
                errors.append(exc)
                cancel.set()
            finally:
                with lock:
                    busy.discard(me)
                if cancel.is_set():
                    _send(me, None)  # a Stop sent but not raised yet is dropped
        except Stop:  # raised in the lines above, before it could be dropped
            pass

    others = [threading.Thread(target=worker, args=(part,), daemon=True,
                               name="gradcli-block") for part in parts[1:]]
    for thread in others:
        thread.start()
    try:
        run(parts[0], cancel)
    except BaseException:
        _stop(cancel, busy, lock)
        raise
    finally:
        _join(others, cancel, busy, lock)
    if errors:
        raise errors[0]


def _stop(cancel: threading.Event, busy: set[int], lock: threading.Lock) -> None:
    cancel.set()
    with lock:
        for ident in busy:
            _send(ident, Stop)


def _join(threads: list[threading.Thread], cancel: threading.Event, busy: set[int],
          lock: threading.Lock) -> None:
    """Wait for every thread; a Ctrl-C while waiting stops them, and is raised
    once they have ended."""
    interrupted: BaseException | None = None
    for thread in threads:
        while thread.is_alive():
            try:
                thread.join()
            except BaseException as exc:  # raised below, after the join
                _stop(cancel, busy, lock)
                interrupted = exc
    if interrupted is not None:
        raise interrupted


def _send(ident: int, exc: type[BaseException] | None) -> None:
    """Have Python raise ``exc`` in thread ``ident`` at its next bytecode (None:
    forget one sent and not yet raised)."""
    import ctypes  # only when a replay is stopped

    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(ident), None if exc is None else ctypes.py_object(exc))
