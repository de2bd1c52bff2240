"""The results of an experiment as tidy tables, with statistics over replications."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ccarena import _aliases
from ccarena import metrics as _metrics
from ccarena.errors import ExperimentError
from ccarena.experiment.store import Store

if TYPE_CHECKING:
    from ccarena.plots import ExperimentPlots

#: Per-run metric columns, in display order (docs/experiments.md, "Metrics").
RUN_METRICS = (
    "goodput_bps",
    "throughput_bps",
    "utilisation",
    "utilisation_main",
    "jain",
    "jain_intra",
    "jain_inter",
    "dropped_pkts",
    "retransmitted_pkts",
    "mean_queue_pkts",
    "delay_mean_s",
    "delivery_ratio",
    "stability_cov",
    "rtt_fairness",
    "reno_share",
    "convergence_s",
)
#: Per-flow columns averaged over a group's flows by ``summary(per="group")``.
GROUP_METRICS = (
    "goodput_bps",
    "throughput_bps",
    "delivery_ratio",
    "delay_mean_s",
    "delay_p95_s",
    "retransmitted_pkts",
    "dropped_pkts",
    "timeouts",
)
ID_COLUMNS = ("run_id", "point", "replication", "seed")


def param_value(value: Any) -> Any:
    """A grid value as a table cell: tables and lists become their JSON text."""
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True)
    return value


class ExperimentResult:
    """What an experiment produced, read from its store.

    - ``runs``: one row per run × flow: ``run_id``, ``point``, ``replication``, ``seed``, one
      column per varied key, the flow's columns (as in ``RunResult.flows``) and the run's
      metrics prefixed ``run_`` (``run_jain``, ``run_utilisation``…);
    - ``links``: one row per run × link direction, with the same parameter columns;
    - ``metrics``: one row per run, with the per-run metrics;
    - ``failures``: one row per failed run, with its ``error``.

    The first three read renamed columns by their old names too, with a ``FutureWarning``
    (:mod:`ccarena._aliases`), and ``summary`` and ``compare`` take a renamed metric's old name.
    """

    def __init__(self, store: Store, description: Mapping[str, Any]) -> None:
        self.store = store
        self.name: str = description["name"]
        self.keys: list[str] = list(description["keys"])
        self.replications: int = int(description["replications"])
        self.plan: list[dict[str, Any]] = list(description["runs"])
        self._delay_quantiles: pd.DataFrame | None = None
        self._load()

    @classmethod
    def from_description(cls, store: Store, description: Mapping[str, Any]) -> ExperimentResult:
        return cls(store, description)

    def _ids(self, row: Mapping[str, Any]) -> dict[str, Any]:
        ids = {"run_id": row["key"], "point": row["point"], "replication": row["replication"], "seed": row["seed"]}
        ids.update({k: param_value(row["params"].get(k)) for k in self.keys})
        return ids

    def _load(self) -> None:
        flows, links, per_run, failed = [], [], [], []
        for row in self.plan:
            key = row["key"]
            ids = self._ids(row)
            if not self.store.has(key):
                failure = self.store.failure(key)
                if failure is not None:
                    failed.append({**ids, "error": failure.get("error", "")})
                continue
            info = self.store.run_info(key)
            f = self.store.read_table(key, "flows")
            lk = self.store.read_table(key, "links")
            if not self.store.has(key):
                continue  # a table turned out unreadable: the whole run is left out, not half of it
            run_metrics = {m: _nan(info["metrics"].get(m)) for m in RUN_METRICS}
            per_run.append({**ids, **run_metrics})
            if f is not None:
                f = _with_ids(f, ids)
                for m, v in run_metrics.items():
                    f[f"run_{m}"] = v
                flows.append(f)
            if lk is not None:
                links.append(_with_ids(lk, ids))
        id_cols = [*ID_COLUMNS, *self.keys]
        self.runs: pd.DataFrame = _aliases.aliased(_concat(flows, id_cols), "runs")
        self.links: pd.DataFrame = _aliases.aliased(_concat(links, id_cols), "links")
        self.metrics: pd.DataFrame = _aliases.aliased(pd.DataFrame(per_run, columns=[*id_cols, *RUN_METRICS]), "metrics")
        self.failures: pd.DataFrame = pd.DataFrame(failed, columns=[*id_cols, "error"])

    @property
    def missing(self) -> int:
        """Runs of the plan neither finished nor failed (an interrupted sweep)."""
        return len(self.plan) - len(self.metrics) - len(self.failures)

    def series(self, table: str = "flow_series") -> pd.DataFrame:
        """The stored time series (``flow_series`` or ``link_series``) of every run that has
        them (``series=True`` / ``ccarena sweep --series``), with the parameter columns."""
        if table not in ("flow_series", "link_series"):
            raise ExperimentError(f"series: table must be 'flow_series' or 'link_series', not {table!r}")
        return self._stored(table)

    def delay_quantiles(self) -> pd.DataFrame:
        """The stored ``delay_quantiles`` of every run, one row per run × main flow × level q
        (``RunResult.delay_quantiles``), with the parameter columns. Runs stored by a version
        that did not keep the table, and backends that measure no one-way delays, add no rows."""
        # read once: the report counts the runs that have it and then draws them
        if self._delay_quantiles is None:
            self._delay_quantiles = self._stored("delay_quantiles", ["flow_id", "q", "delay_s"])
        return self._delay_quantiles

    def _stored(self, table: str, columns: Sequence[str] = ()) -> pd.DataFrame:
        """A table stored per run, those of every run that has it one after another (with the
        parameter columns and ``columns`` when no run has it)."""
        parts = []
        for row in self.plan:
            df = self.store.read_table(row["key"], table) if self.store.has(row["key"]) else None
            if df is not None:
                parts.append(_with_ids(df, self._ids(row)))
        return _aliases.aliased(_concat(parts, [*ID_COLUMNS, *self.keys, *columns]), table)

    def summary(self, metrics: Sequence[str] | None = None, *, level: float = 0.95, per: str = "run") -> pd.DataFrame:
        """Mean, sample standard deviation and confidence interval over replications.

        The interval stays inside the metric's range (``ccarena.metrics.METRIC_RANGES``: shares
        and Jain's index in [0, 1], rates, times and counts ≥ 0): Student's t cut to the range
        below 10 replications, a seeded percentile bootstrap from 10 on; Student's t for a metric
        without a range (``ccarena.metrics.bounded_mean_ci``, docs/experiments.md).

        ``per="run"``: one row per grid point × metric of :attr:`metrics` (default: all).
        ``per="group"``: one row per grid point × flow group × flow metric, each run reduced
        first to the mean over the group's flows. Columns: ``point``, the varied keys (and
        ``group``), ``metric``, ``n``, ``mean``, ``sd``, ``ci_low``, ``ci_high``.
        """
        if per == "run":
            table, by, available = self.metrics, ["point", *self.keys], list(RUN_METRICS)
        elif per == "group":
            cols = [c for c in GROUP_METRICS if c in self.runs]
            table = self.runs.groupby(["run_id", "point", *self.keys, "group"], sort=False, dropna=False)[cols].mean().reset_index()
            by, available = ["point", *self.keys, "group"], cols
        else:
            raise ExperimentError(f"summary: per must be 'run' or 'group', not {per!r}")
        chosen = [_aliases.metric_name(m) for m in metrics] if metrics is not None else available
        unknown = [m for m in chosen if m not in available]
        if unknown:
            raise ExperimentError(f"summary: unknown metric {unknown[0]!r} (available: {', '.join(available)})")
        rows = []
        if not table.empty:
            for group_key, part in table.groupby(by, sort=True, dropna=False):
                labels = dict(zip(by, group_key if isinstance(group_key, tuple) else (group_key,)))
                for m in chosen:
                    values = part[m].to_numpy(dtype=float)
                    values = values[~np.isnan(values)]
                    ci = _metrics.metric_ci(values, m, level)
                    sd = float(np.std(values, ddof=1)) if values.size > 1 else math.nan
                    rows.append({**labels, "metric": m, "n": ci.n, "mean": ci.mean, "sd": sd, "ci_low": ci.low, "ci_high": ci.high})
        return pd.DataFrame(rows, columns=[*by, "metric", "n", "mean", "sd", "ci_low", "ci_high"])

    def compare(self, key: str, a: Any, b: Any, metric: str = "goodput_bps", *, level: float = 0.95) -> pd.DataFrame:
        """Paired differences ``a − b`` of a per-run ``metric`` between two values of a varied
        ``key`` (e.g. two algorithms), pairing runs with the same replication (the same seed) at
        the same values of the other keys. One row per value of the other keys: ``n``,
        ``mean_a``, ``mean_b``, ``mean_diff``, ``ci_low``, ``ci_high`` (Student t on the
        differences) and ``p_value`` (two-sided paired t-test, SciPy's ``ttest_rel``)."""
        from scipy import stats

        if key not in self.keys:
            raise ExperimentError(f"compare: {key!r} is not a varied key (varied: {', '.join(self.keys)})")
        metric = _aliases.metric_name(metric)
        if metric not in RUN_METRICS:
            raise ExperimentError(f"compare: unknown metric {metric!r} (available: {', '.join(RUN_METRICS)})")
        others = [k for k in self.keys if k != key]
        m = self.metrics
        side_a = m[m[key] == param_value(a)]
        side_b = m[m[key] == param_value(b)]
        for side, value in ((side_a, a), (side_b, b)):
            if side.empty:
                raise ExperimentError(f"compare: no finished run has {key} = {value!r}")
        pairs = side_a.merge(side_b, on=[*others, "replication"], suffixes=("_a", "_b"))
        rows = []
        groups = pairs.groupby(others, sort=True, dropna=False) if others else [((), pairs)]
        for group_key, part in groups:
            labels = dict(zip(others, group_key if isinstance(group_key, tuple) else (group_key,)))
            va, vb = part[f"{metric}_a"].to_numpy(dtype=float), part[f"{metric}_b"].to_numpy(dtype=float)
            ok = ~(np.isnan(va) | np.isnan(vb))
            va, vb = va[ok], vb[ok]
            ci = _metrics.mean_ci(va - vb, level)
            p = float(stats.ttest_rel(va, vb).pvalue) if va.size > 1 and np.any(va != vb) else math.nan
            rows.append({
                **labels, "n": ci.n, "mean_a": float(np.mean(va)) if va.size else math.nan,
                "mean_b": float(np.mean(vb)) if vb.size else math.nan, "mean_diff": ci.mean,
                "ci_low": ci.low, "ci_high": ci.high, "p_value": p,
            })
        return pd.DataFrame(rows, columns=[*others, "n", "mean_a", "mean_b", "mean_diff", "ci_low", "ci_high", "p_value"])

    @property
    def plot(self) -> ExperimentPlots:
        """The campaign's plots as methods: ``res.plot.sweep("goodput_bps")``,
        ``res.plot.throughput_delay()`` (:class:`ccarena.plots.ExperimentPlots`)."""
        from ccarena.plots import ExperimentPlots

        return ExperimentPlots(self)

    def _repr_html_(self) -> str:
        from ccarena import _notebook

        return _notebook.experiment_html(self)

    def __repr__(self) -> str:
        return (
            f"ExperimentResult({self.name!r}: {len(self.plan)} runs planned, {len(self.metrics)} finished, "
            f"{len(self.failures)} failed, {self.missing} missing; keys {self.keys})"
        )


def _nan(value: Any) -> float:
    return math.nan if value is None else float(value)


def _with_ids(df: pd.DataFrame, ids: Mapping[str, Any]) -> pd.DataFrame:
    front = pd.DataFrame({k: [v] * len(df) for k, v in ids.items()}, index=df.index)
    return pd.concat([front, df], axis=1)


def _concat(parts: list[pd.DataFrame], id_cols: list[str]) -> pd.DataFrame:
    if not parts:
        return pd.DataFrame(columns=id_cols)
    return pd.concat(parts, ignore_index=True)
