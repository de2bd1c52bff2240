"""The ``ccarena`` command (``python -m ccarena`` too): starts itself again with huge pages
before a command that simulates (``_hugepages``), then hands over to ``ccarena.cli``, whose
imports it does not pay twice."""

from __future__ import annotations

import sys

from ccarena._hugepages import restart_with_huge_pages


def main() -> None:
    restart_with_huge_pages(sys.argv[1:])
    from ccarena.cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
