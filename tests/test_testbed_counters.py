"""Reading the kernel's TcpExt counters (ccarena.testbed.mib) needs no root: the parser is checked
on the layout of /proc/net/netstat."""

from __future__ import annotations

from ccarena.testbed.mib import parse_tcp_ext

NETSTAT = """TcpExt: SyncookiesSent DelayedACKs TCPSackRecovery TCPTimeouts TCPLossProbes
TcpExt: 0 412 7 3 5
IpExt: InNoRoutes InTruncatedPkts
IpExt: 0 0
"""


def test_tcp_ext_counters_are_read_by_name_and_others_ignored() -> None:
    assert parse_tcp_ext(NETSTAT) == {"DelayedACKs": 412, "TCPSackRecovery": 7, "TCPTimeouts": 3, "TCPLossProbes": 5}


def test_a_text_without_tcp_ext_or_with_mismatched_lines_gives_nothing() -> None:
    assert parse_tcp_ext("IpExt: A B\nIpExt: 1 2\n") == {}
    assert parse_tcp_ext("TcpExt: A B\nTcpExt: 1\n") == {}
