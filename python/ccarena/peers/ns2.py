"""The ns-2 backend: a scenario run on ns-2.35 (Debian package ``ns2``), as the simulator's tables.

``run(scenario)`` builds the peer plan (:mod:`ccarena.peers.plan`), refuses in one line what
ns-2 cannot run (:func:`ccarena.peers.ns2_tcl.refuse`), writes the Tcl script, runs ``ns`` on it
and reads what the script printed into a :class:`~ccarena.api.RunResult`. ``script(scenario)``
returns the program without running it. See docs/peers.md for the mapping of every key.

The script prints one line per sample and flow or link, and at the end one line per flow and
link of its flow monitors:

- ``T t id sink_bytes ndatapack ndatabytes nrexmitpack cwnd ssthresh srtt_s nrexmit ncwndcuts``
  (TCP; the sink's ``bytes_`` counts the IP bytes of in-order segments)
- ``U t id npkts bytes nlost`` (UDP, the receiving `LossMonitor`)
- ``K t id msgs bytes sent cwnd ssthresh rate_Bps`` (DCCP: the receiver's byte counter, the
  sender's data packets, CCID 2's window or CCID 3's allowed rate in bytes per second)
- ``L t link pdepartures bdepartures pdrops pkts size pkts_integral``
- ``D link fid parrivals barrivals pdrops`` (per flow id: data ``2·id``, ACKs ``2·id + 1``)
- ``C id t`` (a file transfer's last byte acknowledged)
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ccarena.errors import PeerError
from ccarena.peers import ns2_tcl, results
from ccarena.peers import plan as peer_plan

NAME = "ns2"
#: The ns-2 release the mapping was written against (Debian 12's `ns2` package).
VERSION = "ns-2.35"
#: What ns-2.35's TCP-Linux module does differently from the simulator's algorithm, per cc.
CC_DIFFERENCES = {
    "lp": "lp: tcp_lp.c estimates the receiver's timestamp clock and computes the one-way delay as TSval x "
          "(1000 / estimate) - TSecr in integers: an estimate above 1000 Hz makes the delay the echoed timestamp "
          "itself (ccarena knows the clock: 1 kHz)",
}


def binary() -> str | None:
    """The ``ns`` executable: ``$CCARENA_NS2``, else ``ns`` on PATH."""
    return os.environ.get("CCARENA_NS2") or shutil.which("ns")


def available() -> str | None:
    """None when ns-2 can run here, else why not (one line)."""
    if binary() is None:
        return "ns-2 is not installed (Debian: apt-get install ns2, or `make peers`)"
    return None


def plan(scenario: Any, *, overrides: Iterable[str] = (), seed: int | None = None) -> tuple[dict[str, Any], Any]:
    """The peer plan of ``scenario`` after ns-2's refusals, and the simulator's plan."""
    p, sim_plan, valid = peer_plan.build(scenario, overrides=overrides, seed=seed, peer="ns-2")
    ns2_tcl.refuse(p, valid)
    return p, sim_plan


def script(scenario: Any, *, overrides: Iterable[str] = (), seed: int | None = None) -> str:
    """The Tcl program ns-2 runs for ``scenario`` (raises :class:`PeerError` for what it cannot run)."""
    return ns2_tcl.script(plan(scenario, overrides=overrides, seed=seed)[0])


def run(scenario: Any, *, overrides: Iterable[str] = (), seed: int | None = None, progress: bool = False) -> Any:
    """Run ``scenario`` on ns-2.35 and return the simulator's result tables measured there.

    Takes the same arguments as :func:`ccarena.run`. Columns ns-2 does not measure are NaN
    (docs/peers.md). Raises :class:`PeerError` when ns-2 is missing, cannot run the scenario (one
    line naming the key) or fails.
    """
    why = available()
    if why:
        raise PeerError(why)
    p, sim_plan = plan(scenario, overrides=overrides, seed=seed)
    text = ns2_tcl.script(p)
    with tempfile.TemporaryDirectory(prefix="ccarena-ns2-") as tmp:
        path = Path(tmp) / "run.tcl"
        path.write_text(text)
        started = time.perf_counter()
        try:
            done = subprocess.run([str(binary()), str(path)], capture_output=True, text=True, cwd=tmp, timeout=_timeout(p))
        except subprocess.TimeoutExpired:
            raise PeerError(f"ns-2 did not finish {p['duration_s']:g} simulated seconds within {_timeout(p):.0f} s") from None
        wall = time.perf_counter() - started
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        raise PeerError(f"ns-2 failed (exit {done.returncode}): {lines[-1] if lines else 'no output'}")
    raw = read(done.stdout, p)
    raw["wall_s"] = wall
    ccs = sorted({f["cc"] for f in p["flows"] if f["protocol"] == "tcp"})
    differences = [CC_DIFFERENCES[cc] for cc in ccs if cc in CC_DIFFERENCES]
    return results.build(sim_plan, raw, backend=NAME, facts={"version": VERSION, "program": "run.tcl", "differences": differences})


def _timeout(p: dict[str, Any]) -> float:
    """Seconds of wall time allowed: generous for ns-2's ~1-3 million events per second."""
    return max(300.0, 60.0 * p["duration_s"])


