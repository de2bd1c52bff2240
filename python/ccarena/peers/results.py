"""Turn what a peer simulator measured into the simulator's tables (a :class:`~ccarena.api.RunResult`).

Both peers report the same *raw* form, cumulative counters sampled once per ``sample_interval``
(at ``k * interval``, k = 1..n) plus the totals at the end::

    {"wall_s": float,
     "flows": [{"id", "final": {"sent_pkts", "sent_bytes", "retransmitted_pkts", "delivered_pkts",
                                "goodput_bytes", "dropped_pkts", "timeouts", "fast_recoveries",
                                "completion_s"},
                "series": {"t_s", "sent_pkts", "sent_bytes", "retransmitted_pkts", "delivered_pkts",
                           "goodput_bytes", "cwnd_pkts", "ssthresh_pkts", "srtt_s", "rate_bps"}}],
     "links": [{"name", "final": {"tx_pkts", "tx_bytes", "dropped_pkts"},
                "series": {"t_s", "tx_pkts", "tx_bytes", "dropped_pkts", "queue_pkts",
                           "queue_bytes", "queue_pkt_s"}}]}

Bytes are wire bytes except ``goodput_bytes`` (payload delivered in order); ``queue_pkt_s`` is
the integral of the queue length over time (packet-seconds), which gives the time-averaged queue
the simulator reports. A value a peer cannot measure is NaN (or absent, which means NaN); the
per-flow one-way delays, in-flight and ECN/Source-Quench columns are always NaN, and the
``delay_quantiles`` table is empty (docs/peers.md).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ccarena.api import Plan

NAN = math.nan
#: Flow-table columns copied from the simulator's plan (identity, not measurement).
PLAN_COLUMNS = ("flow_id", "group", "protocol", "cc", "cc_algorithm", "cc_params", "recovery", "stack", "app", "role", "src", "dst", "start_s", "rtt_base_s")
#: Flow-table columns no peer backend measures.
NAN_FLOW_COLUMNS = (
    "in_flight_pkts", "ack_dropped_pkts", "meas_dropped_pkts", "delay_count", "delay_mean_s", "delay_min_s",
    "delay_max_s", "delay_p50_s", "delay_p95_s", "delay_p99_s", "delay_jitter_s", "loss_probes",
    "ce_marked_pkts", "ecn_reductions", "sq_sent_pkts", "sq_bytes", "sq_received_pkts", "sq_dropped_pkts",
    "sq_delay_mean_s", "sq_reductions",
)
#: Cumulative per-flow counters, differenced into per-interval series and measurement windows.
FLOW_COUNTERS = ("sent_pkts", "sent_bytes", "retransmitted_pkts", "delivered_pkts", "goodput_bytes")


def _num(value: Any) -> float:
    return NAN if value is None else float(value)


def _at(series: dict[str, list[float]], key: str, t: float) -> float:
    """A cumulative counter of ``series`` at time ``t``: the last sample at or before it (0 before
    any; NaN if the peer does not sample it)."""
    if key not in series:
        return NAN
    value = 0.0
    for ts, v in zip(series.get("t_s", ()), series.get(key, ())):
        if ts > t + 1e-9:
            break
        value = _num(v)
    return value


def _flow_row(plan_row: dict[str, Any], raw: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    warmup = float(meta["warmup_s"])
    final, series = raw["final"], raw["series"]
    row = {k: plan_row.get(k, NAN) for k in PLAN_COLUMNS}
    row.update({k: _num(final.get(k)) for k in FLOW_COUNTERS})
    row["dropped_pkts"] = _num(final.get("dropped_pkts"))
    row["meas_start_s"] = max(float(plan_row["start_s"]), warmup)
    for key in ("sent_pkts", "sent_bytes", "delivered_pkts", "goodput_bytes"):
        row[f"meas_{key}"] = row[key] - _at(series, key, warmup)
    row["completion_s"] = _num(final.get("completion_s"))
    row["timeouts"] = _num(final.get("timeouts"))
    row["fast_recoveries"] = _num(final.get("fast_recoveries"))
    row.update({k: NAN for k in NAN_FLOW_COLUMNS})
    row["delivered_bytes"] = _num(final.get("delivered_bytes"))
    # What a peer measures beyond the common counters (e.g. ns-2's ACK drops) fills its column.
    row.update({k: _num(final[k]) for k in NAN_FLOW_COLUMNS if k in final})
    return row


def _flow_series(fid: int, series: dict[str, list[Any]]) -> list[dict[str, Any]]:
    rows = []
    prev = dict.fromkeys(FLOW_COUNTERS, 0.0)
    for k, t in enumerate(series.get("t_s", ())):
        row: dict[str, Any] = {"flow_id": fid, "t_s": float(t), "dropped_pkts": NAN, "delay_mean_s": NAN}
        for key in FLOW_COUNTERS:
            now = _num(series[key][k]) if key in series else NAN
            row[key] = now - prev[key]
            prev[key] = now
        for key in ("cwnd_pkts", "ssthresh_pkts", "srtt_s", "rate_bps"):
            row[key] = _num(series[key][k]) if key in series else NAN
        rows.append(row)
    return rows


def _link_row(plan_row: dict[str, Any], raw: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    duration, warmup = float(meta["duration_s"]), float(meta["warmup_s"])
    final, series = raw["final"], raw["series"]
    window = duration - warmup
    after = [float(q) for t, q in zip(series.get("t_s", ()), series.get("queue_pkts", ())) if t > warmup + 1e-9]
    if "queue_pkt_s" in series and window > 0:
        mean_queue = (_at(series, "queue_pkt_s", duration) - _at(series, "queue_pkt_s", warmup)) / window
    else:
        mean_queue = sum(after) / len(after) if after else NAN
    return {
        "link": plan_row["link"], "src": plan_row["src"], "dst": plan_row["dst"],
        "rate_bps": float(plan_row["rate_bps"]), "delay_s": float(plan_row["delay_s"]), "queue": plan_row["queue"],
        "tx_pkts": _num(final["tx_pkts"]), "tx_bytes": _num(final["tx_bytes"]), "dropped_pkts": _num(final["dropped_pkts"]),
        "meas_tx_bytes": _num(final["tx_bytes"]) - _at(series, "tx_bytes", warmup),
        "meas_dropped_pkts": _num(final["dropped_pkts"]) - _at(series, "dropped_pkts", warmup),
        "mean_queue_pkts": mean_queue,
        "max_queue_pkts": max(after) if after else NAN,
        "early_dropped_pkts": NAN, "marked_pkts": _num(final["marked_pkts"]) if "marked_pkts" in final else NAN,
        "sq_sent_pkts": 0,
        "meas_duration_s": window,
        "meas_rate_bps": float(plan_row["rate_bps"]),
    }


def _link_series(name: str, series: dict[str, list[Any]]) -> list[dict[str, Any]]:
    rows = []
    prev = {"tx_pkts": 0.0, "tx_bytes": 0.0, "dropped_pkts": 0.0}
    for k, t in enumerate(series.get("t_s", ())):
        row: dict[str, Any] = {"link": name, "t_s": float(t), "max_queue_pkts": NAN}
        for key in prev:
            now = _num(series[key][k])
            row[key], prev[key] = now - prev[key], now
        row["queue_pkts"] = _num(series["queue_pkts"][k])
        row["queue_bytes"] = _num(series["queue_bytes"][k]) if "queue_bytes" in series else NAN
        rows.append(row)
    return rows


def _columns(rows: list[dict[str, Any]], order: list[str]) -> dict[str, list[Any]]:
    return {c: [r.get(c, NAN) for r in rows] for c in order}


def build(sim_plan: Plan, raw: dict[str, Any], *, backend: str, facts: dict[str, Any]) -> Any:
    """A RunResult from the simulator's plan ``sim_plan`` (its flow and link identities, its
    tables' columns) and a peer's ``raw`` measurements; ``meta["backend"]`` is ``backend`` and
    ``meta["peer"]`` holds ``facts`` (the peer's version, what it was given)."""
    from ccarena.api import RunResult

    meta = dict(sim_plan.meta)
    meta["backend"] = backend
    meta["peer"] = facts
    by_flow = {int(f["id"]): f for f in raw["flows"]}
    by_link = {str(x["name"]): x for x in raw["links"]}
    plan_flows = sim_plan.main_flows.to_dict("records")
    plan_links = [row for row in sim_plan.links.to_dict("records") if row["link"] in by_link]
    flow_rows = [_flow_row(f, by_flow[int(f["flow_id"])], meta) for f in plan_flows]
    flow_series = [r for f in plan_flows for r in _flow_series(int(f["flow_id"]), by_flow[int(f["flow_id"])]["series"])]
    link_rows = [_link_row(x, by_link[x["link"]], meta) for x in plan_links]
    link_series = [r for x in plan_links for r in _link_series(x["link"], by_link[x["link"]]["series"])]
    return RunResult({
        "meta": meta,
        "engine": {"events": NAN, "wall_s": float(raw["wall_s"]), "packets_forwarded": sum(x["tx_pkts"] for x in link_rows),
                   "peak_packets": NAN, "warmup_wall_s": NAN},
        "flows": _columns(flow_rows, sim_plan.columns["flows"]),
        "flow_series": _columns(flow_series, sim_plan.columns["flow_series"]),
        "links": _columns(link_rows, sim_plan.columns["links"]),
        "link_series": _columns(link_series, sim_plan.columns["link_series"]),
        # No peer reports per-packet delays: the table has its columns and no rows.
        "delay_quantiles": _columns([], sim_plan.columns["delay_quantiles"]),
    })
