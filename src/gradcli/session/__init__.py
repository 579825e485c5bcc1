"""The session layer: bindings and definitions that outlive a statement, and
``Session.run(text) -> results`` for the shells."""

from ..asked import EvalOptions
from .session import DTYPES, METHODS, Session, order_limit

__all__ = ["DTYPES", "METHODS", "EvalOptions", "Session", "order_limit"]
