"""The scenario as a peer simulator is given it: every node, link direction and flow with the
numbers resolved, in one JSON-able dict (the *peer plan*).

The simulator builds the plan: it expands flow groups (counts, random start times and RTTs from
the seed), places the nodes and names the links, and resolves every TCP option from the flow's
stack profile. A peer runs exactly that network, so the ns-2 script and the ns-3 program never
re-derive a default. What no peer can run (background aggregates, per-packet jitter, congestion
controls written in Python) is refused here with one line; what one peer cannot run is refused
by that peer's own module.

The plan::

    {"name", "seed", "duration_s", "warmup_s", "sample_interval_s",
     "nodes": [name, ...],                       # in order of first appearance in "links"
     "links": [{"name", "src", "dst", "rate_bps", "delay_s",
                "queue": {"kind": "droptail", "limit": n, "unit": "pkt" | "B",
                          "ecn_threshold": None | {"limit": k, "unit": "pkt" | "B"}}
                       | {"kind": "red", "limit", "unit", "min_th", "max_th", "max_p", "wq",
                          "gentle", "ecn", "mean_pktsize", "variant"},  # thresholds in packets
                "loss": None | {"kind": "bernoulli", "p"} | {"kind": "periodic", "every"}}],
     "flows": [{"id", "group", "where", "protocol", "cc", "cc_base", "cc_preset", "cc_params",
                "recovery", "stack", "src", "dst", "start_s", "stop_s", "rtt_base_s",
                "app": {"kind": "bulk"} | {"kind": "file", "size_bytes"}
                     | {"kind": "cbr", "rate_bps", "packet_size"}
                     | {"kind": "onoff", "rate_bps", "packet_size", "on_mean_s", "off_mean_s"},
                "tcp": None | {"mss", "header_bytes", "initial_cwnd", "min_rto_s", "delayed_ack",
                               "delack_timeout_s", "handshake", "timestamps", "ecn", "sack", "slow_start_after_idle",
                               "rcv_buf_bytes", "rwnd_bytes"},
                "dccp": None | {"packet_size"}}]}

A flow's ``cc`` is the name as written, ``cc_base`` the algorithm it selects (the simulator's
``cc_algorithm``: ``newreno`` is ``reno``) and ``cc_preset`` what follows ``@``, if anything.

Quantities are SI: bit/s, seconds, bytes; a TCP flow's packet on the wire is ``mss +
header_bytes`` bytes (IPv4 + TCP, plus the timestamp option when on).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ccarena.errors import PeerError
from ccarena.testbed import units

if TYPE_CHECKING:
    from ccarena.api import Plan

#: IPv4 + TCP headers without options, and the timestamp option as Linux sends it (padded).
TCP_HEADERS, TIMESTAMP_OPTION = 40, 12
#: The delayed-ACK timeout each stack profile uses (docs/tcp.md: Linux TCP_DELACK_MIN, ns-2's
#: `Agent/TCPSink/DelAck interval_`).
DELACK_TIMEOUT_S = {"linux": 0.04, "ns2": 0.1, "rfc": 0.04}
#: RED's typical packet size when the link description names none (`RedConfig::default`).
RED_MEAN_PKTSIZE = 1000
#: The simulator's link description: "droptail 34pkt", "red 100pkt th 5..15 max_p 0.1 wq 0.002
#: [avpkt 500] gentle [ecn] [ns2]".
_DROPTAIL = re.compile(r"^droptail (\d+)(pkt|B)(?: mark (\d+)(pkt|B))?$")
_PIE = re.compile(r"^pie (\d+)(pkt|B) target (\S+) tupdate (\S+) alpha (\S+) beta (\S+) burst (\S+) mark (\S+) avpkt (\d+)( ecn)?$")
_RED = re.compile(r"^red (\d+)(pkt|B) th ([0-9.e+-]+)\.\.([0-9.e+-]+) max_p ([0-9.e+-]+) wq ([0-9.e+-]+)((?: \w+)*)$")


def build(scenario: Any, *, overrides: Iterable[str] = (), seed: int | None = None, peer: str) -> tuple[dict[str, Any], Plan, dict[str, Any]]:
    """The peer plan of ``scenario``, the simulator's plan (:class:`~ccarena.api.Plan`: the flow
    and link identities a peer's result is built on, the columns of its tables) and the
    validated scenario (each group's keys, for a peer's refusals). ``peer`` names the backend in
    refusals. Raises :class:`PeerError` for what no peer can run."""
    from ccarena import api

    sim_plan = api.plan(scenario, overrides=overrides, seed=seed)
    valid = sim_plan.meta["scenario"]
    _refuse_common(valid, peer)
    meta = sim_plan.meta
    groups = valid["flows"]
    group_of = [g for g, group in enumerate(groups) for _ in range(int(group.get("count", 1)))]
    flows = [_flow(row, groups[g], f"flows[{g}]", float(meta["duration_s"])) for row, g in zip(sim_plan.main_flows.to_dict("records"), group_of)]
    links = [_link(row, peer) for row in sim_plan.links.to_dict("records")]
    _attach_losses(valid, links, peer)
    nodes = list(dict.fromkeys(n for link in links for n in (link["src"], link["dst"])))
    plan = {
        "name": str(meta["name"]), "seed": int(meta["seed"]),
        "duration_s": float(meta["duration_s"]), "warmup_s": float(meta["warmup_s"]),
        "sample_interval_s": float(meta["sample_interval_s"]),
        "nodes": nodes, "links": links, "flows": flows,
    }
    return plan, sim_plan, valid


def _refuse_common(valid: dict[str, Any], peer: str) -> None:
    if valid.get("background"):
        raise PeerError(f"background: aggregate background traffic is simulator-only; {peer} cannot run it")
    if valid.get("jitter"):
        raise PeerError(f"jitter: {peer} has no per-packet jitter; set jitter = false to compare like with like")
    _refuse_varying_links(valid["topology"], peer)
    for i, group in enumerate(valid["flows"]):
        if str(group.get("cc", "")).startswith("py:"):
            raise PeerError(f"flows[{i}].cc: {group['cc']!r} is written in Python and runs only in the simulator")


def _refuse_varying_links(topo: dict[str, Any], peer: str) -> None:
    """Links that follow a schedule or a trace run in the simulator only."""
    holders = [("topology", topo), *((f"topology.links[{i}]", lk) for i, lk in enumerate(topo.get("links", ())))]
    for where, holder in holders:
        for key in ("schedule", "bottleneck_trace", "trace"):
            if holder.get(key):
                raise PeerError(f"{where}.{key}: links that follow a schedule or a trace are simulator-only; {peer} runs fixed links")


def _queue(text: str, name: str, peer: str) -> dict[str, Any]:
    m = _DROPTAIL.match(text)
    if m:
        mark = {"limit": int(m.group(3)), "unit": m.group(4)} if m.group(3) else None
        return {"kind": "droptail", "limit": int(m.group(1)), "unit": m.group(2), "ecn_threshold": mark}
    m = _RED.match(text)
    if m:
        tokens = m.group(7).split()
        flags = set(tokens)
        mean_pktsize = int(tokens[tokens.index("avpkt") + 1]) if "avpkt" in tokens else RED_MEAN_PKTSIZE
        if "bytes" in flags:
            raise PeerError(f"link {name}: RED in byte mode is not mapped to {peer}; use mode = \"packets\"")
        if "sq" in flags:
            raise PeerError(f"link {name}: Source Quench is simulator-only; {peer} cannot send it")
        return {
            "kind": "red", "limit": int(m.group(1)), "unit": m.group(2),
            "min_th": float(m.group(3)), "max_th": float(m.group(4)), "max_p": float(m.group(5)), "wq": float(m.group(6)),
            "gentle": "gentle" in flags, "ecn": "ecn" in flags,
            "mean_pktsize": mean_pktsize, "variant": "ns2" if "ns2" in flags else "fj93",
        }
    m = _PIE.match(text)
    if m:
        return {
            "kind": "pie", "limit": int(m.group(1)), "unit": m.group(2),
            "target_s": units.seconds(m.group(3), f"link {name} target"), "tupdate_s": units.seconds(m.group(4), f"link {name} tupdate"),
            "alpha": float(m.group(5)), "beta": float(m.group(6)), "max_burst_s": units.seconds(m.group(7), f"link {name} burst"),
            "mark_ecn_th": float(m.group(8)), "mean_pktsize": int(m.group(9)), "ecn": bool(m.group(10)),
        }
    if text.endswith(" sq"):
        raise PeerError(f"link {name}: Source Quench is simulator-only; {peer} cannot send it")
    raise PeerError(f"link {name}: queue {text!r} is not mapped to {peer}")


def _link(row: dict[str, Any], peer: str) -> dict[str, Any]:
    return {
        "name": row["link"], "src": row["src"], "dst": row["dst"],
        "rate_bps": float(row["rate_bps"]), "delay_s": float(row["delay_s"]),
        "queue": _queue(str(row["queue"]), row["link"], peer), "loss": None,
    }


def _loss(spec: dict[str, Any], where: str, peer: str) -> dict[str, Any]:
    kind = spec["kind"]
    if kind == "bernoulli":
        return {"kind": "bernoulli", "p": float(spec["p"])}
    if kind == "periodic":
        return {"kind": "periodic", "every": int(spec["every"])}
    raise PeerError(f"{where}.kind: {kind!r} loss is simulator-only; {peer} runs bernoulli and periodic loss")


def _attach_losses(valid: dict[str, Any], links: list[dict[str, Any]], peer: str) -> None:
    """Put the scenario's random or periodic losses on the link directions they act on: the
    dumbbell's on its bottleneck (data direction), a graph link's on that link."""
    topo = valid["topology"]
    by_name = {link["name"]: link for link in links}
    if topo.get("loss"):
        if "bottleneck" not in by_name:
            raise PeerError(f"topology.loss: not mapped to {peer} for a {topo['kind']} topology")
        by_name["bottleneck"]["loss"] = _loss(topo["loss"], "topology.loss", peer)
    for i, link in enumerate(topo.get("links", [])):
        if link.get("loss"):
            where = f"topology.links[{i}].loss"
            targets = [x for x in links if {x["src"], x["dst"]} == {link["a"], link["b"]}]
            if not targets:
                raise PeerError(f"{where}: not mapped to {peer}")
            for target in targets:
                target["loss"] = _loss(link["loss"], where, peer)


def _app(app: dict[str, Any], where: str) -> dict[str, Any]:
    kind = app["kind"]
    if kind == "bulk":
        return {"kind": "bulk"}
    if kind == "file":
        return {"kind": "file", "size_bytes": units.size_bytes(app["size"], f"{where}.size")}
    if kind == "cbr":
        return {"kind": "cbr", "rate_bps": units.rate_bps(app["rate"], f"{where}.rate"),
                "packet_size": units.size_bytes(app["packet_size"], f"{where}.packet_size")}
    if kind == "onoff":
        return {"kind": "onoff", "rate_bps": units.rate_bps(app["rate"], f"{where}.rate"),
                "packet_size": units.size_bytes(app["packet_size"], f"{where}.packet_size"),
                "on_mean_s": units.seconds(app["on_mean"], f"{where}.on_mean"),
                "off_mean_s": units.seconds(app["off_mean"], f"{where}.off_mean")}
    return {"kind": kind}


def _tcp(group: dict[str, Any], where: str) -> dict[str, Any]:
    stack = group.get("stack", "linux")
    mss = units.size_bytes(group["mss"], f"{where}.mss")
    rcv_buf = group.get("rcv_buf")
    rwnd = group.get("rwnd")
    return {
        "mss": mss,
        "header_bytes": TCP_HEADERS + (TIMESTAMP_OPTION if group.get("timestamps") else 0),
        "initial_cwnd": float(group["initial_cwnd"]),
        "min_rto_s": units.seconds(group["min_rto"], f"{where}.min_rto"),
        "delayed_ack": bool(group.get("delayed_ack")),
        "delack_timeout_s": DELACK_TIMEOUT_S[stack],
        "handshake": bool(group.get("handshake")),
        "timestamps": bool(group.get("timestamps")),
        "ecn": bool(group.get("ecn")),
        "sack": group.get("recovery") == "sack",
        "slow_start_after_idle": bool(group.get("slow_start_after_idle")),
        "rcv_buf_bytes": None if rcv_buf is None else units.size_bytes(rcv_buf, f"{where}.rcv_buf"),
        "rwnd_bytes": None if rwnd is None else units.size_bytes(rwnd, f"{where}.rwnd"),
    }


def _flow(row: dict[str, Any], group: dict[str, Any], where: str, duration_s: float) -> dict[str, Any]:
    proto = row["protocol"]
    cc = str(row.get("cc") or "")
    stop = group.get("stop")
    return {
        "id": int(row["flow_id"]), "group": row["group"], "where": where, "protocol": proto,
        "cc": cc, "cc_base": str(row.get("cc_algorithm") or ""), "cc_preset": split_preset(cc)[1],
        "cc_params": group.get("cc_params") or {},
        "recovery": group.get("recovery"), "stack": group.get("stack"),
        "src": row["src"], "dst": row["dst"],
        "start_s": float(row["start_s"]),
        "stop_s": min(duration_s, units.seconds(stop, f"{where}.stop")) if stop is not None else None,
        "rtt_base_s": float(row["rtt_base_s"]) if not math.isnan(float(row["rtt_base_s"])) else None,
        "app": _app(group["app"], f"{where}.app"),
        "tcp": _tcp(group, where) if proto == "tcp" else None,
        "dccp": {"packet_size": units.size_bytes(group["mss"], f"{where}.mss")} if proto == "dccp" else None,
    }


def split_preset(cc: str) -> tuple[str, str | None]:
    """A congestion control's name as written and its preset, for code that holds a name before
    any run: ``"cubic@linux-2.6.22"`` → ``("cubic", "linux-2.6.22")``, ``"newreno"`` →
    ``("newreno", None)``. The algorithm a name selects (aliases resolved) is what the core
    parsed it to: a result's ``cc_algorithm`` column."""
    name, _, preset = cc.partition("@")
    return name, preset or None


