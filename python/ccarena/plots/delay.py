"""The distribution of per-packet one-way delays: a CDF per flow or per algorithm, drawn from
the run's ``delay_quantiles`` table (each main flow's delay histogram read at q = 0, 0.005, …, 1),
and per grid point of a campaign from the tables its store keeps (:func:`plot_delay_cdf_sweep`)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ccarena import _format
from ccarena.errors import ArgumentError
from ccarena.plots import _common as c

if TYPE_CHECKING:
    from matplotlib.artist import Artist

    from ccarena.api import RunResult
    from ccarena.experiment.result import ExperimentResult

#: A pooled CDF of a campaign is evaluated at most at this many delays: the union of the
#: quantiles of hundreds of flows is more points than a line of a panel can show.
MAX_CDF_POINTS = 2000


def _quantiles(result: RunResult) -> pd.DataFrame:
    """The run's quantiles with finite delays, or :class:`ArgumentError` when it has none."""
    dq = result.delay_quantiles
    dq = dq[np.isfinite(dq["delay_s"].to_numpy(dtype=float))] if len(dq) else dq
    if dq.empty:
        backend = result.meta.get("backend")
        why = f"the {backend} backend does not measure one-way delays" if backend else "no main flow delivered a packet after the warm-up"
        raise ArgumentError(f"result: {result.name!r} has no delay distribution (its delay_quantiles table is empty: {why})")
    return dq


def pooled_cdf(
    quantiles: list[tuple[np.ndarray, np.ndarray]], weights: list[float], at: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The CDF of the packets of several flows together, from each flow's quantiles ``(q, delay)``:
    ``F(x) = Σ wᵢ Fᵢ(x) / Σ wᵢ`` with ``wᵢ`` the flow's packet count and ``Fᵢ(x)`` the largest
    level q whose quantile is at most x (the quantile function inverted, to the levels'
    resolution). Evaluated at every flow's quantiles, or at the delays ``at``; returns
    ``(delays, F)``."""
    xs = np.unique(np.concatenate([d for _, d in quantiles])) if at is None else np.asarray(at, dtype=float)
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


def plot_delay_cdf_sweep(
    res: ExperimentResult,
    x: str | None = None,
    lines: Sequence[str] = (),
    path: str | Path | None = None,
    *,
    log: bool = False,
) -> Figure:
    """The CDF of one-way delay at each grid point of a campaign: one panel per value of the
    key ``x`` (one panel without it), each with its own delay axis, and in each one line per
    combination of the ``lines`` keys, a colour each. A line is every packet of every main flow
    of its grid point's replications together, each flow weighted by its packets
    (:func:`pooled_cdf`); keys in neither ``x`` nor ``lines`` are pooled as well.

    Drawn from :meth:`ExperimentResult.delay_quantiles`, the tables the store keeps per run;
    :class:`ArgumentError` when it holds none (runs stored by a version that did not keep
    them, backends that measure no one-way delays). ``log=True`` puts the delays on a log
    scale."""
    from ccarena.experiment.result import ExperimentResult

    if not isinstance(res, ExperimentResult):
        raise ArgumentError(f"res: expected an ExperimentResult (ccarena.open_store gives one), not {type(res).__name__}")
    if isinstance(lines, (str, bytes)) or not isinstance(lines, Sequence):
        raise ArgumentError(f"lines: expected a list of varied keys, not {lines!r:.40}")
    for key in ([x] if x is not None else []) + list(lines):
        if key not in res.keys:
            raise ArgumentError(f"{key!r:.60} is not a varied key of {res.name!r} (its keys: {', '.join(res.keys) or 'none'})")
    if not isinstance(log, bool):
        raise ArgumentError(f"log: expected True or False, not {log!r:.40}")
    c.check_path(path, "delay_cdf.png")
    dq = res.delay_quantiles()
    dq = dq[np.isfinite(dq["delay_s"].to_numpy(dtype=float))]
    if dq.empty:
        raise ArgumentError(f"res: the store of {res.name!r} keeps no delay distribution (runs stored by a version before "
                            "delay_quantiles was kept: `ccarena sweep --force` recomputes them; or a backend that does not "
                            "measure one-way delays)")
    # packets per flow weigh the pooled CDF; without the column (a hand-made store) flows weigh alike
    runs = res.runs if "delay_count" in res.runs else res.runs.assign(delay_count=1.0)
    packets = runs.set_index(["run_id", "flow_id"])["delay_count"]
    panels = list(dict.fromkeys(res.metrics[x])) if x is not None else [None]
    combos = list(dict.fromkeys(res.metrics[list(lines)].itertuples(index=False, name=None))) if lines else [()]
    ncols = 2 if len(panels) == 4 else min(len(panels), 3)
    nrows = math.ceil(len(panels) / ncols)
    fig = Figure(figsize=(3.8 * ncols + 1.6, 2.8 * nrows + 0.9), dpi=100, layout="constrained")
    # The fractions are shared, not the delays: a 10 Mbit/s panel's queueing delays would squeeze
    # those of a 100 Mbit/s one into a line.
    axes = fig.subplots(nrows, ncols, sharey=True, squeeze=False)
    handles: dict[str, Artist] = {}
    for ax, value in zip(axes.flat, panels):
        here = dq if x is None else dq[dq[x] == value]
        for i, combo in enumerate(combos):
            part = here
            for key, v in zip(lines, combo):
                part = part[part[key] == v]
            flows = [(run_id, int(fid), p) for (run_id, fid), p in part.groupby(["run_id", "flow_id"], sort=False)]
            if not flows:
                continue
            quantiles = [(p["q"].to_numpy(dtype=float), p["delay_s"].to_numpy(dtype=float)) for _, _, p in flows]
            xs = np.unique(np.concatenate([d for _, d in quantiles]))
            if len(xs) > MAX_CDF_POINTS:
                xs = np.unique(np.quantile(xs, np.linspace(0.0, 1.0, MAX_CDF_POINTS)))
            xs, cdf = pooled_cdf(quantiles, [float(packets.get((run_id, fid), 1.0)) for run_id, fid, _ in flows], at=xs)
            # from 0 at the least delay: many packets often share it (an empty queue)
            xs, cdf = np.concatenate([xs[:1], xs]), np.concatenate([[0.0], cdf])
            name = ", ".join(str(v) for v in combo) or "all runs"
            (line,) = ax.step(xs * 1e3, cdf, where="post", lw=1.3, label=name,
                              color=f"C{i % 10}", linestyle=c.RUN_STYLES[(i // 10) % len(c.RUN_STYLES)])
            handles.setdefault(name, line)
        ax.set_title(f"{x} = {value}" if x is not None else res.name, fontsize="medium", loc="left")
        ax.grid(True, alpha=0.3)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel("fraction of packets")
    for ax in axes.flat[:len(panels)]:
        ax.set_xlabel("one-way delay (ms)")
        if log:
            ax.set_xscale("log")
    axes[0, 0].set_ylim(0, 1.0)
    if lines:
        fig.legend(list(handles.values()), list(handles.keys()), loc="outside right upper", fontsize="small", frameon=False,
                   title=", ".join(lines), title_fontsize="small")
    fig.suptitle(f"One-way delay per grid point — {res.name}", x=0.01, ha="left")
    return c.save(fig, path, "delay_cdf.png")
