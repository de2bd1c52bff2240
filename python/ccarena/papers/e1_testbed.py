"""Seed 001: CUBIC, New Reno and Compound TCP measured on a laboratory testbed with an E1
bottleneck (1.94 Mbit/s). The paper's numbers are few (Jain's indices in §3); its claims are
about fairness over time, fairness across RTTs and smoothness against a UDP flood."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from ccarena import metrics
from ccarena.experiment import Experiment
from ccarena.papers.model import Claim, Estimate, Figure, Paper, PaperTable, Results, Scale, Verdict, duration_ms, fmt

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios" / "papers" / "e1-testbed"

#: The paper's algorithms as ccarena runs them: Ubuntu 12.04's kernel 3.2 CUBIC (HyStart,
#: beta 717/1024 as in Linux 6: the cubic@linux-6 preset), Linux "reno" (NewReno with SACK, what
#: the paper calls New Reno) and Windows 7's Compound TCP.
CC = {"CUBIC": "cubic@linux-6", "New Reno": "reno", "CTCP": "compound"}
LABEL = {v: k for k, v in CC.items()}
RTTS_MS = (2, 100, 200, 300)
REPLICATIONS: dict[Scale, int] = {"smoke": 1, "quick": 5, "full": 10}
#: Seconds left out at the start of per-second series (connection start-up).
SETTLE_S = 5.0


def experiments(scale: Scale) -> dict[str, Experiment]:
    reps = REPLICATIONS[scale]
    short = ["duration=20s"] if scale == "smoke" else []
    rtts = RTTS_MS[:2] if scale == "smoke" else RTTS_MS
    return {
        "intra": Experiment(
            SCENARIOS / "tcp-pair.toml", zip=[{"flows[0].cc": list(CC.values()), "flows[1].cc": list(CC.values())}],
            replications=reps, name="e1-intra", overrides=short,
        ),
        "rtt": Experiment(
            SCENARIOS / "tcp-pair.toml",
            grid={"flows[1].cc": [CC["CUBIC"], CC["New Reno"], CC["CTCP"]]},
            zip=[{"flows[0].rtt": [f"{r}ms" for r in rtts], "flows[1].rtt": [f"{r}ms" for r in rtts]}],
            replications=reps, name="e1-rtt", overrides=short,
        ),
        "udp": Experiment(
            SCENARIOS / "udp-vs-tcp.toml", grid={"flows[1].cc": list(CC.values())}, replications=reps,
            name="e1-udp", overrides=short,
        ),
    }


JAIN = PaperTable(
    id="§3 Jain",
    title="Jain's index of two competing flows over the whole test (100 s)",
    ref="§3, text after Figura 3",
    index=("pair", "rtt_ms"),
    columns=("jain",),
    units={"jain": "index"},
    rows={
        ("CUBIC × New Reno", 2): {"jain": 0.98},
        ("CUBIC × CTCP", 2): {"jain": 0.92},
        ("CUBIC × New Reno", 100): {"jain": 0.98},
        ("CUBIC × New Reno", 200): {"jain": 0.98},
    },
)


def ours(results: Results, table: PaperTable) -> dict[tuple[Any, ...], dict[str, Estimate]]:
    m = results["rtt"].metrics
    out = {}
    for (cc, rtt), part in m.groupby(["flows[1].cc", "flows[0].rtt"], sort=False):
        out[(f"CUBIC × {LABEL[cc]}", duration_ms(rtt))] = {"jain": Estimate.of(part["jain"].to_numpy())}
    return out


def jain_over_time(series: pd.DataFrame) -> pd.DataFrame:
    """Per run and second: Jain's index of the two flows' goodput in that second."""
    s = series[series["t_s"] > SETTLE_S]
    per = s.groupby(["run_id", "t_s"], sort=True)["goodput_bytes"].apply(lambda g: metrics.jain_index(g.to_numpy(dtype=float)))
    return per.reset_index(name="jain")


def _variation(results: Results, name: str, key: str) -> dict[str, float]:
    """Per algorithm: the mean over runs of the standard deviation of the per-second Jain index."""
    res = results[name]
    jt = jain_over_time(res.series())
    by_run = jt.groupby("run_id")["jain"].std().rename("sd").reset_index()
    cc = res.metrics[["run_id", key]]
    merged = by_run.merge(cc, on="run_id")
    return {LABEL[c]: float(g["sd"].mean()) for c, g in merged.groupby(key)}


def _intra_variation_ctcp_largest(results: Results) -> Verdict:
    v = _variation(results, "intra", "flows[0].cc")
    text = ", ".join(f"{k} {fmt(x, 3)}" for k, x in sorted(v.items(), key=lambda kv: kv[1]))
    return Verdict(v["CTCP"] == max(v.values()), f"standard deviation of the per-second Jain index: {text}")


def _intra_newreno_least(results: Results) -> Verdict:
    v = _variation(results, "intra", "flows[0].cc")
    return Verdict(
        v["New Reno"] <= v["CUBIC"], f"per-second Jain s.d.: New Reno {fmt(v['New Reno'], 3)}, CUBIC {fmt(v['CUBIC'], 3)}",
        "Both are small on a 2 ms, 1.94 Mbit/s path (a window of a few packets); the order between them "
        "is within the replications' spread.",
    )


def _inter_cubic_newreno_fairer(results: Results) -> Verdict:
    est = ours(results, JAIN)
    a, b = est[("CUBIC × New Reno", 2)]["jain"].mean, est[("CUBIC × CTCP", 2)]["jain"].mean
    return Verdict(a > b, f"Jain at 2 ms: CUBIC × New Reno {fmt(a, 3)}, CUBIC × CTCP {fmt(b, 3)} (paper: 0.98, 0.92)")


def _newreno_unaffected_by_rtt(results: Results) -> Verdict:
    est = ours(results, JAIN)
    values = {rtt: v["jain"].mean for (pair, rtt), v in est.items() if pair == "CUBIC × New Reno"}
    shown = ", ".join(f"{r} ms {fmt(j, 3)}" for r, j in sorted(values.items()) if r <= 200)
    return Verdict(all(j >= 0.95 for r, j in values.items() if r <= 200), f"CUBIC × New Reno Jain: {shown} (paper: about 0.98 at each)")


def _cubic_unaffected_by_rtt(results: Results) -> Verdict:
    m = results["rtt"].metrics
    cubic = m[m["flows[1].cc"] == CC["CUBIC"]]
    good = {duration_ms(r): float(g["goodput_bps"].mean()) for r, g in cubic.groupby("flows[0].rtt")}
    lo, hi = min(good), max(good)
    ratio = good[hi] / good[lo]
    return Verdict(
        ratio >= 0.9, f"two CUBIC flows' aggregate goodput at {hi} ms is {ratio * 100:.0f}% of that at {lo} ms "
        f"({fmt(good[hi] / 1e3)} against {fmt(good[lo] / 1e3)} kbit/s)",
    )


def _smoothness(results: Results) -> dict[str, float]:
    """Per algorithm: coefficient of variation of the TCP flow's per-second goodput against UDP."""
    res = results["udp"]
    s = res.series()
    s = s[(s["flow_id"] == 1) & (s["t_s"] > SETTLE_S)]
    cov = s.groupby(["run_id", "flows[1].cc"])["goodput_bytes"].apply(
        lambda g: metrics.coefficient_of_variation(g.to_numpy(dtype=float))
    )
    per_cc = cov.rename("cov").reset_index().groupby("flows[1].cc")["cov"]
    return {LABEL[c]: float(g.mean()) for c, g in per_cc}  # pandas skips NaN (a starved flow)


