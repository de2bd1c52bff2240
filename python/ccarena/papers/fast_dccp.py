"""Seed 002: "A DCCP Variant for High Speed Networks" (Froldi & da Fonseca): FAST DCCP, DCCP whose
TFRC is replaced by FAST-TFRC, in ns-2.31 and on a Linux testbed. Transcribed: Tables I and II
(TCP-Reno's link utilisation against Reno and against FAST DCCP) and the claims of §V about
scalability, fairness, convergence and Reno compatibility."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ccarena import metrics
from ccarena.experiment import Experiment
from ccarena.papers.model import Claim, Estimate, Paper, PaperTable, Results, Scale, Verdict, fmt

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios" / "papers" / "fast-dccp"
LOAD = "background[0].load"
LOADS = (0.2, 0.5, 0.8)
CBR_AT_LINK = {"kind": "cbr", "rate": "1Gbps", "packet_size": "1460B"}
#: The second connection's kinds in the compatibility runs: protocol, cc, application.
OPPONENTS = {
    "TCP-Reno": ("tcp", "reno", {"kind": "bulk"}),
    "FAST DCCP": ("dccp", "fast_tfrc", CBR_AT_LINK),
    "DCCP": ("dccp", "ccid3", CBR_AT_LINK),
}


def experiments(scale: Scale) -> dict[str, Experiment]:
    reps = {"smoke": 1, "quick": 2, "full": 10}[scale]
    if scale == "smoke":
        common, long_run = ["duration=10s", "warmup=2s"], ["duration=70s"]
        caps, conns, loads = ["155Mbps"], [2], [0.2]
    elif scale == "quick":
        common, long_run = [], ["duration=200s"]
        caps, conns, loads = ["155Mbps", "622Mbps", "1Gbps"], [2, 8, 32], list(LOADS)
    else:
        common, long_run = ["duration=600s", "warmup=60s"], ["duration=600s"]
        caps, conns, loads = ["155Mbps", "622Mbps", "1Gbps", "2.5Gbps"], [2**i for i in range(1, 9)], list(LOADS)
    dumbbell, two = SCENARIOS / "dumbbell.toml", SCENARIOS / "two-flows.toml"
    opp = list(OPPONENTS.values())
    return {
        "capacity": Experiment(
            dumbbell, grid={"flows[0].cc": ["fast_tfrc", "ccid3"]},
            zip=[{"topology.bottleneck_rate": caps, "flows[0].app.rate": caps}], replications=reps,
            name="fd-capacity", overrides=common,
        ),
        "connections": Experiment(
            dumbbell, grid={"flows[0].count": conns}, replications=reps, name="fd-connections", overrides=common
        ),
        "fairness": Experiment(
            dumbbell, grid={"flows[0].start": ["1s", {"uniform": ["1s", "10s"]}], LOAD: loads},
            replications=reps, name="fd-fairness", overrides=[*common, "flows[0].count=4"],
        ),
        "convergence": Experiment(
            two, grid={LOAD: loads},
            zip=[{
                "flows[0].cc": ["fast_tfrc", "ccid3"], "flows[1].cc": ["fast_tfrc", "ccid3"],
                "flows[0].protocol": ["dccp", "dccp"], "flows[0].app": [CBR_AT_LINK, CBR_AT_LINK],
            }],
            replications=reps, name="fd-convergence", overrides=long_run,
        ),
        "compat": Experiment(
            two, grid={LOAD: loads},
            zip=[{
                "flows[1].name": list(OPPONENTS), "flows[1].protocol": [o[0] for o in opp],
                "flows[1].cc": [o[1] for o in opp], "flows[1].app": [o[2] for o in opp],
            }],
            replications=reps, name="fd-compat", overrides=[*common, "flows[1].start=1s"],
        ),
    }


def _table(id_: str, title: str, values: dict[str, tuple[float, float, float]]) -> PaperTable:
    return PaperTable(
        id=id_,
        title=title,
        ref=f"§V-D, {id_}",
        index=("connection",),
        columns=("bg20", "bg50", "bg80"),
        units={"bg20": "utilisation, background 0.2", "bg50": "background 0.5", "bg80": "background 0.8"},
        rows={(k,): dict(zip(("bg20", "bg50", "bg80"), v)) for k, v in values.items()},
    )


TABLE_I = _table(
    "TABLE I", "Link utilisation of the TCP connection (simulation): TCP-1 against TCP-Reno, TCP-2 against FAST DCCP",
    {"TCP-1": (0.0152, 0.0124, 0.0061), "TCP-2": (0.0043, 0.0031, 0.0012)},
)
TABLE_II = _table(
    "TABLE II", "Link utilisation of the TCP connection (measurement, Linux testbed)",
    {"TCP-1": (0.3120, 0.2210, 0.1830), "TCP-2": (0.1225, 0.0885, 0.0523)},
)


def _col(load: Any) -> str:
    return f"bg{int(round(float(load) * 100))}"


def _reno_utilisation(results: Results) -> dict[tuple[str, str], np.ndarray]:
    """(opponent, load column) → the Reno connection's utilisation of the bottleneck, per run."""
    res = results["compat"]
    reno = res.runs[res.runs["group"] == "first"]
    out = {}
    for (opponent, load), part in reno.groupby(["flows[1].name", LOAD]):
        out[(opponent, _col(load))] = part["goodput_bps"].to_numpy(dtype=float) / 1e9
    return out


