"""Transparent huge pages for the simulator's memory.

A seed-003 run reads a few hundred megabytes of per-flow state, packets and queues in no order
the page tables can follow (tens of thousands of background sources, each touched once a round
trip). On 4 KB pages most of those reads miss the TLB as well as the caches, and a parking-lot
run takes about 7 % longer than on 2 MB pages (seed 003's parking lot, measured side by side). Linux's usual THP
mode, ``madvise``, gives huge pages only to memory a program asks for, and glibc's malloc asks
only when the process starts with the tunable ``glibc.malloc.hugetlb=1`` in ``GLIBC_TUNABLES``:
a library cannot turn it on for the process it is loaded into.

So, when asked with ``CCARENA_HUGE_PAGES=1``, the command line starts itself again, once, with the
tunable set, before a command that simulates (``run``, ``bench``, ``sweep``, ``reproduce``,
``demo``, ``compare``); processes it forks or starts inherit it. It is opt-in because a tool should
not replace its own process unasked (a debugger or a process supervisor sees a second start). The
cost is one more interpreter start (about 20 ms). Results do not depend on it. A
``glibc.malloc.hugetlb`` already in ``GLIBC_TUNABLES`` is left as it is. Elsewhere than on Linux
nothing changes. From Python (``import ccarena``), start the interpreter with
``GLIBC_TUNABLES=glibc.malloc.hugetlb=1`` for the same gain.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence

TUNABLE = "glibc.malloc.hugetlb"
#: Commands that run simulations (the others read files or print help).
SIMULATING = frozenset({"run", "bench", "sweep", "reproduce", "demo", "compare"})


def wanted(environ: Mapping[str, str]) -> bool:
    """True where huge pages were asked for (``CCARENA_HUGE_PAGES=1``) and are not yet set either
    way, on Linux."""
    return (
        sys.platform.startswith("linux")
        and environ.get("CCARENA_HUGE_PAGES", "0") == "1"
        and TUNABLE not in environ.get("GLIBC_TUNABLES", "")
    )


def environ_with_huge_pages(environ: Mapping[str, str]) -> dict[str, str]:
    """A copy of ``environ`` with the tunable added (if wanted) to any tunables already there."""
    env = dict(environ)
    if wanted(environ):
        tunables = [t for t in env.get("GLIBC_TUNABLES", "").split(":") if t]
        env["GLIBC_TUNABLES"] = ":".join([*tunables, f"{TUNABLE}=1"])
    return env


def restart_with_huge_pages(args: Sequence[str]) -> None:
    """Replaces this process (same PID, same arguments) by one started with huge pages, if
    ``args`` (the command line after the program's name) names a command that simulates and
    the process has none yet. Returns only when there is nothing to do."""
    command = next((a for a in args if not a.startswith("-")), None)
    if command not in SIMULATING or not wanted(os.environ):
        return
    env = environ_with_huge_pages(os.environ)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, sys.orig_argv, env)