def _ctcp_least_smooth(results: Results) -> Verdict:
    v = _smoothness(results)
    text = ", ".join(f"{k} {fmt(x, 3)}" for k, x in sorted(v.items(), key=lambda kv: kv[1]))
    return Verdict(v["CTCP"] == max(v.values()), f"CoV of the TCP flow's per-second goodput against 2 Mbit/s of UDP: {text}")


CLAIMS = (
    Claim("inter-fairness", "CUBIC shares the E1 line more fairly with New Reno (Jain 0.98) than with CTCP (0.92).", "§3", _inter_cubic_newreno_fairer, "quick"),
    Claim("rtt-fairness", "CUBIC × New Reno fairness is unaffected by the RTT (Jain about 0.98 at 2, 100 and 200 ms).", "§3", _newreno_unaffected_by_rtt, "quick"),
    Claim("intra-ctcp", "Between two flows of the same algorithm, CTCP's Jain index varies most over time.", "§3, Figura 2", _intra_variation_ctcp_largest),
    Claim("intra-newreno", "New Reno's Jain index varies least over time, CUBIC's nearly as little.", "§3, Figura 2", _intra_newreno_least),
    Claim("smoothness", "Against a UDP flood, CTCP's goodput oscillates more than CUBIC's and New Reno's.", "§3, Figuras 4-5", _ctcp_least_smooth),
    Claim("cubic-rtt", "CUBIC's performance is not affected by a larger RTT.", "§6", _cubic_unaffected_by_rtt, "quick"),
)


