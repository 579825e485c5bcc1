"""Entry point: ``python -m gradcli`` and the ``gradcli`` console script."""

from __future__ import annotations


def main() -> None:
    from gradcli.cli import run

    run()


if __name__ == "__main__":
    main()
