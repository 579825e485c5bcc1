"""The CuPy backend. GPU tests skip cleanly without CuPy and a CUDA device; the
import-hygiene test runs everywhere."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from test_taylor import FIVE  # the five formulas

import gradcli.core.functions as F
from gradcli.core import Variable, get_array_module, gpu_available, higher_derivatives
from gradcli.core.backend import as_numpy, xp_for
from gradcli.core.registry import REGISTRY
from gradcli.core.taylor import taylor_derivatives
from gradcli.errors import DeviceError


def test_cpu_path_never_imports_cupy() -> None:
    code = textwrap.dedent(
        """
        import sys
        import numpy as np
        import gradcli.core
        import gradcli.core.functions as F
        from gradcli.core import Variable, higher_derivatives, get_array_module
        from gradcli.core.utils import get_dot_graph, gradient_check
        x = Variable(np.array([0.5, 1.0]))
        y = F.sum(F.sin(x) * F.exp(x) + x @ x)
        y.backward(create_graph=True)
        higher_derivatives(F.tanh(x), x, 3)
        gradient_check(F.sin, np.array([0.1, 0.2]))
        get_dot_graph(y)
        assert get_array_module(x) is np and get_array_module(x.data) is np
        x.to_cpu()
        print("cupy" in sys.modules, any(m.startswith("cupy") for m in sys.modules))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.split() == ["False", "False"], out.stderr


def test_cpu_device_switch() -> None:
    assert xp_for("cpu") is np
    with pytest.raises(DeviceError, match="unknown device"):
        xp_for("tpu")


def test_gpu_request_without_gpu_is_a_device_error() -> None:
    if gpu_available():
        pytest.skip("a GPU is present: the missing-GPU error cannot be shown here")
    with pytest.raises(DeviceError, match="GPU"):
        xp_for("gpu")
    x = Variable(np.array([1.0]))
    with pytest.raises(DeviceError):
        x.to_gpu()


gpu = pytest.mark.skipif(not gpu_available(), reason="needs CuPy and a CUDA device")


@pytest.fixture
def cp():
    import cupy

    return cupy


@pytest.mark.gpu
@gpu
def test_variable_on_cupy_forward_backward(cp) -> None:
    data = np.linspace(-1.0, 1.0, 7)
    x = Variable(cp.asarray(data))
    assert get_array_module(x) is cp and get_array_module(x.data) is cp
    y = F.sum(F.sin(x) * F.exp(x))
    assert type(y.data).__module__.startswith("cupy")
    y.backward()
    assert type(x.grad.data).__module__.startswith("cupy")
    want = np.cos(data) * np.exp(data) + np.sin(data) * np.exp(data)
    np.testing.assert_allclose(as_numpy(x.grad.data), want, rtol=1e-12)
    np.testing.assert_allclose(float(y.data), np.sum(np.sin(data) * np.exp(data)), rtol=1e-12)


@pytest.mark.gpu
@gpu
def test_matmul_and_broadcast_on_cupy_match_numpy(cp) -> None:
    rng = np.random.default_rng(0)
    a, b, c = rng.normal(size=(3, 4)), rng.normal(size=(4, 2)), rng.normal(size=(2,))
    results = {}
    for name, xp in (("cpu", np), ("gpu", cp)):
        x, W, bias = Variable(xp.asarray(a)), Variable(xp.asarray(b)), Variable(xp.asarray(c))
        y = F.sum(F.tanh(x @ W + bias) ** 2)
        y.backward()
        results[name] = [as_numpy(v) for v in (y.data, x.grad.data, W.grad.data, bias.grad.data)]
    for got, want in zip(results["gpu"], results["cpu"]):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    assert results["gpu"][3].shape == (2,)


@pytest.mark.gpu
@gpu
def test_python_scalars_and_constants_on_cupy(cp) -> None:
    x = Variable(cp.asarray([1.0, 2.0], dtype=cp.float32))
    y = 2 * x + 1.5 - x / 4 + 2**x + x**2
    assert y.dtype == np.float32
    assert type(y.data).__module__.startswith("cupy")
    y.backward()
    xs = np.array([1.0, 2.0])
    want = 2 - 0.25 + 2**xs * np.log(2) + 2 * xs
    np.testing.assert_allclose(as_numpy(x.grad.data), want, rtol=1e-6)


