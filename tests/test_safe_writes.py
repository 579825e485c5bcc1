"""Issue 30 §3: a write never destroys what is not a regular file.

Devices are made with mknod in a temporary directory (never /dev); the
tests that need it run as root or skip where the system refuses mknod.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from gradcli import atomic
from gradcli.cli.main import dispatch
from gradcli.errors import GradcliError


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = dispatch(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def device(folder: Path, name: str, minor: int) -> Path:
    """A character device like /dev/full (minor 7) or /dev/null (minor 3) in ``folder``."""
    path = folder / name
    try:
        os.mknod(path, 0o644 | stat.S_IFCHR, os.makedev(1, minor))
    except PermissionError:
        pytest.skip("mknod needs root (CAP_MKNOD) here")
    return path


def test_a_link_to_a_full_device_keeps_the_device(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    full = device(tmp_path, "fakefull", 7)
    os.symlink("fakefull", "out.png")
    code, _, err = run(capsys, "plot", "x^2", "--at", "x=1", "-o", "out.png")
    assert code == 1
    assert "cannot write 'out.png': No space left on device" in err
    assert "internal error" not in err
    assert stat.S_ISCHR(os.lstat(full).st_mode)  # the device node is still there
    assert os.path.islink("out.png") and os.readlink("out.png") == "fakefull"
    assert sorted(os.listdir(tmp_path)) == ["fakefull", "out.png"]  # no temporary left


def test_a_device_is_written_in_place(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    null = device(tmp_path, "fakenull", 3)
    os.symlink("fakenull", "n.dot")
    code, _, err = run(capsys, "plot", "x^2", "--at", "x=1", "-o", "n.dot")
    assert code == 0, err
    assert "written to n.dot" in err
    assert stat.S_ISCHR(os.lstat(null).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["fakenull", "n.dot"]


def test_a_fifo_is_written_as_the_shell_writes_it(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.mkfifo("pipe")
    os.symlink("pipe", "g.dot")
    got: list[bytes] = []

    def reader() -> None:
        with open(tmp_path / "pipe", "rb") as fh:
            got.append(fh.read())

    thread = threading.Thread(target=reader)
    thread.start()
    code, _, err = run(capsys, "plot", "x^2", "--at", "x=1", "-o", "g.dot")
    thread.join(10)
    assert code == 0, err
    assert "internal error" not in err
    assert got and got[0].startswith(b"digraph")
    assert stat.S_ISFIFO(os.lstat(tmp_path / "pipe").st_mode)
    assert os.path.islink("g.dot")


def test_the_format_comes_from_the_name_given(tmp_path, capsys, monkeypatch):
    # g.png links to a file of another extension: a PNG goes into that file
    pytest.importorskip("graphviz")
    monkeypatch.chdir(tmp_path)
    Path("notes.txt").write_text("old")
    os.symlink("notes.txt", "g.png")
    code, _, err = run(capsys, "plot", "x^2", "--at", "x=1", "-o", "g.png")
    if "Graphviz's 'dot' program was not found" in err:
        pytest.skip("Graphviz is not installed")
    assert code == 0, err
    assert os.path.islink("g.png")
    assert Path("notes.txt").read_bytes().startswith(b"\x89PNG")
    assert sorted(os.listdir(tmp_path)) == ["g.png", "notes.txt"]


def test_a_regular_file_through_a_link_is_replaced_and_the_link_stays(tmp_path):
    (tmp_path / "sub").mkdir()
    real = tmp_path / "sub" / "real.svg"
    real.write_text("old")
    real.chmod(0o640)
    link = tmp_path / "link.svg"
    link.symlink_to(real)
    atomic.write_bytes(str(link), b"new")
    assert link.is_symlink() and real.read_bytes() == b"new"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert sorted(os.listdir(tmp_path / "sub")) == ["real.svg"]


def test_the_temporary_sits_beside_the_target_with_the_given_extension(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "data").write_text("old")
    (tmp_path / "c.svg").symlink_to(tmp_path / "sub" / "data")
    with atomic.replacing(str(tmp_path / "c.svg")) as tmp:
        assert os.path.dirname(tmp) == str(tmp_path / "sub")
        assert tmp.endswith(".svg")
        Path(tmp).write_text("new")
    assert (tmp_path / "sub" / "data").read_text() == "new"


def test_a_directory_and_a_socket_are_refused(tmp_path):
    import socket

    (tmp_path / "d.png").mkdir()
    with pytest.raises(GradcliError, match="it is a directory"):
        atomic.write_bytes(str(tmp_path / "d.png"), b"x")
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(tmp_path / "s.png"))
        with pytest.raises(GradcliError, match="it is a socket"):
            atomic.write_bytes(str(tmp_path / "s.png"), b"x")
    finally:
        sock.close()
    assert stat.S_ISSOCK(os.lstat(tmp_path / "s.png").st_mode)


def test_sigterm_mid_write_removes_the_temporary(tmp_path):
    target = tmp_path / "c.svg"
    target.write_text("old")
    with pytest.raises(SystemExit) as exit_info, atomic.replacing(str(target)) as tmp:
        Path(tmp).write_text("half")
        os.kill(os.getpid(), signal.SIGTERM)
    assert exit_info.value.code == atomic.TERMINATED
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["c.svg"]
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # handed back


def test_sigterm_to_a_curve_being_written_leaves_no_temporary(tmp_path):
    # a render that takes its time, ended by SIGTERM from outside
    script = (
        "import sys, time\n"
        "from gradcli import atomic\n"
        "with atomic.replacing(sys.argv[1]) as tmp:\n"
        "    open(tmp, 'w').write('half')\n"
        "    print('ready', flush=True)\n"
        "    time.sleep(30)\n"
    )
    target = tmp_path / "c.svg"
    target.write_text("old")
    proc = subprocess.Popen([sys.executable, "-c", script, str(target)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(10) == atomic.TERMINATED
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["c.svg"]


def test_curve_to_a_link_to_a_full_device(tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    device(tmp_path, "fakefull", 7)
    os.symlink("fakefull", "out.png")
    code, _, err = run(capsys, "curve", "x^2", "--over", "x=0:1", "-o", "out.png")
    assert code == 1 and "No space left on device" in err, err
    assert stat.S_ISCHR(os.lstat(tmp_path / "fakefull").st_mode)
    assert sorted(os.listdir(tmp_path)) == ["fakefull", "out.png"]
