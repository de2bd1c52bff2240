"""Seed 003's published tables (Tabelas 4.1-4.5) as data, and our estimates of each from the
runs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ccarena import metrics
from ccarena.experiment import ExperimentResult
from ccarena.papers.highspeed_tcp.experiments import CC, LABEL, LOAD, LOADS
from ccarena.papers.model import Estimate, PaperTable, Results

# Tabela 4.1: utilisation at 10 ms minus utilisation at 200 ms, percentage points.
TABLE_4_1 = PaperTable(
    id="Tabela 4.1",
    title="Drop in link utilisation from 10 ms to 200 ms of propagation delay",
    ref="§4.1.1, Tabela 4.1 (Figura 4.6)",
    index=("protocol",),
    columns=("bg20", "bg50", "bg80"),
    units={"bg20": "points, background 20%", "bg50": "points, background 50%", "bg80": "points, background 80%"},
    rows={
        ("BIC",): {"bg20": 25.14, "bg50": 9.45, "bg80": 10.30},
        ("CUBIC",): {"bg20": 25.49, "bg50": 22.26, "bg80": 5.97},
        ("FAST",): {"bg20": 25.16, "bg50": 1.29, "bg80": 11.54},
        ("HSTCP",): {"bg20": 25.46, "bg50": 2.58, "bg80": 5.11},
        ("HTCP",): {"bg20": 22.82, "bg50": 9.35, "bg80": 1.95},
        ("LIBRA",): {"bg20": 21.35, "bg50": 10.00, "bg80": 1.40},
        ("STCP",): {"bg20": 22.91, "bg50": 10.09, "bg80": 3.31},
    },
)

# Tabela 4.2: RTT fairness: mean throughput (Mbit/s), coefficient of variation (%), Jain.
_T42 = {
    "BIC": ((26.979, 31.238, 0.9110), (14.546, 49.977, 0.8001), (6.067, 53.764, 0.7757)),
    "CUBIC": ((27.262, 33.322, 0.9000), (13.819, 42.161, 0.8490), (4.338, 44.267, 0.8361)),
    "FAST": ((28.217, 30.037, 0.9172), (16.265, 39.084, 0.8674), (10.102, 45.801, 0.8266)),
    "HSTCP": ((29.551, 30.130, 0.9167), (16.723, 43.776, 0.8391), (5.064, 44.780, 0.8329)),
    "HTCP": ((27.711, 29.058, 0.9221), (17.524, 29.369, 0.9205), (8.333, 27.791, 0.9282)),
    "LIBRA": ((6.3915, 16.077, 0.9748), (6.3668, 15.942, 0.9752), (1.969, 22.022, 0.9537)),
    "STCP": ((28.248, 31.033, 0.9121), (14.409, 45.501, 0.8284), (4.646, 49.035, 0.8061)),
}
TABLE_4_2 = PaperTable(
    id="Tabela 4.2",
    title="RTT fairness: 20 connections with propagation delays uniform in 10-105 ms",
    ref="§4.1.3, Tabela 4.2 (Figura 4.8 a)",
    index=("protocol", "background"),
    columns=("mean_mbps", "cv_pct", "jain"),
    units={"mean_mbps": "Mbit/s per connection", "cv_pct": "% (s / mean over connections)", "jain": "index"},
    rows={
        (p, f"{int(load * 100)}%"): dict(zip(("mean_mbps", "cv_pct", "jain"), values))
        for p, per_load in _T42.items()
        for load, values in zip(LOADS, per_load)
    },
)

# Tabela 4.3: aggregate throughput per protocol (Mbit/s) and Jain's index over the protocols
# (Jain* leaves LIBRA out), two connections per protocol.
_T43 = {
    "BIC": (98.88, 81.76, 20.78),
    "CUBIC": (51.89, 16.64, 5.216),
    "FAST": (98.90, 77.37, 58.20),
    "HSTCP": (96.82, 50.45, 9.332),
    "HTCP": (96.26, 67.54, 37.45),
    "LIBRA": (3.745, 0.802, 0.346),
    "RENO": (94.83, 60.67, 17.81),
    "STCP": (92.34, 16.26, 4.935),
    "Jain": (0.763, 0.638, 0.464),
    "Jain*": (0.970, 0.817, 0.594),
}
TABLE_4_3 = PaperTable(
    id="Tabela 4.3",
    title="Inter-protocol fairness: each protocol's aggregate throughput",
    ref="§4.1.3, Tabela 4.3 (Figura 4.9)",
    index=("protocol",),
    columns=("bg20", "bg50", "bg80"),
    units={"bg20": "Mbit/s (Jain: index), bg 20%", "bg50": "bg 50%", "bg80": "bg 80%"},
    rows={(p,): dict(zip(("bg20", "bg50", "bg80"), v)) for p, v in _T43.items()},
)


# Tabela 4.4 (parking lot): mean throughput per connection (Mbit/s) of the 90 ms and the 180 ms
# group of 10 connections each, per background load.
_T44 = {
    "BIC": (50.04, 27.12, 33.90, 15.54, 3.44, 2.72),
    "CUBIC": (46.88, 27.17, 29.92, 15.10, 4.24, 2.75),
    "FAST": (40.27, 37.90, 27.11, 24.21, 8.44, 5.62),
    "HSTCP": (54.75, 22.81, 30.02, 17.73, 13.58, 7.90),
    "HTCP": (44.69, 33.37, 22.72, 25.67, 3.921, 4.47),
    "LIBRA": (14.52, 8.32, 14.47, 8.34, 7.04, 5.07),
    "STCP": (43.54, 32.17, 37.92, 21.92, 13.50, 6.61),
    "Média": (42.103, 26.982, 28.013, 18.365, 7.742, 5.024),
}
_T44_COLS = ("bg20_90ms", "bg20_180ms", "bg50_90ms", "bg50_180ms", "bg80_90ms", "bg80_180ms")
TABLE_4_4 = PaperTable(
    id="Tabela 4.4",
    title="Parking lot: mean throughput per connection of the 90 ms and 180 ms groups",
    ref="§4.2.3, Tabela 4.4 (Figura 4.16)",
    index=("protocol",),
    columns=_T44_COLS,
    units={c: "Mbit/s" for c in _T44_COLS},
    rows={(p,): dict(zip(_T44_COLS, v)) for p, v in _T44.items()},
)


# Tabela 4.5 (parking lot): mean throughput (Mbit/s) of each protocol's 90 ms and 180 ms
# connection, per background load (the header's order; the caption names the groups the other way).
_T45 = {
    "BIC": (98.060, 60.220, 56.338, 38.803, 11.083, 5.8370),
    "CUBIC": (27.026, 25.292, 14.738, 9.4354, 3.5046, 2.5001),
    "FAST": (47.840, 42.093, 44.570, 39.177, 22.736, 21.274),
    "HSTCP": (93.817, 56.933, 47.492, 25.279, 4.7649, 2.6487),
    "HTCP": (82.559, 52.517, 52.830, 38.158, 9.4433, 9.5773),
    "LIBRA": (2.0796, 1.5350, 0.5082, 0.4766, 0.2290, 0.2612),
    "STCP": (86.322, 47.185, 15.264, 10.577, 2.4034, 1.6861),
    "Média": (62.529, 40.825, 33.105, 23.129, 7.737, 6.254),
}
TABLE_4_5 = PaperTable(
    id="Tabela 4.5",
    title="Parking lot, inter-protocol: throughput of each protocol's 90 ms and 180 ms connection",
    ref="§4.2.3, Tabela 4.5 (Figura 4.17)",
    index=("protocol",),
    columns=_T44_COLS,
    units={c: "Mbit/s" for c in _T44_COLS},
    rows={(p,): dict(zip(_T44_COLS, v)) for p, v in _T45.items()},
)


def _col(load: Any) -> str:
    return f"bg{int(round(float(load) * 100))}"


def main_utilisation(res: ExperimentResult) -> pd.DataFrame:
    """Per run: the main flows' throughput over the bottleneck's rate (the paper's utilisation)."""
    m = res.metrics
    return m.assign(util=m["utilisation_main"] * 100.0)


def ours(results: Results, table: PaperTable) -> dict[tuple[Any, ...], dict[str, Estimate]]:
    if table is TABLE_4_1:
        m = main_utilisation(results["delay"])
        out: dict[tuple[Any, ...], dict[str, Estimate]] = {}
        for (cc, load), part in m.groupby([CC, LOAD]):
            lo, hi = part[part["topology.bottleneck_delay"] == "10ms"], part[part["topology.bottleneck_delay"] == "200ms"]
            if len(lo) and len(hi):
                diff = lo.sort_values("seed")["util"].to_numpy() - hi.sort_values("seed")["util"].to_numpy()
                out.setdefault((LABEL[cc],), {})[_col(load)] = Estimate.of(diff)
        return out
    if table is TABLE_4_2:
        res = results["rtt-fairness"]
        out = {}
        flows = res.runs[res.runs["role"] != "background"]
        for (cc, load), part in flows.groupby([CC, LOAD]):
            per_run = part.groupby("run_id")["goodput_bps"]
            mean = per_run.mean() / 1e6
            cv = per_run.apply(lambda g: float(np.std(g, ddof=1) / np.mean(g) * 100) if len(g) > 1 and np.mean(g) > 0 else np.nan)
            jain = per_run.apply(lambda g: metrics.jain_index(g.to_numpy(dtype=float)))
            out[(LABEL[cc], f"{int(round(float(load) * 100))}%")] = {
                "mean_mbps": Estimate.of(mean.to_numpy()), "cv_pct": Estimate.of(cv.to_numpy()), "jain": Estimate.of(jain.to_numpy())
            }
        return out
    if table is TABLE_4_4:
        res = results["parking-lot"]
        flows = res.runs[res.runs["role"] != "background"]
        per_group = flows.groupby(["run_id", "flows[0].cc", LOAD, "group"])["goodput_bps"].mean().div(1e6).reset_index()
        per_group["column"] = per_group[LOAD].map(_col) + "_" + per_group["group"].str.removeprefix("rtt-")
        out = {}
        for (cc, column), part in per_group.groupby(["flows[0].cc", "column"]):
            out.setdefault((LABEL[cc],), {})[column] = Estimate.of(part["goodput_bps"].to_numpy())
        means = per_group.groupby(["run_id", "column"])["goodput_bps"].mean().reset_index()
        out[("Média",)] = {c: Estimate.of(g.groupby("run_id")["goodput_bps"].mean().to_numpy()) for c, g in means.groupby("column")}
        return out
    if table is TABLE_4_5:
        res = results["parking-inter"]
        flows = res.runs[res.runs["role"] != "background"].copy()
        # Groups are "<protocol>-<rtt>", one connection each.
        flows["proto"] = flows["group"].str.rsplit("-", n=1).str[0].str.upper()
        flows["column"] = flows[LOAD].map(_col) + "_" + flows["group"].str.rsplit("-", n=1).str[1]
        flows["mbps"] = flows["goodput_bps"] / 1e6
        out = {}
        for (proto, column), part in flows.groupby(["proto", "column"]):
            out.setdefault((proto,), {})[column] = Estimate.of(part["mbps"].to_numpy())
        means = flows.groupby(["run_id", "column"])["mbps"].mean().reset_index()
        out[("Média",)] = {c: Estimate.of(g["mbps"].to_numpy()) for c, g in means.groupby("column")}
        return out
    if table is TABLE_4_3:
        res = results["inter"]
        flows = res.runs[res.runs["role"] != "background"]
        out = {}
        jains: dict[str, list[float]] = {}
        jains_star: dict[str, list[float]] = {}
        for load, part in flows.groupby(LOAD):
            per_proto = part.groupby(["run_id", "group"])["goodput_bps"].sum() / 1e6
            for proto, values in per_proto.groupby(level="group"):
                out.setdefault((proto.upper(),), {})[_col(load)] = Estimate.of(values.to_numpy())
            for _, run in per_proto.groupby(level="run_id"):
                jains.setdefault(_col(load), []).append(metrics.jain_index(run.to_numpy()))
                no_libra = run[run.index.get_level_values("group") != "libra"]
                jains_star.setdefault(_col(load), []).append(metrics.jain_index(no_libra.to_numpy()))
        out[("Jain",)] = {c: Estimate.of(v) for c, v in jains.items()}
        out[("Jain*",)] = {c: Estimate.of(v) for c, v in jains_star.items()}
        return out  # inter-protocol.toml's group names, upper-cased, are the table's rows
    raise KeyError(table.id)
