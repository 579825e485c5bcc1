"""How the REPL words the hints in errors and warnings (see errors.worded)."""

REPL_WORDS: dict[str, str] = {
    "value": "assign one first: {name} = ...",
    "wrt": "name one after the expression (:d EXPR wrt x), differentiate by one "
           "through a function of it (f(t) = ..., then f(x)), or use diff(expr, x, n)",
    "wrt_named": "wrt {name}: ",
    "colon": "a ':' command (:help, :vars ...) goes on a line of its own",
    "formula": "; or name it, :d EXPR wrt {name}, for the formulas of the derivatives",
    "method_paren": " (--method taylor)",
    "method_use": ": use --method taylor",
    "order": ":d's order",
    "series": "a series",
    "check": ":check",
    "numbers": " (give the variable a value: x = 1)",
    "free_numbers": " ({name} = 1)",
    "grad": "grad",
}
