"""The ``ccarena`` command (``python -m ccarena`` too): starts itself again with huge pages
before a command that simulates (``_hugepages``), then hands over to ``ccarena.cli``, whose
imports it does not pay twice.

It also limits OpenBLAS, which NumPy loads, to one thread unless ``OPENBLAS_NUM_THREADS`` says
otherwise: a simulation runs on one core and ``--jobs`` puts one per core, so BLAS threads only
compete with them, and starting them costs each ``ccarena`` process about 0.1 s of CPU
(BENCHMARKS.md, B3).

A Ctrl-C at any moment ends the command with one line and status 130. The command line itself
handles one that comes while a command runs (it stops workers, keeps finished runs); before that,
while the interpreter restarts and imports, and after it, while the interpreter shuts down, there
is nothing to stop, and Python's KeyboardInterrupt would print a traceback of whatever import or
exit hook it cut short, so this module handles those.
"""

from __future__ import annotations

import os
import signal
import sys
from types import FrameType

from ccarena._hugepages import restart_with_huge_pages

EXIT_INTERRUPTED = 128 + 2  # SIGINT, as shells report it


def _exit_interrupted(signum: int = signal.SIGINT, frame: FrameType | None = None) -> None:
    """Nothing is running that needs stopping: say so and leave at once (no unwinding, which
    would run cut-short code's handlers and print their tracebacks)."""
    os.write(2, b"error: interrupted\n")
    os._exit(EXIT_INTERRUPTED)


def _set_interrupts_blocked(blocked: bool) -> None:
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK if blocked else signal.SIG_UNBLOCK, {signal.SIGINT})


def main() -> None:
    previous = signal.signal(signal.SIGINT, _exit_interrupted)
    # A Ctrl-C held across the restart below (execve keeps the blocked mask; the new interpreter
    # starts and imports with it pending) is delivered here, to the handler just installed.
    _set_interrupts_blocked(False)
    try:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        _set_interrupts_blocked(True)
        try:
            restart_with_huge_pages(sys.argv[1:])
        finally:  # returns when there is nothing to restart
            _set_interrupts_blocked(False)
        from ccarena.cli import main as cli_main

        # From here a Ctrl-C raises KeyboardInterrupt again, so that a command can stop its work.
        signal.signal(signal.SIGINT, previous)
        cli_main()
    except KeyboardInterrupt:  # between the line above and the command line's own handling
        _exit_interrupted()
    except SystemExit:  # the command is over (the command line always exits)
        for stream in (sys.stdout, sys.stderr):
            try:  # what it printed is out before a Ctrl-C during the shutdown can cut it off
                stream.flush()
            except (OSError, ValueError):
                pass
        signal.signal(signal.SIGINT, _exit_interrupted)
        raise
    except BaseException:  # a failure of the start itself, its traceback the report
        signal.signal(signal.SIGINT, previous)
        raise


if __name__ == "__main__":
    main()
