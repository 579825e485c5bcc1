"""The REPL's commands, their aliases and its keys, as data: the shell, the
completer and ``:help`` read them from here."""

# name: (usage, one line); completion and :help read this table.
COMMANDS: dict[str, tuple[str, str]] = {
    ":help": (":help [NAME]", "the language, commands and built-ins; :help sin for one"),
    ":vars": (":vars", "variables and their values"),
    ":funcs": (":funcs", "defined functions"),
    ":d": (":d [N] EXPR [wrt X]",
           "derivatives of orders 0..N (default 1) by X (the only variable) at its value"),
    ":steps": (":steps [N] EXPR [wrt X]",
               "how the formula of the derivative (orders 1..N, default 1) is made, rule by "
               "rule; EXPR may be diff(...)"),
    ":check": (":check EXPR [wrt X]", "autodiff against numerical estimates (orders 1, 2)"),
    ":plot": (":plot [N] EXPR FILE", "graph of EXPR (or its N-th derivative): .png .svg .pdf .dot"),
    ":curve": (":curve EXPR [A B] [N]",
               "EXPR and its derivatives 1..N over A..B (default -5 5), drawn here; "
               "definitions may come first (f(t) = t^2; f(x))"),
    ":extrema": (":extrema EXPR [A B]",
                 "minima, maxima and inflection points of EXPR on A..B (default -5 5)"),
    ":clear": (":clear [NAME...]", "forget every variable and function, or the ones named"),
    ":quit": (":quit", "leave (Ctrl-D on an empty line too)"),
}
ALIASES = {":q": ":quit", ":exit": ":quit", ":h": ":help", ":?": ":help"}
KEYS = [
    ("Tab", "complete a name or :command"),
    ("Up, Down", "history that starts with what is typed"),
    ("Ctrl-R", "search the history"),
    ("Enter", "run; with a bracket open it starts a new line"),
    ("Esc Enter", "run even with a bracket open"),
    ("Ctrl-C", "cancel the line (or a long computation)"),
    ("Ctrl-D", "leave, on an empty line"),
]
