"""Time series of a run: goodput, congestion window and queue length over time."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ccarena import _aliases
from ccarena.errors import ArgumentError
from ccarena.plots import _common as c

if TYPE_CHECKING:
    from ccarena.api import RunResult


def goodput_series(result: RunResult, bin_samples: int = 1) -> pd.DataFrame:
    """Per flow and interval: ``goodput_bps = goodput_bytes · 8 / interval length``.

    The interval length is the gap to the previous sample of that flow (the first interval is
    ``sample_interval_s`` long; the last may be shorter if the duration is not a multiple of it).
    With ``bin_samples = k > 1``, k consecutive intervals are merged first (bytes summed, lengths
    summed), which smooths the curve. Returns columns ``flow_id``, ``t_s`` (end of the interval),
    ``goodput_bps``.
    """
    from ccarena.api import RunResult

    if not isinstance(result, RunResult):
        raise ArgumentError(f"result: expected a RunResult, not {type(result).__name__}")
    c.positive_int(bin_samples, "bin_samples")
    fs = result.flow_series[["flow_id", "t_s", "goodput_bytes"]].sort_values(["flow_id", "t_s"], kind="stable")
    fs = fs.assign(dt=fs.groupby("flow_id")["t_s"].diff().fillna(float(result.meta.get("sample_interval_s", math.nan))))
    if bin_samples > 1:
        fs = fs.assign(bin=fs.groupby("flow_id").cumcount() // bin_samples)
        fs = fs.groupby(["flow_id", "bin"], sort=True).agg(t_s=("t_s", "last"), goodput_bytes=("goodput_bytes", "sum"),
                                                         dt=("dt", "sum")).reset_index()
    dt = fs["dt"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(dt > 0, fs["goodput_bytes"].to_numpy(dtype=float) * 8.0 / np.where(dt > 0, dt, 1.0), np.nan)
    table = pd.DataFrame({"flow_id": fs["flow_id"].to_numpy(), "t_s": fs["t_s"].to_numpy(dtype=float), "goodput_bps": rate})
    return _aliases.aliased(table, "goodput_series")


def _bin_samples(result: RunResult, max_points: int) -> int:
    per_flow = result.flow_series.groupby("flow_id").size()
    n = int(per_flow.max()) if len(per_flow) else 0
    return max(1, math.ceil(n / max_points))


def plot_goodput(
    result: RunResult | Mapping[str, RunResult], path: str | Path | None = None, *, max_points: int = 200
) -> Figure:
    """Goodput of each flow over time, in the unit of rate its largest value reads best in
    (kbit/s, Mbit/s or Gbit/s, named in the axis label).

    Runs with more than ``max_points`` samples per flow are averaged over bins of several sample
    intervals (the bin length is given in the axis label)."""
    runs = c.runs(result)
    c.positive_int(max_points, "max_points")
    c.check_path(path, "goodput.png")
    k = max(_bin_samples(r, max_points) for _, r in runs)
    interval = float(runs[0][1].meta.get("sample_interval_s", math.nan))
    series = [(prefix, r, goodput_series(r, bin_samples=k)) for prefix, r in runs]
    scale, unit = c.rate_unit(np.concatenate([gs["goodput_bps"].to_numpy(dtype=float) for _, _, gs in series]))
    ylabel = f"goodput ({unit})" if k == 1 else f"goodput ({unit}, {k * interval:g} s averages)"
    fig, ax = c.new_axes(f"Goodput per flow — {c.title(runs)}", ylabel)
    for run, (prefix, r, gs) in enumerate(series):
        labels = c.flow_labels(r)
        for fid, g in gs.groupby("flow_id", sort=True):
            ax.plot(g["t_s"], g["goodput_bps"] / scale, lw=1.2, label=c.label(prefix, labels.get(int(fid), f"#{fid}")),
                    **c.flow_style(int(fid), run, len(runs)))
    ax.set_ylim(bottom=0)
    return c.finish(fig, ax, path, "goodput.png")


def plot_cwnd(result: RunResult | Mapping[str, RunResult], path: str | Path | None = None) -> Figure:
    """Congestion window of each window-based flow over time, in segments (packets)."""
    runs = c.runs(result)
    c.check_path(path, "cwnd.png")
    fig, ax = c.new_axes(f"Congestion window — {c.title(runs)}", "cwnd (segments)")
    for run, (prefix, r) in enumerate(runs):
        labels = c.flow_labels(r)
        for fid, g in r.flow_series.groupby("flow_id", sort=True):
            cwnd = g["cwnd_pkts"].to_numpy(dtype=float)
            if np.all(np.isnan(cwnd)):
                continue  # UDP and rate-based flows have no window
            ax.step(g["t_s"], cwnd, where="post", lw=1.2, label=c.label(prefix, labels.get(int(fid), f"#{fid}")),
                    **c.flow_style(int(fid), run, len(runs)))
    ax.set_ylim(bottom=0)
    return c.finish(fig, ax, path, "cwnd.png")


#: Above this many overlaid runs, the report draws the window as a grid of small panels.
GRID_ABOVE = 4


def plot_cwnd_grid(results: Mapping[str, RunResult], path: str | Path | None = None, *, ncols: int = 2) -> Figure:
    """One panel per run (e.g. per algorithm), all with the same axes, so that window dynamics
    can be compared shape by shape: small multiples instead of an overlay of many lines."""
    if not isinstance(results, Mapping):
        raise ArgumentError(f"results: expected a mapping of labels to RunResults, not {type(results).__name__}")
    runs = c.runs(results, "results")
    c.positive_int(ncols, "ncols")
    c.check_path(path, "cwnd.png")
    nrows = math.ceil(len(runs) / ncols)
    fig = Figure(figsize=(10, 1.9 * nrows + 0.6))
    axes = fig.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False)
    for ax, (label, r) in zip(axes.flat, runs):
        for fid, g in r.flow_series.groupby("flow_id", sort=True):
            cwnd = g["cwnd_pkts"].to_numpy(dtype=float)
            if not np.all(np.isnan(cwnd)):
                ax.step(g["t_s"], cwnd, where="post", lw=1.0, **c.flow_style(int(fid), 0, 1))
        ax.set_title(label, fontsize="medium", loc="left")
        ax.grid(True, alpha=0.3)
        ax.set_ylim(bottom=0)
        ax.set_xlim(left=0)
    for ax in axes.flat[len(runs):]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel("cwnd (segments)")
    for ax in axes[-1, :]:
        ax.set_xlabel("time (s)")
    fig.suptitle(f"Congestion window — {c.title(runs)}")
    fig.tight_layout()
    return c.save(fig, path, "cwnd.png")


def plot_cwnd_runs(results: Mapping[str, RunResult], path: str | Path | None = None) -> Figure:
    """The windows of several runs (e.g. one per algorithm): overlaid up to :data:`GRID_ABOVE`
    runs, as a grid of panels (:func:`plot_cwnd_grid`) above that."""
    if not isinstance(results, Mapping):
        raise ArgumentError(f"results: expected a mapping of labels to RunResults, not {type(results).__name__}")
    return plot_cwnd_grid(results, path) if len(results) > GRID_ABOVE else plot_cwnd(results, path)


def plot_queue(
    result: RunResult | Mapping[str, RunResult], path: str | Path | None = None, link: str | None = None
) -> Figure:
    """Time-averaged queue length of one link direction per interval, in packets.

    ``link`` defaults to ``"bottleneck"`` on a dumbbell, else the most utilised link. The queue
    limit is drawn as a dashed line when it is given in packets.
    """
    runs = c.runs(result)
    if link is not None and not isinstance(link, str):
        raise ArgumentError(f"link: expected a link name (a string), not {type(link).__name__}")
    c.check_path(path, "queue.png")
    names = {link or r.bottleneck() for _, r in runs}
    shown = ", ".join(sorted(n for n in names if n)) or "no link"
    fig, ax = c.new_axes(f"Queue length at {shown} — {c.title(runs)}", "queue (packets)")
    limits: set[float] = set()
    highest = 0.0
    for prefix, r in runs:
        name = link or r.bottleneck()
        if name is None:
            continue
        ls = r.link_series[r.link_series["link"].astype(str) == name]
        if ls.empty:
            raise ArgumentError(f"link: no link named {name!r}; links are {', '.join(map(str, r.links['link']))}")
        ax.plot(ls["t_s"], ls["queue_pkts"], lw=1.2, label=c.label(prefix, name) if len(runs) > 1 else None)
        highest = max(highest, float(np.nanmax(ls["queue_pkts"].to_numpy(dtype=float), initial=0.0)))
        row = r.links[r.links["link"].astype(str) == name]
        if not row.empty and "queue" in row:
            m = re.search(r"(\d+)\s*pkt", str(row["queue"].iloc[0]))
            if m:
                limits.add(float(m.group(1)))
    for lim in sorted(limits):
        if highest >= 0.25 * lim:
            ax.axhline(lim, ls="--", lw=0.8, color="grey", label=f"limit {lim:g} pkt")
        else:  # a line far above the data would flatten it
            ax.text(0.99, 0.97, f"queue limit {lim:g} pkt (off scale)", transform=ax.transAxes,
                    ha="right", va="top", fontsize="small", color="grey")
    ax.set_ylim(bottom=0)
    return c.finish(fig, ax, path, "queue.png")
