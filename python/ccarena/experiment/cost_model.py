"""A run's CPU time from its scenario alone, without simulating it: what `reproduce --dry-run`
prices a grid point at when no calibration of it (:mod:`ccarena.experiment.calibrate`) is cached.

The engine's CPU time goes with its packet hops (BENCHMARKS.md, "The cost of a packet hop":
within one kind of traffic wall time is proportional to hops, 37-41 ns a hop for bulk flows,
63-65 ns beside seed 003's background). A run is priced at the hops its scenario asks for times
the CPU time per hop of this build on this machine, measured once per build on a short reference
run (:func:`reference`) and cached (:mod:`ccarena.experiment.calibration_cache`).

The hops: every flow is given its max-min fair share of the links of its route (progressive
filling, Bertsekas & Gallager, *Data Networks*, §6.5.2) capped at what it asks for, from its
start to the end of the run. What a flow asks for: a CBR source its rate, an on/off source its
rate times its share of time on, a file transfer its size over its time, a background group
``load · mix · C`` (C the slowest link of its path, as the core calibrates it), the rest (bulk,
FTP, web users) as much as it gets. Its data packets cross every link of its route; its
acknowledgements cross the links back: one per packet (ns-2's agents), one per two with delayed
ACKs, one per Ack Ratio packets for CCID 2, one per round trip for CCID 3's feedback.

Not modelled, which would make the estimate high: windows that take most of a run to fill a
fast link (Reno at 10 Gbit/s), flows losing packets, web users thinking, files finished early.
Nor is the cost of a hop growing with a run's memory (BENCHMARKS.md), which makes it low for
runs much larger than the reference. docs/reproducing.md compares the estimates with
calibrations: within about a factor of two.
"""

from __future__ import annotations

import copy
import functools
import heapq
import json
import math
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ccarena.experiment import calibration_cache

#: For planning, each background is scaled down to this load of UDP sources alone: the core then
#: makes one source per segment and direction, on the route every kind of source of that segment
#: takes, instead of thousands of sources and a calibration of its web model (a tenth of a
#: second); what each kind offers is then computed from the real load and mix.
PLAN_LOAD = 1e-4
#: IP + TCP headers on every segment, IP + UDP on every datagram, IP + DCCP (generic header with
#: 48-bit sequence numbers, RFC 4340 §5.1): what a packet adds to its payload on the wire.
HEADERS = {"tcp": 40, "udp": 28, "dccp": 36}
#: The reference run that prices a hop (`scenarios/bench/b2.toml` as the `d155` case of
#: tools/cost_model.py: 155 Mbit/s, 20 CUBIC flows, seed 003's 20 % background), run for each
#: of two lengths: the difference prices a hop, what is left of the shorter one a run's start.
REFERENCE = ("bench/b2.toml", ("topology.bottleneck_rate=155Mbps", "flows[0].count=20", "warmup=0s"))
REFERENCE_S = (3, 12)
#: Each length is run this many times and its least CPU time kept: the machine's other work
#: only ever adds to a measurement, and this one is kept for the build's lifetime.
REFERENCE_REPEAT = 3


def _routes(links: Mapping[str, Sequence[Any]]) -> Any:
    """``route(src, dst)``: the link indices from node ``src`` to node ``dst``, fewest hops
    first, then the least propagation delay (crates/core/src/net/routing.rs). A host (one link
    out, one in) is routed through the node at the other end of its link, as the core does, so
    thousands of hosts cost a few shortest-path trees."""
    out: dict[str, list[int]] = defaultdict(list)
    into: dict[str, list[int]] = defaultdict(list)
    for i, (a, b) in enumerate(zip(links["src"], links["dst"], strict=True)):
        out[a].append(i)
        into[b].append(i)
    trees: dict[str, dict[str, tuple[tuple[int, float], int]]] = {}

    def tree(src: str) -> dict[str, tuple[tuple[int, float], int]]:
        if src not in trees:
            best: dict[str, tuple[tuple[int, float], int]] = {src: ((0, 0.0), -1)}
            heap = [((0, 0.0), src)]
            while heap:
                cost, node = heapq.heappop(heap)
                if cost > best[node][0]:
                    continue
                for i in out[node]:
                    nxt = links["dst"][i]
                    c = (cost[0] + 1, cost[1] + links["delay_s"][i])
                    if nxt not in best or c < best[nxt][0]:
                        best[nxt] = (c, i)
                        heapq.heappush(heap, (c, nxt))
            trees[src] = best
        return trees[src]

    def host(node: str) -> bool:
        return len(out[node]) == 1 and len(into[node]) == 1

    def route(src: str, dst: str) -> list[int]:
        head = [out[src][0]] if host(src) and src != dst else []
        tail = [into[dst][0]] if host(dst) and src != dst else []
        a = links["dst"][head[0]] if head else src
        b = links["src"][tail[0]] if tail else dst
        if head and tail and a == dst:  # two hosts joined by one link each way
            return head
        best, middle, node = tree(a), [], b
        while node != a:
            if node not in best:
                return head + tail  # unreachable: the core refuses such a scenario first
            i = best[node][1]
            middle.append(i)
            node = links["src"][i]
        return head + middle[::-1] + tail

    return route


