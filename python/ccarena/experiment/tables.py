"""Campaign results as display tables, shared by the CLI (text) and the report (HTML)."""

from __future__ import annotations

import math

from ccarena import _format
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


def grid_table(res: ExperimentResult, metrics: list[str]) -> Table:
    """One row per grid point: the varied keys, n, and ``mean ± half-width`` of the 95% CI per
    metric (the mean alone when n = 1)."""
    summ = res.summary(metrics)
    headers = [*res.keys, "n", *metrics]
    rows = []
    for _, part in summ.groupby("point", sort=True):
        first = part.iloc[0]
        row = [str(first[k]) for k in res.keys] + [str(int(part["n"].max()))]
        for m in metrics:
            r = part[part["metric"] == m].iloc[0]
            half = (r["ci_high"] - r["ci_low"]) / 2
            cell = format_value(m, r["mean"])
            if not math.isnan(half):
                cell += f" ± {format_value(m, half)}"
            row.append(cell)
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
