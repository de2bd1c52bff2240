"""Figures of the run report for runs with many flows (``ccarena demo``).

A plot of 50 flows as 50 lines is a tangle. Above :data:`MANY_LINES` lines, the report draws
one panel per run (variant), all with the same axes, and in each panel one line per flow group
(``[[flows]]`` entry): the mean over the group's flows, with a band from its lowest to its
highest flow at each time. A group of one flow is simply that flow.

More runs than :data:`ccarena.plots.GRID_ABOVE` get their bottleneck queues in panels too
(:func:`queue_panels`), and runs whose delay CDFs would overlay too many lines one panel each
with a line per flow group (:func:`group_delay_cdf`). Throughput against delay is one plot
whatever the number of flows, a point each, named by group or algorithm (:func:`throughput_delay`).

Goodput is first smoothed per flow by a moving average over several sample intervals
(:func:`goodput_window`): per interval it counts the payload delivered in order, which comes in
bursts after a repaired loss, so single intervals swing far above and below the flow's rate.

Figures are :class:`matplotlib.figure.Figure` objects made without pyplot, as in
:mod:`ccarena.plots`, and are written as PNG files by the report.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ccarena import plots
from ccarena.plots import _common

if TYPE_CHECKING:
    from ccarena.api import RunResult

__all__ = ["MANY_LINES", "lines_drawn", "goodput_window", "group_goodput", "group_cwnd", "queue_panels", "bursts_above_rate",
           "point_names", "throughput_delay", "delay_cdf_overlaid", "group_delay_cdf", "one_group_each",
           "run_delay_cdf"]

#: Above this many lines in one plot (flows summed over the runs shown together), the report
#: draws flow groups in panels instead (:func:`group_goodput`, :func:`group_cwnd`).
MANY_LINES = 8
#: A moving average of goodput spans this many sample intervals at least, and at least this
#: share of the run, so that a 900 s run at 1 s intervals is smoothed over 9 s.
_MIN_WINDOW_SAMPLES = 5
_WINDOW_SHARE = 0.01


def lines_drawn(results: Mapping[str, RunResult]) -> int:
    """How many lines a plot of every flow of ``results`` would draw."""
    return sum(len(r._main_flow_records()) for r in results.values())


def _samples_per_flow(result: RunResult) -> int:
    per_flow = result.flow_series.groupby("flow_id").size()
    return int(per_flow.max()) if len(per_flow) else 0


def goodput_window(results: Mapping[str, RunResult]) -> tuple[int, float]:
    """The moving average of :func:`group_goodput`: how many sample intervals it spans, and
    that in seconds (the same for every run, so the panels compare)."""
    samples = max(_samples_per_flow(r) for r in results.values())
    k = max(_MIN_WINDOW_SAMPLES, round(samples * _WINDOW_SHARE))
    interval = float(next(iter(results.values())).meta.get("sample_interval_s", math.nan))
    return k, k * interval


def bursts_above_rate(results: Mapping[str, RunResult]) -> tuple[float, float] | None:
    """The highest single-interval goodput of a flow and the rate of its run's bottleneck, if
    some interval exceeds that rate (a burst of in-order delivery after a repaired loss); else
    None. Intervals as :func:`ccarena.plots.goodput_series` computes them."""
    worst: tuple[float, float] | None = None
    for r in results.values():
        name = r.bottleneck()
        links = r.links[r.links["link"].astype(str) == name] if name is not None else r.links.iloc[:0]
        if links.empty or r.flow_series.empty:
            continue
        rate = float(links["rate_bps"].iloc[0])
        peak = float(np.nanmax(plots.goodput_series(r)["goodput_bps"].to_numpy(dtype=float), initial=0.0))
        if peak > rate and (worst is None or peak / rate > worst[0] / worst[1]):
            worst = (peak, rate)
    return worst


def _group_of(result: RunResult) -> dict[int, str]:
    return {int(rec["flow_id"]): str(rec.get("group", "")) for rec in result._main_flow_records()}


def _by_group(wide: pd.DataFrame, groups: Mapping[int, str]) -> dict[str, pd.DataFrame]:
    """Per group (in order of first flow): mean, lowest and highest over its flows' columns
    of ``wide`` (one column per flow, one row per time), flows without values left out."""
    out: dict[str, pd.DataFrame] = {}
    for name in dict.fromkeys(groups.values()):
        cols = [f for f, g in groups.items() if g == name and f in wide.columns and wide[f].notna().any()]
        if cols:
            part = wide[cols]
            out[name] = pd.DataFrame({"mean": part.mean(axis=1), "low": part.min(axis=1), "high": part.max(axis=1)})
    return out


def _goodput_wide(result: RunResult, k: int) -> pd.DataFrame:
    gs = plots.goodput_series(result)
    wide = gs.pivot_table(index="t_s", columns="flow_id", values="goodput_bps", sort=True)
    return wide.rolling(k, min_periods=1, center=True).mean() / 1e6


def _cwnd_wide(result: RunResult) -> pd.DataFrame:
    fs = result.flow_series
    return fs.pivot_table(index="t_s", columns="flow_id", values="cwnd_pkts", sort=True, dropna=False)


#: Draws one run into its panel, with a colour per label shared by all panels.
Draw = Callable[[Any, "RunResult", dict[str, str]], None]


def _draw_groups(series: Callable[[RunResult], pd.DataFrame]) -> Draw:
    """A panel of flow groups: the mean of each group's columns of ``series`` and their range."""

    def draw(ax: Any, r: RunResult, colours: dict[str, str]) -> None:
        for group, band in _by_group(series(r), _group_of(r)).items():
            colour = colours.setdefault(group, f"C{len(colours) % 10}")
            t = band.index.to_numpy(dtype=float)
            ax.fill_between(t, band["low"].to_numpy(dtype=float), band["high"].to_numpy(dtype=float), color=colour, alpha=0.2, lw=0)
            ax.plot(t, band["mean"].to_numpy(dtype=float), color=colour, lw=1.2, label=group)

    return draw


