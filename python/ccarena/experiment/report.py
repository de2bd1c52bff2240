"""The HTML page of a campaign: what was varied, each grid point's mean ± CI, one plot per metric
against the swept key (one line per value of the other keys), per grid point Pantheon's
throughput against delay and the CDF of one-way delay (a panel per value of the swept key), and
the failed runs.

The grid table fits the page: short headers (the full key or metric in a ``title`` and in the
legend above), the main metrics in the first table and every other metric with values in
further tables inside a ``<details>``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape

from ccarena import _format, plots
from ccarena.errors import ArgumentError
from ccarena.experiment.result import RUN_METRICS, ExperimentResult, param_value
from ccarena.experiment.tables import Table, failures_text, grid_table
from ccarena.report.render import generated_stamp, write_html

#: Per metric: the grid table's header, what it is (the header's title and the legend), and the
#: plot's axis label for the metrics that are plotted (:data:`PLOTTED`).
METRICS = {
    "goodput_bps": ("goodput", "aggregate goodput of the main flows", "aggregate goodput (bit/s)"),
    "throughput_bps": ("throughput", "aggregate throughput of the main flows, retransmissions included", ""),
    "utilisation": ("utilisation", "bottleneck utilisation by all traffic", "bottleneck utilisation"),
    "utilisation_main": ("main share", "main flows' goodput over the bottleneck rate", ""),
    "jain": ("Jain", "Jain's index over the main flows' goodputs", "Jain's index (flows)"),
    "jain_intra": ("Jain within", "mean over algorithms of Jain's index among each algorithm's flows", ""),
    "jain_inter": ("Jain between", "Jain's index over the algorithms' mean per-flow goodputs", "Jain's index (between algorithms)"),
    "dropped_pkts": ("drops", "packets dropped at the bottleneck", "bottleneck drops (packets)"),
    "retransmitted_pkts": ("retx", "packets the main flows retransmitted", ""),
    "mean_queue_pkts": ("queue", "mean bottleneck queue, packets", "mean bottleneck queue (packets)"),
    "delay_mean_s": ("delay", "mean one-way delay of the main flows", ""),
    "delivery_ratio": ("delivery", "mean delivery ratio of the main flows", ""),
    "stability_cov": ("CoV", "coefficient of variation of the aggregate goodput after warm-up", "CoV of aggregate goodput"),
    "rtt_fairness": ("RTT ratio", "mean goodput of the longest-RTT flows over the shortest-RTT ones", "long/short RTT goodput ratio"),
    "reno_share": ("Reno share", "Reno's share of the main goodput", "Reno's share of goodput"),
    "convergence_s": ("convergence", "time until the last flow holds 80% of its fair share", "convergence time (s)"),
}
#: Metrics plotted, in page order, when the store has values for them.
PLOTTED = tuple(m for m, (_, _, axis) in METRICS.items() if axis)
#: The first grid table's metrics; the others go into the "more metrics" tables, this many each.
MAIN = ("goodput_bps", "utilisation", "jain", "dropped_pkts", "mean_queue_pkts")
_PER_TABLE = 4


def choose_axes(res: ExperimentResult) -> tuple[str | None, list[str]]:
    """The key to put on the x axis and the keys that make the lines: the x axis gets the key
    with the most values, preferring one that is not a congestion control; every other key
    with more than one value makes lines (one per algorithm, typically)."""
    values = {k: res.metrics[k].nunique() for k in res.keys}
    varied = [k for k in res.keys if values[k] > 1]
    if not varied:
        return (res.keys[0] if res.keys else None), []
    not_cc = [k for k in varied if not _is_cc(k)]
    x = max(not_cc or varied, key=lambda k: values[k])
    return x, [k for k in varied if k != x]


def _is_cc(key: str) -> bool:
    return key == "cc" or key.endswith(".cc")


def panel_axes(res: ExperimentResult) -> tuple[str | None, list[str]]:
    """The key with a panel per value in the figures per grid point (throughput against delay,
    the delay CDF) and the keys of their lines: those of :func:`choose_axes`, except that a
    congestion control is never a panel: with only algorithms varied, one panel, a line each."""
    x, lines = choose_axes(res)
    if x is not None and _is_cc(x):
        return None, [x, *lines] if res.metrics[x].nunique() > 1 else lines
    return x, lines


def short_keys(keys: Sequence[str]) -> list[str]:
    """Column headers for varied keys: the key without its first part (``flows[0].cc`` →
    ``cc``, ``topology.queue.limit`` → ``queue.limit``) unless two keys would then read the
    same, when both keep their full name."""
    short = [k.partition(".")[2] or k for k in keys]
    return [s if short.count(s) == 1 else k for s, k in zip(short, keys)]


#: A grid table for the page: headers as (short header, title) pairs.
TitledTable = tuple[list[tuple[str, str]], list[list[str]], list[bool]]


def _with_titles(table: Table, keys: Sequence[str]) -> TitledTable:
    """``table`` (from :func:`grid_table`) with (header, title) pairs for the page."""
    headers, rows, right = table
    rows = [[_breakable(c) if r else c for c, r in zip(row, right)] if len(row) == len(headers) else row for row in rows]
    named = [(s, k) for s, k in zip(short_keys(keys), keys)]
    named.append(("n", "finished runs (of those planned, when some did not finish)"))
    named += [(METRICS[m][0], f"{m}: {METRICS[m][1]}") for m in headers[len(keys) + 1:]]
    return named, rows, right


def _breakable(cell: str) -> str:
    """A mean ± CI that a narrow cell may break only before ``±`` (or ``+above``): no break
    between a number and its unit or after the sign."""
    return re.sub(r"(?<=[±−+]) | (?=[A-Za-z])", "\u00a0", cell)


def _more_tables(res: ExperimentResult, metrics: list[str]) -> list[TitledTable]:
    """Grid tables of ``metrics``, :data:`_PER_TABLE` at a time, so that each fits the page."""
    return [_with_titles(grid_table(res, metrics[i:i + _PER_TABLE]), res.keys) for i in range(0, len(metrics), _PER_TABLE)]


def write_report(res: ExperimentResult, out_dir: Path) -> Path:
    """Write ``out_dir/index.html`` and its PNG plots; return the page's path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    summary = res.summary()
    x, lines = choose_axes(res)
    with_values = [m for m in RUN_METRICS if not summary[summary["metric"] == m]["mean"].isna().all()]
    figures = []
    if x is not None and not summary.empty:
        for metric in PLOTTED:
            if metric in with_values:
                name = f"{metric}.png"
                plots.plot_sweep(summary, x, metric, lines, out_dir / name, ylabel=METRICS[metric][2])
                figures.append((name, METRICS[metric][2]))
    per_point = _per_point_figures(res, out_dir) if len(res.metrics) else []
    # Without any value (nothing finished yet) the table still lists every point, with its note.
    main = [m for m in MAIN if m in with_values] or list(MAIN[:1])
    grid = grid_table(res, main)
    context: dict[str, Any] = {
        "name": res.name,
        "generated": generated_stamp(),
        "store": str(res.store.root),
        "planned": len(res.plan),
        "replications": res.replications,
        "finished": len(res.metrics),
        "failed": len(res.failures),
        "missing": res.missing,
        "varied": [
            (short, key, list(dict.fromkeys(str(param_value(p["params"].get(key))) for p in res.plan)))
            for short, key in zip(short_keys(res.keys), res.keys)
        ],
        "grid": _with_titles(grid, res.keys),
        "more": _more_tables(res, [m for m in with_values if m not in main]),
        "legend": [(METRICS[m][0], m, METRICS[m][1]) for m in with_values],
        "without_values": [m for m in RUN_METRICS if m not in with_values],
        "grid_text": _format.text_table(*grid),
        "x": x,
        "lines": lines,
        "figures": figures,
        "per_point": per_point,
        "failures": failures_text(res),
    }
    return write_html(out_dir / "index.html", "campaign.html", **context)


