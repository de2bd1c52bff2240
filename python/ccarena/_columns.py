"""A run's result columns without pandas: the derived per-flow and per-link metrics and the
JSON summary (docs/results.md), computed from the plain columns the core returns.

`ccarena run --json` goes through here alone, so the command never imports pandas (it would
double the process's start-up time and triple its memory, BENCHMARKS.md "B3");
:class:`ccarena.RunResult` builds its DataFrames from the same columns when they are asked for.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ccarena import metrics

Columns = dict[str, Any]

#: Renamed result columns, old name → new, per table (docs/results.md, "Renamed columns").
#: Until ALIASES_REMOVED_IN, reading an old name from a result's DataFrame still works
#: and warns (:mod:`ccarena._aliases`), and the JSON summary carries both names (JSON cannot warn).
RENAMED = {
    "flows": {"id": "flow_id", "mean_delay_s": "delay_mean_s"},
    "flow_series": {"flow": "flow_id"},
    "links": {"name": "link"},
}
#: The release that drops the old names: the next minor one.
ALIASES_REMOVED_IN = "0.2.0"

#: Keys of each flow in the JSON summary (docs/results.md, "The JSON summary"), in order; the
#: old names of ``RENAMED`` follow them until ALIASES_REMOVED_IN.
FLOW_SUMMARY_KEYS = (
    "flow_id",
    "group",
    "protocol",
    "cc",
    "stack",
    "start_s",
    "rtt_base_s",
    "sent_pkts",
    "delivered_pkts",
    "dropped_pkts",
    "retransmitted_pkts",
    "throughput_bps",
    "goodput_bps",
    "delivery_ratio",
    "delay_mean_s",
    "completion_s",
)
#: Keys of each link in the JSON summary.
LINK_SUMMARY_KEYS = ("link", "utilisation", "dropped_pkts", "mean_queue_pkts")
#: Keys of each background group in the JSON summary (present only with ``[[background]]``).
BACKGROUND_SUMMARY_KEYS = ("group", "protocol", "app", "flows", "throughput_bps", "goodput_bps", "dropped_pkts", "retransmitted_pkts")


def _floats(values: Sequence[Any]) -> np.ndarray:
    return np.asarray(values, dtype=float)


def flow_columns(raw: Mapping[str, Sequence[Any]], duration_s: float) -> Columns:
    """The core's flow columns plus ``throughput_bps``, ``goodput_bps`` and ``delivery_ratio``
    (docs/results.md)."""
    cols: Columns = dict(raw)
    if "meas_start_s" not in cols:
        for col in ("throughput_bps", "goodput_bps", "delivery_ratio"):
            cols[col] = np.zeros(0)
        return cols
    active_s = duration_s - _floats(cols["meas_start_s"])
    cols["throughput_bps"] = np.atleast_1d(metrics.throughput_bps(_floats(cols["meas_sent_bytes"]), active_s))
    cols["goodput_bps"] = np.atleast_1d(metrics.goodput_bps(_floats(cols["meas_goodput_bytes"]), active_s))
    cols["delivery_ratio"] = np.atleast_1d(metrics.delivery_ratio(_floats(cols["delivered_pkts"]), _floats(cols["sent_pkts"])))
    return cols


def link_columns(raw: Mapping[str, Sequence[Any]]) -> Columns:
    """The core's link columns plus ``utilisation``."""
    cols: Columns = dict(raw)
    if "meas_tx_bytes" not in cols:
        cols["utilisation"] = np.zeros(0)
        return cols
    # What the link could send in the window; results stored before the column was added have
    # fixed links only, whose rate it is.
    capacity = cols["meas_rate_bps"] if "meas_rate_bps" in cols else cols["rate_bps"]
    cols["utilisation"] = np.atleast_1d(
        metrics.utilisation(_floats(cols["meas_tx_bytes"]), _floats(capacity), _floats(cols["meas_duration_s"]))
    )
    return cols


