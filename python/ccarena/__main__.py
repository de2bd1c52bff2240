"""The ``ccarena`` command (``python -m ccarena`` too): starts itself again with huge pages
before a command that simulates (``_hugepages``), then hands over to ``ccarena.cli``, whose
imports it does not pay twice.

It also limits OpenBLAS, which NumPy loads, to one thread unless ``OPENBLAS_NUM_THREADS`` says
otherwise: a simulation runs on one core and ``--jobs`` puts one per core, so BLAS threads only
compete with them, and starting them costs each ``ccarena`` process about 0.1 s of CPU
(BENCHMARKS.md, B3).
"""

from __future__ import annotations

import os
import sys

from ccarena._hugepages import restart_with_huge_pages


def main() -> None:
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    restart_with_huge_pages(sys.argv[1:])
    from ccarena.cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
