"""The fidelity suite: a fixed set of small scenarios, each algorithm that at least one peer has
under each case, run on every backend and compared metric by metric within stated tolerances.

Every scenario is the same description on every backend: ns-2's TCP profile (``stack = "ns2"``,
the one both peers can run like for like) on a 10 Mbit/s, 10 ms dumbbell with 40 ms base RTTs
and a buffer of one bandwidth-delay product (34 packets), 40 s long with the first 10 s left out.
A backend that cannot run a row (an algorithm it lacks, a key it refuses) leaves its cells empty
and the page says why.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ccarena.peers.plan import split_preset

#: Algorithms of the suite: every TCP algorithm one of the peers has, in the ccarena name (and
#: preset) that is that peer's code; DCCP's CCIDs in the profile ns-2 runs.
TCP_ALGORITHMS = ("reno", "cubic@linux-2.6.22", "cubic", "bic", "highspeed", "htcp", "hybla", "illinois@linux-2.6.22", "scalable@linux-2.6.22",
                  "scalable", "vegas", "veno", "westwood", "yeah", "lp", "dctcp", "ledbat", "bbr")
#: What a DCCP CCID needs to be ns-2's (docs/peers.md).
DCCP_PARAMS: dict[str, dict[str, Any]] = {"ccid2": {"cwnd_validation": False}, "ccid3": {"profile": "rfc3448"}}

#: What each peer needs set on every TCP flow group to run ns-2's profile like for like (ns-3
#: always opens with a handshake and sends while the pipe is below cwnd, docs/peers.md); the
#: simulator runs each peer's version, so every peer is compared with its own reference.
PEER_TCP_KEYS: dict[str, dict[str, Any]] = {
    "ns2": {},
    "ns3": {"handshake": True, "window_from_una": False},
    "kernel": {},
}
#: What a peer needs on the groups of one algorithm: ns-3.37's TcpHybla computes rho only from
#: timestamped RTT samples (refused without them, docs/peers.md).
PEER_CC_KEYS: dict[str, dict[str, dict[str, Any]]] = {"ns3": {"hybla": {"timestamps": True}}}


def peer_keys(peer: str, cc: str) -> dict[str, Any]:
    """The keys ``peer`` needs on a TCP group running ``cc``."""
    return {**PEER_TCP_KEYS.get(peer, {}), **PEER_CC_KEYS.get(peer, {}).get(cc, {})}

#: Tolerances of the comparison (metric → (kind, tolerance)); "rel" is relative to the
#: simulator's value, "abs" absolute. Drops and retransmissions also pass within 10 packets.
TOLERANCES: dict[str, tuple[str, float]] = {
    "aggregate goodput": ("rel", 0.03),
    "utilisation": ("rel", 0.03),
    "share": ("abs", 0.05),
    "Jain's index": ("abs", 0.05),
    "drops": ("rel", 0.25),
    "retransmissions": ("rel", 0.25),
}
COUNT_SLACK = 10.0

BASE: dict[str, Any] = {
    "duration": "40s",
    "warmup": "10s",
    "sample_interval": "500ms",
    "stack": "ns2",
    "topology": {"kind": "dumbbell", "bottleneck_rate": "10Mbps", "bottleneck_delay": "10ms",
                 "queue": {"kind": "droptail", "limit": "34pkt"}},
}


def _group(name: str, cc: str, **keys: Any) -> dict[str, Any]:
    protocol = "dccp" if cc in DCCP_PARAMS else "tcp"
    group: dict[str, Any] = {"name": name, "protocol": protocol, "cc": cc, "rtt": "40ms", "start": {"uniform": ["0s", "1s"]}, "app": {"kind": "bulk"}}
    if protocol == "dccp":
        group["cc_params"] = dict(DCCP_PARAMS[cc])
    return {**group, **keys}


@dataclass(frozen=True)
class Case:
    """One kind of scenario; ``build(cc)`` gives it for one algorithm."""

    name: str
    description: str
    build: Callable[[str], dict[str, Any]]
    #: A longer run where the case is random (a run's goodput under random loss varies with the
    #: loss events: about 1/√events, 11 % for the 80 events of 30 s, 3.5 % for 800).
    duration: str | None = None


def _scenario(name: str, flows: list[dict[str, Any]], **topology: Any) -> dict[str, Any]:
    doc = copy.deepcopy(BASE)
    doc["name"] = name
    doc["topology"].update(topology)
    doc["flows"] = flows
    return doc


CASES: tuple[Case, ...] = (
    Case("one-flow", "one flow alone", lambda cc: _scenario(f"{cc} one-flow", [_group(_label(cc), cc)])),
    Case("two-flows", "two flows of the algorithm", lambda cc: _scenario(f"{cc} two-flows", [_group(_label(cc), cc, count=2)])),
    Case("vs-reno", "one flow against one Reno flow",
         lambda cc: _scenario(f"{cc} vs-reno", [_group(_label(cc), cc), _group("reno", "reno")])),
    Case("two-rtts", "two flows, base RTTs 40 and 120 ms",
         lambda cc: _scenario(f"{cc} two-rtts", [_group("rtt-40ms", cc), _group("rtt-120ms", cc, rtt="120ms")])),
    Case("random-loss", "one flow, 0.5 % random loss, a 1000-packet buffer, 200 s",
         lambda cc: _scenario(f"{cc} random-loss", [_group(_label(cc), cc)], loss={"kind": "bernoulli", "p": 0.005},
                              queue={"kind": "droptail", "limit": "1000pkt"}), duration="200s"),
    Case("small-buffer", "two flows, an 8-packet buffer",
         lambda cc: _scenario(f"{cc} small-buffer", [_group(_label(cc), cc, count=2)], queue={"kind": "droptail", "limit": "8pkt"})),
    Case("large-buffer", "two flows, a 4-BDP (136-packet) buffer",
         lambda cc: _scenario(f"{cc} large-buffer", [_group(_label(cc), cc, count=2)], queue={"kind": "droptail", "limit": "136pkt"})),
    Case("red", "two flows, ns-2's RED (100 packets, thresholds 5..15)",
         lambda cc: _scenario(f"{cc} red", [_group(_label(cc), cc, count=2)], queue={"kind": "red", "limit": "100pkt", "variant": "ns2"})),
    Case("step-marking", "two flows, the buffer marking ECN from 8 packets waiting (DCTCP's switch)",
         lambda cc: _scenario(f"{cc} step-marking", [_group(_label(cc), cc, count=2)],
                              queue={"kind": "droptail", "limit": "34pkt", "ecn_threshold": "8pkt"})),
    Case("pie", "two flows, PIE with RFC 8033's parameters (15 ms target, 100 packets)",
         lambda cc: _scenario(f"{cc} pie", [_group(_label(cc), cc, count=2)], queue={"kind": "pie", "limit": "100pkt"})),
)
#: DCCP rows: each CCID against Reno and two of it.
DCCP_CASES = ("two-flows", "vs-reno")
#: RED is one row (Reno): the queue, not the algorithm, is what it checks.
RED_ALGORITHMS = ("reno",)
#: PIE's rows: the loss-based algorithms it is usually shown with.
PIE_ALGORITHMS = ("reno", "cubic")
#: Algorithms made for a step-marking queue: that is their one row (without marks DCTCP is Reno).
MARKING_ALGORITHMS = ("dctcp",)


def _label(cc: str) -> str:
    """A row's group name: the algorithm as written, without its preset."""
    return split_preset(cc)[0]