def _per_point_figures(res: ExperimentResult, out_dir: Path) -> list[tuple[str, str, Markup]]:
    """Draw throughput against delay and the delay CDF per grid point; return (image or "",
    heading, caption) per figure, the caption saying why where a figure could not be drawn."""
    x, lines = panel_axes(res)
    panels = Markup("one panel per value of <code>{}</code>").format(x) if x is not None else Markup("one panel")
    out: list[tuple[str, str, Markup]] = []
    others = [k for k in res.keys if not _is_cc(k) and k != x and res.metrics[k].nunique() > 1]
    markers = Markup("")
    if others:  # the keys that give the markers, as plot_throughput_delay_sweep chooses them
        markers = Markup(", a marker per value of {}").format(Markup(", ").join(Markup("<code>{}</code>").format(k) for k in others))
    try:
        plots.plot_throughput_delay_sweep(res, x, out_dir / "throughput_delay.png")
        out.append(("throughput_delay.png", "Throughput and delay", Markup(
            "Pantheon's summary plot, {}: each algorithm's mean goodput per flow against the mean of its flows' "
            "95th-percentile one-way delay, the delay axis inverted so that better is up and to the right. A large marker "
            "is the mean over the grid point's replications, the small ones its runs, the ellipse one standard deviation "
            "of their spread along its principal axes; a colour per algorithm{}.").format(panels, markers)))
    except ArgumentError:
        out.append(("", "Throughput and delay",
                    Markup("Not drawn: no finished run has a 95th-percentile one-way delay (its backend does not measure one).")))
    dq = res.delay_quantiles()
    with_table = int(dq.loc[dq["delay_s"].notna(), "run_id"].nunique())
    if with_table == 0:
        out.append(("", "Delay distribution", Markup(
            "Not drawn: no finished run has a delay distribution in the store (runs stored by a version that did not keep "
            "<code>delay_quantiles.parquet</code>: <code>ccarena sweep --force</code> recomputes them; or a backend that "
            "does not measure one-way delays).")))
        return out
    plots.plot_delay_cdf_sweep(res, x, lines, out_dir / "delay_cdf.png")
    each = Markup("one line")
    if lines:
        each = Markup("a line per value of {}").format(Markup(", ").join(Markup("<code>{}</code>").format(k) for k in lines))
    caption = Markup(
        "The CDF of the one-way delay of every packet the main flows delivered after the warm-up, {}, {}: the packets of "
        "all the grid point's replications together, each flow weighted by its packets, from each run's "
        "<code>delay_quantiles</code> (its delays at q = 0, 0.005, …, 1).").format(panels, each)
    if with_table < len(res.metrics):
        caption += escape(f" Drawn from {with_table} of the {len(res.metrics)} finished runs: the others have no delay "
                          "distribution in the store (stored by a version that did not keep it, or run on a backend that "
                          "measures none).")
    out.append(("delay_cdf.png", "Delay distribution", caption))
    return out
