"""How the command line words the hints in errors and warnings (errors.worded)."""

CLI_WORDS: dict[str, str] = {
    "value": "give one with --at {name}=... or {name} = ...",
    "wrt": "choose one with --wrt",
    "wrt_named": "--wrt {name}: ",
    "colon": "':' commands (:help, :vars ...) are the REPL's: gradcli repl",
    "formula": "; or --wrt {name} for the formulas of the derivatives",
    "method_paren": " (--method taylor)",
    "method_use": ": use --method taylor",
    "order": "--order",
    "series": "--series",
    "check": "--check",
    "numbers": " (--at gives them: --at x=1)",
    "free_numbers": " (--at {name}=1)",
    "grad": "--grad",
}