def jsonable(value: Any) -> Any:
    """numpy scalars → Python; NaN → None (JSON has no NaN)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _rows(cols: Columns, keys: Sequence[str], where: Sequence[int], renamed: Mapping[str, str]) -> list[dict[str, Any]]:
    """Rows ``where`` with ``keys``, then each ``renamed`` old key holding its new key's value."""
    rows = [{k: jsonable(cols[k][i]) if k in cols else None for k in keys} for i in where]
    for row in rows:
        row.update({old: row[new] for old, new in renamed.items()})
    return rows


def records(cols: Columns, where: Iterable[int]) -> list[dict[str, Any]]:
    """Rows ``where`` as dicts of every column: the text tables' input (``_format``), without
    pandas."""
    return [{k: v[i] for k, v in cols.items()} for i in where]


def main_rows(flows: Columns) -> list[int]:
    """Indices of the scenario's ``[[flows]]`` (not ``[[background]]`` sources)."""
    roles = flows.get("role")
    n = len(flows.get("flow_id", ()))
    return [i for i in range(n) if roles is None or roles[i] != "background"]


def jain(flows: Columns, over: str) -> float:
    """Jain's index over each main flow's goodput, or over each group's total; flows without a
    measured window (goodput NaN) are left out."""
    goodput = flows["goodput_bps"]
    measured = [i for i in main_rows(flows) if math.isfinite(float(goodput[i]))]
    if over == "flow":
        return metrics.jain_index(np.array([goodput[i] for i in measured], dtype=float))
    groups: dict[str, list[float]] = {}
    for i in measured:
        groups.setdefault(str(flows["group"][i]), []).append(float(goodput[i]))
    return metrics.jain_index(np.array([np.sum(v) for v in groups.values()], dtype=float))


def background_rows(flows: Columns, meta: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per background group, in order of appearance: its sources, the aggregate
    ``throughput_bps`` and ``goodput_bps`` over the measured window ``duration − warmup``, its
    drops and retransmissions."""
    roles = flows.get("role")
    if roles is None:
        return []
    acc: dict[str, dict[str, Any]] = {}
    for i, role in enumerate(roles):
        if role != "background":
            continue
        g = acc.setdefault(
            str(flows["group"][i]),
            {"protocol": flows["protocol"][i], "app": flows["app"][i], "flows": 0, "sent": 0, "good": 0, "dropped_pkts": 0, "retransmitted_pkts": 0},
        )
        g["flows"] += 1
        g["sent"] += int(flows["meas_sent_bytes"][i])
        g["good"] += int(flows["meas_goodput_bytes"][i])
        g["dropped_pkts"] += int(flows["dropped_pkts"][i])
        g["retransmitted_pkts"] += int(flows["retransmitted_pkts"][i])
    window = float(meta["duration_s"]) - float(meta.get("warmup_s", 0.0))
    rows = []
    for name, g in acc.items():
        rows.append(
            {
                "group": name,
                "protocol": g["protocol"],
                "app": g["app"],
                "flows": g["flows"],
                "throughput_bps": jsonable(float(metrics.throughput_bps(float(g["sent"]), window))),
                "goodput_bps": jsonable(float(metrics.goodput_bps(float(g["good"]), window))),
                "dropped_pkts": g["dropped_pkts"],
                "retransmitted_pkts": g["retransmitted_pkts"],
            }
        )
    return rows


def summary(flows: Columns, links: Columns, meta: Mapping[str, Any], engine: Mapping[str, Any], jain_over: str = "flow") -> dict[str, Any]:
    """The JSON summary (docs/results.md): name, seed, duration_s, flows,
    links, jain, engine (and background). NaN values are ``None``."""
    out: dict[str, Any] = {
        "name": jsonable(meta.get("name")),
        "seed": jsonable(meta.get("seed")),
        "duration_s": jsonable(float(meta["duration_s"])),
        "flows": _rows(flows, FLOW_SUMMARY_KEYS, main_rows(flows), RENAMED["flows"]),
        "links": _rows(links, LINK_SUMMARY_KEYS, range(len(links.get("link", ()))), RENAMED["links"]),
        "jain": jsonable(jain(flows, jain_over)),
        "engine": {"events": jsonable(engine.get("events")), "wall_s": jsonable(engine.get("wall_s"))},
    }
    bg = background_rows(flows, meta)
    if bg:
        out["background"] = bg
    return out