@functools.cache
def _default_mix() -> dict[str, float]:
    """The core's mix of background sources where a scenario names none."""
    from ccarena import _core

    topology = {"kind": "dumbbell", "bottleneck_rate": "10Mbps", "bottleneck_delay": "10ms"}
    probe = {"duration": "1s", "topology": topology, "flows": [{}], "background": [{"load": PLAN_LOAD}]}
    return dict(_core.plan(json.dumps(probe))["meta"]["scenario"]["background"][0]["mix"])


def _offered(bg: Any) -> dict[str, float] | None:
    """A background's offered load per kind of source (``load · mix``), or None where its table
    is malformed: that is left as it is, for the core to say what is wrong."""
    number = (int, float)
    if not isinstance(bg, Mapping) or not isinstance(bg.get("load"), number) or not isinstance(bg.get("mix", {}), Mapping):
        return None
    mix = {"udp": 0.0, "ftp": 0.0, "web": 0.0, **bg["mix"]} if "mix" in bg else _default_mix()
    if not all(isinstance(share, number) for share in mix.values()):
        return None
    return {kind: float(bg["load"]) * float(share) for kind, share in mix.items() if share}


def _planned(scenario: Mapping[str, Any]) -> tuple[dict[str, Any], list[dict[str, float]]]:
    """``scenario`` with its backgrounds scaled down for planning (:data:`PLAN_LOAD`), and each
    background's real offered load per kind of source, in order."""
    small = copy.deepcopy(dict(scenario))
    loads: list[dict[str, float]] = []
    for bg in small.get("background", []):
        offered = _offered(bg)
        loads.append(offered or {})
        if offered is not None:
            bg["load"], bg["mix"] = PLAN_LOAD, {"udp": 1.0}
    return small, loads


def _demand_bps(spec: Mapping[str, Any], active_s: float) -> tuple[float, int]:
    """What one main flow asks for in bits per second on the wire, and its packets' payload."""
    from ccarena import _core

    app = spec.get("app", {"kind": "bulk"})
    mss = _core.size_bytes(str(spec.get("mss", "1460B")))
    kind = app.get("kind")
    if kind == "cbr":
        return _core.rate_bps(app["rate"]), _core.size_bytes(app["packet_size"])
    if kind == "onoff":
        on, off = _core.duration_s(app["on_mean"]), _core.duration_s(app["off_mean"])
        return _core.rate_bps(app["rate"]) * on / (on + off), _core.size_bytes(app["packet_size"])
    if kind == "file":
        return _core.size_bytes(app["size"]) * 8 / max(active_s, 1e-3), mss
    return math.inf, mss


def _acks_per_packet(protocol: str, spec: Mapping[str, Any]) -> float:
    """Acknowledgements per data packet of a main flow (module text); CCID 3's feedback, once a
    round trip, is counted apart."""
    if protocol == "udp":
        return 0.0
    if protocol == "dccp":
        ratio = spec.get("cc_params", {}).get("ack_ratio")
        return 1.0 / float(ratio) if ratio else 0.0
    return 0.5 if spec.get("delayed_ack") else 1.0


def _max_min(capacity: np.ndarray, crossing: np.ndarray, demand: np.ndarray) -> np.ndarray:
    """Per class, the rate of each of its flows under max-min fairness: ``crossing[l, c]`` flows
    of class ``c`` share link ``l`` of ``capacity[l]``; no flow gets more than ``demand[c]``."""
    rate = np.zeros(len(demand))
    frozen = np.zeros(len(demand), dtype=bool)
    left = capacity.astype(float).copy()
    while not frozen.all():
        active = np.where(frozen, 0.0, 1.0)
        sharing = crossing @ active
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(sharing > 0, left / sharing, np.inf)
        step = min(share.min(initial=np.inf), (demand - rate)[~frozen].min())
        if not math.isfinite(step):  # flows on no link at all: nothing limits them, nothing to count
            break
        rate += step * active
        left -= crossing @ (step * active)
        full = (sharing > 0) & (left <= 1e-9 * capacity)
        frozen |= (crossing[full].sum(axis=0) > 0) | (rate >= demand - 1e-9)
    return rate


