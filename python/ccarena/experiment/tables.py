"""Campaign results as display tables, shared by the CLI (text) and the report (HTML).

Values are shown in human units chosen from the column's name: ``*_bps`` as a rate
(``9.65 Mbit/s``), ``*_s`` as a time (``45.6 ms`` below one second, else ``12.50 s``), packet
counts as numbers, everything else (shares, Jain's index, utilisation) with four decimals.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ccarena import _aliases, _format
from ccarena.errors import ExperimentError
from ccarena.experiment.result import ExperimentResult, param_value

Table = tuple[list[str], list[list[str]], list[bool]]

_RATE_UNITS = ((1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s"))
#: Counted things whose names do not end in ``_pkts``.
_COUNTS = frozenset({"timeouts", "fast_recoveries", "loss_probes", "ecn_reductions", "sq_reductions", "delay_count"})
#: A run id as shown: its first hex digits, as git shortens commit ids.
SHORT_ID = 8

#: What ``ccarena results`` shows of each table by default, after ``run_id``, ``replication``
#: and the varied keys (``summary`` starts with the keys only): the main metrics of that table.
DEFAULT_COLUMNS = {
    "runs": ("flow_id", "group", "goodput_bps", "throughput_bps", "dropped_pkts", "retransmitted_pkts", "delay_mean_s"),
    "links": ("link", "rate_bps", "utilisation", "dropped_pkts", "mean_queue_pkts", "max_queue_pkts"),
    "metrics": ("goodput_bps", "utilisation", "jain", "dropped_pkts", "mean_queue_pkts"),
    "summary": ("metric", "n", "mean", "ci_low", "ci_high"),
    "failures": ("error",),
}
#: Columns of ``summary`` that hold a value of the row's ``metric``.
_SUMMARY_VALUES = ("mean", "sd", "ci_low", "ci_high")


def is_count(name: str) -> bool:
    return name.endswith(("_pkts", "_bytes")) or name in _COUNTS


def metric_unit(metric: str, magnitude: float) -> tuple[float, str, int]:
    """How values of ``metric`` near ``magnitude`` are shown: (divisor, unit, usual decimals).
    Rates take the unit of their size (bit/s to Gbit/s), times milliseconds below a second."""
    size = abs(magnitude) if math.isfinite(magnitude) else 0.0
    if metric.endswith("_bps"):
        for scale, unit in _RATE_UNITS:
            if size >= scale * 0.9995:
                return scale, unit, 2
        return 1.0, "bit/s", 2
    if metric.endswith("_s"):
        return (1.0, "s", 2) if size >= 0.9995 else (1e-3, "ms", 1)
    if is_count(metric):
        return 1.0, "", 1
    return 1.0, "", 4


def _with_unit(number: str, unit: str) -> str:
    return f"{number} {unit}" if unit else number


def format_value(metric: str, value: float, decimals: int | None = None) -> str:
    """A metric's value in human units (see the module docstring); NaN is ``-``."""
    if _format.is_missing(value) or math.isnan(float(value)):
        return "-"
    scale, unit, usual = metric_unit(metric, float(value))
    return _with_unit(f"{float(value) / scale:.{usual if decimals is None else decimals}f}", unit)


#: A half-width below this fraction of the mean is rounding noise of identical values.
NOISE = 1e-12


def _decimals(width: float, usual: int) -> int:
    """Decimals that show ``width`` (an interval's half-width) to two significant digits."""
    if not width > 0 or not math.isfinite(width):
        return usual
    decimals = 1 - math.floor(math.log10(width))
    # Just under a power of ten (0.0000999…) the width rounds up to it: one decimal fewer keeps
    # two digits (0.00010, not 0.000100).
    if round(width, decimals) >= 10.0 ** (2 - decimals):
        decimals -= 1
    return max(0, decimals)


