"""The expression language: grammar, parser and syntax tree."""
