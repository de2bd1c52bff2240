"""Turn what a testbed run measured into the simulator's tables (a :class:`~ccarena.api.RunResult`).

Columns the kernel cannot provide are NaN (listed in docs/testbed.md): per-flow drops and
one-way delays (the bottleneck counts drops for all flows together; the ``delay_quantiles``
table has no rows) and the access links (not shaped on the testbed, so not listed). Timeouts and fast recoveries come from the TcpExt
counters of each flow's own sender namespace (:mod:`ccarena.testbed.mib`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ccarena.testbed.agent import INFINITE_SSTHRESH

if TYPE_CHECKING:
    from ccarena.api import Plan

NAN = math.nan
#: IPv4 (20 B) + TCP without options (20 B).
TCP_HEADERS = 40
#: The timestamp option as Linux sends it on every segment (10 B, padded: TCPOLEN_TSTAMP_ALIGNED).
TIMESTAMP_OPTION = 12
#: IPv4 + UDP headers.
UDP_HEADERS = 28
#: Flow-table columns copied from the simulator's plan (identity, not measurement).
PLAN_COLUMNS = ("flow_id", "group", "protocol", "cc", "cc_algorithm", "cc_params", "recovery", "app", "role", "src", "dst", "start_s", "rtt_base_s")
#: Flow-table columns the kernel cannot measure per flow.
NAN_FLOW_COLUMNS = (
    "dropped_pkts", "in_flight_pkts", "ack_dropped_pkts", "meas_dropped_pkts", "delay_count", "delay_mean_s",
    "delay_min_s", "delay_max_s", "delay_p50_s", "delay_p95_s", "delay_p99_s",
    "ce_marked_pkts", "ecn_reductions", "sq_sent_pkts", "sq_bytes", "sq_received_pkts", "sq_dropped_pkts",
    "sq_delay_mean_s", "sq_reductions",
)


def _at(samples: list[dict[str, Any]], t: float, key: str) -> float:
    """A cumulative TCP_INFO counter at time ``t``: the last sample at or before it (0 before any)."""
    value = 0.0
    for s in samples:
        if s["time_s"] > t + 1e-9:
            break
        value = float(s[key])
    return value


def tcp_headers(timestamps: bool) -> int:
    """Header bytes of a TCP segment on the testbed: IPv4, TCP, and the timestamp option when on."""
    return TCP_HEADERS + (TIMESTAMP_OPTION if timestamps else 0)


def _flow_row(plan_row: dict[str, Any], send: dict[str, Any], recv: dict[str, Any], counters: dict[str, dict[str, int]], meta: dict[str, Any], timestamps: bool) -> dict[str, Any]:
    duration, warmup, interval = float(meta["duration_s"]), float(meta["warmup_s"]), float(meta["sample_interval_s"])
    final = send["final"]
    udp = plan_row["protocol"] == "udp"
    headers = UDP_HEADERS if udp else tcp_headers(timestamps)
    segs, payload = float(final.get("data_segs_out", 0)), float(final.get("bytes_sent", 0))
    # Payload per packet: the TCP segment size, or the UDP datagram's.
    size = float(final.get("snd_mss", 0)) or 1460.0
    meas_start = max(float(plan_row["start_s"]), warmup)
    first_bin = int(round(warmup / interval))
    good = float(recv["total"])
    meas_good = float(sum(recv["bytes"][first_bin:]))
    samples = send["samples"]
    meas_segs = segs - _at(samples, warmup, "data_segs_out") if not udp else segs * (duration - meas_start) / max(duration - float(plan_row["start_s"]), 1e-9)
    meas_payload = payload - _at(samples, warmup, "bytes_sent") if not udp else payload * meas_segs / max(segs, 1.0)
    row = {k: plan_row[k] for k in PLAN_COLUMNS}
    row.update({
        "sent_pkts": segs,
        "sent_bytes": payload + headers * segs,
        "retransmitted_pkts": float(final.get("total_retrans", 0)),
        "delivered_pkts": math.ceil(good / size) if good else 0.0,
        "delivered_bytes": good + headers * (math.ceil(good / size) if good else 0),
        "goodput_bytes": good,
        "meas_start_s": meas_start,
        "meas_sent_pkts": meas_segs,
        "meas_sent_bytes": meas_payload + headers * meas_segs,
        "meas_delivered_pkts": math.ceil(meas_good / size) if meas_good else 0.0,
        "meas_goodput_bytes": meas_good,
        "completion_s": NAN if send.get("completion_s") is None else float(send["completion_s"]),
    })
    sender = counters.get("sender", {})
    tcp = not udp and "TCPTimeouts" in sender
    row["timeouts"] = float(sender["TCPTimeouts"]) if tcp else NAN
    row["fast_recoveries"] = float(sender.get("TCPSackRecovery", 0) + sender.get("TCPRenoRecovery", 0)) if tcp else NAN
    row["loss_probes"] = float(sender.get("TCPLossProbes", 0)) if tcp else NAN
    row.update({k: NAN for k in NAN_FLOW_COLUMNS})
    return row


def _flow_series(fid: int, send: dict[str, Any], recv: dict[str, Any], meta: dict[str, Any], timestamps: bool) -> list[dict[str, Any]]:
    interval = float(meta["sample_interval_s"])
    by_time = {round(s["time_s"], 6): s for s in send["samples"]}
    rows, prev = [], {"data_segs_out": 0, "bytes_sent": 0, "total_retrans": 0}
    for k, good in enumerate(recv["bytes"], start=1):
        t = round(k * interval, 9)
        s = by_time.get(round(t, 6))
        row = {"flow_id": fid, "t_s": t, "goodput_bytes": float(good), "delivered_pkts": NAN, "dropped_pkts": NAN, "delay_mean_s": NAN}
        if s is None:
            row.update({"sent_pkts": NAN, "sent_bytes": NAN, "retransmitted_pkts": NAN, "cwnd_pkts": NAN,
                        "ssthresh_pkts": NAN, "srtt_s": NAN, "rate_bps": NAN})
        else:
            segs = s["data_segs_out"] - prev["data_segs_out"]
            row.update({
                "sent_pkts": float(segs),
                "sent_bytes": float(s["bytes_sent"] - prev["bytes_sent"] + tcp_headers(timestamps) * segs),
                "retransmitted_pkts": float(s["total_retrans"] - prev["total_retrans"]),
                "cwnd_pkts": float(s["snd_cwnd"]),
                "ssthresh_pkts": NAN if s["snd_ssthresh"] >= INFINITE_SSTHRESH else float(s["snd_ssthresh"]),
                "srtt_s": s["rtt_us"] / 1e6 if s["rtt_us"] else NAN,
                "rate_bps": s["delivery_rate"] * 8.0,
            })
            prev = s
        rows.append(row)
    return rows


def _links(plan_links: Any, queues: list[dict[str, Any]], meta: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    duration, warmup = float(meta["duration_s"]), float(meta["warmup_s"])
    links, series = [], []
    for name in ("bottleneck", "bottleneck_rev"):
        plan = plan_links.set_index("link").loc[name]
        prev = {"tx_pkts": 0, "tx_bytes": 0, "dropped_pkts": 0}
        at_warmup = dict(prev)
        qlen = []
        for q in queues:
            s = q[name]
            series.append({
                "link": name, "t_s": q["t_s"],
                "tx_pkts": s["tx_pkts"] - prev["tx_pkts"], "tx_bytes": s["tx_bytes"] - prev["tx_bytes"],
                "dropped_pkts": s["dropped_pkts"] - prev["dropped_pkts"],
                "queue_pkts": float(s["queue_pkts"]), "queue_bytes": float(s["queue_bytes"]), "max_queue_pkts": NAN,
            })
            prev = s
            if q["t_s"] <= warmup + 1e-9:
                at_warmup = s
            else:
                qlen.append(float(s["queue_pkts"]))
        last = queues[-1][name] if queues else prev
        links.append({
            "link": name, "src": plan["src"], "dst": plan["dst"], "rate_bps": float(plan["rate_bps"]),
            "delay_s": float(plan["delay_s"]), "queue": plan["queue"],
            "tx_pkts": last["tx_pkts"], "tx_bytes": last["tx_bytes"], "dropped_pkts": last["dropped_pkts"],
            "meas_tx_bytes": last["tx_bytes"] - at_warmup["tx_bytes"],
            "meas_dropped_pkts": last["dropped_pkts"] - at_warmup["dropped_pkts"],
            "mean_queue_pkts": float(np.mean(qlen)) if qlen else NAN,
            "max_queue_pkts": max(qlen) if qlen else NAN,
            "early_dropped_pkts": 0, "marked_pkts": 0, "sq_sent_pkts": 0,
            "meas_duration_s": duration - warmup, "meas_rate_bps": float(plan["rate_bps"]),
        })
    return links, series


def _columns(rows: list[dict[str, Any]], order: list[str]) -> dict[str, list[Any]]:
    return {c: [r.get(c, NAN) for r in rows] for c in order}


def build(plan: Plan, flows: Any, raw: dict[str, Any], *, lateness_limit_s: float) -> Any:
    """A RunResult from the simulator's ``plan`` (:class:`~ccarena.api.Plan`: its flow and link
    identities, its tables' columns), the plan's main ``flows`` and the run's ``raw``
    measurements, with the testbed's own facts in ``meta["testbed"]``."""
    from ccarena.api import RunResult

    meta = dict(plan.meta)
    counters = raw["counters"]
    stamps = raw["timestamps"]
    flow_rows = [_flow_row(f, s, r, c, meta, ts) for f, s, r, c, ts in zip(flows.to_dict("records"), raw["senders"], raw["receivers"], counters, stamps)]
    series = [row for f, s, r, ts in zip(flows["flow_id"], raw["senders"], raw["receivers"], stamps) for row in _flow_series(int(f), s, r, meta, ts)]
    links, link_series = _links(plan.links, raw["queues"], meta)
    # The line's interface a faces r1 (the senders' side): a→b carries data, b→a carries ACKs.
    line = {"forward": raw["delayline"]["a_to_b"], "reverse": raw["delayline"]["b_to_a"]}
    worst = max(d["lateness_max_s"] for d in line.values())
    meta["backend"] = "kernel"
    meta["testbed"] = {
        "delayline": line,
        "lateness_limit_s": lateness_limit_s,
        "lateness_flagged": worst > lateness_limit_s,
        # Each flow's TcpExt counters, sender and receiver namespace (tail-loss probes, delayed ACKs).
        "tcp_counters": counters,
    }
    return RunResult({
        "meta": meta,
        # No simulator events on the kernel; packets forwarded are the bottleneck's (forward direction).
        "engine": {"events": 0, "wall_s": raw["wall_s"], "packets_forwarded": links[0]["tx_pkts"], "peak_packets": NAN,
                   "warmup_wall_s": NAN},
        "flows": _columns(flow_rows, plan.columns["flows"]),
        "flow_series": _columns(series, plan.columns["flow_series"]),
        "links": _columns(links, plan.columns["links"]),
        "link_series": _columns(link_series, plan.columns["link_series"]),
        # One-way delays are not measured per packet on the kernel: no rows.
        "delay_quantiles": _columns([], plan.columns["delay_quantiles"]),
    })