def interval_text(metric: str, mean: float, low: float, high: float) -> str:
    """A mean with its confidence interval ``[low, high]``, in the mean's unit written once:
    ``9.65 ± 0.0027 Mbit/s`` when the interval is centred on the mean, ``0.971 −0.068 +0.029``
    when it is not (an interval cut to the metric's range, or a bootstrap one), the mean alone
    without an interval.

    The distances to the bounds have two significant digits (of the larger one); the mean has
    as many decimals, but never more than the unit's usual ones (two for rates and seconds, one
    for milliseconds and counts, four for shares), so a wide interval rounds the mean
    (``43.2 ± 3.7 Mbit/s``) and a narrow one does not lengthen it."""
    if math.isnan(mean):
        return "-"
    if math.isnan(low) or math.isnan(high):
        return format_value(metric, mean)
    below, above = mean - low, high - mean
    # Identical replications give a half-width of floating-point noise, not an interval.
    if max(abs(below), abs(above)) <= NOISE * abs(mean):
        below = above = 0.0
    scale, unit, usual = metric_unit(metric, mean if mean else max(below, above))
    decimals = _decimals(max(below, above) / scale, usual)
    shown = f"{mean / scale:.{min(usual, decimals)}f}"
    lower, upper = (_offset(x / scale, decimals) for x in (below, above))
    text = f"{shown} ± {upper}" if lower == upper else f"{shown} −{lower} +{upper}"
    return _with_unit(text, unit)


def _offset(x: float, decimals: int) -> str:
    return "0" if x == 0 else f"{x:.{decimals}f}"


def _point_counts(res: ExperimentResult) -> dict[int, dict[str, Any]]:
    """Per grid point of the plan, in order: its key values and how many runs were planned,
    finished and failed."""
    points: dict[int, dict[str, Any]] = {}
    for row in res.plan:
        entry = points.setdefault(int(row["point"]), {
            "values": [str(param_value(row["params"].get(k))) for k in res.keys], "planned": 0, "finished": 0, "failed": 0,
        })
        entry["planned"] += 1
    for table, what in ((res.metrics, "finished"), (res.failures, "failed")):
        for point, n in table["point"].value_counts().items():
            if int(point) in points:
                points[int(point)][what] += int(n)
    return dict(sorted(points.items()))


def _no_values_note(planned: int, failed: int) -> str:
    """Why a grid point has no values, for its row."""
    if failed == 0:
        return "no values: not run yet"
    if failed == planned:
        return {1: "no values: its run failed", 2: "no values: both runs failed"}.get(planned, f"no values: all {planned} runs failed")
    return f"no values: {_format.counted(failed, 'run')} failed, {planned - failed} not run yet"


def grid_table(res: ExperimentResult, metrics: Sequence[str]) -> Table:
    """One row per grid point of the plan: the varied keys, ``n`` (finished runs, ``3/5`` when
    some of the point's runs did not finish) and each metric's mean with its 95% CI
    (:func:`interval_text`; ``(n=2)`` after it when the metric has a value in fewer runs, ``-``
    when in none). A point without finished runs gets a note instead of the values, a row that
    ends early (a note spanning the metric columns: see ``_format.text_table``)."""
    metrics = [_aliases.metric_name(m) for m in metrics]
    summ = res.summary(metrics)
    counts = _point_counts(res)
    cells: dict[int, dict[str, str]] = {}
    for row in summ.itertuples(index=False):
        text = interval_text(str(row.metric), float(row.mean), float(row.ci_low), float(row.ci_high))
        if 0 < int(row.n) < counts[int(row.point)]["finished"]:
            text += f" (n={int(row.n)})"  # the metric is undefined in some of the point's runs
        cells.setdefault(int(row.point), {})[str(row.metric)] = text
    headers = [*res.keys, "n", *metrics]
    rows = []
    for point, c in counts.items():
        done = c["finished"]
        n = str(done) if done == c["planned"] else f"{done}/{c['planned']}"
        if done and point in cells:
            rows.append([*c["values"], n, *(cells[point].get(m, "-") for m in metrics)])
        else:
            rows.append([*c["values"], n, _no_values_note(c["planned"], c["failed"])])
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


# --- the tables of `ccarena results` --------------------------------------------------------------


def result_frame(res: ExperimentResult, table: str) -> pd.DataFrame:
    """One of the store's tables: ``runs``, ``links``, ``metrics``, ``failures`` or ``summary``."""
    return res.summary() if table == "summary" else getattr(res, table)


