"""What one worker does for one run: simulate, derive the run's metrics, return plain tables.

This is the only code that executes on workers (local processes or Dask); it takes and returns
picklable values and never touches the store, so a worker needs only ``pip install ccarena``.
"""

from __future__ import annotations

import math
import sys
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ccarena import metrics

#: Version of the per-run metric definitions below: part of every run's store key, so that a
#: changed definition recomputes the runs instead of mixing old and new values in one table.
METRICS_VERSION = 5

#: Width of the bins a flow's rate is averaged over for convergence: seed 003 §4.1.4 used 1 s.
CONVERGENCE_BIN_S = 1.0
#: A flow has converged when its binned rate stays at or above this fraction of its fair share.
CONVERGENCE_BAND = 0.8


@dataclass
class RunOutcome:
    """A finished run (``error is None``) or a failed one, as plain data."""

    key: str
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    metrics: dict[str, float] = field(default_factory=dict)
    engine: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


def execute(key: str, scenario: dict[str, Any], series: bool, backend: str = "sim", folders: Sequence[str] = ()) -> RunOutcome:
    """Run ``scenario`` on ``backend`` (the simulator by default; :mod:`ccarena.backends`) and
    return its tables (``flows``, ``links``, ``delay_quantiles`` and, with ``series``, the time
    series) and its per-run metrics. ``folders`` go on ``sys.path`` first: where the campaign
    found the modules of the run's ``py:module.Class`` congestion controls. Any failure, a backend's refusal too,
    becomes ``RunOutcome.error``: a campaign goes on when one of its runs fails."""
    from ccarena import backends
    from ccarena.errors import Error

    sys.path.extend(f for f in folders if f not in sys.path)
    try:
        res = backends.runner(backend)(scenario)
    except Error as exc:
        return RunOutcome(key, error=f"{type(exc).__name__}: {exc}")
    except Exception as exc:  # noqa: BLE001 - recorded with its traceback, never fatal to a campaign
        tb = traceback.format_exc(limit=3).strip().splitlines()[-1]
        return RunOutcome(key, error=f"{type(exc).__name__}: {exc} ({tb})")
    # delay_quantiles is 201 rows per main flow whatever the duration (unlike the series), so
    # every run keeps it: the campaign report's delay CDF is drawn from it.
    tables = {"flows": _plain(res.flows), "links": _plain(res.links), "delay_quantiles": res.delay_quantiles}
    if series:
        tables["flow_series"] = res.flow_series
        tables["link_series"] = res.link_series
    engine = {k: res.engine.get(k) for k in ("events", "wall_s", "packets_forwarded", "peak_packets", "warmup_wall_s")}
    return RunOutcome(key, tables=tables, metrics=run_metrics(res), engine=engine)


def _plain(df: pd.DataFrame) -> pd.DataFrame:
    """Columns Parquet stores as they are: nested values (``cc_params``) become JSON text."""
    import json

    out = df.copy()
    for col in out.columns:
        if out[col].dtype == object and out[col].map(lambda v: isinstance(v, (dict, list))).any():
            out[col] = out[col].map(lambda v: json.dumps(v, sort_keys=True) if isinstance(v, (dict, list)) else v)
    return out


def run_metrics(res: Any) -> dict[str, float]:
    """The per-run metrics of a campaign (docs/experiments.md, "Metrics"), NaN where undefined."""
    main = res.main_flows
    measured = main[main["goodput_bps"].notna()]
    good = measured["goodput_bps"].to_numpy(dtype=float)
    algos = measured["cc"].astype(str).tolist()
    bottleneck = res.bottleneck()
    link = res.links[res.links["link"] == bottleneck].iloc[0] if bottleneck is not None else None
    rate = float(link["rate_bps"]) if link is not None else math.nan
    out = {
        "goodput_bps": float(np.sum(good)) if good.size else math.nan,
        "throughput_bps": float(measured["throughput_bps"].sum()) if len(measured) else math.nan,
        "utilisation": float(link["utilisation"]) if link is not None else math.nan,
        "utilisation_main": float(np.sum(good)) / rate if rate > 0 and good.size else math.nan,
        "jain": metrics.jain_index(good),
        "jain_intra": metrics.jain_intra_protocol(good, algos),
        "jain_inter": metrics.jain_inter_protocol(good, algos),
        "dropped_pkts": float(link["dropped_pkts"]) if link is not None else math.nan,
        "mean_queue_pkts": float(link["mean_queue_pkts"]) if link is not None else math.nan,
        "retransmitted_pkts": float(main["retransmitted_pkts"].sum()),
        "delay_mean_s": float(measured["delay_mean_s"].mean()) if len(measured) else math.nan,
        "delivery_ratio": float(main["delivery_ratio"].mean()) if len(main) else math.nan,
        "stability_cov": _stability(res),
        "rtt_fairness": _rtt_fairness(measured),
        "reno_share": _reno_share(measured),
        "convergence_s": _convergence(res, rate),
    }
    return {k: float(v) for k, v in out.items()}


