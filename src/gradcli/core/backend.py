"""The array module switch: NumPy always, CuPy only when a GPU is asked for.

CuPy is never imported at start-up: importing it costs seconds and fails on
machines without CUDA. ``get_array_module`` recognises a CuPy array by its type's
module name, so NumPy-only code never touches CuPy at all.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from ..errors import DeviceError

_cupy: types.ModuleType | None = None


def _load_cupy() -> types.ModuleType:
    global _cupy
    if _cupy is None:
        try:
            import cupy  # lazily: seconds to import, and it fails without CUDA
        except Exception as exc:  # ImportError, or a CUDA library that fails to load
            raise DeviceError(
                "GPU asked for but CuPy is not available "
                "(install it with: pip install 'gradcli[gpu]')"
            ) from exc
        try:
            if cupy.cuda.runtime.getDeviceCount() < 1:
                raise DeviceError("GPU asked for but no CUDA device is present")
        except DeviceError:
            raise
        except Exception as exc:
            raise DeviceError(f"GPU asked for but CUDA is not usable: {exc}") from exc
        _cupy = cupy
    return _cupy


def gpu_available() -> bool:
    """True when CuPy imports and sees at least one CUDA device."""
    try:
        _load_cupy()
    except DeviceError:
        return False
    return True


def get_array_module(x: Any) -> types.ModuleType:
    """numpy or cupy, whichever holds ``x`` (an array, a scalar, a Variable or a Jet)."""
    if isinstance(x, (np.ndarray, np.generic, int, float)):
        return np
    if type(x).__module__.startswith("cupy"):
        return _load_cupy()
    data = getattr(x, "data", None)
    if data is not None and type(data).__module__.startswith("cupy"):
        return _load_cupy()
    return np


def xp_for(device: str) -> types.ModuleType:
    """The array module for a device name: 'cpu' or 'gpu'."""
    if device == "cpu":
        return np
    if device == "gpu":
        return _load_cupy()
    raise DeviceError(f"unknown device {device!r} (expected 'cpu' or 'gpu')")


def _payload(x: Any) -> Any:
    # An ndarray's own ``.data`` is a memoryview, so only unwrap non-arrays.
    if isinstance(x, np.ndarray) or type(x).__module__.startswith("cupy"):
        return x
    return getattr(x, "data", x)


def as_numpy(x: Any) -> np.ndarray:
    """A NumPy array of ``x`` wherever it lives (a copy from the GPU if needed)."""
    data = _payload(x)
    if type(data).__module__.startswith("cupy"):
        return data.get()
    return np.asarray(data)


def as_cupy(x: Any) -> Any:
    data = _payload(x)
    return _load_cupy().asarray(data)
