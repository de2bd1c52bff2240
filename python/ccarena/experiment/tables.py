"""Campaign results as display tables, shared by the CLI (text) and the report (HTML)."""

from __future__ import annotations

import math

from ccarena import _aliases, _format
from ccarena.experiment.result import ExperimentResult

Table = tuple[list[str], list[list[str]], list[bool]]


def format_value(metric: str, value: float) -> str:
    """A metric's value in human units, chosen by its name's suffix."""
    if metric.endswith("_bps"):
        return _format.rate(value)
    if metric.endswith("_s"):
        return _format.secs(value)
    if metric.endswith("_pkts"):
        return _format.number(value)
    return _format.ratio(value)


def interval_text(metric: str, mean: float, low: float, high: float) -> str:
    """``mean ± half-width`` when the interval is centred on the mean, ``mean −below +above``
    when it is not (an interval cut to the metric's range or a bootstrap one); the mean alone
    without an interval."""
    cell = format_value(metric, mean)
    if math.isnan(low) or math.isnan(high):
        return cell
    below, above = format_value(metric, mean - low), format_value(metric, high - mean)
    if below == above:
        return f"{cell} ± {above}"
    return f"{cell} −{below} +{above}"


def grid_table(res: ExperimentResult, metrics: list[str]) -> Table:
    """One row per grid point: the varied keys, n, and the mean with its 95% CI per metric
    (:func:`interval_text`)."""
    metrics = [_aliases.metric_name(m) for m in metrics]
    summ = res.summary(metrics)
    headers = [*res.keys, "n", *metrics]
    rows = []
    for _, part in summ.groupby("point", sort=True):
        first = part.iloc[0]
        row = [str(first[k]) for k in res.keys] + [str(int(part["n"].max()))]
        for m in metrics:
            r = part[part["metric"] == m].iloc[0]
            row.append(interval_text(m, float(r["mean"]), float(r["ci_low"]), float(r["ci_high"])))
        rows.append(row)
    return headers, rows, [False] * len(res.keys) + [True] * (1 + len(metrics))


def failures_text(res: ExperimentResult, limit: int = 5) -> str:
    """How many runs failed and why, the commonest errors first; empty without failures."""
    if res.failures.empty:
        return ""
    counts = res.failures["error"].value_counts()
    lines = [f"{len(res.failures)} run(s) failed:"]
    for error, n in counts.head(limit).items():
        lines.append(f"  {n} × {' '.join(str(error).split())[:200]}")
    if len(counts) > limit:
        lines.append(f"  … and {len(counts) - limit} other error(s): `ccarena results STORE --table failures`")
    return "\n".join(lines)