def ours(results: Results, table: PaperTable) -> dict[tuple[Any, ...], dict[str, Estimate]]:
    if table is TABLE_II:
        return {}  # a Linux testbed with DCCP: Linux removed DCCP, and ccarena's kernel backend is not here yet
    util = _reno_utilisation(results)
    names = {"TCP-1": "TCP-Reno", "TCP-2": "FAST DCCP"}
    return {(row,): {col: Estimate.of(v) for (opp, col), v in util.items() if opp == names[row]} for row in names}


def _utilisation(results: Results, name: str, key: str) -> dict[Any, float]:
    m = results[name].metrics
    return {k: float(g["utilisation_main"].mean()) for k, g in m.groupby(key, sort=False)}


def _fast_scales_with_capacity(results: Results) -> Verdict:
    m = results["capacity"].metrics
    fast = m[m["flows[0].cc"] == "fast_tfrc"].groupby("topology.bottleneck_rate", sort=False)["utilisation"].mean()
    return Verdict(bool((fast > 0.9).all()), "FAST DCCP bottleneck utilisation: " + ", ".join(f"{c} {fmt(u * 100)}%" for c, u in fast.items()) + " (paper: above 90%)")


def _dccp_does_not(results: Results) -> Verdict:
    m = results["capacity"].metrics
    ccid3 = m[m["flows[0].cc"] == "ccid3"].groupby("topology.bottleneck_rate", sort=False)["utilisation"].mean()
    last = float(ccid3.iloc[-1])
    return Verdict(
        last < 0.6 and len(ccid3) > 1 and last < float(ccid3.iloc[0]),
        "DCCP (CCID 3) bottleneck utilisation: " + ", ".join(f"{c} {fmt(u * 100)}%" for c, u in ccid3.items()) + " (paper [8]: falls below 60%)",
    )


def _fast_scales_with_connections(results: Results) -> Verdict:
    m = results["connections"].metrics.groupby("flows[0].count")["utilisation"].mean()
    return Verdict(bool((m > 0.9).all()), "utilisation by number of connections: " + ", ".join(f"{n}: {fmt(u * 100)}%" for n, u in m.items()))