def hops(scenario: Mapping[str, Any]) -> float:
    """The packet hops (data and acknowledgements) that running ``scenario`` takes, predicted
    (module text). Raises what :func:`ccarena._core.plan` raises for an invalid scenario."""
    from ccarena import _core

    small, loads = _planned(scenario)
    plan = _core.plan(json.dumps(small, default=str))
    norm = plan["meta"]["scenario"]
    duration = float(plan["meta"]["duration_s"])
    groups = {f["name"]: f for f in norm.get("flows", [])}
    backgrounds = {bg["name"]: (load, bg) for bg, load in zip(norm.get("background", []), loads, strict=True)}
    links, flows = plan["links"], plan["flows"]
    route = _routes(links)
    capacity = np.asarray(links["rate_bps"], dtype=float)
    # One class per flow group (a background's per segment and direction): its flows' routes as
    # a count per link, their summed active seconds times hops there and back, their round trips.
    classes: dict[str, dict[str, Any]] = {}
    for i, group in enumerate(flows["group"]):
        path, back = route(flows["src"][i], flows["dst"][i]), route(flows["dst"][i], flows["src"][i])
        active = max(duration - float(flows["start_s"][i]), 0.0)
        c = classes.setdefault(group, {"n": 0, "active": 0.0, "hops": 0.0, "back": 0.0, "rtt": 0.0, "route": 0, "return": 0,
                                       "protocol": flows["protocol"][i], "links": np.zeros(len(capacity))})
        c["n"] += 1
        c["active"] += active
        c["route"] += len(path)
        c["return"] += len(back)
        c["hops"] += len(path) * active
        c["back"] += len(back) * active
        c["rtt"] += float(flows["rtt_base_s"][i] or 0.0)
        c["links"][path] += 1
    rows, demand, size, acks = [], [], [], []  # per class of sources: what max-min needs and what a packet costs
    for name, c in classes.items():
        if name.startswith(tuple(f"{bg}:" for bg in backgrounds)) and name.endswith(":udp"):
            offered, bg = backgrounds[name.split(":", 1)[0]]
            slowest = capacity[c["links"] > 0].min(initial=math.inf)
            udp_payload = _core.size_bytes(str(bg.get("packet_size", "1000B")))
            tcp_acks = 0.5 if bg.get("stack", norm.get("stack", "linux")) == "linux" else 1.0  # delayed ACKs or not
            # The sources the core makes start at the background's start, each in a random phase
            # of its cycle, so they offer their load from then on (sources.rs); the planned one
            # starts somewhere in its own cycle.
            start = bg.get("start", "0s")
            active = duration - _core.duration_s(start) if isinstance(start, str) else c["active"] / c["n"]
            c = {**c, "hops": c["route"] * max(active, 0.0), "back": c["return"] * max(active, 0.0)}
            for kind, load in offered.items():  # every kind of source on the UDP sources' route
                rows.append(c)
                # The core's rate for the segment's sources (sources.rs), as if on one flow.
                demand.append(load * slowest / c["n"])
                size.append(udp_payload + HEADERS["udp"] if kind == "udp" else 1460 + HEADERS["tcp"])
                acks.append(0.0 if kind == "udp" else tcp_acks)
            continue
        spec = groups[name]
        want, payload = _demand_bps(spec, c["active"] / c["n"])
        rows.append(c)
        demand.append(want)
        size.append(payload + HEADERS.get(c["protocol"], 40))
        acks.append(_acks_per_packet(c["protocol"], spec))
    crossing = np.array([c["links"] for c in rows]).T if rows else np.zeros((len(capacity), 0))
    rate = _max_min(capacity, crossing, np.array(demand))
    total = 0.0
    for c, r, s, a in zip(rows, rate, size, acks, strict=True):
        total += r / (8 * s) * (c["hops"] + a * c["back"])
        if c["protocol"] == "dccp" and a == 0.0 and c["rtt"] > 0:  # CCID 3: feedback once a round trip
            total += c["back"] / (c["rtt"] / c["n"])
    return total


def reference() -> tuple[float, float]:
    """This build's CPU seconds per packet hop on this machine and its CPU seconds per run
    beside them (building the network, collecting the results), from :data:`REFERENCE`:
    measured once per build and cached."""
    entry = calibration_cache.load("cost-model", "reference", {"s_per_hop": float, "s_per_run": float})
    if entry is not None:
        return float(entry["s_per_hop"]), float(entry["s_per_run"])
    from pathlib import Path

    from ccarena import _core
    from ccarena.scenario import apply_overrides, load

    file, overrides = REFERENCE
    base = load(Path(__file__).resolve().parent.parent / "scenarios" / file)
    measured = []
    for seconds in REFERENCE_S:
        text = json.dumps(apply_overrides(base, [*overrides, f"duration={seconds}s"]))
        cpu = []
        for _ in range(REFERENCE_REPEAT):
            start = time.thread_time()
            res = _core.run(text, series=False)
            cpu.append(time.thread_time() - start)
        measured.append((min(cpu), float(res["engine"]["packets_forwarded"])))
    (cpu0, hops0), (cpu1, hops1) = measured
    per_hop = max(cpu1 - cpu0, 1e-9) / max(hops1 - hops0, 1.0)
    per_run = max(cpu0 - per_hop * hops0, 0.0)
    calibration_cache.store("cost-model", "reference", {"s_per_hop": per_hop, "s_per_run": per_run})
    return per_hop, per_run


def estimate_s(scenario: Mapping[str, Any]) -> float:
    """The CPU seconds that running ``scenario`` is estimated to take (module text). Its hops
    are cached too: planning a scenario with thousands of flows takes milliseconds."""
    per_hop, per_run = reference()
    name = calibration_cache.scenario_key(scenario)
    entry = calibration_cache.load("cost-model", name, {"hops": float})
    if entry is None:
        entry = {"hops": hops(scenario)}
        calibration_cache.store("cost-model", name, entry)
    return per_run + float(entry["hops"]) * per_hop