def _aggregate_rate(res: Any, flow_ids: Any) -> pd.Series:
    """Goodput of the given flows together per sample interval after the warm-up, bits/s."""
    s = res.flow_series
    if s.empty:
        return pd.Series(dtype=float)
    warmup = float(res.meta.get("warmup_s", 0.0))
    interval = float(res.meta["sample_interval_s"])
    s = s[s["flow_id"].isin(flow_ids) & (s["t_s"] > warmup + 1e-12)]
    return s.groupby("t_s", sort=True)["goodput_bytes"].sum() * 8.0 / interval


def _stability(res: Any) -> float:
    """Coefficient of variation of the aggregate main-flow goodput over time (seed 003 §4.1.5)."""
    return metrics.coefficient_of_variation(_aggregate_rate(res, res.main_flows["flow_id"]).to_numpy(dtype=float))


def _rtt_fairness(flows: pd.DataFrame) -> float:
    rtt = flows["rtt_base_s"].to_numpy(dtype=float)
    if flows.empty or np.nanmax(rtt) <= np.nanmin(rtt):
        return math.nan
    longs = flows[rtt == np.nanmax(rtt)]["goodput_bps"]
    shorts = flows[rtt == np.nanmin(rtt)]["goodput_bps"]
    return metrics.rtt_fairness(longs.to_numpy(dtype=float), shorts.to_numpy(dtype=float))


def _reno_share(flows: pd.DataFrame) -> float:
    """Share of the main goodput the Reno flows get, when Reno shares the link with another
    algorithm (the numerator of :func:`ccarena.metrics.reno_compatibility`). Reno is the
    algorithm the core resolved (``cc_algorithm``): ``newreno`` flows are Reno."""
    is_reno = flows["cc_algorithm"].astype(str) == "reno"
    total = float(flows["goodput_bps"].sum())
    if not is_reno.any() or is_reno.all() or total <= 0:
        return math.nan
    return float(flows.loc[is_reno, "goodput_bps"].sum()) / total


def _convergence(res: Any, capacity_bps: float) -> float:
    """Time the last main flow to start takes to reach its fair share and stay there (seed 003
    §4.1.4): the fair share is the bottleneck capacity less the goodput of the background going
    the same way, over the number of main flows; its rate is averaged over 1 s bins."""
    main = res.main_flows
    s = res.flow_series
    if main.empty or s.empty or not capacity_bps > 0:
        return math.nan
    last = main.loc[main["start_s"].idxmax()]
    bg = res.background()
    # Only background in the main flows' direction takes from their capacity (groups named
    # "background:…:rev:…" run the other way).
    forward = bg[~bg["group"].astype(str).str.contains(":rev:")] if not bg.empty else bg
    bg_rate = float(forward["goodput_bps"].sum()) if not forward.empty else 0.0
    fair = (capacity_bps - bg_rate) / len(main)
    interval = float(res.meta["sample_interval_s"])
    per_bin = max(1, int(round(CONVERGENCE_BIN_S / interval)))
    own = s[s["flow_id"] == last["flow_id"]].sort_values("t_s")
    n = len(own) // per_bin * per_bin
    if n == 0:
        return math.nan
    good = own["goodput_bytes"].to_numpy(dtype=float)[:n].reshape(-1, per_bin).sum(axis=1)
    t_end = own["t_s"].to_numpy(dtype=float)[:n].reshape(-1, per_bin)[:, -1]
    rate = good * 8.0 / (per_bin * interval)
    return metrics.convergence_time_s(t_end, rate, fair, float(last["start_s"]), CONVERGENCE_BAND)
