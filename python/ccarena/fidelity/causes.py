"""Why a peer's row is out of tolerance: one sentence per known cause, each found by a run (the
measurement is named). A row whose cause is not yet known says so."""

from __future__ import annotations

from collections.abc import Callable

#: (peer, test on (algorithm, case, failed metrics), sentence); the first that matches is used.
CAUSES: tuple[tuple[str, Callable[[str, str, list[str]], bool], str], ...] = ()


def cause(peer: str, cc: str, case: str, failed: list[str]) -> str:
    """The sentence that explains ``peer``'s row (algorithm ``cc``, case ``case``) out of tolerance."""
    for who, test, sentence in CAUSES:
        if who == peer and test(cc, case, failed):
            return sentence
    return f"out of tolerance on {', '.join(failed)}; the cause is not yet known."