def _series_of(rows: list[list[float]], keys: tuple[str, ...]) -> dict[str, list[float]]:
    return {k: [r[j] for r in rows] for j, k in enumerate(keys)}


#: ns-2 keeps its byte counters (a sink's `bytes_`, an agent's `ndatabytes_`, a queue monitor's
#: `bdepartures_`) in 32-bit ints, which wrap after 2 GiB: 17 s of a 1 Gbit/s link.
WRAP = 1 << 32


def _unwrap(rows: list[list[float]], columns: tuple[int, ...]) -> None:
    """Undo the 32-bit wrap of the cumulative byte counters in ``columns`` of sampled ``rows``
    (in place): each sample's increase is taken modulo 2³², so a counter may grow by up to 4 GiB
    between samples (an interval of 3.4 s at 10 Gbit/s)."""
    for j in columns:
        previous, total = 0.0, 0.0
        for row in rows:
            total += (row[j] - previous) % WRAP
            previous = row[j]
            row[j] = total


def read(stdout: str, p: dict[str, Any]) -> dict[str, Any]:
    """The raw measurements (:mod:`ccarena.peers.results`) from what the ns-2 script printed."""
    tcp_rows: dict[int, list[list[float]]] = defaultdict(list)
    udp_rows: dict[int, list[list[float]]] = defaultdict(list)
    dccp_rows: dict[int, list[list[float]]] = defaultdict(list)
    link_rows: dict[int, list[list[float]]] = defaultdict(list)
    per_fid: dict[tuple[int, int], tuple[float, float, float]] = {}
    completion: dict[int, float] = {}
    for line in stdout.splitlines():
        # The script's records are "KIND field ..."; other lines are ns-2's own (a TCP-Linux
        # module's debug output: tcp_lp.c prints its state per ACK, after a blank line).
        kind, *fields = line.split() or [""]
        if kind == "T":
            tcp_rows[int(fields[1])].append([float(fields[0]), *map(float, fields[2:])])
        elif kind == "U":
            udp_rows[int(fields[1])].append([float(fields[0]), *map(float, fields[2:])])
        elif kind == "K":
            dccp_rows[int(fields[1])].append([float(fields[0]), *map(float, fields[2:])])
        elif kind == "L":
            link_rows[int(fields[1])].append([float(fields[0]), *map(float, fields[2:])])
        elif kind == "D":
            per_fid[(int(fields[0]), int(fields[1]))] = (float(fields[2]), float(fields[3]), float(fields[4]))
        elif kind == "C":
            completion.setdefault(int(fields[0]), float(fields[1]))
    for rows in tcp_rows.values():
        _unwrap(rows, (1, 3))
    for rows in (*udp_rows.values(), *dccp_rows.values()):
        _unwrap(rows, (2,))
    for rows in link_rows.values():
        _unwrap(rows, (2,))
    flows = []
    for flow in p["flows"]:
        fid = flow["id"]
        data_drops = sum(v[2] for (k, f), v in per_fid.items() if f == 2 * fid)
        ack_drops = sum(v[2] for (k, f), v in per_fid.items() if f == 2 * fid + 1)
        if flow["protocol"] == "tcp":
            entry = _tcp_flow(flow, tcp_rows[fid])
        elif flow["protocol"] == "dccp":
            entry = _dccp_flow(flow, dccp_rows[fid])
        else:
            entry = _udp_flow(flow, udp_rows[fid], _first_hop(p, flow, per_fid))
        entry["final"].update({"dropped_pkts": data_drops, "ack_dropped_pkts": ack_drops, "completion_s": completion.get(fid)})
        flows.append(entry)
    links = [_link(link["name"], link_rows[k]) for k, link in enumerate(p["links"])]
    return {"flows": flows, "links": links}


def _first_hop(p: dict[str, Any], flow: dict[str, Any], per_fid: dict[tuple[int, int], tuple[float, float, float]]) -> tuple[float, float]:
    """Packets and bytes a UDP flow's source put on its first link (its datagrams all have one
    size, so the bytes follow from the packets: the flow monitor's byte count wraps at 2 GiB)."""
    for k, link in enumerate(p["links"]):
        if link["src"] == flow["src"] and (k, 2 * flow["id"]) in per_fid:
            arrivals = per_fid[(k, 2 * flow["id"])][0]
            return arrivals, arrivals * (flow["app"]["packet_size"] + 28)
    return 0.0, 0.0