@pytest.mark.gpu
@gpu
def test_higher_derivatives_and_indexing_on_cupy(cp) -> None:
    x = Variable(cp.asarray(np.array([2.0])))
    ds = higher_derivatives(x**4 - 2 * x**2, x, 5)
    assert [float(as_numpy(d.data)[0]) for d in ds] == [24.0, 44.0, 48.0, 24.0, 0.0]
    v = Variable(cp.asarray([1.0, 2.0, 3.0]))
    F.sum(v[cp.asarray([0, 0, 2])]).backward()
    np.testing.assert_array_equal(as_numpy(v.grad.data), [2.0, 0.0, 1.0])


@pytest.mark.gpu
@gpu
def test_to_gpu_to_cpu_round_trip(cp) -> None:
    data = np.arange(6.0).reshape(2, 3)
    x = Variable(data.copy())
    x.to_gpu()
    assert type(x.data).__module__.startswith("cupy")
    y = F.sum(F.exp(x))
    y.backward()
    assert type(x.grad.data).__module__.startswith("cupy")
    x.to_cpu()
    assert type(x.data) is np.ndarray
    np.testing.assert_array_equal(x.data, data)
    x.to_gpu()
    x.to_gpu()  # idempotent
    x.to_cpu()
    x.to_cpu()
    np.testing.assert_array_equal(x.data, data)
    np.testing.assert_allclose(as_numpy(x.grad.data), np.exp(data), rtol=1e-12)
    assert xp_for("gpu") is cp


# --- Taylor mode and backprop on CuPy, against NumPy ---------------------------------

ELEMENTWISE = sorted(name for name, b in REGISTRY.items() if b.kind == "elementwise")


def _points(name: str, count: int = 7) -> np.ndarray:
    lo, hi = REGISTRY[name].domain
    return np.linspace(lo, hi, count + 2)[1:-1]


def _both(build, data: np.ndarray, cp, method):
    """method(build, x) on NumPy and on CuPy; the CuPy results must be CuPy arrays."""
    out = {}
    for name, xp in (("cpu", np), ("gpu", cp)):
        x = Variable(xp.asarray(data))
        got = method(build(x), x)
        assert got is not None, f"{name}: Taylor mode gave up"
        if name == "gpu":
            for d in got:
                assert type(d).__module__.startswith("cupy"), type(d)
        out[name] = [as_numpy(d) for d in got]
    return out["gpu"], out["cpu"]


def _assert_orders_close(got, want, rtol: float, what: str) -> None:
    assert len(got) == len(want), what
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape, f"{what} order {k}"
        scale = float(np.max(np.abs(w))) if w.size else 0.0
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * scale,
                                   err_msg=f"{what} order {k}")


@pytest.mark.gpu
@gpu
@pytest.mark.parametrize("name", ELEMENTWISE)
def test_every_builtin_by_taylor_mode_on_cupy_matches_numpy(cp, name) -> None:
    call = REGISTRY[name].call
    a = _points(name)

    def nonlinear(x):
        d = x - float(a[3])
        return call(float(a[3]) + 0.5 * d + 0.3 * d * d)

    def taylor(y, x):
        return taylor_derivatives(y, x, 8)

    for build in (call, nonlinear):
        got, want = _both(build, a, cp, taylor)
        _assert_orders_close(got, want, 1e-11, name)
        got, want = _both(build, a[2:3].reshape(()), cp, taylor)  # one-element series
        _assert_orders_close(got, want, 1e-11, name)


@pytest.mark.gpu
@gpu
@pytest.mark.parametrize("name", ELEMENTWISE)
def test_every_builtin_by_backprop_on_cupy_matches_numpy(cp, name) -> None:
    def backprop(y, x):
        return [y.data] + [d.data for d in higher_derivatives(y, x, 3)]

    got, want = _both(REGISTRY[name].call, _points(name), cp, backprop)
    _assert_orders_close(got, want, 1e-11, name)