def _draw_queue(ax: Any, r: RunResult, colours: dict[str, str]) -> None:
    name = r.bottleneck()
    if name is not None:
        ls = r.link_series[r.link_series["link"].astype(str) == name]
        colour = colours.setdefault(name, f"C{len(colours) % 10}")
        ax.plot(ls["t_s"].to_numpy(dtype=float), ls["queue_pkts"].to_numpy(dtype=float), color=colour, lw=1.0, label=name)


def _draw_group_cdf(ax: Any, r: RunResult, colours: dict[str, str]) -> None:
    """The delay CDF of each flow group of ``r``: its flows' packets together, each flow weighted
    by its packets (:func:`ccarena.plots.pooled_cdf`), from 0 at the least delay."""
    dq = r.delay_quantiles
    dq = dq[np.isfinite(dq["delay_s"].to_numpy(dtype=float))]
    packets = r.main_flows.set_index("flow_id")["delay_count"]
    groups = _group_of(r)
    for group in dict.fromkeys(groups.values()):
        parts = [dq[dq["flow_id"] == f] for f, g in groups.items() if g == group]
        parts = [p for p in parts if len(p)]
        if not parts:
            continue
        xs, cdf = plots.pooled_cdf([(p["q"].to_numpy(dtype=float), p["delay_s"].to_numpy(dtype=float)) for p in parts],
                                   [float(packets.get(int(p["flow_id"].iloc[0]), 1.0)) for p in parts])
        colour = colours.setdefault(group, f"C{len(colours) % 10}")
        ax.step(np.concatenate([xs[:1], xs]) * 1e3, np.concatenate([[0.0], cdf]), where="post", color=colour, lw=1.3, label=group)
    ax.set_ylim(0, 1.0)


def _panels(results: Mapping[str, RunResult], draw: Draw, title: str, ylabel: str, path: str | Path | None, name: str,
            xlabel: str = "time (s)", x_from_zero: bool = True) -> Figure:
    """One panel per run, two per row, all with the same axes; one legend for all. The x axis
    starts at 0 (time) or, without ``x_from_zero``, where the data do (delays, from the path's
    base delay on)."""
    runs = list(results.items())
    ncols = 1 if len(runs) == 1 else 2
    nrows = math.ceil(len(runs) / ncols)
    fig = Figure(figsize=(10 if ncols == 2 else 8, (2.4 if nrows <= 2 else 1.8) * nrows + 0.9), dpi=100, layout="constrained")
    axes = fig.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False)
    colours: dict[str, str] = {}
    for ax, (label, r) in zip(axes.flat, runs):
        draw(ax, r, colours)
        ax.set_title(label or r.name, fontsize="medium", loc="left")
        ax.grid(True, alpha=0.3)
    # Limits once every panel is drawn: a limit set on shared axes stops their autoscaling, and
    # the later panels' data (longer delays) would fall outside.
    for ax in axes.flat[:len(runs)]:
        if x_from_zero:
            ax.set_xlim(left=0)
        ax.set_ylim(bottom=0)
    for ax in axes.flat[len(runs):]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel(ylabel)
    for ax in axes[-1, :]:
        ax.set_xlabel(xlabel)
    seen: dict[str, Any] = {}  # one legend entry per label, whichever panel drew it first
    for ax in axes.flat[:len(runs)]:
        handles, labels = ax.get_legend_handles_labels()
        for label, handle in zip(labels, handles):
            seen.setdefault(label, handle)
    fig.legend(list(seen.values()), list(seen.keys()), loc="outside upper right", ncol=min(len(seen), 6), fontsize="small", frameon=False)
    fig.suptitle(title, x=0.01, ha="left")
    if path is not None:
        from ccarena.api import write_figure

        write_figure(fig, path, name)
    return fig


def group_goodput(results: Mapping[str, RunResult], path: str | Path | None = None) -> Figure:
    """Goodput per flow group over time, one panel per run: the mean over the group's flows
    (line) and the range from its lowest to its highest flow (band), after a moving average of
    :func:`goodput_window` intervals. Writes ``goodput.png`` with ``path``."""
    k, seconds = goodput_window(results)
    return _panels(results, _draw_groups(lambda r: _goodput_wide(r, k)),
                   f"Goodput per flow, by group, {seconds:g} s moving average — {_names(results)}", "goodput (Mbit/s)", path, "goodput.png")