def _fair(results: Results) -> Verdict:
    m = results["fairness"].metrics
    by = m.groupby(["flows[0].start", LOAD], sort=False)["jain"].mean()
    worst = float(by.min())
    return Verdict(
        worst >= 0.85, f"Jain of 4 FAST DCCP connections, both start patterns, all loads: {fmt(float(by.min()), 3)} to {fmt(float(by.max()), 3)} (paper: close to 0.9)",
        "Here one FAST DCCP connection takes most of the link and the queue stays full: with every source "
        "offering the link's rate, FAST-TFRC's max() rule after loss keeps the leader's rate." if worst < 0.85 else "",
    )


def _convergence_times(results: Results) -> dict[tuple[str, str], np.ndarray]:
    """(cc, load column) → per run, seconds until the connection started at 50 s holds 80% of
    half the link (1 s bins; seed 002 §V-C)."""
    res = results["convergence"]
    s = res.series()
    out: dict[tuple[str, str], list[float]] = {}
    for (_run_id, cc, load), part in s[s["flow_id"] == 1].groupby(["run_id", "flows[1].cc", LOAD]):
        rate = part["goodput_bytes"].to_numpy(dtype=float) * 8.0
        t = part["t_s"].to_numpy(dtype=float)
        fair = metrics.fair_share_bps(1e9, 2)
        out.setdefault((cc, _col(load)), []).append(metrics.convergence_time_s(t, rate, fair, 50.0))
    return {k: np.asarray(v) for k, v in out.items()}


def _convergence_long(results: Results) -> Verdict:
    times = _convergence_times(results)
    fast = {k[1]: float(np.nanmean(v)) if np.isfinite(v).any() else float("nan") for k, v in times.items() if k[0] == "fast_tfrc"}
    shown = ", ".join(f"{c} {fmt(t)} s" for c, t in sorted(fast.items()))
    ok = all(np.isfinite(t) and t >= 50 for t in fast.values()) if fast else False
    return Verdict(ok, f"FAST DCCP convergence: {shown} (paper: 100-135 s; NaN: not within the run)")


def _fast_slower(results: Results) -> Verdict:
    times = _convergence_times(results)
    mean = {cc: float(np.nanmean(np.concatenate([v for k, v in times.items() if k[0] == cc]))) for cc in ("fast_tfrc", "ccid3") if any(k[0] == cc and np.isfinite(v).any() for k, v in times.items())}
    if len(mean) < 2:
        return Verdict(False, "a connection never converged within the run: " + ", ".join(f"{k}: {v}" for k, v in mean.items()))
    return Verdict(mean["fast_tfrc"] >= mean["ccid3"], f"mean convergence: FAST-TFRC {fmt(mean['fast_tfrc'])} s, TFRC {fmt(mean['ccid3'])} s (paper: FAST-TFRC 7% slower)")


def _not_compatible(results: Results) -> Verdict:
    est = ours(results, TABLE_I)
    cols = sorted(est[("TCP-1",)])
    ok = all(est[("TCP-2",)][c].mean < est[("TCP-1",)][c].mean for c in cols)
    shown = "; ".join(f"{c}: TCP-1 {fmt(est[('TCP-1',)][c].mean, 3)}, TCP-2 {fmt(est[('TCP-2',)][c].mean, 3)}" for c in cols)
    return Verdict(
        ok, shown, "The paper's TCP flow used a tiny share even against Reno (1.5%): ns-2's default window of 20 packets "
        "limited it; ours has no receive-window limit, so the levels differ while the comparison stands.",
    )


def _less_than_dccp(results: Results) -> Verdict:
    util = _reno_utilisation(results)
    fast = float(np.mean(np.concatenate([v for (o, _), v in util.items() if o == "FAST DCCP"])))
    dccp = float(np.mean(np.concatenate([v for (o, _), v in util.items() if o == "DCCP"])))
    return Verdict(fast < dccp, f"Reno's utilisation against FAST DCCP {fmt(fast, 3)}, against DCCP {fmt(dccp, 3)}")