@pytest.mark.gpu
@gpu
@pytest.mark.parametrize("text", FIVE)
@pytest.mark.parametrize("order", [30, 250])
def test_high_orders_on_cupy_match_numpy(cp, text, order) -> None:
    """Order 30, and order 250, past k!'s overflow, where the series is scaled."""
    data = np.array([-1.3, 0.0, 0.7, 2.0])

    def taylor(y, x):
        return taylor_derivatives(y, x, order)

    with np.errstate(all="ignore"):
        got, want = _both(FIVE[text], data, cp, taylor)
        one, one_want = _both(FIVE[text], data[2:3].reshape(()), cp, taylor)
    # sin(x)*exp(x)'s product cancels (sqrt 2)^k of its size: past order 30 both
    # devices' digits are noise (order 55 at 0.7: the CPU 1.1e-7 off, the GPU 5e-8)
    last = 30 if text == "sin(x)*exp(x)" else order
    for g, w in ((got, want), (one, one_want)):
        for k, (a, b) in enumerate(zip(g[: last + 1], w[: last + 1])):
            finite = np.isfinite(b)
            np.testing.assert_array_equal(np.isfinite(a), finite, err_msg=f"order {k}")
            np.testing.assert_allclose(a[finite], b[finite], rtol=1e-8,
                                       atol=1e-8 * float(np.max(np.abs(b[finite]), initial=0)),
                                       err_msg=f"{text} order {k}")


@pytest.mark.gpu
@gpu
def test_a_million_points_by_taylor_mode_on_cupy(cp) -> None:
    """A large CuPy array is replayed whole on the GPU (blocks are NumPy's), with the
    numbers NumPy's blocks give."""
    data = np.linspace(-2.0, 2.0, 1_000_000)
    build = FIVE["exp(sin(x))*log(1+x**2)"]
    x = Variable(cp.asarray(data))
    got = taylor_derivatives(build(x), x, 3)
    assert all(type(d).__module__.startswith("cupy") for d in got)
    x = Variable(data)
    want = taylor_derivatives(build(x), x, 3)
    _assert_orders_close([as_numpy(d) for d in got], want, 1e-12, "a million points")


# --- the command line and the REPL with --device gpu ----------------------------------

CLI_CASES = {
    "five formulas, order 10, checked": (
        *FIVE, "--at", "x=0.7", "--order", "10", "--check"),
    "five formulas over an array": (*FIVE, "--at", "x=linspace(-2, 2, 9)", "--order", "4"),
    "order 30": ("sin(x)*exp(x)", "exp(sin(x))*log(1+x**2)", "--at", "x=0.7", "--order", "30"),
    "order 300": ("sin(x)", "1/(1+x^2)", "exp(x/3)", "--at", "x=0.7", "--order", "300"),
    "an array of blocks": ("exp(sin(x))*log(1+x**2)", "tanh(x)", "--at",
                           "x=linspace(-2, 2, 150000)", "--order", "3"),
    "series": ("exp(sin(x))*log(1+x**2)", "tanh(x)", "--at", "x=0.7", "--series", "8"),
    "grad": ("x*y + sin(x)", "sum(v^2) * x", "--at", "x=2,y=3,v=[1,2,3]", "--grad"),
    "backprop": ("exp(sin(x))*log(1+x**2)", "x^x", "--at", "x=0.7", "--order", "5",
                 "--method", "backprop"),
    "float32": ("sin(x)*exp(x)", "1e39", "x^0.5", "--at", "x=0.7", "--order", "3",
                "--dtype", "float32", "--check"),
    "language": (
        "A = [[1, 2], [3, 4]]", "A @ A", "A[1, 0]", "sum(A)", "mean(A)", "max([1, 5, 2])",
        "transpose(A)", "reshape(arange(6), 2, -1)", "zeros(2, 3)", "ones(2)",
        "v = [1, 2, 3]", "v[0:2]", "sum(sin(v))", "diff(x^4 - 2x^2, x, 2, 3)",
        "f(t) = t^3 - 2t", "f''(2)", "sin'(0)", "x = 2; y = 3; grad(x*y + sin(x))",
        "[cos(x), sin(x)]", "abs([-1, 2])", "min(v) + max(v)"),
    "non-finite values warn": (
        "log(-1)", "1/0", "log(0)", "sqrt(-1)", "asin(2)", "exp(1000)", "0/0",
        "inf - inf", "acosh(0.5)", "log([1, 0, -1])", "linspace(0, inf, 3)"),
    "non-finite derivatives warn": (
        "sqrt(x)", "x^0.5", "abs(x)", "log(x)", "(x^2)^1.5", "--at", "x=0",
        "--order", "3"),
    "errors": ("1 +", "nope(2)", "[1, 2] + [1, 2, 3]", "[[1, 2]] @ [1]"),
}


