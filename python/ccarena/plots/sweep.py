"""A campaign metric against a swept key (:meth:`ccarena.ExperimentResult.summary` in, one
line per combination of the other keys out)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ccarena.errors import ArgumentError
from ccarena.plots import _common as c


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
    appear (the grid's order), so units such as ``"10Mbps"`` need no parsing. A rate (a metric
    ending in ``_bps``) is drawn in the unit its largest value reads best in, named in the axis
    label: ``ylabel`` (default: the metric's name without ``_bps``) followed by ``(Mbit/s)``;
    a ``ylabel`` ending in ``(bit/s)`` has that unit replaced.
    """
    _check_sweep_arguments(summary, x, metric, lines)
    if ylabel is not None and not isinstance(ylabel, str):
        raise ArgumentError(f"ylabel: expected an axis label (a string), not {type(ylabel).__name__}")
    c.check_path(path, f"{metric}.png")
    rows = summary[summary["metric"] == metric]
    order = list(dict.fromkeys(rows[x].tolist()))
    pos = {v: i for i, v in enumerate(order)}
    fig = Figure(figsize=(7, 3.8), dpi=100, layout="constrained")
    ax = fig.subplots()
    ax.set_title(f"{metric} against {x}")
    ax.set_xlabel(x)
    scale, ylabel = _scale_and_label(rows, metric, ylabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    groups = rows.groupby(list(lines), sort=False, dropna=False) if lines else [((), rows)]
    for label, part in groups:
        xs = np.array([pos[v] for v in part[x]], dtype=float)
        mean = part["mean"].to_numpy(dtype=float) / scale
        low = np.nan_to_num(mean - part["ci_low"].to_numpy(dtype=float) / scale)
        high = np.nan_to_num(part["ci_high"].to_numpy(dtype=float) / scale - mean)
        name = ", ".join(f"{v}" for v in (label if isinstance(label, tuple) else (label,))) or metric
        ax.errorbar(xs, mean, yerr=[low, high], marker="o", capsize=3, label=name)
    ax.set_xticks(range(len(order)), [str(v) for v in order])
    ax.set_xlim(-0.5, len(order) - 0.5)
    return c.finish(fig, ax, path, f"{metric}.png", time_axis=False)


def _scale_and_label(rows: pd.DataFrame, metric: str, ylabel: str | None) -> tuple[float, str]:
    """What the values are divided by, and the axis label (see :func:`plot_sweep`)."""
    if not metric.endswith("_bps"):
        return 1.0, ylabel or metric
    scale, unit = c.rate_unit(rows[["mean", "ci_high"]].to_numpy(dtype=float))
    base = (ylabel or metric.removesuffix("_bps")).removesuffix("(bit/s)").rstrip()
    return scale, f"{base} ({unit})"


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