def group_cwnd(results: Mapping[str, RunResult], path: str | Path | None = None) -> Figure:
    """Congestion window per flow group over time, one panel per run: the mean over the
    group's window-based flows and their range. Writes ``cwnd.png`` with ``path``."""
    return _panels(results, _draw_groups(_cwnd_wide), f"Congestion window, by group — {_names(results)}", "cwnd (segments)",
                   path, "cwnd.png")


def queue_panels(results: Mapping[str, RunResult], path: str | Path | None = None) -> Figure:
    """The bottleneck queue of each run in a panel of its own (:meth:`RunResult.bottleneck`),
    for more runs than one plot can overlay. Writes ``queue.png`` with ``path``."""
    return _panels(results, _draw_queue, f"Queue length at the bottleneck — {_names(results)}", "queue (packets)", path, "queue.png")


def group_delay_cdf(results: Mapping[str, RunResult], path: str | Path | None = None) -> Figure:
    """The CDF of one-way delay per flow group, one panel per run: the packets of the group's
    main flows together, each flow weighted by its packets. Writes ``delay_cdf.png`` with ``path``."""
    return _panels(results, _draw_group_cdf, f"One-way delay, by group — {_names(results)}", "fraction of packets",
                   path, "delay_cdf.png", xlabel="one-way delay (ms)", x_from_zero=False)


def run_delay_cdf(results: Mapping[str, RunResult], path: str | Path | None = None) -> Figure:
    """The CDF of one-way delay of each run's main flows together, one line per run in one plot
    (for runs of one flow group each: a panel per run would hold one line). Writes
    ``delay_cdf.png`` with ``path``."""
    fig, ax = _common.new_axes(f"One-way delay — {_names(results)}", "fraction of packets", "one-way delay (ms)")
    for i, (label, r) in enumerate(results.items()):
        before = len(ax.get_lines())
        _draw_group_cdf(ax, r, {})
        for line in ax.get_lines()[before:]:  # the run's one line (none without delays), coloured and named as the run
            line.set(color=f"C{(i + i // 10) % 10}", linestyle=_common.RUN_STYLES[(i // 10) % len(_common.RUN_STYLES)],
                     label=label or r.name)
    ax.set_ylim(0, 1.0)
    return _common.finish(fig, ax, path, "delay_cdf.png", time_axis=False)


def one_group_each(results: Mapping[str, RunResult]) -> bool:
    """Whether every run of several has one flow group (the window-dynamics demo: a run per
    algorithm), so that its delay CDF is one line (:func:`run_delay_cdf`)."""
    return len(results) > 1 and all(len(set(_group_of(r).values())) == 1 for r in results.values())


def delay_cdf_overlaid(results: Mapping[str, RunResult]) -> bool:
    """Whether the delay CDF of ``results`` is one plot of a line per flow (and a line style per
    run): up to :data:`MANY_LINES` lines and :data:`ccarena.plots.GRID_ABOVE` runs; else
    :func:`group_delay_cdf`."""
    return lines_drawn(results) <= MANY_LINES and len(results) <= plots.GRID_ABOVE


def point_names(results: Mapping[str, RunResult]) -> tuple[dict[str, pd.Series], str]:
    """What tells the flows of ``results`` apart in throughput against delay, per run a name
    per main flow, and what that name is (for the caption): the flow group where a run has
    several (``rtt-40ms``), else the algorithm; followed by the run (variant) where a name
    occurs in more than one run (``reno, tahoe``)."""
    by_group = any(len(set(_group_of(r).values())) > 1 for r in results.values())
    names = {label: (r.main_flows["group"].astype(str) if by_group else _common.algorithm(r.main_flows)).reset_index(drop=True)
             for label, r in results.items()}
    what = "flow group" if by_group else "algorithm"
    seen: dict[str, int] = {}
    for series in names.values():
        for name in set(series):
            seen[name] = seen.get(name, 0) + 1
    if any(n > 1 for n in seen.values()):
        names = {label: series + f", {label}" for label, series in names.items()}
        what += " and variant"
    return names, what


def throughput_delay(results: Mapping[str, RunResult], path: str | Path | None = None) -> Figure:
    """Each main flow of ``results`` at its goodput and 95th-percentile one-way delay
    (:func:`ccarena.plots.plot_throughput_delay`), a colour and marker per name of
    :func:`point_names`. Writes ``throughput_delay.png`` with ``path``;
    :class:`~ccarena.ArgumentError` when no flow has a delay percentile."""
    names, _ = point_names(results)
    # The plot colours points by their flows' `cc`: here it carries the names instead.
    parts = [r.main_flows.reset_index(drop=True).assign(run_id=label or r.name, cc=names[label]) for label, r in results.items()]
    return plots.plot_throughput_delay(pd.concat(parts, ignore_index=True), path, per="flow")


def _names(results: Mapping[str, RunResult]) -> str:
    return ", ".join(dict.fromkeys(r.name for r in results.values()))