def _cli(device: str, args: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gradcli", "eval", *args, "--format", "json",
         "--device", device],
        capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
    )


def _same_json(got, want, where: str, rtol: float) -> None:
    """Equal structure and text; numbers equal to rtol of their row's size (the
    errors of --check, differences of nearly equal numbers, to rtol absolute)."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and got.keys() == want.keys(), where
        for key in want:
            if key in ("abs_error", "rel_error") and isinstance(want[key], float):
                assert got[key] == pytest.approx(want[key], abs=rtol), f"{where}.{key}"
            elif key == "est_error" and isinstance(want[key], float):
                # an error estimate: the devices' last bits may pick another entry
                assert got[key] == pytest.approx(want[key], rel=1.0, abs=rtol), f"{where}.{key}"
            else:
                _same_json(got[key], want[key], f"{where}.{key}", rtol)
    elif isinstance(want, list) and want and all(isinstance(w, (int, float)) for w in
                                                 np.ravel(np.array(want, dtype=object))):
        g, w = np.array(got, dtype=float), np.array(want, dtype=float)
        assert g.shape == w.shape, where
        scale = float(np.max(np.abs(w[np.isfinite(w)]), initial=0.0))
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * scale, err_msg=where)
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want)):
            _same_json(g, w, f"{where}[{i}]", rtol)
    elif isinstance(want, float) and not isinstance(got, str):
        assert got == pytest.approx(want, rel=rtol, abs=1e-300), where
    else:
        assert got == want, where


@pytest.mark.gpu
@gpu
@pytest.mark.parametrize("case", CLI_CASES)
def test_cli_on_the_gpu_prints_what_it_prints_on_the_cpu(case) -> None:
    """Values, derivatives, checks, series and gradients agree; warnings and errors
    (standard error, and the JSON error objects) and exit status are the same."""
    import json

    args = CLI_CASES[case]
    cpu, gpu_run = _cli("cpu", args), _cli("gpu", args)
    assert gpu_run.returncode == cpu.returncode, gpu_run.stderr
    assert gpu_run.stderr == cpu.stderr
    got = [json.loads(line) for line in gpu_run.stdout.splitlines()]
    want = [json.loads(line) for line in cpu.stdout.splitlines()]
    assert len(got) == len(want)
    # the GPU's sin may differ in the last bit; float32's second differences in
    # --check (h = 0.02) turn that into 1e-4 of the estimate
    rtol = 1e-3 if "float32" in args else 1e-9
    for g, w in zip(got, want):
        _same_json(g, w, w["input"], rtol)


@pytest.mark.gpu
@gpu
def test_repl_on_the_gpu_prints_what_it_prints_on_the_cpu() -> None:
    lines = "x = 2\n:d 3 x^3 - sin(x)\n:check exp(x)/x\nv = linspace(0, 1, 3)\nv^2\n" \
            "log(-1)\n:vars\nf(t) = t^2\nf'(x)\n"
    runs = [subprocess.run([sys.executable, "-m", "gradcli", "repl", "--device", d],
                           input=lines, capture_output=True, text=True, timeout=300)
            for d in ("cpu", "gpu")]
    assert runs[1].returncode == runs[0].returncode == 0
    assert runs[1].stdout == runs[0].stdout
    assert runs[1].stderr == runs[0].stderr