def choose_columns(res: ExperimentResult, table: str, df: pd.DataFrame, columns: str | None) -> list[str]:
    """The columns to show: the table's defaults (:data:`DEFAULT_COLUMNS`, those it has),
    ``"all"``, or a comma-separated list of its column names (an unknown one is an
    :class:`~ccarena.ExperimentError` listing the available ones)."""
    available = [str(c) for c in df.columns]
    if columns is None:
        front = [*res.keys] if table == "summary" else ["run_id", "replication", *res.keys]
        return [c for c in dict.fromkeys([*front, *DEFAULT_COLUMNS[table]]) if c in available]
    if columns.strip() == "all":
        return available
    chosen = [c.strip() for c in columns.split(",") if c.strip()]
    if not chosen:
        raise ExperimentError(f"--columns: {columns!r} names no column (give names separated by commas, or 'all')")
    for c in chosen:
        if c not in available:
            raise ExperimentError(f"--columns: the {table} table has no column {c!r}; its columns: {', '.join(available)}")
    return list(dict.fromkeys(chosen))


def cell(column: str, value: Any, whole: bool = False) -> str:
    """One value of a result table as text (units: the module docstring; ``run_id`` shortened).
    ``whole``: the column holds whole numbers only, so a count is shown without decimals."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return "-"
    if column == "run_id":
        return str(value)[:SHORT_ID]
    if isinstance(value, str):
        return " ".join(value.split())  # an error message on one line
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return str(value)
    v = float(value)
    if column.endswith(("_bps", "_s")):
        return format_value(column, v)
    if isinstance(value, numbers.Integral) or (is_count(column) and whole):
        return str(int(v))
    return format_value(column, v)


def _summary_cells(record: Mapping[str, Any], columns: Sequence[str]) -> list[str]:
    """A row of ``summary``: its values in the unit of the row's mean, with decimals enough to
    tell the interval's bounds apart (two significant digits of its half-width)."""
    metric = str(record["metric"])
    mean, low, high = (float(record[c]) for c in ("mean", "ci_low", "ci_high"))
    scale, unit, usual = metric_unit(metric, mean)
    decimals = max(usual, _decimals(max(mean - low, high - mean) / scale, usual)) if math.isfinite(low) else usual
    out = []
    for c in columns:
        if c in _SUMMARY_VALUES and not math.isnan(float(record[c])):
            # in the mean's unit, not each value's own, so the bounds read against the mean
            out.append(_with_unit(f"{float(record[c]) / scale:.{decimals}f}", unit))
        else:
            out.append(cell(c, record[c]))
    return out


def result_table(table: str, df: pd.DataFrame, columns: Sequence[str], limit: int | None = None) -> tuple[Table, int]:
    """``columns`` of ``df`` as a text table (values: :func:`cell`), at most ``limit`` rows; also
    returns how many rows were left out. Numbers are right-aligned, text left."""
    shown = df if limit is None else df.head(limit)
    records = shown[list(columns)].to_dict("records")
    if table == "summary":
        rows = [_summary_cells({**full, **rec}, columns) for full, rec in zip(shown.to_dict("records"), records)]
    else:
        whole = {c: _whole_numbers(df[c]) for c in columns}
        rows = [[cell(c, rec[c], whole[c]) for c in columns] for rec in records]
    right = [bool(pd.api.types.is_numeric_dtype(df[c])) for c in columns]
    return (list(columns), rows, right), len(df) - len(shown)


def _whole_numbers(column: pd.Series) -> bool:
    """Whether a numeric column holds whole numbers only (NaN aside): a per-run count of drops
    is stored as a float but shown without decimals, a mean queue length with them."""
    if not pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
        return False
    values = column.dropna().to_numpy(dtype=float)
    return bool((values == values.round()).all())


def empty_text(res: ExperimentResult, table: str) -> str:
    """The sentence ``ccarena results`` prints for a table without rows."""
    failed, missing = len(res.failures), res.missing
    if table == "failures":
        return "no failed runs" + (f" ({missing} of {len(res.plan)} runs not run yet)" if missing else "")
    if res.metrics.empty:
        text = "no runs stored yet"
        if failed:
            text += f": {failed} failed (ccarena results STORE --table failures)"
        return text + (f", {missing} not run yet" if failed and missing else "")
    return f"the {table} table is empty"
