"""Renderers: Result objects to text (table, plain, JSON, CSV) and graphs to files."""
