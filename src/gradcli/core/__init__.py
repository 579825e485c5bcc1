"""gradcli's automatic-differentiation core, with DeZero's names and behaviour.

``from gradcli.core import Variable`` and ``import gradcli.core.functions as F``
replace ``from dezero import Variable`` and ``import dezero.functions as F``.
"""

from . import backprop, functions, operators  # noqa: F401 - Variable's methods, built-ins
from .backend import get_array_module, gpu_available
from .derivatives import grad, higher_derivatives
from .graph import (
    Config,
    Constant,
    Function,
    Variable,
    as_array,
    as_variable,
    no_grad,
    using_config,
)

__all__ = [
    "Config",
    "Constant",
    "Function",
    "Variable",
    "as_array",
    "as_variable",
    "get_array_module",
    "gpu_available",
    "grad",
    "higher_derivatives",
    "no_grad",
    "using_config",
]
