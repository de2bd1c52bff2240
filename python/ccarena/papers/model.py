"""What a paper reproduction is made of: the paper's published tables as data, its claims as
checks over our results, and the experiments that produce those results (ARCHITECTURE §7)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

import numpy as np
import pandas as pd

from ccarena import metrics
from ccarena.experiment import Experiment, ExperimentResult

#: How much of a paper's evaluation to run (`ccarena reproduce --scale`, whose choices
#: `cli_reproduce.SCALES` lists without importing this module: it loads pandas).
Scale = Literal["smoke", "quick", "full"]

#: The scales from the least work to the most.
SCALES: tuple[Scale, ...] = get_args(Scale)

#: The smallest scale that checks claims. Every paper's `smoke` shortens its runs and runs each
#: point once (its `scales` say how): enough to show that the reproduction runs end to end, too
#: little to tell what the paper's claims are about (a 5 MB transfer that has not finished, one
#: seed's luck), so a smoke page shows what was measured but gives no verdict.
CLAIMS_FROM: Scale = "quick"


def checks_claims(scale: Scale) -> bool:
    """Whether runs at ``scale`` can check a paper's claims (:data:`CLAIMS_FROM`)."""
    return SCALES.index(scale) >= SCALES.index(CLAIMS_FROM)


def unchecked_reason(scale: Scale) -> str:
    """Why claims get no verdict at ``scale`` (one that :func:`checks_claims` refuses), and what
    to run instead."""
    checking = [s for s in SCALES if checks_claims(s)]
    return f"{scale} scale checks that the reproduction runs; it cannot check claims — use {' or '.join(checking)}"

#: One experiment's results by experiment name, as a paper's checks and tables receive them.
Results = Mapping[str, ExperimentResult]


@dataclass(frozen=True)
class PaperTable:
    """A table the paper prints, transcribed: one row per ``index`` tuple, one value per column.

    ``ci`` holds the paper's own 95% confidence half-widths where it prints them (same shape as
    ``rows``). ``ref`` says where it is (section, table number); ``units`` the unit of each
    column as the paper prints it.
    """

    id: str
    title: str
    ref: str
    index: tuple[str, ...]
    columns: tuple[str, ...]
    units: Mapping[str, str]
    rows: Mapping[tuple[Any, ...], Mapping[str, float]]
    ci: Mapping[tuple[Any, ...], Mapping[str, float]] = field(default_factory=dict)

    def frame(self) -> pd.DataFrame:
        """The table as a DataFrame: the index columns, then the paper's values."""
        records = [{**dict(zip(self.index, key)), **values} for key, values in self.rows.items()]
        return pd.DataFrame(records, columns=[*self.index, *self.columns])


@dataclass(frozen=True)
class Estimate:
    """Our value for one cell: the mean over replications and its 95% confidence interval."""

    mean: float
    low: float = math.nan
    high: float = math.nan
    n: int = 0

    @classmethod
    def of(cls, values: Sequence[float] | np.ndarray) -> Estimate:
        v = np.asarray(values, dtype=float)
        v = v[~np.isnan(v)]
        ci = metrics.mean_ci(v)
        return cls(ci.mean, ci.low, ci.high, ci.n)


@dataclass(frozen=True)
class Verdict:
    """A claim checked: reproduced or not, what we measured, and why we differ where we do."""

    reproduced: bool
    measured: str
    explanation: str = ""


@dataclass(frozen=True)
class Claim:
    """A qualitative statement of the paper that a run can check.

    ``stable_at`` is the smallest scale at which the verdict is expected not to depend on the
    replications' luck ("quick" or "full"); tests assert the verdicts of claims stable at
    ``quick`` when they run that scale.
    """

    id: str
    text: str
    ref: str
    check: Callable[[Results], Verdict]
    stable_at: Scale = "full"

    def __post_init__(self) -> None:
        if not checks_claims(self.stable_at):
            raise ValueError(f"claim {self.id}: stable_at {self.stable_at!r}: a scale that checks claims is one of "
                             f"{', '.join(s for s in SCALES if checks_claims(s))}")


@dataclass(frozen=True)
class Figure:
    """A figure of the paper redrawn from our runs: ``draw(results, path)`` writes a PNG."""

    id: str
    caption: str
    draw: Callable[[Results, Path], None]


@dataclass(frozen=True)
class Paper:
    """Everything `ccarena reproduce NAME` needs for one seed paper."""

    name: str
    seed: str
    title: str
    citation: str
    setup: str
    #: Parameters the paper leaves unstated: our choice and its reason, one sentence each.
    choices: Sequence[str]
    #: What each scale runs (shown on the page).
    scales: Mapping[Scale, str]
    experiments: Callable[[Scale], dict[str, Experiment]]
    tables: Sequence[PaperTable]
    #: Our estimate of a table's cells: table → {row key → {column → Estimate}}.
    ours: Callable[[Results, PaperTable], dict[tuple[Any, ...], dict[str, Estimate]]]
    claims: Sequence[Claim]
    figures: Sequence[Figure] = ()
    #: Experiments whose runs keep their time series (for figures over time).
    series: Sequence[str] = ()
    #: Further page sections the experiment layer cannot produce (e.g. runs on the Linux kernel):
    #: each gets the scale and the output directory and returns its HTML.
    sections: Sequence[Callable[[Scale, Path], str]] = ()
    #: A note shown at the top of the page (e.g. what the simulator cannot do for this paper).
    note: str = ""


def group_estimates(
    res: ExperimentResult, by: Sequence[str], columns: Mapping[str, Callable[[pd.DataFrame], float]]
) -> dict[tuple[Any, ...], dict[str, Estimate]]:
    """Per-flow results reduced to one value per run and group of ``by`` columns (each column's
    function applied to that run's rows of the group), then estimated over replications."""
    rows = res.runs
    out: dict[tuple[Any, ...], dict[str, Estimate]] = {}
    if rows.empty:
        return out
    per_run = []
    for key, part in rows.groupby(["run_id", *by], sort=False, dropna=False):
        per_run.append({**dict(zip(["run_id", *by], key)), **{c: f(part) for c, f in columns.items()}})
    table = pd.DataFrame(per_run)
    for key, part in table.groupby(list(by), sort=False, dropna=False):
        k = key if isinstance(key, tuple) else (key,)
        out[k] = {c: Estimate.of(part[c].to_numpy(dtype=float)) for c in columns}
    return out


def duration_ms(value: Any) -> int:
    """A grid's duration (``"20ms"``, ``"0.2s"``) in whole milliseconds, read by the core, to
    key a paper's rows by the RTT or delay they print."""
    from ccarena import _core

    return round(_core.duration_s(str(value)) * 1e3)


def fmt(value: float, digits: int = 2) -> str:
    """A number as the page prints it."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if 0 < abs(value) < 0.1:
        return f"{value:.3g}"
    return f"{value:.{digits}f}"
