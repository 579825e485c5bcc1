"""Curves drawn to files with matplotlib: real PNG, SVG and PDF files, the data handed
to matplotlib, clear errors for bad paths, atomic replacement, and no matplotlib
import on any other path."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from gradcli import atomic
from gradcli.errors import ExitStatus, GradcliError
from gradcli.render import curve as render
from gradcli.session import Session
from gradcli.session.curves import sample_curves, session_evaluator


def data_of(exprs, a, b, points=400, order=0):
    return sample_curves(session_evaluator(Session()), exprs, "x", a, b, points, order)


def rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))


def test_png_has_a_line_of_each_legend_colour(tmp_path):
    from PIL import Image

    path = tmp_path / "c.png"
    data = data_of(["exp(sin(x))*log(1+x^2)"], 0, 5, order=3)
    lines = render.write_curve(data, str(path))
    assert lines == [f"curve: 4 lines (x = 0..5, written to {path})"]
    raw = path.read_bytes()
    assert raw.startswith(b"\x89PNG\r\n\x1a\n") and 20_000 < len(raw) < 400_000
    image = np.asarray(Image.open(path).convert("RGB"))
    assert image.shape == (500, 800, 3)
    fig = render.figure(data)
    legend = fig.axes[0].get_legend()
    names = [t.get_text() for t in legend.get_texts()]
    assert names == ["f", "f'", "f''", "f'''"]
    for handle in legend.legend_handles:
        # a legend sample is about 60 pixels; a curve across the plot, hundreds more
        pixels = int((image == rgb(handle.get_color())).all(axis=2).sum())
        assert pixels > 400, (handle.get_color(), pixels)
    assert len(set(render.COLOURS)) == len(render.COLOURS)


def test_figure_has_title_labels_zero_line_and_solid_lines():
    data = data_of(["sin(x)", "cos(x)"], 0, 6.3, order=1)
    ax = render.figure(data).axes[0]
    assert ax.get_title() == "sin(x), cos(x)"
    assert ax.get_xlabel() == "x" and ax.get_ylabel() == "value"
    drawn = [line for line in ax.get_lines() if line.get_label()[0] != "_"]
    assert [line.get_label() for line in drawn] == ["sin(x)", "d/dx sin(x)", "cos(x)",
                                                    "d/dx cos(x)"]
    assert all(line.get_linestyle() == "-" for line in drawn)
    assert len({line.get_color() for line in drawn}) == 4
    zero = [line for line in ax.get_lines() if line.get_label()[0] == "_"]
    assert any(np.all(np.asarray(line.get_ydata()) == 0) for line in zero)
    assert ax.get_xlim() == (0, 6.3)


def test_tan_hands_matplotlib_gaps_at_the_poles_and_says_it_clipped(tmp_path):
    data = data_of(["tan(x)"], -3, 3)
    ax = render.figure(data).axes[0]
    (line,) = [li for li in ax.get_lines() if li.get_label() == "f"]
    x, y = np.asarray(line.get_xdata()), np.asarray(line.get_ydata())
    gaps = np.flatnonzero(np.isnan(y))
    assert len(gaps) == 2
    for g, pole in zip(gaps, (-np.pi / 2, np.pi / 2)):
        assert x[g - 1] < pole < x[g + 1]
    lo, hi = ax.get_ylim()
    y0, y1 = y[:-1], y[1:]
    assert not np.any((y0 > hi) & (y1 < lo)) and not np.any((y0 < lo) & (y1 > hi))
    assert hi < 40  # the values near the poles (133 and more) do not set the range
    notes = [t.get_text() for t in ax.texts]
    assert any(t.startswith("y range clipped to") for t in notes)
    render.write_curve(data, str(tmp_path / "tan.png"))


def test_a_million_points_are_decimated_before_drawing():
    data = data_of(["sin(30*x)"], 0, 5, points=1_000_000)
    ((x, y, colour, name),) = render.lines(data)
    assert x.size <= 4 * render.COLUMNS and name == "f" and colour == render.COLOURS[0]
    assert np.nanmax(y) == pytest.approx(1, abs=1e-9)
    assert np.nanmin(y) == pytest.approx(-1, abs=1e-9)


@pytest.mark.parametrize(("ext", "magic"), [
    (".svg", b"<?xml"), (".pdf", b"%PDF-"), (".PNG", b"\x89PNG")])
def test_svg_and_pdf_by_the_extension(tmp_path, ext, magic):
    path = tmp_path / f"curve{ext}"
    render.write_curve(data_of(["x^2"], -1, 1, order=1), str(path))
    raw = path.read_bytes()
    assert raw.startswith(magic) and len(raw) > 5_000
    if ext == ".svg":
        text = raw.decode()
        assert "<svg" in text
        for colour in render.COLOURS[:2]:
            assert colour in text.lower()
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary left


@pytest.mark.parametrize(("name", "words"), [
    ("curve.jpg", "cannot tell the image format of"),
    ("curve", "(no extension)"),
])
def test_unknown_extension_is_one_clear_error(tmp_path, name, words):
    with pytest.raises(GradcliError) as info:
        render.write_curve(data_of(["x"], 0, 1, points=3), str(tmp_path / name))
    assert words in info.value.message and ".png .svg .pdf" in info.value.message
    assert info.value.exit_status == ExitStatus.USAGE  # as plot's graph_format
    assert list(tmp_path.iterdir()) == []


def test_directories_and_unwritable_paths_are_one_clear_error(tmp_path):
    data = data_of(["x"], 0, 1, points=3)
    (tmp_path / "d.png").mkdir()
    cases = {
        str(tmp_path / "d.png"): "it is a directory",
        str(tmp_path / "missing" / "c.png"): "does not exist",
        "/proc/gradcli-curve.png": "cannot write '/proc/gradcli-curve.png'",
    }
    for path, words in cases.items():
        with pytest.raises(GradcliError) as info:
            render.write_curve(data, path)
        assert words in info.value.message, info.value.message
        assert info.value.exit_status == ExitStatus.ERROR


def test_a_failed_render_leaves_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "c.png"
    path.write_bytes(b"old picture")

    def broken(fig, tmp, fmt):
        with open(tmp, "wb") as fh:
            fh.write(b"half a pic")
        raise MemoryError

    monkeypatch.setattr(render, "_save", broken)
    with pytest.raises(MemoryError):
        render.write_curve(data_of(["x"], 0, 1, points=3), str(path))
    assert path.read_bytes() == b"old picture"
    assert [p.name for p in tmp_path.iterdir()] == ["c.png"]


def test_atomic_replace_keeps_the_mode_and_follows_a_link(tmp_path):
    target = tmp_path / "real.svg"
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    link = tmp_path / "link.svg"
    link.symlink_to(target)
    atomic.write_bytes(str(link), b"new")
    assert link.is_symlink() and target.read_bytes() == b"new"
    assert os.stat(target).st_mode & 0o777 == 0o640
    fresh = tmp_path / "fresh.png"
    atomic.write_bytes(str(fresh), b"x")
    umask = os.umask(0)
    os.umask(umask)
    assert os.stat(fresh).st_mode & 0o777 == 0o666 & ~umask


def _modules_after(code: str) -> set[str]:
    probe = f"import sys\n{code}\nprint(','.join(sorted(m.split('.')[0] for m in sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout
    return set(out.strip().splitlines()[-1].split(","))


def test_matplotlib_is_imported_only_to_draw_a_figure():
    loaded = _modules_after(
        "import gradcli.render.curve, gradcli.render.termplot, gradcli.session.curves, "
        "gradcli.render.csv, gradcli.render.json, gradcli.lang.ranges, gradcli.atomic")
    assert "matplotlib" not in loaded and "uniplot" not in loaded and "PIL" not in loaded
    loaded = _modules_after(
        "sys.argv = ['gradcli', 'eval', 'x^2', '--at', 'x=linspace(0, 1, 5)', "
        "'--order', '2', '--format', 'csv']\n"
        "from gradcli.__main__ import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass")
    assert "matplotlib" not in loaded and "uniplot" not in loaded
