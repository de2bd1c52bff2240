"""The old names of renamed result columns, still readable for one release.

The tables of :class:`ccarena.RunResult`, :class:`ccarena.api.Plan` and
:class:`ccarena.ExperimentResult` are :class:`AliasedFrame` s: reading a column by an old name
(``result.flows["id"]``, ``result.flows[["id", "goodput_bps"]]``, ``result.links.name``) gives the
column under its new name and one ``FutureWarning`` naming it, until
``_columns.ALIASES_REMOVED_IN`` (docs/results.md, "Renamed columns"). Only reading by ``[]`` and
by attribute is redirected: methods that take column names (``groupby``, ``set_index``,
``merge``…) need the new ones, and ``columns`` lists only those.

A campaign store written before the rename holds the old names; :func:`upgrade_table` and
:func:`upgrade_metrics` give what it holds the new ones as it is read.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Mapping
from types import FrameType
from typing import Any

import pandas as pd

from ccarena._columns import ALIASES_REMOVED_IN, RENAMED

#: Per-run metrics of a campaign renamed with the columns (docs/experiments.md, "Metrics").
RENAMED_METRICS = {"mean_delay_s": "delay_mean_s"}

#: Old name → new name for each table a result hands out, by the name the warning gives it.
TABLE_ALIASES: dict[str, Mapping[str, str]] = {
    **RENAMED,
    "link_series": {},  # its ``link`` column had that name already
    "delay_quantiles": {},  # new with the current names
    # ExperimentResult: a row per run × flow with the run's metrics prefixed ``run_``, a row per
    # run with its metrics, and the stored tables under their own names.
    "runs": {**RENAMED["flows"], **{f"run_{old}": f"run_{new}" for old, new in RENAMED_METRICS.items()}},
    "metrics": RENAMED_METRICS,
    # ccarena.plots.goodput_series: a row per flow_series row.
    "goodput_series": RENAMED["flow_series"],
}

_PANDAS_DIR = os.path.dirname(pd.__file__)


def _caller_level(also_skip: str) -> int:
    """The ``stacklevel``, seen from the function that calls this one, of the first frame outside
    this module, pandas and the file ``also_skip``: the line that used the old name."""
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and (frame.f_code.co_filename in (__file__, also_skip) or frame.f_code.co_filename.startswith(_PANDAS_DIR)):
        frame, level = frame.f_back, level + 1
    return level


def _warn(what: str, old: str, new: str, also_skip: str = "") -> None:
    warnings.warn(
        f"{what} {old!r} is now {new!r}; the old name goes in the next release ({ALIASES_REMOVED_IN})",
        FutureWarning,
        stacklevel=_caller_level(also_skip),
    )


class AliasedFrame(pd.DataFrame):
    """A DataFrame that reads the renamed columns of its table by their old names too, with a
    ``FutureWarning``. Its slices, copies and filtered rows are AliasedFrames with the same names
    (pandas' ``_constructor`` and ``_metadata``)."""

    _metadata = ["_aliases", "_table"]
    # Class defaults, so that a frame pandas builds without finalising it (a concat) has none.
    _aliases: Mapping[str, str] = {}
    _table = ""

    @property
    def _constructor(self) -> type[AliasedFrame]:
        return AliasedFrame

    def _new_name(self, key: Any) -> Any:
        if isinstance(key, str) and key in self._aliases and key not in self.columns:
            _warn(f"{self._table} column", key, self._aliases[key])
            return self._aliases[key]
        return key

    def __getitem__(self, key: Any) -> Any:
        key = [self._new_name(k) for k in key] if isinstance(key, list) else self._new_name(key)
        return super().__getitem__(key)

    def __getattr__(self, name: str) -> Any:
        # Reached only when ordinary lookup fails, as for pandas' own column attributes.
        if not name.startswith("_") and name in self._aliases:
            return self[name]
        return super().__getattr__(name)


def aliased(df: pd.DataFrame, table: str) -> AliasedFrame:
    """``df`` as an :class:`AliasedFrame` reading the old names of ``table`` (a key of
    :data:`TABLE_ALIASES`); the data is shared, not copied."""
    out = AliasedFrame(df)
    out._aliases = TABLE_ALIASES[table]
    out._table = table
    return out


def metric_name(name: str) -> str:
    """A per-run metric's current name for ``name``, warning when ``name`` is an old one (at the
    line that called the method that called this)."""
    if name in RENAMED_METRICS:
        _warn("metric", name, RENAMED_METRICS[name], also_skip=sys._getframe(1).f_code.co_filename)
        return RENAMED_METRICS[name]
    return name


def upgrade_table(table: str, df: pd.DataFrame) -> pd.DataFrame:
    """A stored ``table`` with the current column names: an old name is renamed, or dropped
    where the table also has the new one (the derived ``mean_delay_s`` beside ``delay_mean_s``)."""
    renamed = RENAMED.get(table, {})
    drop = [old for old, new in renamed.items() if old in df.columns and new in df.columns]
    rename = {old: new for old, new in renamed.items() if old in df.columns and new not in df.columns}
    return df.drop(columns=drop).rename(columns=rename) if drop or rename else df


def upgrade_metrics(stored: Mapping[str, Any]) -> dict[str, Any]:
    """A stored run's metrics with the current names."""
    out = dict(stored)
    for old, new in RENAMED_METRICS.items():
        if old in out:
            out.setdefault(new, out.pop(old))
    return out