CLAIMS = (
    Claim("scales-with-capacity", "FAST DCCP uses more than 90% of the link at every capacity.", "§V-A, Fig. 2", _fast_scales_with_capacity, "quick"),
    Claim("dccp-does-not", "DCCP's utilisation falls below 60% as the capacity grows.", "§V-A, Fig. 4 (from [8])", _dccp_does_not, "quick"),
    Claim("scales-with-connections", "FAST DCCP keeps the link busy whatever the number of connections.", "§V-A, Fig. 6", _fast_scales_with_connections, "quick"),
    Claim("fair", "Four FAST DCCP connections share the link with Jain's index close to 0.9, whatever the start times and background.", "§V-B, Figs. 8-9", _fair),
    Claim("slow-convergence", "A new FAST DCCP connection takes long to reach its fair share (100-135 s).", "§V-C, Fig. 10", _convergence_long),
    Claim("slower-than-tfrc", "FAST-TFRC converges about 7% slower than TFRC.", "§V-C", _fast_slower),
    Claim("not-reno-compatible", "FAST DCCP is not TCP-Reno-compatible: Reno gets less against it than against Reno.", "§V-D, TABLE I", _not_compatible, "quick"),
    Claim("less-compatible-than-dccp", "FAST DCCP is less Reno-compatible than DCCP.", "§V-D", _less_than_dccp, "quick"),
)

PAPER = Paper(
    name="fast-dccp",
    seed="002",
    title="A DCCP Variant for High Speed Networks",
    citation="C. A. Froldi, N. L. S. da Fonseca (UNICAMP) — seed 002, ns-2.31 and a Linux testbed",
    setup=(
        "Dumbbell, two DropTail routers with 2500-packet buffers; 1 Gbit/s (155 Mbit/s to 2.5 Gbit/s for scalability) "
        "with 100 ms of propagation delay (10 ms for convergence and compatibility); start times random in 1-10 s and "
        "per-connection propagation delays random in 5-15 ms; reverse background traffic at 20, 50 or 80% of the "
        "capacity (20% UDP, 56% web, 24% FTP); each FAST DCCP connection a CBR source at the link's rate; 600 s runs, "
        "replicated, 95% CIs. Scalability: 16 connections against capacity, 2-256 connections at 1 Gbit/s. Fairness: "
        "4 connections starting together or at random. Convergence: 2 connections, the second from t = 50 s. "
        "Compatibility: a TCP-Reno FTP flow against another Reno flow (TCP-1) or a FAST DCCP flow (TCP-2)."
    ),
    choices=(
        "TCP stack (ns-2 ran the paper): ccarena's `ns2` profile, ns-2's one-way agents: no handshake, no "
        "timestamps, duplicate-ACK loss detection, no PRR, no receive-buffer limit (docs/tcp.md).",
        "The 100 ms (and 10 ms) is the bottleneck's one-way delay; the 5-15 ms per connection are access delays (round trips 210-230 ms).",
        "Packets of 1460 bytes of payload; FAST-TFRC and TFRC (CCID 3) with ccarena's defaults (docs/dccp.md).",
        "Convergence is reached when the late connection's 1 s goodput stays at or above 80% of half the link (the paper does not define the band).",
        "`quick` runs 60 s (200 s for the two-connection scenarios) and 2 replications; `full` 600 s and 10.",
    ),
    scales={
        "smoke": "every experiment once at 155 Mbit/s or with 2 connections, 10 s runs (70 s for the two-connection ones)",
        "quick": "155 Mbit/s-1 Gbit/s, 2-32 connections, three loads, 60 s runs (200 s for convergence and compatibility), 2 replications",
        "full": "the paper's grid, 600 s, 10 replications",
    },
    experiments=experiments,
    tables=(TABLE_I, TABLE_II),
    ours=ours,
    claims=CLAIMS,
    series=("convergence",),
    note="TABLE II and the paper's measurement figures come from a Linux testbed with the kernel's DCCP, which Linux has "
    "since removed; only the simulation half is reproduced.",
)
