"""The HTML page of a campaign: what was varied, each grid point's mean ± CI, one plot per metric
against the swept key (one line per value of the other keys), and the failed runs."""

from __future__ import annotations

from pathlib import Path

from ccarena import _format, plots
from ccarena.experiment.result import ExperimentResult
from ccarena.experiment.tables import failures_text, grid_table
from ccarena.report.render import generated_stamp, write_html

#: Metrics plotted, with their axis labels, when the store has values for them.
PLOTTED = {
    "goodput_bps": "aggregate goodput (bit/s)",
    "utilisation": "bottleneck utilisation",
    "jain": "Jain's index (flows)",
    "jain_inter": "Jain's index (between algorithms)",
    "dropped_pkts": "bottleneck drops (packets)",
    "mean_queue_pkts": "mean bottleneck queue (packets)",
    "stability_cov": "CoV of aggregate goodput",
    "reno_share": "Reno's share of goodput",
    "rtt_fairness": "long/short RTT goodput ratio",
    "convergence_s": "convergence time (s)",
}


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


def write_report(res: ExperimentResult, out_dir: Path) -> Path:
    """Write ``out_dir/index.html`` and its PNG plots; return the page's path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    summary = res.summary()
    x, lines = choose_axes(res)
    figures = []
    if x is not None and not summary.empty:
        for metric, label in PLOTTED.items():
            rows = summary[summary["metric"] == metric]
            if rows["mean"].isna().all():
                continue
            name = f"{metric}.png"
            plots.plot_sweep(summary, x, metric, lines, out_dir / name, ylabel=label)
            figures.append((name, label))
    shown = ["goodput_bps", "utilisation", "jain", "dropped_pkts", "mean_queue_pkts", "convergence_s"]
    grid = grid_table(res, shown) if len(res.metrics) else None
    return write_html(
        out_dir / "index.html",
        "campaign.html",
        name=res.name,
        generated=generated_stamp(),
        store=str(res.store.root),
        planned=len(res.plan),
        replications=res.replications,
        finished=len(res.metrics),
        failed=len(res.failures),
        missing=res.missing,
        varied=[(k, [str(v) for v in res.metrics[k].drop_duplicates()]) for k in res.keys],
        grid=grid,
        grid_text=_format.text_table(*grid) if grid is not None else "",
        x=x,
        lines=lines,
        figures=figures,
        failures=failures_text(res),
    )
