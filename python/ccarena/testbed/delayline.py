"""``python -m ccarena.testbed.delayline IF_A IF_B DELAY_AB_US DELAY_BA_US STATS_PATH
[PS_PER_BYTE_AB PS_PER_BYTE_BA]``: the testbed's delay line (crates/delayline), which the
extension module carries so that an installed wheel has it. The runner starts it in the
delay-line namespace; it stops on SIGTERM or SIGINT and writes its lateness statistics."""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    from ccarena import _core

    return _core.delayline(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