def default_cc_params(cc: str, stack: str | None) -> dict[str, Any]:
    """The parameters ``cc`` resolves to under ``stack`` when a scenario gives none (a peer runs
    an algorithm with its own constants, so a flow may use only these)."""
    from ccarena import api

    doc = {
        "duration": "1s",
        "topology": {"kind": "dumbbell", "bottleneck_rate": "1Mbps", "bottleneck_delay": "1ms"},
        "flows": [{"cc": cc, **({"stack": stack} if stack else {})}],
    }
    return dict(api.validate(doc)["flows"][0].get("cc_params") or {})


def next_hops(plan: dict[str, Any]) -> dict[tuple[str, str], int]:
    """The simulator's routes for the plan's flows, as (node, destination node) → the index in
    ``plan["links"]`` of the link a packet leaves ``node`` on, for every node on the path of a
    flow's data (source to destination) and its acknowledgements (back).

    The rule is `net/routing.rs`'s: a reverse Dijkstra from each destination with the cost
    (hops, propagation delay in ns, id of the first link) compared lexicographically, link ids
    being the plan's link order; peers with their own routing (ns-2's shortest hop count) break
    ties otherwise, e.g. both ways round a ring.
    """
    import heapq

    links = plan["links"]
    incoming: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for k, link in enumerate(links):
        incoming.setdefault(link["dst"], []).append((k, link))
    trees: dict[str, dict[str, int]] = {}

    def tree(dst: str) -> dict[str, int]:
        if dst not in trees:
            best: dict[str, tuple[int, int, int]] = {dst: (0, 0, 0)}
            nxt: dict[str, int] = {}
            heap = [(0, 0, 0, dst)]
            while heap:
                hops, delay, first, node = heapq.heappop(heap)
                if best.get(node) != (hops, delay, first):
                    continue
                for k, link in incoming.get(node, ()):
                    cand = (hops + 1, delay + round(link["delay_s"] * 1e9), k)
                    u = link["src"]
                    if u not in best or cand < best[u]:
                        best[u], nxt[u] = cand, k
                        heapq.heappush(heap, (*cand, u))
            trees[dst] = nxt
        return trees[dst]

    out: dict[tuple[str, str], int] = {}
    for flow in plan["flows"]:
        for a, b in ((flow["src"], flow["dst"]), (flow["dst"], flow["src"])):
            routes, node, seen = tree(b), a, 0
            while node != b and node in routes and seen <= len(links):
                k = routes[node]
                out[(node, b)] = k
                node, seen = links[k]["dst"], seen + 1
    return out
