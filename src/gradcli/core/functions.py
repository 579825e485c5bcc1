"""Every built-in function, importable from here as from ``dezero.functions``.

The elementwise table below is the one place a new function is added: one
``elementwise(...)`` call makes its ``Function`` class, its wrapper and its
registry entry, and the grammar, completion, ``:help`` and the tests follow.
Derivatives are written in core operations, so they differentiate again.
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from ..errors import MathError, ShapeError
from .backend import get_array_module
from .fpe import report
from .graph import Constant, Function, Variable, as_variable
from .ops import (
    Add,
    Div,
    Mul,
    Neg,
    Pow,
    Sub,
    add,
    div,
    mean,
    mul,
    neg,
    one_minus_square,
    pow,
    square,
    sub,
)
from .registry import (
    POINTWISE,
    REGISTRY,
    Builtin,
    NamedConstant,
    elementwise,
    lookup,
    register,
)
from .running import builtin
from .shapes import (
    MAX_ELEMENTS,
    BroadcastTo,
    GetItem,
    GetItemGrad,
    MatMul,
    Max,
    Min,
    Reshape,
    Sum,
    SumTo,
    Transpose,
    broadcast_to,
    check_size,
    get_item,
    matmul,
    max,
    min,
    reshape,
    sum,
    sum_to,
    transpose,
)
from .taylor import STRUCTURAL_RULES
from .taylor import elementary as _taylor
from .taylor import inverse as _inverse


def _sign(x: Variable) -> Variable:
    # A Constant: the derivative of sign is 0 wherever it exists.
    if not isinstance(x, Variable):  # a formula: sign(x) is abs(x)/x where x != 0
        return abs(x) / x
    return Constant(get_array_module(x.data).sign(x.data))


def _one_minus_square(x: Variable, sign: float = 1.0) -> Variable:
    if not isinstance(x, Variable):  # a formula: the same value in plain operations
        return sign * (1 - x * x)
    return one_minus_square(x, sign)


def _sigmoid_forward(xp: Any, x: Any) -> Any:
    # exp of -|x| only: no overflow warning for large |x|, unlike 1 / (1 + exp(-x)),
    # and e / (1 + e) for x < 0 keeps the digits of a tiny result, which
    # 0.5 + 0.5 tanh(x / 2) loses (it gave 0 at -40, where the value is 4.2e-18)
    e = xp.exp(-xp.abs(x))
    r = 1.0 / (1.0 + e)
    return xp.where(x < 0, e * r, r)


def _erf_small(xp: Any, a: Any) -> Any:
    """erf(a) for 0 <= a <= 2: (2/sqrt(pi)) exp(-a**2) sum_k (2 a**2)**k a / (2k+1)!!,
    a series of positive terms (no cancellation; 40 terms reach 2**-53 at a = 2),
    summed in place."""
    t = 2.0 * a * a
    s = xp.ones_like(t)
    for k in range(40, 0, -1):
        s *= t
        s *= 1.0 / (2 * k + 1)
        s += 1.0
    s *= a
    s *= xp.exp(-a * a)
    s *= 2.0 / math.sqrt(math.pi)
    return s


def _erfc_large(xp: Any, a: Any, terms: int) -> Any:
    """erfc(a) for 1 <= a <= 28 (from 27.3 on it underflows): Laplace's continued
    fraction exp(-a**2) / sqrt(pi) / (a + (1/2)/(a + 1/(a + (3/2)/(a + ...)))),
    with a**2 split so that exp(-a**2) keeps its digits (a part with an exact
    square). 200 terms reach 2 ulps from a = 1 on, 60 from a = 2."""
    f = a.copy()
    for k in range(terms, 0, -1):
        xp.divide(k / 2.0, f, out=f)
        f += a
    ah = xp.round(a * 2.0**20) / 2.0**20
    return xp.exp(-ah * ah) * xp.exp(-(a - ah) * (a + ah)) / (math.sqrt(math.pi) * f)


def _erf(xp: Any, x: Any, complement: bool) -> Any:
    """erf or erfc to a few ulps (NumPy has neither; CuPy's come from cupyx):
    the series below 2 (erfc: below 1, where 1 - erf loses under 3 bits), the
    continued fraction above, for the elements there only."""
    if xp is not np:
        from cupyx.scipy import special  # lazily: CuPy only on the GPU path

        return special.erfc(x) if complement else special.erf(x)
    x = np.asarray(x)
    a = np.abs(x)
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        r = _erf_small(np, np.minimum(a, 2.0))
        if complement:
            np.subtract(1.0, r, out=r)
        big = a >= (1.0 if complement else 2.0)  # nan: neither, and stays nan
        if big.any():
            tail = _erfc_large(np, np.minimum(a[big], 28.0), 200 if complement else 60)
            r[big] = tail if complement else 1.0 - tail
    if complement:  # erfc(-a) = 2 - erfc(a)
        return np.where(x < 0, 2.0 - r, r).astype(x.dtype, copy=False)
    return np.copysign(r, x).astype(x.dtype, copy=False)

# name, forward, derivative dy/dx given (x, y), doc, safe domain, SymPy reference,
# Taylor rule, and the names other tools give it (for "did you mean" hints)
exp = elementwise(
    "exp", forward="exp", derivative=lambda x, y: y,
    doc="exponential e**x", domain=(-3.0, 3.0), reference="exp(x)",
    taylor=_taylor.exp_rule,
)


def _log_base(log1: Any) -> Any:
    """log(x) and log(x, b), the log to base b: log(x) / log(b)."""

    def log(x: Any, *base: Any) -> Any:
        if not base:
            return log1(x)
        with builtin("log"):  # log(8, 1) warns as log, not as '/'
            return log1(x) / log1(base[0])

    log.__doc__ = log1.__doc__
    return log


log = elementwise(
    "log", forward="log", derivative=lambda x, y: 1 / x,
    doc="natural logarithm; log(x, b): to base b", domain=(0.1, 5.0), reference="log(x)",
    taylor=_taylor.log_rule,
    call=_log_base, signature="log(x[, b])", max_args=2,
)
_LN2 = NamedConstant(math.log(2.0), "log", 2.0)  # formulas write log(2)
_LN10 = NamedConstant(math.log(10.0), "log", 10.0)
log2 = elementwise(
    "log2", forward="log2", derivative=lambda x, y: 1 / (x * _LN2),
    doc="base-2 logarithm", domain=(0.1, 5.0), reference="log(x, 2)",
    taylor=_taylor.log2_rule,
)
log10 = elementwise(
    "log10", forward="log10", derivative=lambda x, y: 1 / (x * _LN10),
    doc="base-10 logarithm", domain=(0.1, 5.0), reference="log(x, 10)",
    taylor=_taylor.log10_rule,
)
sqrt = elementwise(
    "sqrt", forward="sqrt", derivative=lambda x, y: 0.5 / y,
    doc="square root", domain=(0.1, 5.0), reference="sqrt(x)",
    taylor=_taylor.sqrt_rule,
)
sin = elementwise(
    "sin", forward="sin", derivative=lambda x, y: cos(x),
    doc="sine (radians)", domain=(-3.0, 3.0), reference="sin(x)",
    taylor=_taylor.sin_rule,
)
cos = elementwise(
    "cos", forward="cos", derivative=lambda x, y: -sin(x),
    doc="cosine (radians)", domain=(-3.0, 3.0), reference="cos(x)",
    taylor=_taylor.cos_rule,
)
tan = elementwise(
    "tan", forward="tan", derivative=lambda x, y: 1 + y * y,
    doc="tangent (radians)", domain=(-1.2, 1.2), reference="tan(x)",
    taylor=_taylor.tan_rule,
)
# 1 - x*x and x*x - 1 as one operation, exact near |x| = 1 and near 0 (see
# OneMinusSquare)
asin = elementwise(
    "asin", forward="arcsin", derivative=lambda x, y: _one_minus_square(x) ** -0.5,
    doc="inverse sine", domain=(-0.9, 0.9), reference="asin(x)",
    taylor=_inverse.asin_rule,
    aliases=("arcsin",),
)
acos = elementwise(
    "acos", forward="arccos", derivative=lambda x, y: -(_one_minus_square(x) ** -0.5),
    doc="inverse cosine", domain=(-0.9, 0.9), reference="acos(x)",
    taylor=_inverse.acos_rule,
    aliases=("arccos",),
)
atan = elementwise(
    "atan", forward="arctan", derivative=lambda x, y: 1 / (1 + x * x),
    doc="inverse tangent", domain=(-3.0, 3.0), reference="atan(x)",
    taylor=_inverse.atan_rule,
    aliases=("arctan",),
)
sinh = elementwise(
    "sinh", forward="sinh", derivative=lambda x, y: cosh(x),
    doc="hyperbolic sine", domain=(-3.0, 3.0), reference="sinh(x)",
    taylor=_taylor.sinh_rule,
)
cosh = elementwise(
    "cosh", forward="cosh", derivative=lambda x, y: sinh(x),
    doc="hyperbolic cosine", domain=(-3.0, 3.0), reference="cosh(x)",
    taylor=_taylor.cosh_rule,
)
tanh = elementwise(
    "tanh", forward="tanh", derivative=lambda x, y: 1 - y * y,
    doc="hyperbolic tangent", domain=(-3.0, 3.0), reference="tanh(x)",
    taylor=_taylor.tanh_rule,
)
asinh = elementwise(
    "asinh", forward="arcsinh", derivative=lambda x, y: (x * x + 1) ** -0.5,
    doc="inverse hyperbolic sine", domain=(-3.0, 3.0), reference="asinh(x)",
    taylor=_inverse.asinh_rule,
    aliases=("arcsinh", "arsinh"),
)
acosh = elementwise(
    "acosh", forward="arccosh", derivative=lambda x, y: _one_minus_square(x, -1.0) ** -0.5,
    doc="inverse hyperbolic cosine", domain=(1.1, 5.0), reference="acosh(x)",
    taylor=_inverse.acosh_rule,
    aliases=("arccosh", "arcosh"),
)
atanh = elementwise(
    "atanh", forward="arctanh", derivative=lambda x, y: 1 / _one_minus_square(x),
    doc="inverse hyperbolic tangent", domain=(-0.9, 0.9), reference="atanh(x)",
    taylor=_inverse.atanh_rule,
    aliases=("arctanh", "artanh"),
)
abs = elementwise(
    "abs", forward="abs", derivative=lambda x, y: _sign(x),
    doc="absolute value", domain=(0.2, 3.0), reference="Abs(x)",
    taylor=_inverse.abs_rule,
    aliases=("fabs",),
)
sigmoid = elementwise(
    "sigmoid", forward=_sigmoid_forward, derivative=lambda x, y: y * (1 - y),
    doc="logistic sigmoid 1/(1+e**-x)", domain=(-4.0, 4.0), reference="1/(1 + exp(-x))",
    taylor=_taylor.sigmoid_rule,
    aliases=("logistic", "expit"),
)


# --- issue 31: the names of textbooks -------------------------------------------
_log = REGISTRY["log"]


def ln(x: Any) -> Any:
    """natural logarithm, the same as log(x)"""
    return log(x)


register(Builtin(  # the same Function as log: formulas and graphs say log
    name="ln", signature="ln(x)", doc="natural logarithm, the same as log(x)",
    call=ln, min_args=1, max_args=1, kind="elementwise",
    function=_log.function, derivative=_log.derivative, taylor=_log.taylor,
    domain=_log.domain, reference="log(x)",
))


def _recip_of(name: str) -> Any:
    return lambda xp, x: 1.0 / getattr(xp, name)(x)


def _of_recip(name: str) -> Any:
    return lambda xp, x: getattr(xp, name)(1.0 / x)


sec = elementwise(
    "sec", forward=_recip_of("cos"), derivative=lambda x, y: y * tan(x),
    doc="secant 1/cos(x)", domain=(-1.2, 1.2), reference="sec(x)",
    taylor=_taylor.sec_rule,
)
csc = elementwise(
    "csc", forward=_recip_of("sin"), derivative=lambda x, y: -(y * cot(x)),
    doc="cosecant 1/sin(x)", domain=(0.3, 2.8), reference="csc(x)",
    taylor=_taylor.csc_rule, aliases=("cosec",),
)
cot = elementwise(
    "cot", forward=_recip_of("tan"), derivative=lambda x, y: -(1 + y * y),
    doc="cotangent 1/tan(x)", domain=(0.3, 2.8), reference="cot(x)",
    taylor=_taylor.cot_rule, aliases=("cotan",),
)
# |x| * sqrt(x*x - 1): the derivatives of asec and acsc for |x| > 1
asec = elementwise(
    "asec", forward=_of_recip("arccos"),
    derivative=lambda x, y: 1 / (abs(x) * _one_minus_square(x, -1.0) ** 0.5),
    doc="inverse secant acos(1/x)", domain=(1.2, 5.0), reference="asec(x)",
    taylor=_taylor.asec_rule, aliases=("arcsec",),
)
acsc = elementwise(
    "acsc", forward=_of_recip("arcsin"),
    derivative=lambda x, y: -1 / (abs(x) * _one_minus_square(x, -1.0) ** 0.5),
    doc="inverse cosecant asin(1/x)", domain=(1.2, 5.0), reference="acsc(x)",
    taylor=_taylor.acsc_rule, aliases=("arccsc", "acosec"),
)
acot = elementwise(
    "acot", forward=_of_recip("arctan"), derivative=lambda x, y: -1 / (1 + x * x),
    doc="inverse cotangent atan(1/x)", domain=(0.2, 4.0), reference="acot(x)",
    taylor=_taylor.acot_rule, aliases=("arccot",),
)
sech = elementwise(
    "sech", forward=_recip_of("cosh"), derivative=lambda x, y: -(y * tanh(x)),
    doc="hyperbolic secant 1/cosh(x)", domain=(-3.0, 3.0), reference="sech(x)",
    taylor=_taylor.sech_rule,
)
csch = elementwise(
    "csch", forward=_recip_of("sinh"), derivative=lambda x, y: -(y * coth(x)),
    doc="hyperbolic cosecant 1/sinh(x)", domain=(0.2, 3.0), reference="csch(x)",
    taylor=_taylor.csch_rule,
)
coth = elementwise(
    "coth", forward=_recip_of("tanh"), derivative=lambda x, y: 1 - y * y,
    doc="hyperbolic cotangent 1/tanh(x)", domain=(0.2, 3.0), reference="coth(x)",
    taylor=_taylor.coth_rule,
)
cbrt = elementwise(
    "cbrt", forward="cbrt", derivative=lambda x, y: 1 / (3 * (y * y)),
    doc="real cube root (negative for negative x)", domain=(-3.0, -0.2),
    reference="-(-x)**(1/3)",
    taylor=_taylor.cbrt_rule,
)
exp2 = elementwise(
    "exp2", forward="exp2", derivative=lambda x, y: y * _LN2,
    doc="power of two 2**x", domain=(-3.0, 3.0), reference="2**x",
    taylor=_taylor.exp2_rule,
)
expm1 = elementwise(
    "expm1", forward="expm1", derivative=lambda x, y: exp(x),
    # exp(x) - 1 and log(1 + x) in forms without cancellation at 40 digits, near 0 too
    doc="exp(x) - 1, accurate near 0", domain=(-2.0, 2.0), reference="2*exp(x/2)*sinh(x/2)",
    taylor=_taylor.expm1_rule,
)
log1p = elementwise(
    "log1p", forward="log1p", derivative=lambda x, y: 1 / (1 + x),
    doc="log(1 + x), accurate near 0", domain=(-0.8, 3.0), reference="2*atanh(x/(2 + x))",
    taylor=_taylor.log1p_rule,
)
_SQRT_PI = NamedConstant(math.sqrt(math.pi), "sqrt", NamedConstant(math.pi, "", "pi"))
erf = elementwise(
    "erf", forward=lambda xp, x: _erf(xp, x, False),
    derivative=lambda x, y: 2 * exp(-(x * x)) / _SQRT_PI,
    doc="error function", domain=(-3.0, 3.0), reference="erf(x)",
    taylor=_taylor.erf_rule,
)
erfc = elementwise(
    "erfc", forward=lambda xp, x: _erf(xp, x, True),
    derivative=lambda x, y: -2 * exp(-(x * x)) / _SQRT_PI,
    doc="complementary error function 1 - erf(x)", domain=(-3.0, 5.0), reference="erfc(x)",
    taylor=_taylor.erfc_rule,
)

Exp, Log, Log2, Log10, Sqrt = (
    REGISTRY[n].function for n in ("exp", "log", "log2", "log10", "sqrt")
)
Sin, Cos, Tan, Asin, Acos, Atan = (
    REGISTRY[n].function for n in ("sin", "cos", "tan", "asin", "acos", "atan")
)
Sinh, Cosh, Tanh, Asinh, Acosh, Atanh = (
    REGISTRY[n].function for n in ("sinh", "cosh", "tanh", "asinh", "acosh", "atanh")
)
Abs, Sigmoid = REGISTRY["abs"].function, REGISTRY["sigmoid"].function
Sec, Csc, Cot, Asec, Acsc, Acot = (
    REGISTRY[n].function for n in ("sec", "csc", "cot", "asec", "acsc", "acot")
)
Sech, Csch, Coth, Cbrt, Exp2, Expm1, Log1p, Erf, Erfc = (
    REGISTRY[n].function
    for n in ("sech", "csch", "coth", "cbrt", "exp2", "expm1", "log1p", "erf", "erfc")
)


# --- steps and kinks: derivative 0 (or 1) between the points where it is not defined -


def _undefined_at(name: str, where: Any, what: str) -> None:
    """Warn, once a derivative is taken, where ``where`` marks the points at
    which ``name`` has a jump or kink: there the derivative is not defined."""
    if bool(np.any(as_numpy_bool(where))):
        given = "0, its value on either side," if "jump" in what else "one side's"
        report(f"{name}: the derivative is not defined at {what}; {given} is given there")


def as_numpy_bool(a: Any) -> Any:
    return a.get() if hasattr(a, "get") else a


def _step(name: str, jumps: Any) -> tuple[Any, Any]:
    """The derivative and Taylor rule of a step function (0 between its jumps);
    ``jumps(xp, x)`` marks the jumps."""

    def derivative(x: Any, y: Any) -> Any:
        if not isinstance(x, Variable):  # a formula: 0 between the jumps
            return 0
        xp = get_array_module(x.data)
        _undefined_at(name, jumps(xp, x.data), "a jump")
        return Constant(xp.zeros_like(x.data))

    def rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
        _undefined_at(name, jumps(get_array_module(u0), u0), "a jump")
        return _taylor.flat_rule(u0, U, y0, n)

    return derivative, rule


def _whole(xp: Any, x: Any) -> Any:
    return x == xp.floor(x)


_STEPS = {
    "sign": ("sign", "sign of x: -1, 0 or 1", "sign(x)",
             lambda xp, x: x == 0),
    "floor": ("floor", "largest whole number <= x", "floor(x)", _whole),
    "ceil": ("ceil", "smallest whole number >= x", "ceiling(x)", _whole),
    # NumPy's: halves go to the even neighbour, round(2.5) is 2
    "round": ("round", "nearest whole number (halves to even)", "floor(x + 1/2)",
              lambda xp, x: _whole(xp, x - 0.5)),
    "trunc": ("trunc", "x without its fraction, toward 0", "sign(x)*floor(Abs(x))",
              lambda xp, x: _whole(xp, x) & (x != 0)),
}
for _name, (_fwd, _doc, _ref, _jumps) in _STEPS.items():
    _d, _r = _step(_name, _jumps)
    # clear of every jump (whole numbers, halves), for central differences too
    elementwise(_name, forward=_fwd, derivative=_d, doc=_doc, domain=(1.05, 1.45),
                reference=_ref, taylor=_r)
sign, floor, ceil, round, trunc = (REGISTRY[n].call for n in _STEPS)
Sign, Floor, Ceil, Round, Trunc = (REGISTRY[n].function for n in _STEPS)


# --- elementwise functions of several arguments ------------------------------------


class Several(Function):
    """An elementwise function of several arguments, broadcast together (atan2,
    hypot, mod, clip, max and min of several); ``partials(inputs, y)`` gives
    each input's derivative in core operations (None: none)."""

    fwd: Any = None
    partials: Any = None

    def forward(self, *xs: Any) -> Any:
        shapes = [x.shape for x in xs]
        try:
            shape = np.broadcast_shapes(*shapes)
        except ValueError:
            raise ShapeError(f"{self.op_name}: shapes "
                             f"{', '.join(map(str, shapes))} do not broadcast together") from None
        check_size(shape, self.op_name)
        self.shapes = shapes
        return type(self).fwd(get_array_module(xs[0]), *xs)

    def backward(self, gy: Variable) -> tuple[Any, ...]:
        ps = type(self).partials(self.inputs, self.outputs[0]())
        out: list[Any] = []
        for x, p, shape in zip(self.inputs, ps, self.shapes):
            if p is None or type(x) is Constant:
                out.append(None)
                continue
            g = gy * p
            out.append(sum_to(g, shape) if g.shape != shape else g)
        return tuple(out)


POINTWISE.append(Several)


def _is_formula(v: Any) -> bool:
    return not isinstance(v, Variable) and hasattr(v, "__gradcli_call__")


def _several(name: str, fwd: Any, partials: Any, rule: Any) -> type[Several]:
    cls = type(name.capitalize(), (Several,), {
        "__module__": __name__, "op_name": name,
        "fwd": staticmethod(fwd), "partials": staticmethod(partials),
    })
    STRUCTURAL_RULES[cls] = rule
    return cls


def _no_formula(name: str, args: tuple[Any, ...], signature: str) -> None:
    if builtins.any(_is_formula(a) for a in args):
        raise MathError(f"formulas do not cover {signature}; give a point for its "
                        f"value, as in diff(..., x, 1, 2)")


def _mask(v: Any) -> Any:
    """A 0/1 Constant of a condition, in the dtype of the data around it."""
    return Constant(v.astype(np.float64) if isinstance(v, np.ndarray) else v * 1.0)


def _atan2_partials(ins: list[Variable], y: Variable) -> list[Any]:
    v, u = ins
    r2 = u * u + v * v
    return [u / r2, -v / r2]


Atan2 = _several("atan2", lambda xp, v, u: xp.arctan2(v, u), _atan2_partials,
                 _taylor.atan2_rule)


def atan2(y: Any, x: Any) -> Variable:
    """The angle of the point (x, y), in (-pi, pi]."""
    _no_formula("atan2", (y, x), "atan2(y, x)")
    return Atan2()(y, x)


Hypot = _several("hypot", lambda xp, u, v: xp.hypot(u, v),
                 lambda ins, y: [ins[0] / y, ins[1] / y], _taylor.hypot_rule)


def hypot(x: Any, y: Any) -> Any:
    """sqrt(x**2 + y**2), without overflow for large x and y."""
    if _is_formula(x) or _is_formula(y):
        return (x * x + y * y) ** 0.5  # the same function, as formulas write it
    return Hypot()(x, y)


def _mod_partials(ins: list[Variable], y: Variable) -> list[Any]:
    a, b = ins
    xp = get_array_module(a.data)
    q = xp.floor(a.data / b.data)
    _undefined_at("mod", a.data == q * b.data, "a jump")
    return [1.0, Constant(-q)]


def _mod_pick(values: list[Any], y0: Any) -> list[Any]:
    a, b = values
    xp = get_array_module(y0)
    q = xp.floor(a / b)
    _undefined_at("mod", a == q * b, "a jump")
    return [1.0, -q]


Mod = _several("mod", lambda xp, a, b: xp.mod(a, b), _mod_partials,
               _taylor.select_rule(_mod_pick))


def mod(x: Any, y: Any) -> Variable:
    """x - y*floor(x/y): the remainder, with the sign of y (NumPy's mod)."""
    _no_formula("mod", (x, y), "mod(x, y)")
    return Mod()(x, y)


def _clip_weights(x: Any, lo: Any, hi: Any) -> list[Any]:
    _undefined_at("clip", (x == lo) | (x == hi), "a kink (x at lo or hi)")
    below, above = x < lo, x > hi
    inside = ~(below | above)
    return [inside, below & ~above, above]


def _clip_partials(ins: list[Variable], y: Variable) -> list[Any]:
    return [_mask(w) for w in _clip_weights(*(v.data for v in ins))]


Clip = _several("clip", lambda xp, x, lo, hi: xp.minimum(xp.maximum(x, lo), hi),
                _clip_partials,
                _taylor.select_rule(lambda vs, y0: [w * 1.0 for w in _clip_weights(*vs)]))


def clip(x: Any, lo: Any, hi: Any) -> Any:
    """x limited to [lo, hi]: lo below it, hi above it."""
    if builtins.any(_is_formula(a) for a in (x, lo, hi)):
        return _pairwise(_pairwise(x, lo, 1), hi, -1)
    return Clip()(x, lo, hi)


def _larger(sign: int, name: str) -> Any:
    def weights(a: Any, b: Any) -> list[Any]:
        _undefined_at(name, a == b, "a kink (equal arguments)")
        first = (a >= b) if sign > 0 else (a <= b)
        return [first, ~first]
    return weights


_MAX_W, _MIN_W = _larger(1, "max"), _larger(-1, "min")
Maximum = _several(
    "maximum", lambda xp, a, b: xp.maximum(a, b),
    lambda ins, y: [_mask(w) for w in _MAX_W(ins[0].data, ins[1].data)],
    _taylor.select_rule(lambda vs, y0: [w * 1.0 for w in _MAX_W(*vs)]))
Minimum = _several(
    "minimum", lambda xp, a, b: xp.minimum(a, b),
    lambda ins, y: [_mask(w) for w in _MIN_W(ins[0].data, ins[1].data)],
    _taylor.select_rule(lambda vs, y0: [w * 1.0 for w in _MIN_W(*vs)]))


def _pairwise(a: Any, b: Any, sign: int) -> Any:
    """The larger (sign 1) or smaller of a and b, element by element; for
    formulas (a + b +- |a - b|)/2, whose derivative is written with sign."""
    if _is_formula(a) or _is_formula(b):
        return (a + b + sign * abs(a - b)) / 2
    return (Maximum if sign > 0 else Minimum)()(a, b)


def _extreme(name: str, sign: int, reduce: Any) -> Any:
    def call(x: Any, *more: Any, axis: Any = None) -> Any:
        if not more:
            return reduce(x, _axis(x, () if axis is None else (axis,), name))
        if axis is not None:
            raise MathError(f"{name}: axis= goes with one array, as in {name}(A, axis=0); "
                            f"{name}(a, b, ...) is the {'largest' if sign > 0 else 'smallest'}"
                            " value element by element")
        out = x
        with builtin(name):
            for b in more:
                out = _pairwise(out, b, sign)
        return out

    call.__name__ = call.__qualname__ = name
    return call


# --- the other built-ins: reductions, shapes, linear algebra, constructors -------


def _int(v: Any, fname: str, what: str) -> int:
    """A Python int from a scalar argument, or a MathError naming the function."""
    data = getattr(v, "data", v)
    try:
        f = float(data)
    except (TypeError, ValueError):
        raise MathError(f"{fname}: {what} must be a whole number, got an array") from None
    if not math.isfinite(f) or f != int(f):
        raise MathError(f"{fname}: {what} must be a whole number, got {f:g}")
    return int(f)


def _number(v: Any, fname: str, what: str) -> float:
    """A Python float from a one-number argument, or a MathError naming the function."""
    data = getattr(v, "data", v)
    if np.ndim(data) != 0:
        raise MathError(f"{fname}: {what} must be a single number, got an array of shape "
                        f"{np.shape(data)}")
    return float(data)


def _shape(args: tuple[Any, ...], fname: str, infer: bool = False) -> tuple[int, ...]:
    """A shape from ``(2, 3)`` written as separate arguments, one array ``[2, 3]``
    or, as NumPy takes it, one tuple or list; with ``infer`` one dimension may
    be -1, the one that the others and the size leave (reshape's, as NumPy's)."""
    if len(args) == 1:
        data = getattr(args[0], "data", args[0])
        if isinstance(data, (tuple, list)):
            args = tuple(data)
        elif np.ndim(data) == 1:
            args = tuple(data.tolist())
    shape = tuple(_int(a, fname, "a dimension") for a in args)
    if infer and shape.count(-1) == 1:
        return shape  # as many elements as there are: no size to check
    if any(n < 0 for n in shape):
        hint = "; one may be -1, for what the others leave" if infer else ""
        raise MathError(f"{fname}: dimensions must not be negative, got {shape}{hint}")
    check_size(shape, fname)
    return shape


def _axis(x: Any, args: tuple[Any, ...], fname: str) -> int | None:
    """The optional axis argument of a reduction, checked against ``x``."""
    if not args:
        return None
    axis = _int(args[0], fname, "axis")
    ndim = getattr(x, "ndim", 0)
    if not -ndim <= axis < ndim:
        hint = (
            f"; {fname} reduces one array: for two values write {fname}([a, b])"
            if ndim == 0 else ""
        )
        raise MathError(
            f"{fname}: axis {axis} is out of range for an array with {ndim} dimension"
            f"{'s' if ndim != 1 else ''}{hint}"
        )
    return axis


def _dtype_of(*vs: Any) -> Any:
    for v in vs:
        dt = getattr(getattr(v, "data", v), "dtype", None)
        if dt is not None and dt.kind == "f":
            return dt
    return np.float64


def linspace(a: Any, b: Any, n: Any) -> Variable:
    """n evenly spaced points from a to b; differentiable in a and b."""
    a, b = as_variable(a), as_variable(b)
    count = _int(n, "linspace", "n")
    if count < 0:
        raise MathError(f"linspace: n must not be negative, got {count}")
    check_size((count,), "linspace")
    xp = get_array_module(a.data)
    t = Constant(xp.linspace(0.0, 1.0, count, dtype=_dtype_of(a, b)))
    with builtin("linspace"):  # linspace(0, inf, 3) warns as linspace, not as '*'
        return a + (b - a) * t


def arange(*args: Any) -> Variable:
    """arange(stop), arange(start, stop) or arange(start, stop, step), as NumPy."""
    names = ("stop",) if len(args) == 1 else ("start", "stop", "step")
    vals = [_number(v, "arange", what) for v, what in zip(args, names)]
    start, stop, step = (0.0, vals[0], 1.0) if len(vals) == 1 else (*vals, 1.0)[:3]
    if step == 0 or not all(map(math.isfinite, (start, stop, step))):
        raise MathError("arange: start, stop and step must be finite and step nonzero")
    count = builtins.max(0, math.ceil((stop - start) / step))
    check_size((count,), "arange")
    xp = get_array_module(getattr(args[0], "data", args[0]))
    return Constant(xp.arange(start, stop, step, dtype=_dtype_of(*args)))


def zeros(*shape: Any) -> Variable:
    xp = get_array_module(getattr(shape[0], "data", shape[0]))
    return Constant(xp.zeros(_shape(shape, "zeros"), dtype=_dtype_of(*shape)))


def ones(*shape: Any) -> Variable:
    xp = get_array_module(getattr(shape[0], "data", shape[0]))
    return Constant(xp.ones(_shape(shape, "ones"), dtype=_dtype_of(*shape)))


def _register(
    name: str, signature: str, doc: str, call: Any, lo: int, hi: int | None, kind: str,
    domain: tuple[float, float] | None = None, reference: str | None = None,
    keywords: tuple[str, ...] = (),
) -> None:
    register(Builtin(name=name, signature=signature, doc=doc, call=call,
                     min_args=lo, max_args=hi, kind=kind, domain=domain, reference=reference,
                     keywords=keywords))




def _reduction(name: str, reduce: Any) -> Any:
    def call(x: Any, *ax: Any, axis: Any = None) -> Any:
        if axis is not None:
            if ax:
                raise MathError(f"{name}: the axis is given twice")
            ax = (axis,)
        return reduce(x, _axis(x, ax, name))

    call.__name__ = call.__qualname__ = name
    return call


_register("sum", "sum(x[, axis])", "sum of the elements (along an axis; also axis=)",
          _reduction("sum", sum), 1, 2, "reduction", keywords=("axis",))
_register("mean", "mean(x[, axis])", "mean of the elements (along an axis; also axis=)",
          _reduction("mean", mean), 1, 2, "reduction", keywords=("axis",))
_register("max", "max(x[, y, ...][, axis=n])",
          "largest element of x (along axis=); of several: the largest, element by element",
          _extreme("max", 1, max), 1, None, "reduction", keywords=("axis",))
_register("min", "min(x[, y, ...][, axis=n])",
          "smallest element of x (along axis=); of several: the smallest, element by element",
          _extreme("min", -1, min), 1, None, "reduction", keywords=("axis",))
# the references name the arguments x, y, z in order
_register("atan2", "atan2(y, x)", "angle of the point (x, y), in (-pi, pi]",
          atan2, 2, 2, "several", (-3.0, 3.0), "atan2(x, y)")
_register("hypot", "hypot(x, y)", "sqrt(x^2 + y^2), without overflow", hypot, 2, 2, "several",
          (-3.0, 3.0), "sqrt(x**2 + y**2)")
_register("mod", "mod(x, y)", "remainder x - y*floor(x/y), with the sign of y",
          mod, 2, 2, "several", (0.3, 3.0), "x - y*floor(x/y)")
_register("clip", "clip(x, lo, hi)", "x limited to [lo, hi]", clip, 3, 3, "several",
          (-3.0, 3.0), "Min(Max(x, y), z)")
_register("reshape", "reshape(x, shape...)", "the same elements in a new shape",
          lambda x, *s: reshape(x, _shape(s, "reshape", infer=True)), 2, None, "shape")
_register("transpose", "transpose(x)", "reverse the axes (rows become columns)",
          lambda x: transpose(x), 1, 1, "shape")
_register("matmul", "matmul(a, b)", "matrix product, the same as a @ b",
          matmul, 2, 2, "linalg")
_register("linspace", "linspace(a, b, n)", "n evenly spaced points from a to b",
          linspace, 3, 3, "constructor")
_register("arange", "arange([start,] stop[, step])", "evenly stepped values in [start, stop)",
          arange, 1, 3, "constructor")
_register("zeros", "zeros(shape...)", "an array of zeros", zeros, 1, None, "constructor")
_register("ones", "ones(shape...)", "an array of ones", ones, 1, None, "constructor")


__all__ = [
    "REGISTRY", "Builtin", "lookup", "Function", "Variable", "MAX_ELEMENTS",
    "Add", "Sub", "Mul", "Div", "Neg", "Pow", "Reshape", "Transpose", "Sum", "SumTo",
    "BroadcastTo", "MatMul", "GetItem", "GetItemGrad", "Max", "Min",
    "add", "sub", "mul", "div", "neg", "pow", "square", "reshape", "transpose", "sum",
    "broadcast_to", "sum_to", "matmul", "get_item", "max", "min", "mean",
    "linspace", "arange", "zeros", "ones",
    *(name for name, b in REGISTRY.items() if b.kind == "elementwise"),
    "Exp", "Log", "Log2", "Log10", "Sqrt", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan",
    "Sinh", "Cosh", "Tanh", "Asinh", "Acosh", "Atanh", "Abs", "Sigmoid",
    "Sec", "Csc", "Cot", "Asec", "Acsc", "Acot", "Sech", "Csch", "Coth", "Cbrt", "Exp2",
    "Expm1", "Log1p", "Erf", "Erfc",
    "Sign", "Floor", "Ceil", "Round", "Trunc", "Several", "Atan2", "Hypot", "Mod", "Clip",
    "Maximum", "Minimum",
    "atan2", "hypot", "mod", "clip",
]
