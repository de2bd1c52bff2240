"""The distribution of per-packet one-way delays: a CDF per flow or per algorithm, drawn from
the run's ``delay_quantiles`` table (each main flow's delay histogram read at q = 0, 0.005, …, 1)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ccarena import _format
from ccarena.errors import ArgumentError
from ccarena.plots import _common as c

if TYPE_CHECKING:
    from ccarena.api import RunResult


def _quantiles(result: RunResult) -> pd.DataFrame:
    """The run's quantiles with finite delays, or :class:`ArgumentError` when it has none."""
    dq = result.delay_quantiles
    dq = dq[np.isfinite(dq["delay_s"].to_numpy(dtype=float))] if len(dq) else dq
    if dq.empty:
        backend = result.meta.get("backend")
        why = f"the {backend} backend does not measure one-way delays" if backend else "no main flow delivered a packet after the warm-up"
        raise ArgumentError(f"result: {result.name!r} has no delay distribution (its delay_quantiles table is empty: {why})")
    return dq


def pooled_cdf(quantiles: list[tuple[np.ndarray, np.ndarray]], weights: list[float]) -> tuple[np.ndarray, np.ndarray]:
    """The CDF of the packets of several flows together, from each flow's quantiles ``(q, delay)``:
    ``F(x) = Σ wᵢ Fᵢ(x) / Σ wᵢ`` with ``wᵢ`` the flow's packet count and ``Fᵢ(x)`` the largest
    level q whose quantile is at most x (the quantile function inverted, to the levels'
    resolution). Evaluated at every flow's quantiles; returns ``(delays, F)``."""
    xs = np.unique(np.concatenate([d for _, d in quantiles]))
    total = np.zeros_like(xs)
    for (q, d), w in zip(quantiles, weights):
        k = np.searchsorted(d, xs, side="right") - 1
        total += w * np.where(k >= 0, q[np.clip(k, 0, None)], 0.0)
    return xs, total / sum(weights)


def plot_delay_cdf(
    result: RunResult | Mapping[str, RunResult],
    path: str | Path | None = None,
    *,
    per: str = "flow",
    log: bool = False,
) -> Figure:
    """The CDF of one-way delay (sender to receiver, per data packet delivered after the
    warm-up), in milliseconds: one line per main flow (``per="flow"``: the points ``(delay_s, q)``
    of ``RunResult.delay_quantiles``) or per algorithm (``per="algorithm"``: its flows' packets
    together, :func:`pooled_cdf`). ``log=True`` puts the delays on a log scale. A mapping
    ``{label: RunResult}`` overlays runs, one line style each."""
    pairs = c.runs(result)
    per = c.choice(per, "per", ("flow", "algorithm"))
    if not isinstance(log, bool):
        raise ArgumentError(f"log: expected True or False, not {log!r:.40}")
    c.check_path(path, "delay_cdf.png")
    fig, ax = c.new_axes(f"One-way delay — {c.title(pairs)}", "fraction of packets", "one-way delay (ms)")
    for run, (prefix, r) in enumerate(pairs):
        dq = _quantiles(r)
        if per == "flow":
            labels = c.flow_labels(r)
            for fid, part in dq.groupby("flow_id", sort=True):
                ax.plot(part["delay_s"].to_numpy(dtype=float) * 1e3, part["q"].to_numpy(dtype=float), lw=1.2,
                        label=c.label(prefix, labels.get(int(fid), f"#{fid}")), **c.flow_style(int(fid), run, len(pairs)))
            continue
        flows = r.main_flows.set_index("flow_id")
        names = c.algorithm(flows)
        styles = c.algorithm_styles(names.tolist())
        for name in sorted(set(names)):
            ids = [fid for fid in flows.index[names == name] if fid in set(dq["flow_id"])]
            if not ids:
                continue
            parts = [dq[dq["flow_id"] == fid] for fid in ids]
            xs, cdf = pooled_cdf([(p["q"].to_numpy(dtype=float), p["delay_s"].to_numpy(dtype=float)) for p in parts],
                                 [float(flows.loc[fid, "delay_count"]) for fid in ids])
            style = {"color": styles[name]["color"]}
            if len(pairs) > 1:
                style["linestyle"] = c.RUN_STYLES[run % len(c.RUN_STYLES)]
            ax.step(xs * 1e3, cdf, where="post", lw=1.4, label=c.label(prefix, f"{name} ({_format.counted(len(ids), 'flow')})"), **style)
    if log:
        ax.set_xscale("log")
    ax.set_ylim(0, 1.0)
    return c.finish(fig, ax, path, "delay_cdf.png", time_axis=False)
