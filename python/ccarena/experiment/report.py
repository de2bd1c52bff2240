"""The HTML page of a campaign: what was varied, each grid point's mean ± CI, one plot per metric
against the swept key (one line per value of the other keys), and the failed runs."""

from __future__ import annotations

import datetime as _dt
import html
from pathlib import Path

from ccarena import _format, plots
from ccarena.experiment.result import ExperimentResult
from ccarena.experiment.tables import failures_text, grid_table
from ccarena.report.html import CSS, html_table

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
            figures.append(f'<figure><img src="{name}" alt="{html.escape(label)} against {html.escape(x)}"></figure>')
    axes = "".join(
        f"<li><code>{html.escape(k)}</code>: {html.escape(', '.join(str(v) for v in res.metrics[k].drop_duplicates()))}</li>"
        for k in res.keys
    )
    shown = ["goodput_bps", "utilisation", "jain", "dropped_pkts", "mean_queue_pkts", "convergence_s"]
    table = html_table(*grid_table(res, shown)) if len(res.metrics) else "<p>No finished runs yet.</p>"
    failed = failures_text(res)
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    page = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(res.name)}: campaign results</title>
<style>{CSS}</style>
</head>
<body>
<h1>{html.escape(res.name)}</h1>
<p class="sub">Generated {stamp} from the store <code>{html.escape(str(res.store.root))}</code>:
{len(res.plan)} runs planned ({res.replications} replications per grid point), {len(res.metrics)} finished,
{len(res.failures)} failed{f", {res.missing} not run yet" if res.missing else ""}.
Values are means over replications with their 95% confidence interval, kept inside each metric's
range (shares and Jain's index in [0, 1]; rates, times and counts not below 0): Student's t cut to
the range below 10 replications, a percentile bootstrap from 10 on, plain Student's t for metrics
without a range. Shown as ± half-width when the interval is centred on the mean, as −below +above
when it is not (definitions: <code>docs/experiments.md</code>, "Confidence intervals").</p>
<h2>Varied keys</h2>
<ul>{axes}</ul>
<h2>Grid points</h2>
<div class="scroll">{table}</div>
<h2>Plots</h2>
<p class="sub">x axis: <code>{html.escape(str(x))}</code>; one line per {html.escape(", ".join(lines) or "experiment")};
error bars: 95% confidence intervals.</p>
<div class="plots">{"".join(figures) or "<p>No finished runs to plot.</p>"}</div>
{f"<h2>Failures</h2><pre>{html.escape(failed)}</pre>" if failed else ""}
<details><summary>Text table</summary><pre>{html.escape(_format.text_table(*grid_table(res, shown)) if len(res.metrics) else "")}</pre></details>
</body>
</html>
"""
    index = out_dir / "index.html"
    index.write_text(page, encoding="utf-8")
    return index

