"""Run the fidelity suite on the backends and compare each peer with the simulator."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ccarena import backends as _backends
from ccarena.errors import PeerError, TestbedError
from ccarena.fidelity.suite import COUNT_SLACK, TOLERANCES, Row
from ccarena.fidelity.suite import rows as suite_rows

#: Backends the suite runs by default: the simulator and the peer simulators.
DEFAULT_BACKENDS = ("sim", "ns2", "ns3")


def measure(result: Any) -> dict[str, float]:
    """The compared metrics of one run."""
    flows = result.main_flows
    groups = list(dict.fromkeys(flows["group"]))
    total = float(flows["goodput_bps"].sum())
    links = result.links.set_index("link")
    tcp = flows[flows["protocol"] == "tcp"]
    # Retransmissions in the measurement window, as the drops are (the flows' table counts the whole run).
    series = result.flow_series
    window = series[(series["t_s"] > float(result.meta["warmup_s"]) + 1e-9) & series["flow_id"].isin(tcp["flow_id"])]
    share = float(flows.loc[flows["group"] == groups[0], "goodput_bps"].sum()) / total if len(groups) > 1 and total else math.nan
    return {
        "aggregate goodput": total,
        "utilisation": float(links.loc["bottleneck", "utilisation"]),
        "share": share,
        "Jain's index": float(result.jain()) if len(flows) > 1 else math.nan,
        "drops": float(links.loc["bottleneck", "meas_dropped_pkts"]),
        "retransmissions": float(window["retransmitted_pkts"].sum()) if len(tcp) else math.nan,
    }


def within(metric: str, value: float, reference: float) -> bool | None:
    """Whether a peer's ``value`` is within the tolerance of the simulator's ``reference`` (None
    when either is missing)."""
    if not (math.isfinite(value) and math.isfinite(reference)):
        return None
    kind, tol = TOLERANCES[metric]
    diff = abs(value - reference)
    if metric in ("drops", "retransmissions") and diff <= COUNT_SLACK:
        return True
    return diff <= tol if kind == "abs" else diff <= tol * abs(reference)


@dataclass
class RowResult:
    """One row's measurements (means over replications) per peer and of the simulator on each
    peer's version of the scenario (``sim:<peer>``), wall times, and why a peer did not run it."""

    row: Row
    values: dict[str, dict[str, float]] = field(default_factory=dict)
    wall_s: dict[str, float] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    #: Each replication's measurements, keyed like ``values`` (seed 1 first).
    runs: dict[str, list[dict[str, float]]] = field(default_factory=dict)

    def reference(self, peer: str) -> dict[str, float] | None:
        """The simulator's values on ``peer``'s version of the scenario."""
        return self.values.get(f"sim:{peer}")

    def verdict(self, peer: str) -> tuple[bool, list[str]] | None:
        """(passed, metrics out of tolerance) of ``peer`` against the simulator; None if either
        did not run."""
        ref = self.reference(peer)
        if peer not in self.values or ref is None:
            return None
        failed = [m for m in TOLERANCES if within(m, self.values[peer][m], ref[m]) is False]
        return (not failed, failed)

    def to_dict(self) -> dict[str, Any]:
        return {"row": self.row.key, "cc": self.row.cc, "case": self.row.case.name,
                "values": {b: {m: (v if math.isfinite(v) else None) for m, v in vals.items()} for b, vals in self.values.items()},
                "wall_s": self.wall_s, "skipped": self.skipped,
                "runs": {b: [{m: (v if math.isfinite(v) else None) for m, v in run.items()} for run in runs] for b, runs in self.runs.items()}}

    @classmethod
    def from_dict(cls, data: dict[str, Any], row: Row) -> RowResult:
        """The row's result as :meth:`to_dict` wrote it (missing values back to NaN)."""
        def values(d: dict[str, Any]) -> dict[str, float]:
            return {m: math.nan if v is None else float(v) for m, v in d.items()}
        return cls(row, values={b: values(v) for b, v in data["values"].items()},
                   wall_s={b: float(v) for b, v in data["wall_s"].items()}, skipped=dict(data["skipped"]),
                   runs={b: [values(r) for r in runs] for b, runs in data.get("runs", {}).items()})


def _replicate(out: RowResult, key: str, backend: str, scenario: dict[str, Any], replications: int) -> None:
    results = [_backends.runner(backend)(scenario, seed=1 + r) for r in range(replications)]
    out.runs[key] = [measure(r) for r in results]
    out.values[key] = {m: _mean([p[m] for p in out.runs[key]]) for m in TOLERANCES}
    out.wall_s[key] = float(sum(float(r.engine["wall_s"]) for r in results))


def run_row(row: Row, peers: list[str], replications: int, duration: str | None) -> RowResult:
    out = RowResult(row)
    for peer in peers:
        scenario = row.scenario(peer, duration)
        try:
            _replicate(out, peer, peer, scenario, replications)
        except (PeerError, TestbedError) as exc:
            out.skipped[peer] = str(exc)
            continue
        _replicate(out, f"sim:{peer}", "sim", scenario, replications)
    return out


def _mean(values: list[float]) -> float:
    finite = [v for v in values if math.isfinite(v)]
    return float(np.mean(finite)) if finite else math.nan


def run_suite(
    backends: Iterable[str] | str | None = None,
    *,
    replications: int = 5,
    only: str | None = None,
    duration: str | None = None,
    log: Callable[[str], None] | None = None,
) -> tuple[list[RowResult], dict[str, str]]:
    """Run every row of the suite on the simulator and ``backends`` (default: the peers that run
    here), each peer beside the simulator on its own like-for-like version of the row. Returns every row's result and the backends that are unavailable, with the reason."""
    wanted = [b for b in _backends.names(backends if backends is not None else DEFAULT_BACKENDS) if b != "sim"]
    missing = {b: why for b in wanted if (why := _backends.unavailable(b))}
    usable = [b for b in wanted if b not in missing]
    results = []
    todo = suite_rows(only)
    for k, row in enumerate(todo, start=1):
        if log:
            log(f"[{k}/{len(todo)}] {row.key}")
        results.append(run_row(row, usable, replications, duration))
    return results, missing
