"""The CuPy backend. GPU tests skip cleanly without CuPy and a CUDA device; the
import-hygiene test runs everywhere."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gradcli.core.functions as F
from gradcli.core import Variable, get_array_module, gpu_available, higher_derivatives
from gradcli.core.backend import as_numpy, xp_for
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
def cp():  # noqa: ANN201
    import cupy

    return cupy


@pytest.mark.gpu
@gpu
def test_variable_on_cupy_forward_backward(cp) -> None:  # noqa: ANN001
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
def test_matmul_and_broadcast_on_cupy_match_numpy(cp) -> None:  # noqa: ANN001
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
def test_python_scalars_and_constants_on_cupy(cp) -> None:  # noqa: ANN001
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
def test_higher_derivatives_and_indexing_on_cupy(cp) -> None:  # noqa: ANN001
    x = Variable(cp.asarray(np.array([2.0])))
    ds = higher_derivatives(x**4 - 2 * x**2, x, 5)
    assert [float(as_numpy(d.data)[0]) for d in ds] == [24.0, 44.0, 48.0, 24.0, 0.0]
    v = Variable(cp.asarray([1.0, 2.0, 3.0]))
    F.sum(v[cp.asarray([0, 0, 2])]).backward()
    np.testing.assert_array_equal(as_numpy(v.grad.data), [2.0, 0.0, 1.0])


@pytest.mark.gpu
@gpu
def test_to_gpu_to_cpu_round_trip(cp) -> None:  # noqa: ANN001
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
