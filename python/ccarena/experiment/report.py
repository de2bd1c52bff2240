"""The HTML page of a campaign: what was varied, each grid point's mean ± CI, one plot per metric
against the swept key (one line per value of the other keys), and the failed runs.

The grid table fits the page: short headers (the full key or metric in a ``title`` and in the
legend above), the main metrics in the first table and every other metric with values in
further tables inside a ``<details>``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ccarena import _format, plots
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
    not_cc = [k for k in varied if not k.endswith(".cc")]
    x = max(not_cc or varied, key=lambda k: values[k])
    return x, [k for k in varied if k != x]


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
        "failures": failures_text(res),
    }
    return write_html(out_dir / "index.html", "campaign.html", **context)

