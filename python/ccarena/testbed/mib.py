"""The kernel's TCP event counters in one network namespace: the ``TcpExt`` lines of
``/proc/net/netstat`` (Linux's SNMP MIB, as ``nstat`` shows them).

Every flow of a testbed run has a sender and a receiver namespace of its own, so these counters
are that flow's own: retransmission timeouts and recoveries at the sender, delayed ACKs at the
receiver. Namespaces are created for each run, so the counts start from zero.
"""

from __future__ import annotations

from ccarena.testbed.netns import sh

#: Counters kept per flow: what the simulator also counts (timeouts, recoveries) and what tells
#: why two runs differ (tail-loss probes, delayed ACKs, the state a timeout came in: fast
#: recovery, Loss, or with SACKed data outstanding; lost retransmissions found without one).
KEPT = (
    "TCPTimeouts", "TCPLossProbes", "TCPLossProbeRecovery", "TCPSackRecovery", "TCPRenoRecovery", "DelayedACKs",
    "TCPSackRecoveryFail", "TCPLossFailures", "TCPSackFailures", "TCPLostRetransmit",
)


def parse_tcp_ext(text: str) -> dict[str, int]:
    """The ``TcpExt`` counters of a ``/proc/net/netstat`` text (a line of names, then one of values)."""
    lines = text.splitlines()
    for names, values in zip(lines, lines[1:]):
        if names.startswith("TcpExt:") and values.startswith("TcpExt:"):
            keys, counts = names.split()[1:], values.split()[1:]
            if len(keys) == len(counts):
                return {k: int(v) for k, v in zip(keys, counts) if k in KEPT}
    return {}


def tcp_ext(ns: str) -> dict[str, int]:
    """The kept ``TcpExt`` counters of namespace ``ns`` now."""
    return parse_tcp_ext(sh(["cat", "/proc/net/netstat"], netns=ns).stdout)
