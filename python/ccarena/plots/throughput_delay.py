"""Throughput against delay, Pantheon's summary plot (Yan et al., "Pantheon: the training ground
for Internet congestion-control research", USENIX ATC 2018, Figure 2 and the ``analysis/plot.py``
of pantheon-project/pantheon): mean goodput up, 95th-percentile one-way delay along an inverted
x axis, so that better (more goodput, less delay) is up and to the right; one colour and marker
per algorithm. Over several runs, each algorithm's mean over the runs is drawn with the 1-σ
ellipse of its runs, as Pantheon does."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Ellipse

from ccarena.errors import ArgumentError
from ccarena.plots import _common as c

if TYPE_CHECKING:
    from ccarena.api import RunResult
    from ccarena.experiment.result import ExperimentResult

#: What one point stands for: a flow, or an algorithm's flows in one run.
PER = ("flow", "algorithm")

def _flows(results: Any) -> tuple[pd.DataFrame, list[str]]:
    """The main flows of ``results`` with a ``run`` column, and the keys points are grouped by
    besides the algorithm (the varied keys of an experiment other than congestion controls)."""
    from ccarena.experiment.result import ExperimentResult

    if isinstance(results, ExperimentResult):
        keys = [k for k in results.keys if k != "cc" and not k.endswith(".cc")]
        table = results.runs
    elif isinstance(results, pd.DataFrame):
        keys, table = [], results
    else:
        parts = [r.main_flows.assign(run=label) for label, r in c.runs(results, "results")]
        return pd.concat(parts, ignore_index=True), []
    missing = [col for col in ("run_id", "flow_id", "goodput_bps", "delay_p95_s") if col not in table]
    if missing:
        raise ArgumentError(f"results: the flows table has no column {missing[0]!r} (expected ExperimentResult.runs)")
    if "role" in table:
        table = table[table["role"] != "background"]
    return table.assign(run=table["run_id"].astype(str)), keys


def throughput_delay_points(results: Any, per: str = "flow", by: Sequence[str] | None = None) -> pd.DataFrame:
    """The points :func:`plot_throughput_delay` draws, one row each: ``algorithm``, the ``by``
    keys, ``run`` (the mapping's label, an experiment's ``run_id``, ``""`` for one run),
    ``goodput_bps`` and ``delay_p95_s``.

    ``per="flow"``: one row per main flow (its ``flow_id`` too), its own goodput and
    ``delay_p95_s``. ``per="algorithm"``: one row per run × algorithm, the means over that
    algorithm's main flows in the run. Flows without a delay percentile (backends that do not
    measure one-way delay) are left out. ``by`` defaults to an experiment's varied keys other
    than congestion controls (nothing for runs)."""
    per = c.choice(per, "per", PER)
    flows, keys = _flows(results)
    if by is not None:
        if isinstance(by, str) or not all(isinstance(k, str) for k in by):
            raise ArgumentError(f"by: expected a list of column names (strings), not {by!r:.40}")
        unknown = [k for k in by if k not in flows]
        if unknown:
            raise ArgumentError(f"by: no column {unknown[0]!r} in the flows table")
        keys = list(by)
    flows = flows.assign(algorithm=c.algorithm(flows))
    cols = ["algorithm", *keys, "run"]
    if per == "flow":
        points = flows.assign(flow_id=flows["flow_id"].astype(int))[[*cols, "flow_id", "goodput_bps", "delay_p95_s"]]
    else:
        points = flows.groupby(cols, sort=True, dropna=False)[["goodput_bps", "delay_p95_s"]].mean().reset_index()
    points = points.dropna(subset=["goodput_bps", "delay_p95_s"]).reset_index(drop=True)
    if points.empty:
        raise ArgumentError("results: no flow has both a goodput and a 95th-percentile delay (delay_p95_s is NaN "
                            "where a backend does not measure one-way delays)")
    return points


def plot_throughput_delay(
    results: RunResult | Mapping[str, RunResult] | ExperimentResult | pd.DataFrame,
    path: str | Path | None = None, *, per: str = "flow", by: Sequence[str] | None = None
) -> Figure:
    """Mean goodput against 95th-percentile one-way delay (x inverted: better is up and right),
    one colour and marker per algorithm (``cc``, or the protocol of UDP flows); with ``by``
    keys, one marker per combination of their values instead.

    ``results`` is a :class:`~ccarena.RunResult`, a mapping ``{label: RunResult}`` (e.g.
    replications), an :class:`~ccarena.ExperimentResult` or its ``runs`` table (filtered as you
    like). ``per`` and ``by`` choose the points (:func:`throughput_delay_points`). With
    ``per="algorithm"`` and several runs, each algorithm (and ``by`` value) is drawn as the mean
    of its runs, a large marker, with its runs as small ones and the ellipse one standard
    deviation wide along the principal axes of their covariance; experiments default to it."""
    from ccarena.experiment.result import ExperimentResult

    if isinstance(results, ExperimentResult) and per == "flow" and by is None:
        per = "algorithm"  # thousands of flows say less than each algorithm's runs
    c.check_path(path, "throughput_delay.png")
    points = throughput_delay_points(results, per, by)
    keys = _keys(points)
    scale, unit = c.rate_unit(points["goodput_bps"])
    fig, ax = c.new_axes("Throughput and delay", f"mean goodput ({unit})", "95th-percentile one-way delay (ms)")
    combos = list(dict.fromkeys(points[keys].itertuples(index=False, name=None))) if keys else []
    _draw(ax, points, keys, c.algorithm_styles(points["algorithm"].tolist()), combos, per, scale,
          lambda name: name[0] + "".join(f", {k}={v}" for k, v in zip(keys, name[1:])))
    return c.finish(fig, ax, path, "throughput_delay.png", time_axis=False)


def plot_throughput_delay_sweep(res: ExperimentResult, x: str | None = None, path: str | Path | None = None) -> Figure:
    """:func:`plot_throughput_delay` of a campaign with one panel per value of the varied key
    ``x`` (one panel without it), as Pantheon draws one plot per network setting: in each, each
    algorithm's mean over the replications of each grid point (a large marker), its runs (small
    ones) and their 1-σ ellipse, one colour per algorithm and one marker per combination of the
    other varied keys that are not congestion controls. The panels have axes of their own
    (rates and delays differ from one setting to the next) and one legend, ``algorithm, values``
    under a title naming the keys."""
    from ccarena.experiment.result import ExperimentResult

    if not isinstance(res, ExperimentResult):
        raise ArgumentError(f"res: expected an ExperimentResult (ccarena.open_store gives one), not {type(res).__name__}")
    if x is not None and x not in res.keys:
        raise ArgumentError(f"x: {x!r:.60} is not a varied key of {res.name!r} (its keys: {', '.join(res.keys) or 'none'})")
    c.check_path(path, "throughput_delay.png")
    others = [k for k in res.keys if k != "cc" and not k.endswith(".cc") and k != x and res.metrics[k].nunique() > 1]
    points = throughput_delay_points(res, "algorithm", [*([x] if x is not None else []), *others])
    scale, unit = c.rate_unit(points["goodput_bps"])
    styles = c.algorithm_styles(points["algorithm"].tolist())
    combos = list(dict.fromkeys(points[others].itertuples(index=False, name=None))) if others else []
    # the grid's order of values (points come sorted: 100Mbps before 10Mbps)
    panels = [v for v in dict.fromkeys(res.metrics[x]) if (points[x] == v).any()] if x is not None else [None]
    ncols = 2 if len(panels) == 4 else min(len(panels), 3)
    nrows = math.ceil(len(panels) / ncols)
    fig = Figure(figsize=(3.8 * ncols + 1.8, 3.0 * nrows + 0.9), dpi=100, layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    for ax, value in zip(axes.flat, panels):
        here = points if x is None else points[points[x] == value]
        _draw(ax, here.drop(columns=[x]) if x is not None else here, others, styles, combos, "algorithm", scale,
              lambda name: ", ".join(str(v) for v in name))
        ax.set_ylim(bottom=0)
        ax.set_title(f"{x} = {value}" if x is not None else res.name, fontsize="medium", loc="left")
        ax.grid(True, alpha=0.3)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel(f"mean goodput ({unit})")
    for col in range(ncols):  # the lowest panel of each column, a row short or not
        axes[(len(panels) - 1 - col) // ncols, col].set_xlabel("95th-percentile one-way delay (ms)")
    seen: dict[str, Any] = {}  # one legend entry per label, whichever panel drew it first
    for ax in axes.flat[:len(panels)]:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(label, handle)
    fig.legend(list(seen.values()), list(seen.keys()), loc="outside right upper", fontsize="small", frameon=False,
               title=", ".join(["algorithm", *others]), title_fontsize="small")
    fig.suptitle(f"Throughput and delay per grid point — {res.name} (better: up and right)", x=0.01, ha="left")
    return c.save(fig, path, "throughput_delay.png")


def _keys(points: pd.DataFrame) -> list[str]:
    """The columns of ``points`` that are keys besides the algorithm."""
    return [k for k in points.columns if k not in ("algorithm", "run", "flow_id", "goodput_bps", "delay_p95_s")]


def _draw(ax: Any, points: pd.DataFrame, keys: list[str], styles: dict[str, dict[str, Any]], combos: list[tuple[Any, ...]],
          per: str, scale: float, text: Callable[[tuple[Any, ...]], str]) -> None:
    """The points into ``ax``: a colour per algorithm (``styles``), with ``keys`` a marker per
    combination of their values (its place in ``combos``), the legend label ``text(name)`` of
    (algorithm, *values); with ``per="algorithm"`` and several runs, the mean, the runs and
    the 1-σ ellipse. The delay axis inverted (better is to the right), marked "better"."""
    for name, part in points.groupby(["algorithm", *keys], sort=True, dropna=False):
        name = name if isinstance(name, tuple) else (name,)
        style = dict(styles[name[0]])
        if keys:
            style["marker"] = c.MARKERS[combos.index(tuple(name[1:])) % len(c.MARKERS)]
        label = text(name)
        x = part["delay_p95_s"].to_numpy(dtype=float) * 1e3
        y = part["goodput_bps"].to_numpy(dtype=float) / scale
        if per == "flow" or len(part) == 1:
            ax.scatter(x, y, s=36, color=style["color"], marker=style["marker"], label=label, zorder=3)
            continue
        ax.scatter(x, y, s=12, color=style["color"], marker=style["marker"], alpha=0.45, zorder=2)
        ax.scatter([x.mean()], [y.mean()], s=70, color=style["color"], marker=style["marker"], edgecolors="black",
                   linewidths=0.6, label=label, zorder=4)
        ellipse = _sigma_ellipse(x, y)
        if ellipse is not None:
            ellipse.set(edgecolor=style["color"], facecolor="none", linewidth=1.2, alpha=0.9)
            ax.add_patch(ellipse)
    # Room around the outermost points, whose markers the axes would cut in half; from 0 up,
    # the margin of a narrow range of goodputs is not enough above them.
    ax.margins(0.1)
    top = float(np.nanmax(points["goodput_bps"].to_numpy(dtype=float), initial=0.0)) / scale
    ax.set_ylim(0, max(ax.get_ylim()[1], 1.08 * top))
    ax.invert_xaxis()
    # In the corner of the worst results, where points are rarest, pointing to the best.
    ax.annotate("better", xy=(0.13, 0.15), xytext=(0.05, 0.05), xycoords="axes fraction", textcoords="axes fraction",
                ha="center", va="center", fontsize="small", color="grey",
                arrowprops={"arrowstyle": "->", "color": "grey"})


def _sigma_ellipse(x: np.ndarray, y: np.ndarray) -> Ellipse | None:
    """The 1-σ ellipse of the points: centred on their mean, its axes along the eigenvectors of
    their sample covariance, each spanning ± one standard deviation (the square root of its
    eigenvalue) in the units drawn. ``None`` when the points do not spread."""
    cov = np.cov(np.vstack([x, y]))
    if not np.all(np.isfinite(cov)):
        return None
    values, vectors = np.linalg.eigh(cov)
    if values.max() <= 0:
        return None
    angle = float(np.degrees(np.arctan2(vectors[1, -1], vectors[0, -1])))
    width, height = 2 * np.sqrt(np.clip(values[::-1], 0, None))
    return Ellipse((float(x.mean()), float(y.mean())), float(width), float(height), angle=angle)
