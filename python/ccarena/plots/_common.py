"""What every plot shares: its arguments checked, its axes made, flows named and coloured, rates
put in a readable unit, the figure finished and saved."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from matplotlib.figure import Figure

from ccarena import _format
from ccarena.errors import ArgumentError

if TYPE_CHECKING:
    import pandas as pd

    from ccarena.api import RunResult

#: Above this many labelled lines the legend gives way to a count.
MAX_LEGEND = 24

#: Bound on counts such as ``max_points`` and ``ncols``: NumPy and matplotlib overflow on huge ones.
MAX_COUNT = 1_000_000

#: Line styles of overlaid runs (e.g. backends): the same flow keeps its colour in every run.
RUN_STYLES = ("-", "--", ":", "-.")

#: Markers of the algorithms in scatter plots, in turn.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")


def runs(result: Any, what: str = "result") -> list[tuple[str, RunResult]]:
    """``result`` as (label, run) pairs, or :class:`ArgumentError` if it is not a run or a
    non-empty mapping of runs."""
    from ccarena.api import RunResult

    if isinstance(result, Mapping):
        pairs = [(str(k), v) for k, v in result.items()]
        if not pairs:
            raise ArgumentError(f"{what}: the mapping of runs is empty")
    else:
        pairs = [("", result)]
    for label, run in pairs:
        if not isinstance(run, RunResult):
            where = f"{what}[{label!r}]" if label else what
            raise ArgumentError(f"{where}: expected a RunResult (or a mapping of them), not {type(run).__name__}")
    return pairs


def positive_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_COUNT:
        raise ArgumentError(f"{name}: expected a whole number from 1 to {MAX_COUNT}, not {value!r:.40}")
    return value


def choice(value: Any, name: str, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ArgumentError(f"{name}: expected one of {', '.join(map(repr, allowed))}, not {value!r:.40}")
    return value


def label(prefix: str, text: str) -> str:
    return f"{prefix}: {text}" if prefix else text


def flow_labels(result: RunResult) -> dict[int, str]:
    """Flow id → ``"<group> #<id>"``, the name a flow's line carries in every plot."""
    return {int(r["flow_id"]): f"{r['group']} #{int(r['flow_id'])}" for r in result.flows[["flow_id", "group"]].to_dict("records")}


def flow_style(fid: int, run: int, runs: int) -> dict[str, Any]:
    """A flow's colour is its id's, the same in every plot and in every overlaid run (backends
    in ``ccarena compare``); with several runs overlaid, each run has its own line style."""
    style: dict[str, Any] = {"color": f"C{fid % 10}"}
    if runs > 1:
        style["linestyle"] = RUN_STYLES[run % len(RUN_STYLES)]
    return style


def algorithm(flows: pd.DataFrame) -> pd.Series:
    """Each flow's algorithm as its group wrote it (``cc``), or its protocol where it has none (UDP)."""
    cc = flows["cc"].astype(str) if "cc" in flows else flows["protocol"].astype(str)
    return cc.where(cc != "", flows["protocol"].astype(str))


def algorithm_styles(names: list[str]) -> dict[str, dict[str, Any]]:
    """One colour and marker per algorithm, given in sorted order so that a plot of the same
    algorithms looks the same whatever order the flows come in. Past ten algorithms the colours
    shift by one per ten, so that no two of up to 100 share both colour and marker (the core has
    eleven TCP algorithms)."""
    return {n: {"color": f"C{(i + i // 10) % 10}", "marker": MARKERS[i % len(MARKERS)]} for i, n in enumerate(sorted(set(names)))}


def rate_unit(values: Any) -> tuple[float, str]:
    """The unit rates are drawn in (scale, name), chosen by the largest finite magnitude among
    ``values``, as the tables write rates (:func:`ccarena._format.rate`): 12 500 000 → Mbit/s."""
    finite = np.abs(np.asarray(values, dtype=float))
    finite = finite[np.isfinite(finite)]
    top = float(finite.max()) if finite.size else 0.0
    for scale, unit in _format._RATE_UNITS:
        if top >= scale * 0.9995:
            return scale, unit
    return 1.0, "bit/s"


def new_axes(title: str, ylabel: str, xlabel: str = "time (s)") -> tuple[Figure, Any]:
    fig = Figure(figsize=(8, 4.2), dpi=100, layout="constrained")
    ax = fig.subplots()
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    return fig, ax


def legend(ax: Any) -> None:
    """The legend outside the axes, on the right (dense curves leave no free corner inside), or
    the number of lines when there are too many to list."""
    _, labels = ax.get_legend_handles_labels()
    if 0 < len(labels) <= MAX_LEGEND:
        ax.legend(
            fontsize="small",
            ncol=max(1, math.ceil(len(labels) / 12)),
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
            borderaxespad=0.0,
            frameon=False,
        )
    elif len(labels) > MAX_LEGEND:
        ax.text(0.99, 0.01, f"{len(labels)} lines", transform=ax.transAxes, ha="right", va="bottom", fontsize="small")


def finish(fig: Figure, ax: Any, path: str | Path | None, name: str, *, time_axis: bool = True) -> Figure:
    legend(ax)
    if time_axis:
        ax.set_xlim(left=0)
    return save(fig, path, name)


def save(fig: Figure, path: str | Path | None, name: str) -> Figure:
    """Write ``fig`` to ``path`` (``name`` inside it if it is a directory, see the package notes)."""
    if path is not None:
        from ccarena.api import write_figure

        write_figure(fig, path, name)
    return fig


def check_path(path: Any, name: str) -> None:
    """Refuse a path that cannot be written before drawing."""
    if path is not None:
        from ccarena.api import check_output_file

        check_output_file(path, name, "plot file")


def title(pairs: list[tuple[str, RunResult]]) -> str:
    names = list(dict.fromkeys(r.name for _, r in pairs))
    return ", ".join(names)