def _tcp_flow(flow: dict[str, Any], rows: list[list[float]]) -> dict[str, Any]:
    tcp = flow["tcp"]
    payload = ns2_tcl.segment_size(flow)
    wire = payload + tcp["header_bytes"]
    window = tcp["rwnd_bytes"] // payload if tcp["rwnd_bytes"] else 1 << 20
    series: dict[str, list[float]] = {k: [] for k in ("t_s", "sent_pkts", "sent_bytes", "retransmitted_pkts", "delivered_pkts",
                                                      "goodput_bytes", "cwnd_pkts", "ssthresh_pkts", "srtt_s")}
    for t, sink_bytes, npack, nbytes, nrexmit, cwnd, ssthresh, srtt, _, _ in rows:
        segments = math.floor(sink_bytes / wire)
        series["t_s"].append(t)
        series["sent_pkts"].append(npack)
        series["sent_bytes"].append(nbytes + npack * tcp["header_bytes"])
        series["retransmitted_pkts"].append(nrexmit)
        series["delivered_pkts"].append(segments)
        series["goodput_bytes"].append(segments * payload)
        series["cwnd_pkts"].append(cwnd)
        series["ssthresh_pkts"].append(math.nan if ssthresh >= window else ssthresh)
        series["srtt_s"].append(srtt if srtt > 0 else math.nan)
    last = rows[-1] if rows else [0.0] * 11
    final = {k: series[k][-1] if rows else 0.0 for k in ("sent_pkts", "sent_bytes", "retransmitted_pkts", "delivered_pkts", "goodput_bytes")}
    final["delivered_bytes"] = final["delivered_pkts"] * wire
    # ns-2 counts timeouts in nrexmit_ and every window reduction in ncwndcuts_; the reductions
    # that were not timeouts are the fast recoveries (and, with ECN, the responses to echoes).
    final["timeouts"] = last[8]
    final["fast_recoveries"] = max(last[9] - last[8], 0.0)
    return {"id": flow["id"], "final": final, "series": series}


def _dccp_flow(flow: dict[str, Any], rows: list[list[float]]) -> dict[str, Any]:
    payload = ns2_tcl._dccp_payload(flow)
    series: dict[str, list[float]] = {
        "t_s": [r[0] for r in rows], "delivered_pkts": [r[1] for r in rows], "goodput_bytes": [r[1] * payload for r in rows],
        "sent_pkts": [r[3] for r in rows],
        "cwnd_pkts": [r[4] for r in rows],
        # ns-2's CCID 2 starts with ssthresh 65535 packets: no threshold yet.
        "ssthresh_pkts": [math.nan if r[5] >= 65535 else r[5] for r in rows],
        "rate_bps": [r[6] * 8.0 if flow["cc_base"] == "ccid3" else math.nan for r in rows],
    }
    last = rows[-1] if rows else [0.0] * 7
    final = {"sent_pkts": last[3], "sent_bytes": math.nan, "retransmitted_pkts": 0.0, "delivered_pkts": last[1],
             "delivered_bytes": math.nan, "goodput_bytes": last[1] * payload, "timeouts": math.nan, "fast_recoveries": math.nan}
    return {"id": flow["id"], "final": final, "series": series}


def _udp_flow(flow: dict[str, Any], rows: list[list[float]], first_hop: tuple[float, float]) -> dict[str, Any]:
    payload = flow["app"]["packet_size"]
    series: dict[str, list[float]] = {"t_s": [r[0] for r in rows], "delivered_pkts": [r[1] for r in rows],
                                      "goodput_bytes": [r[1] * payload for r in rows]}
    npkts = rows[-1][1] if rows else 0.0
    final = {"sent_pkts": first_hop[0], "sent_bytes": first_hop[1], "retransmitted_pkts": 0.0, "delivered_pkts": npkts,
             "delivered_bytes": npkts * (payload + 28), "goodput_bytes": npkts * payload, "timeouts": math.nan, "fast_recoveries": math.nan}
    return {"id": flow["id"], "final": final, "series": series}


def _link(name: str, rows: list[list[float]]) -> dict[str, Any]:
    keys = ("t_s", "tx_pkts", "tx_bytes", "dropped_pkts", "queue_pkts", "queue_bytes", "queue_pkt_s")
    series = _series_of(rows, keys)
    last = rows[-1] if rows else [0.0] * len(keys)
    return {"name": name, "final": {"tx_pkts": last[1], "tx_bytes": last[2], "dropped_pkts": last[3]}, "series": series}
