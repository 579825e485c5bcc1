"""gradcli: a differentiation calculator on its own DeZero-style autodiff core."""

__version__ = "0.1.0"