@dataclass(frozen=True)
class Row:
    """One scenario of the suite."""

    cc: str
    case: Case

    @property
    def key(self) -> str:
        return f"{self.cc} / {self.case.name}"

    def scenario(self, peer: str, duration: str | None = None) -> dict[str, Any]:
        """The row's scenario as ``peer`` runs it like for like (and the simulator beside it);
        ``duration`` shortens it (no warm-up) for a quick look."""
        doc = self.case.build(self.cc)
        for group in doc["flows"]:
            if group["protocol"] == "tcp":
                group.update(peer_keys(peer, group["cc"]))
        if self.case.duration is not None:
            doc["duration"] = self.case.duration
        if duration is not None:
            doc["duration"] = duration
            doc["warmup"] = "0s"
        return doc


def rows(only: str | None = None) -> list[Row]:
    """Every row of the suite (``only``: those whose algorithm or case is one of these
    comma-separated names)."""
    out = []
    for cc in (*TCP_ALGORITHMS, *DCCP_PARAMS):
        for case in CASES:
            if cc in DCCP_PARAMS and case.name not in DCCP_CASES:
                continue
            if case.name == "red" and cc not in RED_ALGORITHMS:
                continue
            if case.name == "pie" and cc not in PIE_ALGORITHMS:
                continue
            if (case.name == "step-marking") != (cc in MARKING_ALGORITHMS):
                continue
            if case.name == "vs-reno" and cc == "reno":
                continue  # the same as two-flows
            out.append(Row(cc, case))
    if only is not None:
        names = {n.strip() for n in only.split(",")}
        out = [r for r in out if names & {r.cc, _label(r.cc), r.case.name}]
    return out
