"""Why a peer's row is out of tolerance: one sentence per known cause, each found by a run (the
measurement is named). A row whose cause is not yet known says so."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ccarena.peers.ns2_tcl import TCP_LINUX

if TYPE_CHECKING:
    from ccarena.fidelity.run import RowResult


def _tcp_linux_gains_under_random_loss(peer: str, r: RowResult, failed: list[str]) -> bool:
    ref = r.reference(peer)
    return (peer == "ns2" and r.row.cc in TCP_LINUX and r.row.case.name == "random-loss" and ref is not None
            and r.values[peer]["aggregate goodput"] > ref["aggregate goodput"])


#: (test on the peer, the row and its failed metrics, sentence); the first that matches is used.
CAUSES: tuple[tuple[Callable[[str, RowResult, list[str]], bool], str], ...] = (
    (_tcp_linux_gains_under_random_loss,
     "ns-2 runs this algorithm in its TCP-Linux agent, whose loss recovery is Linux 2.6.22's, not that of the Sack1 "
     "agent ccarena's ns2 profile has; in ns-2 itself Reno gains 6 % on this row from that alone "
     "(select_ca reno 5.14 Mbit/s against Sack1 4.83, seed 1); the rest of the difference is not yet explained."),
)


def cause(peer: str, result: RowResult, failed: list[str]) -> str:
    """The sentence that explains ``peer``'s row out of tolerance on ``failed``."""
    for test, sentence in CAUSES:
        if test(peer, result, failed):
            return sentence
    return f"out of tolerance on {', '.join(failed)}; the cause is not yet known."
