"""Simulator against kernel on one scenario: replicated runs of both, one side-by-side table.

Kernel runs are not deterministic, so both sides are replicated (replication ``r`` uses seed
``seed + r`` on both, hence the same flow start times) and reported as mean ± standard deviation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ccarena import _format


@dataclass
class Comparison:
    """Replicated results of both backends and the metrics table built from them."""

    simulator: list[Any]
    kernel: list[Any]

    def metrics(self) -> list[tuple[str, str, list[float], list[float]]]:
        """(metric, unit kind, simulator values, kernel values) per compared metric."""
        rows: list[tuple[str, str, list[float], list[float]]] = []

        def both(name: str, kind: str, metric: Callable[[Any], float]) -> None:
            rows.append((name, kind, _per_run(self.simulator, metric), _per_run(self.kernel, metric)))

        first = self.simulator[0].main_flows
        for i, fid in enumerate(first["id"]):
            both(f"goodput flow {fid} ({first['group'].iloc[i]})", "rate", lambda r: _flow(r, fid, "goodput_bps"))
        for group in dict.fromkeys(first["group"]):
            both(f"share {group}", "ratio", lambda r: _share(r, group))
        both("Jain's index", "ratio", lambda r: r.jain())
        both("bottleneck utilisation", "ratio", lambda r: _link(r, "utilisation"))
        both("bottleneck drops", "count", lambda r: _link(r, "meas_dropped_pkts"))
        both("retransmissions", "count", lambda r: float(r.main_flows["retransmitted_pkts"].sum()))
        both("retransmission timeouts", "count", lambda r: _main_sum(r, "timeouts"))
        both("fast recoveries", "count", lambda r: _main_sum(r, "fast_recoveries"))
        both("tail-loss probes", "count", lambda r: _main_sum(r, "loss_probes"))
        both("mean queue (pkt)", "number", lambda r: _link(r, "mean_queue_pkts"))
        return rows

    def table(self) -> str:
        fmt: dict[str, Callable[[Any], str]] = {"rate": _format.rate, "ratio": _format.ratio, "count": _format.number, "number": _format.number}
        out = []
        for name, kind, sim, ker in self.metrics():
            f = fmt[kind]
            s_mean, k_mean = float(np.mean(sim)), float(np.mean(ker))
            diff = (k_mean - s_mean) / s_mean * 100 if s_mean else float("nan")
            out.append([name, _pm(f, sim), _pm(f, ker), "-" if not np.isfinite(diff) else f"{diff:+.1f}%"])
        headers = ["metric", f"simulator (n={len(self.simulator)})", f"kernel (n={len(self.kernel)})", "kernel vs sim"]
        return _format.text_table(headers, out, [False, True, True, True])

    def plot(self, directory: str | Path) -> list[Path]:
        """cwnd and goodput over time of replication 0 from both backends; returns the files."""
        from ccarena import plots

        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        runs = {"simulator": self.simulator[0], "kernel": self.kernel[0]}
        plots.plot_cwnd(runs, out / "compare-cwnd.png")
        plots.plot_goodput(runs, out / "compare-goodput.png")
        return [out / "compare-cwnd.png", out / "compare-goodput.png"]


def _pm(f: Callable[[Any], str], values: list[float]) -> str:
    if len(values) < 2:
        return f(values[0])
    return f"{f(float(np.mean(values)))} ± {f(float(np.std(values, ddof=1)))}"


def _main_sum(r: Any, column: str) -> float:
    """A per-flow count summed over the main TCP flows (NaN where there is none, e.g. UDP only)."""
    tcp = r.main_flows[r.main_flows["protocol"] == "tcp"]
    return float(tcp[column].sum()) if len(tcp) else float("nan")


def _per_run(runs: list[Any], metric: Callable[[Any], float]) -> list[float]:
    return [float(metric(r)) for r in runs]


def _flow(result: Any, fid: int, col: str) -> float:
    flows = result.main_flows
    return float(flows.loc[flows["id"] == fid, col].iloc[0])


def _share(result: Any, group: str) -> float:
    flows = result.main_flows
    total = float(flows["goodput_bps"].sum())
    return float(flows.loc[flows["group"] == group, "goodput_bps"].sum()) / total if total else float("nan")


def _link(result: Any, col: str) -> float:
    links = result.links.set_index("name")
    return float(links.loc["bottleneck", col])


def compare(
    scenario: Any,
    *,
    replications: int = 3,
    overrides: Iterable[str] = (),
    seed: int | None = None,
    log: Callable[[str], None] | None = None,
) -> Comparison:
    """Run ``scenario`` ``replications`` times on the simulator and on the kernel testbed."""
    from ccarena import api
    from ccarena.testbed import run as run_kernel

    doc = api.prepare(scenario, overrides=overrides, seed=seed)
    base = int(doc.get("seed", 1))
    sims, kernels = [], []
    for r in range(replications):
        sims.append(api.run(doc, seed=base + r))
        if log:
            log(f"kernel run {r + 1}/{replications} (seed {base + r}, {doc.get('duration', '?')})")
        kernels.append(run_kernel(doc, seed=base + r))
    return Comparison(simulator=sims, kernel=kernels)
