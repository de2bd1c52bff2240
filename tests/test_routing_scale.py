"""Routing scale: routes only towards used destinations, and a clean refusal beyond
the documented limit (docs/topologies.md, "Limits of scale")."""

from __future__ import annotations

import pytest

import ccarena
from ccarena.errors import ScenarioError


def _chain(nodes: int, flows_to_every_node: bool) -> dict:
    names = [f"n{i}" for i in range(nodes)]
    links = [{"a": names[i], "b": names[i + 1], "rate": "100Mbps", "delay": "1ms"} for i in range(nodes - 1)]
    dsts = names[1:] if flows_to_every_node else [names[-1]]
    return {
        "name": "chain",
        "duration": "1s",
        "topology": {"kind": "graph", "nodes": names, "links": links},
        "flows": [{"name": f"f{i}", "cc": "reno", "src": "n0", "dst": d} for i, d in enumerate(dsts)],
    }


def test_a_dumbbell_with_twenty_thousand_flows_routes_in_two_columns() -> None:
    # All-pairs routing needed 20,002² entries here and aborted; hosts now share their router's.
    scenario = {
        "name": "wide",
        "duration": "1s",
        "topology": {"kind": "dumbbell", "bottleneck_rate": "1Gbps", "bottleneck_delay": "10ms"},
        "flows": [{"name": "reno", "count": 20_000, "cc": "reno", "rtt": "100ms"}],
    }
    ccarena.validate(scenario)


def test_a_long_chain_routes_end_to_end() -> None:
    ccarena.validate(_chain(12_000, flows_to_every_node=False))


def test_too_many_destinations_are_refused_in_one_line() -> None:
    # 5,998 routers receive traffic (the two ends share their neighbour's column) across 6,000
    # nodes: 36 M next-hop entries, above the 2^25 supported.
    with pytest.raises(ScenarioError) as e:
        ccarena.validate(_chain(6_000, flows_to_every_node=True))
    message = str(e.value)
    assert "\n" not in message
    assert message.startswith("topology:") and "5998 destinations across 6000 nodes" in message
    assert "at most 33554432" in message