def _draw_jain_over_time(results: Results, path: Path) -> None:
    import matplotlib.pyplot as plt

    res = results["intra"]
    jt = jain_over_time(res.series()).merge(res.metrics[["run_id", "replication", "flows[0].cc"]], on="run_id")
    fig, ax = plt.subplots(figsize=(7, 3.6), dpi=100, layout="constrained")
    for cc, part in jt[jt["replication"] == 0].groupby("flows[0].cc", sort=False):
        ax.plot(part["t_s"], part["jain"], label=LABEL[cc])
    ax.set(xlabel="time (s)", ylabel="Jain's index (per second)", title="Figura 2: intra-protocol fairness over time, RTT 2 ms")
    ax.set_ylim(0.45, 1.02)
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.savefig(path)
    plt.close(fig)


def _draw_udp(results: Results, path: Path) -> None:
    import matplotlib.pyplot as plt

    res = results["udp"]
    s = res.series()
    s = s[s["replication"] == 0]
    fig, axes = plt.subplots(1, 3, figsize=(10, 3.2), dpi=100, layout="constrained", sharey=True)
    for ax, (cc, part) in zip(axes, s.groupby("flows[1].cc", sort=False)):
        for flow, f in part.groupby("flow_id"):
            ax.plot(f["t_s"], f["goodput_bytes"] * 8 / 1e3, label="UDP 2 Mbit/s" if flow == 0 else LABEL[cc])
        ax.set(title=LABEL[cc], xlabel="time (s)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
    axes[0].set_ylabel("goodput (kbit/s, per second)")
    fig.suptitle("Figuras 4-5: TCP against a 2 Mbit/s UDP flow on the E1 line")
    fig.savefig(path)
    plt.close(fig)


#: Kernel runs per scale: (replications, seconds each). The kernel is not deterministic: replicate.
KERNEL_RUNS: dict[Scale, tuple[int, int]] = {"smoke": (1, 5), "quick": (3, 30), "full": (10, 100)}


def kernel_section(scale: Scale, out_dir: Path) -> str:
    """The paper's own method: CUBIC against New Reno on a real Linux TCP stack (this machine's
    kernel in network namespaces, ccarena's testbed backend) beside the simulator, same scenario
    and seeds. Skipped with the reason where the testbed cannot run (not root, tools missing)."""
    import html

    import ccarena
    from ccarena.errors import TestbedError

    reps, seconds = KERNEL_RUNS[scale]
    # The kernel's own names: its CUBIC and Reno (NewReno with SACK), default parameters.
    overrides = [f"duration={seconds}s", "warmup=2s", "flows[0].cc=cubic", "flows[1].cc=reno"]
    kernel, sim = [], []
    try:
        from ccarena import testbed

        for seed in range(1, reps + 1):
            kernel.append(testbed.run(SCENARIOS / "tcp-pair.toml", overrides=overrides, seed=seed))
            sim.append(ccarena.run(SCENARIOS / "tcp-pair.toml", overrides=overrides, seed=seed))
    except TestbedError as exc:
        return (
            "<h2>On the Linux kernel</h2><p><b>Skipped:</b> "
            f"{html.escape(str(exc))}. The simulator half above does not need it (docs/testbed.md).</p>"
        )
    rows = []
    for label, f in (
        ("CUBIC goodput (kbit/s)", lambda r: float(r.flows.iloc[0]["goodput_bps"]) / 1e3),
        ("New Reno goodput (kbit/s)", lambda r: float(r.flows.iloc[1]["goodput_bps"]) / 1e3),
        ("Jain's index", lambda r: r.jain()),
        ("bottleneck utilisation", lambda r: float(r.links[r.links["link"] == "bottleneck"]["utilisation"].iloc[0])),
    ):
        k, s_ = Estimate.of([f(r) for r in kernel]), Estimate.of([f(r) for r in sim])
        cell = lambda e: fmt(e.mean, 3) + (f" ± {fmt((e.high - e.low) / 2, 3)}" if e.n > 1 else "")  # noqa: E731
        rows.append(f"<tr><td>{label}</td><td class=num>{cell(k)}</td><td class=num>{cell(s_)}</td></tr>")
    return (
        "<h2>On the Linux kernel</h2>"
        f"<p class=sub>CUBIC against New Reno on this machine's Linux TCP (network namespaces, HTB + pfifo, the "
        f"delay line; docs/testbed.md) and in the simulator, same scenario and seeds: {reps} run(s) of {seconds} s "
        "each, mean ± 95% CI. The paper measured Linux 3.2 and Windows 7; Compound TCP has no Linux version.</p>"
        "<table><thead><tr><th>metric</th><th>kernel</th><th>simulator</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


PAPER = Paper(
    name="e1-testbed",
    seed="001",
    title="Avaliação do Desempenho do TCP para as Variantes de Controle de Congestionamento CUBIC, New Reno e Compound TCP",
    citation="E. Poggi, D. C. de Lucena, J. M. Franco, M. C. Dias (IFPB) — seed 001, laboratory testbed",
    setup=(
        "A dumbbell of four PCs (two Ubuntu 12.04 / Linux 3.2, two Windows 7) on 100 Mbit/s Fast Ethernet and two "
        "Cisco 2811 routers joined by a PDH E1 line at 1.94 Mbit/s (31 of 32 slots). iperf generates two competing "
        "one-way flows for 100 s, goodput sampled every second (Tabela 1): UDP at 2 Mbit/s against CUBIC, New Reno or "
        "CTCP (ensaios 1-3), and two flows of one algorithm (4-6); CUBIC-CUBIC and CUBIC-New Reno repeated at RTTs of "
        "100, 200 and 300 ms besides the base 2 ms."
    ),
    choices=(
        "TCP stack (the paper measured Linux hosts): ccarena's default `linux` profile: handshake, timestamps, "
        "quick-ACK, RACK-TLP, PRR and a 6 MB receive buffer as Linux 6.x runs them (docs/tcp.md).",
        "Router queue (unstated): 40 packets, the Cisco IOS default output hold queue of a serial interface.",
        "Packet size: 1500-byte IP packets (Ethernet MTU); UDP datagrams of 1470 bytes as iperf sends them.",
        "RTTs above 2 ms (the paper does not say how they were added): as propagation delay of each flow's path.",
        "CUBIC as in Linux 3.2 (HyStart, β = 717/1024): the cubic@linux-6 preset. New Reno: Linux's reno with SACK. "
        "CTCP: ccarena's compound with its defaults.",
        "The paper reports single tests; we replicate (5 at quick, 10 at full) with start times uniform in 0-0.5 s.",
    ),
    scales={
        "smoke": "every experiment, 20 s runs, RTTs 2 and 100 ms, one replication",
        "quick": "every experiment, 100 s runs as in the paper, all RTTs, 5 replications",
        "full": "as quick with 10 replications",
    },
    experiments=experiments,
    tables=(JAIN,),
    ours=ours,
    claims=CLAIMS,
    figures=(
        Figure("Figura 2", "Per-second Jain's index of two flows of one algorithm (first seed).", _draw_jain_over_time),
        Figure("Figuras 4-5", "Per-second goodput of the TCP flow and the UDP flow (first seed).", _draw_udp),
    ),
    series=("intra", "udp"),
    sections=(kernel_section,),
    note="This is a testbed paper. Besides the simulator's runs, the page ends with CUBIC against New Reno on this "
    "machine's Linux kernel (ccarena's testbed backend; skipped with the reason where it cannot run). Compound TCP "
    "exists only in the simulator: Linux never had it.",
)
