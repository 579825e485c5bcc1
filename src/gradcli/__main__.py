"""Entry point: ``python -m gradcli`` and the ``gradcli`` console script."""

from __future__ import annotations


def main() -> None:
    from gradcli.cli.main import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
