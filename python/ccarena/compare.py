"""One scenario on several backends (simulator, ns-2, ns-3, kernel): replicated runs of each, one
table per metric with mean ± 95 % CI per backend and its difference from the simulator.

Replication ``r`` uses seed ``seed + r`` on every backend, so the flows start at the same times
everywhere (the simulator draws them; the peers and the kernel run that plan). A backend that
cannot run here or cannot run the scenario is listed with the one-line reason instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ccarena import _format, backends
from ccarena.errors import PeerError, TestbedError

#: How to make a scenario one a peer runs like for like, printed when a peer refused one.
LIKE_FOR_LIKE = {
    "ns2": "ns-2 runs ns-2's TCP profile: --set stack=ns2",
    "ns3": "ns-3 runs it with a handshake and pipe-limited sending: --set stack=ns2 and, on each TCP group, "
           "--set 'flows[0].handshake=true' --set 'flows[0].window_from_una=false'",
}

#: (metric, unit kind, how the value comes from a RunResult); per-flow goodput rows come first.
Metric = tuple[str, str, Callable[[Any], float]]


@dataclass
class Comparison:
    """Replicated results per backend, the backends that did not run and why, the metrics."""

    runs: dict[str, list[Any]]
    skipped: dict[str, str] = field(default_factory=dict)
    #: The backends of ``skipped`` that refused the scenario (the others are not available here).
    refused: list[str] = field(default_factory=list)

    @property
    def reference(self) -> str:
        """The backend the others are compared with: the simulator when it ran."""
        return "sim" if "sim" in self.runs else next(iter(self.runs))

    def metrics(self) -> list[tuple[str, str, dict[str, list[float]]]]:
        """(metric, unit kind, values per backend) for every compared metric."""
        return [(name, kind, {b: [float(metric(r)) for r in rs] for b, rs in self.runs.items()}) for name, kind, metric in _metrics(self.runs[self.reference][0])]

    def wall_s(self) -> dict[str, list[float]]:
        """Wall time of each run, per backend."""
        return {b: [float(r.engine["wall_s"]) for r in rs] for b, rs in self.runs.items()}

    def table(self) -> str:
        """The side-by-side table: mean ± 95 % CI per backend and, for each other backend, its
        difference from the reference (relative for rates and counts, absolute for ratios)."""
        ref = self.reference
        others = [b for b in self.runs if b != ref]
        rows = []
        for name, kind, values in [*self.metrics(), ("wall time per run", "seconds", self.wall_s())]:
            ref_mean = _mean(values[ref])
            row = [name, _pm(kind, values[ref])]
            for b in others:
                row += [_pm(kind, values[b]), _diff(kind, _mean(values[b]), ref_mean)]
            rows.append(row)
        headers = ["metric", f"{ref} (n={len(self.runs[ref])})"]
        for b in others:
            headers += [f"{b} (n={len(self.runs[b])})", f"{b} vs {ref}"]
        text = _format.text_table(headers, rows, [False] + [True] * (len(headers) - 1))
        notes = [f"{b}: not run: {why}" for b, why in self.skipped.items()]
        notes += self.host_stall_notes()
        refused = [b for b in self.refused if b in LIKE_FOR_LIKE]
        if refused:
            notes.append("like for like: " + "; ".join(LIKE_FOR_LIKE[b] for b in refused) + " (docs/peers.md)")
        return "\n".join([text, *notes])

    def host_stall_notes(self) -> list[str]:
        """One line per kernel run whose delay line was late beyond the testbed's limit: the
        host stopped the guest, so that run measured the host as much as the kernel."""
        notes = []
        for b, rs in self.runs.items():
            for i, r in enumerate(rs):
                line = r.meta.get("testbed")
                if line and line["lateness_flagged"]:
                    worst = max(d["lateness_max_s"] for d in line["delayline"].values())
                    notes.append(f"{b}: run {i + 1}'s delay line released a packet {worst * 1e3:.1f} ms late "
                                 f"(limit {line['lateness_limit_s'] * 1e3:g} ms): the host stalled, read that run with care")
        return notes

    def to_dict(self) -> dict[str, Any]:
        """Everything, keyed by backend name: each run's summary (the simulator's JSON contract),
        the metric values, the wall times and the backends that did not run."""
        import json

        return {
            "reference": self.reference,
            "backends": {b: {"runs": [json.loads(r.to_json(indent=None)) for r in rs], "wall_s": self.wall_s()[b]} for b, rs in self.runs.items()},
            "metrics": [{"metric": n, "unit": k, "values": {b: [_json_number(x) for x in v] for b, v in vals.items()}} for n, k, vals in self.metrics()],
            "skipped": dict(self.skipped),
        }

    def plot(self, directory: str | Path) -> list[Path]:
        """cwnd and goodput over time of replication 0 from every backend; returns the files.

        A flow has its id's colour on every backend, and each backend its line style, given in
        the order of :data:`ccarena.backends.BACKENDS` (the simulator solid) whatever the order
        the backends were asked in (:func:`ccarena.plots.plot_cwnd` with a mapping of runs)."""
        from ccarena import plots

        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        first = {b: self.runs[b][0] for b in backends.BACKENDS if b in self.runs}
        plots.plot_cwnd(first, out / "compare-cwnd.png")
        plots.plot_goodput(first, out / "compare-goodput.png")
        return [out / "compare-cwnd.png", out / "compare-goodput.png"]


def _flow_goodput(fid: int) -> Callable[[Any], float]:
    return lambda r: _flow(r, fid, "goodput_bps")


def _group_share(group: str) -> Callable[[Any], float]:
    return lambda r: _share(r, group)


def _metrics(first: Any) -> list[Metric]:
    flows = first.main_flows
    rows: list[Metric] = [(f"goodput flow {fid} ({flows['group'].iloc[i]})", "rate", _flow_goodput(int(fid)))
                          for i, fid in enumerate(flows["flow_id"])]
    rows.append(("aggregate goodput", "rate", lambda r: float(r.main_flows["goodput_bps"].sum())))
    rows += [(f"share {g}", "ratio", _group_share(str(g))) for g in dict.fromkeys(flows["group"])]
    rows += [
        ("Jain's index", "ratio", lambda r: r.jain()),
        ("bottleneck utilisation", "ratio", lambda r: _link(r, "utilisation")),
        ("bottleneck drops", "count", lambda r: _link(r, "meas_dropped_pkts")),
        ("retransmissions", "count", lambda r: float(r.main_flows["retransmitted_pkts"].sum())),
        ("retransmission timeouts", "count", lambda r: _tcp_sum(r, "timeouts")),
        ("fast recoveries", "count", lambda r: _tcp_sum(r, "fast_recoveries")),
        ("mean queue (pkt)", "number", lambda r: _link(r, "mean_queue_pkts")),
    ]
    return rows


def _mean(values: list[float]) -> float:
    finite = [v for v in values if math.isfinite(v)]
    return float(np.mean(finite)) if finite else math.nan


#: Per unit kind: the campaign metric whose units it is written in (a rate in the unit of its
#: size, counts with one decimal, shares with four, times in ms or s: ``interval_text``) and the
#: range its confidence interval is kept in (shares, Jain and utilisation in [0, 1]; rates,
#: counts and times non-negative).
_KINDS: dict[str, tuple[str, tuple[float, float]]] = {
    "rate": ("goodput_bps", (0.0, math.inf)),
    "ratio": ("jain", (0.0, 1.0)),
    "count": ("dropped_pkts", (0.0, math.inf)),
    "number": ("mean_queue_pkts", (0.0, math.inf)),
    "seconds": ("wall_s", (0.0, math.inf)),
}


def _pm(kind: str, values: list[float]) -> str:
    """Mean and 95 % CI inside the kind's range (:func:`ccarena.metrics.bounded_mean_ci`), as
    the campaign tables write them (:func:`ccarena.experiment.tables.interval_text`): in the
    mean's unit, ``mean ± h`` or ``mean −below +above`` where the range cuts the interval, the
    distances to two significant digits; the mean alone from one value, ``-`` from none."""
    from ccarena.experiment.tables import interval_text
    from ccarena.metrics import bounded_mean_ci

    metric, bounds = _KINDS[kind]
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return "-"
    ci = bounded_mean_ci(finite, bounds)
    return interval_text(metric, ci.mean, ci.low, ci.high)


def _diff(kind: str, value: float, ref: float) -> str:
    if not (math.isfinite(value) and math.isfinite(ref)):
        return "-"
    if kind == "ratio":
        return f"{value - ref:+.3f}"
    if kind == "seconds":
        return f"{value / ref:.3g}x the time" if ref > 0 else "-"
    return f"{(value - ref) / ref * 100:+.1f}%" if ref else "-"


def _json_number(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _tcp_sum(r: Any, column: str) -> float:
    """A per-flow count summed over the main TCP flows (NaN where there is none or it is not measured)."""
    tcp = r.main_flows[r.main_flows["protocol"] == "tcp"]
    return float(tcp[column].sum(min_count=1)) if len(tcp) else math.nan


def _flow(result: Any, fid: int, col: str) -> float:
    flows = result.main_flows
    return float(flows.loc[flows["flow_id"] == fid, col].iloc[0])


def _share(result: Any, group: str) -> float:
    flows = result.main_flows
    total = float(flows["goodput_bps"].sum())
    return float(flows.loc[flows["group"] == group, "goodput_bps"].sum()) / total if total else math.nan


def _link(result: Any, col: str) -> float:
    links = result.links.set_index("link")
    return float(links.loc["bottleneck", col]) if "bottleneck" in links.index else math.nan


def compare(
    scenario: Any,
    *,
    backends_: str | Iterable[str] | None = None,
    replications: int = 3,
    overrides: Iterable[str] = (),
    seed: int | None = None,
    log: Callable[[str], None] | None = None,
) -> Comparison:
    """Run ``scenario`` ``replications`` times on each of ``backends_`` (default: all) and
    return the comparison. A backend missing here, or refusing the scenario, is recorded in
    ``skipped`` with its reason; if only one was asked for and it cannot run, its error is raised."""
    from ccarena import api

    wanted = backends.names(backends_)
    doc = api.prepare(scenario, overrides=overrides, seed=seed)
    base = int(doc.get("seed", 1))
    runs: dict[str, list[Any]] = {}
    skipped: dict[str, str] = {}
    refused: list[str] = []
    for name in wanted:
        why = backends.unavailable(name)
        if why:
            skipped[name] = why
            continue
        run = backends.runner(name)
        try:
            results = []
            for r in range(replications):
                if log and name != "sim":
                    log(f"{name} run {r + 1}/{replications} (seed {base + r})")
                results.append(run(doc, seed=base + r))
            runs[name] = results
        except (PeerError, TestbedError) as exc:
            if len(wanted) == 1:
                raise
            skipped[name] = str(exc)
            refused.append(name)
    if not runs:
        raise PeerError("compare: no backend could run the scenario (" + "; ".join(f"{b}: {w}" for b, w in skipped.items()) + ")")
    return Comparison(runs=runs, skipped=skipped, refused=refused)
