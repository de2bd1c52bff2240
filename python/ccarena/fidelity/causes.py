"""Why a peer's row is out of tolerance: one sentence per known cause, each found by a run (the
measurement is named). A row whose cause is not yet known says so."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING

from ccarena.peers.ns2_tcl import TCP_LINUX

if TYPE_CHECKING:
    from ccarena.fidelity.run import RowResult


def _tcp_linux_gains_under_random_loss(peer: str, r: RowResult, failed: list[str]) -> bool:
    ref = r.reference(peer)
    return (peer == "ns2" and r.row.cc in TCP_LINUX and r.row.case.name == "random-loss" and ref is not None
            and r.values[peer]["aggregate goodput"] > ref["aggregate goodput"])


def _tcpledbat_ratchets_down(peer: str, r: RowResult, failed: list[str]) -> bool:
    return peer == "ns3" and r.row.cc == "ledbat"


#: (test on the peer, the row and its failed metrics, sentence); the first that matches is used.
CAUSES: tuple[tuple[Callable[[str, RowResult, list[str]], bool], str], ...] = (
    (_tcp_linux_gains_under_random_loss,
     "ns-2 runs this algorithm in its TCP-Linux agent, whose loss recovery is Linux 2.6.22's, not that of the Sack1 "
     "agent ccarena's ns2 profile has; in ns-2 itself Reno gains 6 % on this row from that alone "
     "(select_ca reno 5.14 Mbit/s against Sack1 4.83, seed 1); the rest of the difference is not yet explained."),
    (_tcpledbat_ratchets_down,
     "ns-3.37's TcpLedbat caps cwnd at the flight size before each ACK, without RFC 6817's ALLOWED_INCREASE (which "
     "the RFC says must be above 0), so in congestion avoidance its window never grows, only shrinks (measured in "
     "tests/test_peer_ns3.py: 59 segments from 5 s to 30 s with 31 ms queued of the 100-ms target)."),
)


def cause(peer: str, result: RowResult, failed: list[str]) -> str:
    """The sentence that explains ``peer``'s row out of tolerance on ``failed``."""
    for test, sentence in CAUSES:
        if test(peer, result, failed):
            return sentence
    noise = seed_spread(peer, result, failed)
    if noise is not None:
        return noise
    return f"out of tolerance on {', '.join(failed)}; the cause is not yet known."


#: Fewest replications per backend for a test of the difference to say anything.
MIN_REPLICATIONS = 3
#: A difference of means whose Welch's t-test gives at least this is not told apart from noise.
NOISE_P = 0.05


def seed_spread(peer: str, result: RowResult, failed: list[str]) -> str | None:
    """A sentence when every failed metric's difference is within seed-to-seed variation:
    Welch's t-test over the replications cannot tell ccarena's mean from the peer's (p ≥ 0.05).
    Such a row stays out of tolerance, since the means differ, but no mechanism is shown by it."""
    from scipy import stats

    from ccarena.fidelity.page import TITLES, format_value

    ours, theirs = result.runs.get(f"sim:{peer}", []), result.runs.get(peer, [])
    if min(len(ours), len(theirs)) < MIN_REPLICATIONS:
        return None
    parts = []
    for metric in failed:
        a = [r[metric] for r in ours if math.isfinite(r[metric])]
        b = [r[metric] for r in theirs if math.isfinite(r[metric])]
        if min(len(a), len(b)) < MIN_REPLICATIONS:
            return None
        with warnings.catch_warnings():
            # Samples whose replications (nearly) agree: SciPy warns of precision loss; the
            # p-value is then tiny or NaN, which is read below as a real difference.
            warnings.simplefilter("ignore", RuntimeWarning)
            p = float(stats.ttest_ind(a, b, equal_var=False).pvalue)
        if not p >= NOISE_P:  # NaN when both samples are constant (and differ): a real difference
            return None
        parts.append(f"{metric} {format_value(min(a), metric)}..{format_value(max(a), metric)} on ccarena, "
                     f"{format_value(min(b), metric)}..{format_value(max(b), metric)} on {TITLES[peer]} (Welch's t-test p = {p:.2f})")
    n = min(len(ours), len(theirs))
    return f"within seed-to-seed variation over {n} seeds: {'; '.join(parts)}; more replications are needed to tell the means apart."
