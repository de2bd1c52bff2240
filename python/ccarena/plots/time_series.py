"""Time-series plots of a run: results in, figures out.

The figures are :class:`matplotlib.figure.Figure` objects made without pyplot, so drawing one
neither needs nor changes a matplotlib backend (a notebook keeps its own) and is thread-safe.

Each function takes a :class:`~ccarena.RunResult` (or a mapping ``{label: RunResult}`` to overlay
several runs, e.g. variants of one scenario) and returns the Figure; with ``path`` it also writes a
PNG there and closes the figure. Lines are labelled ``"<group> #<flow id>"``.

``path`` names the PNG file. A path that is an existing directory, or ends in ``/``, means the
plot's own file name inside that directory (created if needed): ``plot_goodput(res, "out")``
writes ``out/goodput.png``, never ``out.png`` beside it. The names are ``goodput.png``,
``cwnd.png`` (also for :func:`plot_cwnd_grid` and :func:`plot_cwnd_runs`), ``queue.png`` and,
for :func:`plot_sweep`, ``<metric>.png``. A path that cannot be written raises
:class:`~ccarena.OutputError` naming it; an argument of the wrong kind raises
:class:`~ccarena.ArgumentError`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ccarena.errors import ArgumentError

if TYPE_CHECKING:
    from ccarena.api import RunResult

__all__ = ["plot_goodput", "plot_cwnd", "plot_cwnd_grid", "plot_cwnd_runs", "plot_queue", "plot_sweep", "goodput_series"]

_MAX_LEGEND = 24


def _runs(result: Any, what: str = "result") -> list[tuple[str, RunResult]]:
    """``result`` as (label, run) pairs, or :class:`ArgumentError` if it is not a run or a
    non-empty mapping of runs."""
    from ccarena.api import RunResult

    if isinstance(result, Mapping):
        runs = [(str(k), v) for k, v in result.items()]
        if not runs:
            raise ArgumentError(f"{what}: the mapping of runs is empty")
    else:
        runs = [("", result)]
    for label, run in runs:
        if not isinstance(run, RunResult):
            where = f"{what}[{label!r}]" if label else what
            raise ArgumentError(f"{where}: expected a RunResult (or a mapping of them), not {type(run).__name__}")
    return runs


#: Bound on counts such as ``max_points`` and ``ncols``: NumPy and matplotlib overflow on huge ones.
_MAX_COUNT = 1_000_000


def _positive_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= _MAX_COUNT:
        raise ArgumentError(f"{name}: expected a whole number from 1 to {_MAX_COUNT}, not {value!r:.40}")
    return value


def _label(prefix: str, text: str) -> str:
    return f"{prefix}: {text}" if prefix else text


def _flow_labels(result: RunResult) -> dict[int, str]:
    return {int(r["id"]): f"{r['group']} #{int(r['id'])}" for r in result.flows[["id", "group"]].to_dict("records")}


def goodput_series(result: RunResult, bin_samples: int = 1) -> pd.DataFrame:
    """Per flow and interval: ``goodput_bps = goodput_bytes · 8 / interval length``.

    The interval length is the gap to the previous sample of that flow (the first interval is
    ``sample_interval_s`` long; the last may be shorter if the duration is not a multiple of it).
    With ``bin_samples = k > 1``, k consecutive intervals are merged first (bytes summed, lengths
    summed), which smooths the curve. Returns columns ``flow``, ``t_s`` (end of the interval),
    ``goodput_bps``.
    """
    from ccarena.api import RunResult

    if not isinstance(result, RunResult):
        raise ArgumentError(f"result: expected a RunResult, not {type(result).__name__}")
    _positive_int(bin_samples, "bin_samples")
    fs = result.flow_series[["flow", "t_s", "goodput_bytes"]].sort_values(["flow", "t_s"], kind="stable")
    fs = fs.assign(dt=fs.groupby("flow")["t_s"].diff().fillna(float(result.meta.get("sample_interval_s", math.nan))))
    if bin_samples > 1:
        fs = fs.assign(bin=fs.groupby("flow").cumcount() // bin_samples)
        fs = fs.groupby(["flow", "bin"], sort=True).agg(t_s=("t_s", "last"), goodput_bytes=("goodput_bytes", "sum"),
                                                         dt=("dt", "sum")).reset_index()
    dt = fs["dt"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(dt > 0, fs["goodput_bytes"].to_numpy(dtype=float) * 8.0 / np.where(dt > 0, dt, 1.0), np.nan)
    return pd.DataFrame({"flow": fs["flow"].to_numpy(), "t_s": fs["t_s"].to_numpy(dtype=float), "goodput_bps": rate})


#: Line styles of overlaid runs (e.g. backends): the same flow keeps its colour in every run.
_RUN_STYLES = ("-", "--", ":", "-.")


def _style(run: int, runs: int, flow_rank: int) -> dict[str, Any]:
    """Colour by flow and, with several runs overlaid, line style by run."""
    if runs == 1:
        return {}
    return {"color": f"C{flow_rank % 10}", "linestyle": _RUN_STYLES[run % len(_RUN_STYLES)]}


def _bin_samples(result: RunResult, max_points: int) -> int:
    per_flow = result.flow_series.groupby("flow").size()
    n = int(per_flow.max()) if len(per_flow) else 0
    return max(1, math.ceil(n / max_points))


def _new_axes(title: str, ylabel: str) -> tuple[Figure, Any]:
    fig = Figure(figsize=(8, 4.2), dpi=100, layout="constrained")
    ax = fig.subplots()
    ax.set_title(title)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    return fig, ax


def _finish(fig: Figure, ax: Any, path: str | Path | None, name: str, *, time_axis: bool = True) -> Figure:
    handles, labels = ax.get_legend_handles_labels()
    if 0 < len(labels) <= _MAX_LEGEND:
        # Outside the axes, on the right: dense curves leave no free corner inside.
        ax.legend(
            fontsize="small",
            ncol=max(1, math.ceil(len(labels) / 12)),
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
            borderaxespad=0.0,
            frameon=False,
        )
    elif len(labels) > _MAX_LEGEND:
        ax.text(0.99, 0.01, f"{len(labels)} lines", transform=ax.transAxes, ha="right", va="bottom", fontsize="small")
    if time_axis:
        ax.set_xlim(left=0)
    return _save(fig, path, name)


def _save(fig: Figure, path: str | Path | None, name: str) -> Figure:
    """Write ``fig`` to ``path`` (``name`` inside it if it is a directory, see the module notes)."""
    if path is not None:
        from ccarena.api import write_figure

        write_figure(fig, path, name)
    return fig


def _check_path(path: Any, name: str) -> None:
    """Refuse a path that cannot be written before drawing."""
    if path is not None:
        from ccarena.api import check_output_file

        check_output_file(path, name, "plot file")


def plot_goodput(
    result: RunResult | Mapping[str, RunResult], path: str | Path | None = None, *, max_points: int = 200
) -> Figure:
    """Goodput of each flow over time, in Mbit/s.

    Runs with more than ``max_points`` samples per flow are averaged over bins of several sample
    intervals (the bin length is given in the axis label)."""
    runs = _runs(result)
    _positive_int(max_points, "max_points")
    _check_path(path, "goodput.png")
    k = max(_bin_samples(r, max_points) for _, r in runs)
    interval = float(runs[0][1].meta.get("sample_interval_s", math.nan))
    ylabel = "goodput (Mbit/s)" if k == 1 else f"goodput (Mbit/s, {k * interval:g} s averages)"
    fig, ax = _new_axes(f"Goodput per flow — {_title(runs)}", ylabel)
    for run, (prefix, r) in enumerate(runs):
        labels = _flow_labels(r)
        gs = goodput_series(r, bin_samples=k)
        for rank, (fid, g) in enumerate(gs.groupby("flow", sort=True)):
            ax.plot(g["t_s"], g["goodput_bps"] / 1e6, lw=1.2, label=_label(prefix, labels.get(int(fid), f"#{fid}")),
                    **_style(run, len(runs), rank))
    ax.set_ylim(bottom=0)
    return _finish(fig, ax, path, "goodput.png")


def plot_cwnd(result: RunResult | Mapping[str, RunResult], path: str | Path | None = None) -> Figure:
    """Congestion window of each window-based flow over time, in segments (packets)."""
    runs = _runs(result)
    _check_path(path, "cwnd.png")
    fig, ax = _new_axes(f"Congestion window — {_title(runs)}", "cwnd (segments)")
    for run, (prefix, r) in enumerate(runs):
        labels = _flow_labels(r)
        fs = r.flow_series
        for rank, (fid, g) in enumerate(fs.groupby("flow", sort=True)):
            cwnd = g["cwnd_pkts"].to_numpy(dtype=float)
            if np.all(np.isnan(cwnd)):
                continue  # UDP and rate-based flows have no window
            ax.step(g["t_s"], cwnd, where="post", lw=1.2, label=_label(prefix, labels.get(int(fid), f"#{fid}")),
                    **_style(run, len(runs), rank))
    ax.set_ylim(bottom=0)
    return _finish(fig, ax, path, "cwnd.png")


#: Above this many overlaid runs, the report draws the window as a grid of small panels.
GRID_ABOVE = 4


def plot_cwnd_grid(results: Mapping[str, RunResult], path: str | Path | None = None, *, ncols: int = 2) -> Figure:
    """One panel per run (e.g. per algorithm), all with the same axes, so that window dynamics
    can be compared shape by shape: small multiples instead of an overlay of many lines."""
    if not isinstance(results, Mapping):
        raise ArgumentError(f"results: expected a mapping of labels to RunResults, not {type(results).__name__}")
    runs = _runs(results, "results")
    _positive_int(ncols, "ncols")
    _check_path(path, "cwnd.png")
    nrows = math.ceil(len(runs) / ncols)
    fig = Figure(figsize=(10, 1.9 * nrows + 0.6))
    axes = fig.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False)
    for ax, (label, r) in zip(axes.flat, runs):
        for _fid, g in r.flow_series.groupby("flow", sort=True):
            cwnd = g["cwnd_pkts"].to_numpy(dtype=float)
            if not np.all(np.isnan(cwnd)):
                ax.step(g["t_s"], cwnd, where="post", lw=1.0)
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
    fig.suptitle(f"Congestion window — {_title(runs)}")
    fig.tight_layout()
    return _save(fig, path, "cwnd.png")


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
    runs = _runs(result)
    if link is not None and not isinstance(link, str):
        raise ArgumentError(f"link: expected a link name (a string), not {type(link).__name__}")
    _check_path(path, "queue.png")
    names = {link or r.bottleneck() for _, r in runs}
    shown = ", ".join(sorted(n for n in names if n)) or "no link"
    fig, ax = _new_axes(f"Queue length at {shown} — {_title(runs)}", "queue (packets)")
    limits: set[float] = set()
    highest = 0.0
    for prefix, r in runs:
        name = link or r.bottleneck()
        if name is None:
            continue
        ls = r.link_series[r.link_series["link"].astype(str) == name]
        if ls.empty:
            raise ArgumentError(f"link: no link named {name!r}; links are {', '.join(map(str, r.links['name']))}")
        ax.plot(ls["t_s"], ls["queue_pkts"], lw=1.2, label=_label(prefix, name) if len(runs) > 1 else None)
        highest = max(highest, float(np.nanmax(ls["queue_pkts"].to_numpy(dtype=float), initial=0.0)))
        row = r.links[r.links["name"].astype(str) == name]
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
    return _finish(fig, ax, path, "queue.png")


def _title(runs: list[tuple[str, RunResult]]) -> str:
    names = list(dict.fromkeys(r.name for _, r in runs))
    return ", ".join(names)


def plot_sweep(
    summary: pd.DataFrame,
    x: str,
    metric: str,
    lines: Sequence[str] = (),
    path: str | Path | None = None,
    *,
    ylabel: str | None = None,
) -> Figure:
    """A campaign metric against a swept key: one line per combination of the ``lines`` keys,
    the mean at each value of ``x`` with its confidence interval as error bars.

    ``summary`` is :meth:`ccarena.ExperimentResult.summary` (columns ``metric``, ``mean``,
    ``ci_low``, ``ci_high`` and the keys). Values of ``x`` are placed in the order they first
    appear (the grid's order), so units such as ``"10Mbps"`` need no parsing.
    """
    _check_sweep_arguments(summary, x, metric, lines)
    _check_path(path, f"{metric}.png")
    rows = summary[summary["metric"] == metric]
    order = list(dict.fromkeys(rows[x].tolist()))
    pos = {v: i for i, v in enumerate(order)}
    fig = Figure(figsize=(7, 3.8), dpi=100, layout="constrained")
    ax = fig.subplots()
    ax.set_title(f"{metric} against {x}")
    ax.set_xlabel(x)
    ax.set_ylabel(ylabel or metric)
    ax.grid(True, alpha=0.3)
    groups = rows.groupby(list(lines), sort=False, dropna=False) if lines else [((), rows)]
    for label, part in groups:
        xs = np.array([pos[v] for v in part[x]], dtype=float)
        mean = part["mean"].to_numpy(dtype=float)
        low = np.nan_to_num(mean - part["ci_low"].to_numpy(dtype=float))
        high = np.nan_to_num(part["ci_high"].to_numpy(dtype=float) - mean)
        name = ", ".join(f"{v}" for v in (label if isinstance(label, tuple) else (label,))) or metric
        ax.errorbar(xs, mean, yerr=[low, high], marker="o", capsize=3, label=name)
    ax.set_xticks(range(len(order)), [str(v) for v in order])
    ax.set_xlim(-0.5, len(order) - 0.5)
    return _finish(fig, ax, path, f"{metric}.png", time_axis=False)


def _check_sweep_arguments(summary: Any, x: Any, metric: Any, lines: Any) -> None:
    if not isinstance(summary, pd.DataFrame):
        raise ArgumentError(f"summary: expected the DataFrame of ExperimentResult.summary(), not {type(summary).__name__}")
    if not isinstance(metric, str):
        raise ArgumentError(f"metric: expected a metric name (a string), not {type(metric).__name__}")
    if not isinstance(x, str):
        raise ArgumentError(f"x: expected the name of a swept key (a string), not {type(x).__name__}")
    if isinstance(lines, (str, bytes)) or not isinstance(lines, Sequence) or not all(isinstance(k, str) for k in lines):
        raise ArgumentError(f"lines: expected a list of key names (strings), not {lines!r:.40}")
    missing = [c for c in ("metric", "mean", "ci_low", "ci_high", x, *lines) if c not in summary.columns]
    if missing:
        raise ArgumentError(f"summary: no column {missing[0]!r}; it has {', '.join(map(str, summary.columns))}")
    if not (summary["metric"] == metric).any():
        known = ", ".join(sorted(map(str, summary["metric"].unique())))
        raise ArgumentError(f"metric: no rows for {metric!r}; the summary has {known or 'no metrics'}")
