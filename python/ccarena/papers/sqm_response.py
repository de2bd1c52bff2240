"""Seed 004: "O Algoritmo SQM-Response para Controle de Congestionamento do Protocolo TCP".

TCP senders that react to ICMP Source Quench messages from routers (SQM-Response) against plain
NewReno, in ns-2, on a six-router network. Transcribed: Table 1 (a 5 MB FTP transfer), the
notification delays of §5.1 and the link utilisation of §5.4.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from ccarena.experiment import Experiment
from ccarena.papers.model import Claim, Estimate, Figure, Paper, PaperTable, Results, Scale, Verdict, fmt

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
SQM = "topology.queue.source_quench"
FLOW_GROUPS = 4  # seed004-six-routers.toml: the FTP flow and three groups of competitors
UTIL_GROUPS = 8  # papers/sqm-response/utilisation.toml: four FTP and four HTTP groups

REPLICATIONS: dict[Scale, int] = {"smoke": 1, "quick": 10, "full": 30}


def _sqm_switch(groups: int) -> dict[str, list[bool]]:
    """SQM-Response on and off together: the routers' Source Quench and every sender's response."""
    return {SQM: [True, False], **{f"flows[{i}].source_quench": [True, False] for i in range(groups)}}


def experiments(scale: Scale) -> dict[str, Experiment]:
    reps = REPLICATIONS[scale]
    smoke = ["duration=30s"] if scale == "smoke" else []
    return {
        "ftp": Experiment(
            SCENARIOS / "seed004-six-routers.toml", zip=[_sqm_switch(FLOW_GROUPS)], replications=reps,
            name="sqm-response-ftp", overrides=smoke,
        ),
        "utilisation": Experiment(
            SCENARIOS / "papers" / "sqm-response" / "utilisation.toml", zip=[_sqm_switch(UTIL_GROUPS)],
            replications=reps, name="sqm-response-utilisation", overrides=smoke,
        ),
    }


TABLE_1 = PaperTable(
    id="Tabela 1",
    title="Transfer of a 5 MB file (FTP source)",
    ref="§5.1, Tabela 1",
    index=("SQM-Response",),
    columns=("duration_s", "rate_kbps"),
    units={"duration_s": "s (until the last ACK)", "rate_kbps": "kbit/s (mean during the transfer)"},
    rows={("without",): {"duration_s": 76.58, "rate_kbps": 519.48}, ("with",): {"duration_s": 58.19, "rate_kbps": 677.97}},
)
UTILISATION = PaperTable(
    id="§5.4",
    title="Mean rate carried by the R1-R2 link, 20 FTP + 20 HTTP clients",
    ref="§5.4, text and Figura 6",
    index=("SQM-Response",),
    columns=("r1_r2_kbps",),
    units={"r1_r2_kbps": "kbit/s"},
    rows={("without",): {"r1_r2_kbps": 2181.94}, ("with",): {"r1_r2_kbps": 2589.80}},
)
NOTIFICATION = PaperTable(
    id="§5.1 delays",
    title="Mean time from a drop to the sender learning of it",
    ref="§5.1, last paragraph",
    index=("SQM-Response",),
    columns=("notification_s",),
    units={"notification_s": "s"},
    rows={("without",): {"notification_s": 4.08}, ("with",): {"notification_s": 0.0504}},
)


def _label(value: Any) -> str:
    return "with" if bool(value) else "without"


def _ftp_flow(results: Results) -> Any:
    runs = results["ftp"].runs
    return runs[runs["group"] == "ftp-5MB"]


def _per_variant(frame: Any, column: str, transform: Any = None) -> dict[str, np.ndarray]:
    out = {}
    for value, part in frame.groupby(SQM, sort=False):
        values = part[column].to_numpy(dtype=float)
        out[_label(value)] = transform(part) if transform is not None else values
    return out


def _rate_kbps(part: Any) -> np.ndarray:
    """The transfer's mean rate: payload delivered over the time from its start to the last ACK."""
    return (part["goodput_bytes"].to_numpy(dtype=float) * 8 / part["completion_s"].to_numpy(dtype=float)) / 1e3


def _r1_r2_kbps(part: Any) -> np.ndarray:
    return part["meas_tx_bytes"].to_numpy(dtype=float) * 8 / part["meas_duration_s"].to_numpy(dtype=float) / 1e3


def ours(results: Results, table: PaperTable) -> dict[tuple[Any, ...], dict[str, Estimate]]:
    if table is TABLE_1:
        ftp = _ftp_flow(results)
        dur = _per_variant(ftp, "completion_s")
        rate = _per_variant(ftp, "completion_s", _rate_kbps)
        return {(k,): {"duration_s": Estimate.of(dur[k]), "rate_kbps": Estimate.of(rate[k])} for k in dur}
    if table is UTILISATION:
        links = results["utilisation"].links
        r1r2 = links[links["link"] == "R1->R2"]
        rate = _per_variant(r1r2, "meas_tx_bytes", _r1_r2_kbps)
        return {(k,): {"r1_r2_kbps": Estimate.of(v)} for k, v in rate.items()}
    if table is NOTIFICATION:
        ftp = _ftp_flow(results)
        with_sqm = ftp[ftp[SQM].astype(bool)]
        return {("with",): {"notification_s": Estimate.of(with_sqm["sq_delay_mean_s"].to_numpy(dtype=float))}}
    raise KeyError(table.id)


#: Why a mean of a table's column can be missing, as the gain's text says it.
_MISSING = {
    "duration_s": "the 5 MB transfer did not finish within the run",
    "rate_kbps": "the 5 MB transfer did not finish within the run",
    "r1_r2_kbps": "R1→R2 carried nothing in the measured window",
}


def _gain(results: Results, table: PaperTable, column: str, smaller_is_better: bool) -> tuple[float, float, str]:
    """The means with and without SQM-Response and a text with the relative gain, or, where a
    mean is missing (a 30 s smoke run ends before the 5 MB transfer does) or zero, why there is
    no gain to give."""
    est = ours(results, table)
    w, wo = est[("with",)][column].mean, est[("without",)][column].mean
    unit = table.units[column].split(" ")[0]
    text = f"with {fmt(w)} {unit}, without {fmt(wo)} {unit}"
    missing = [side for side, v in (("with", w), ("without", wo)) if not math.isfinite(v)]
    if missing:
        sides = "with or without" if len(missing) == 2 else missing[0]
        return w, wo, f"{text}, no gain: {_MISSING[column]} {sides} SQM-Response"
    if wo == 0:
        return w, wo, f"{text}, no gain: nothing without SQM-Response to compare with"
    gain = (wo - w) / wo if smaller_is_better else (w - wo) / wo
    return w, wo, f"{text}: {gain * 100:+.1f}%"


def _shorter_transfer(results: Results) -> Verdict:
    w, wo, text = _gain(results, TABLE_1, "duration_s", smaller_is_better=True)
    return Verdict(
        w < wo, f"5 MB transfer time {text} (paper: 58.19 s vs 76.58 s, 24% shorter)",
        "Our gain is smaller than the paper's: ns-2's receiver window of 20 packets, its 10 ms timer "
        "tick and one RTT sample per round trip are not modelled (see the scenario file).",
    )


def _faster_rate(results: Results) -> Verdict:
    w, wo, text = _gain(results, TABLE_1, "rate_kbps", smaller_is_better=False)
    return Verdict(w > wo, f"mean transfer rate {text} (paper: +30.5%)")


def _fast_notification(results: Results) -> Verdict:
    est = ours(results, NOTIFICATION)[("with",)]["notification_s"].mean
    return Verdict(
        est < 0.1, f"mean Source Quench delay to the FTP sender {fmt(est * 1e3, 1)} ms (paper: 50.4 ms)",
        "The path R1 → N1 → C1 has 51 ms of propagation delay: a Source Quench cannot arrive sooner.",
    )


def _higher_utilisation(results: Results) -> Verdict:
    w, wo, text = _gain(results, UTILISATION, "r1_r2_kbps", smaller_is_better=False)
    return Verdict(
        w > wo, f"R1→R2 rate {text} (paper: 2,589.80 vs 2,181.94 kbit/s, +18.69%)",
        "The paper's HTTP model is unstated and its R1-R2 rates (a third of 8 Mbit/s) suggest "
        "window-limited senders; with SURGE web users and unlimited windows the link is busier "
        "here, which leaves less room for a gain.",
    )


CLAIMS = (
    Claim("shorter-transfer", "SQM-Response shortens a 5 MB FTP transfer under congestion.", "§5.1, Tabela 1", _shorter_transfer, "quick"),
    Claim("faster-rate", "SQM-Response raises the transfer's mean rate.", "§5.1, Tabela 1", _faster_rate, "quick"),
    Claim(
        "fast-notification", "With SQM-Response a sender learns of congestion within about 50 ms.",
        "§5.1", _fast_notification, "quick",
    ),
    Claim("higher-utilisation", "SQM-Response raises the utilisation of the R1-R2 link.", "§5.4, Figura 6", _higher_utilisation),
)


def _draw_cwnd(results: Results, path: Path) -> None:
    """Figura 3: the FTP flow's congestion window with and without SQM-Response (first seed)."""
    import matplotlib.pyplot as plt

    series = results["ftp"].series()
    fig, ax = plt.subplots(figsize=(7, 3.6), dpi=100, layout="constrained")
    if not series.empty:
        first = series[(series["replication"] == 0) & (series["flow_id"] == 0)]
        for value, part in first.groupby(SQM, sort=False):
            ax.plot(part["t_s"], part["cwnd_pkts"], label=f"{_label(value)} SQM-Response")
        ax.legend()
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (packets)")
    ax.set_title("Figura 3: the 5 MB FTP flow's congestion window")
    ax.grid(True, alpha=0.3)
    fig.savefig(path)
    plt.close(fig)


PAPER = Paper(
    name="sqm-response",
    seed="004",
    title="O Algoritmo SQM-Response para Controle de Congestionamento do Protocolo TCP",
    citation="Seed 004, ns-2: TCP senders reacting to ICMP Source Quench messages",
    setup=(
        "Six routers: clients on N1/N2, servers on N3/N4, 10 Mbit/s 50 ms edge links, an 8 Mbit/s "
        "150 ms core link R1-R2, 30-packet DropTail router queues, 1000-byte packets, initial "
        "ssthresh 100 segments, TCP sources start at 0.25 s, 80 s runs (§4). §5.1: one 5 MB FTP "
        "transfer among nine competing 5 MB transfers; §5.4: 20 FTP and 20 HTTP clients. Every router "
        "answers a drop with an ICMP Source Quench; SQM-Response senders halve their window at most "
        "once per round trip and resend the reported segment at once."
    ),
    choices=(
        "TCP stack (ns-2 ran the paper): ccarena's `ns2` profile, ns-2's one-way agents: no handshake, no "
        "timestamps, duplicate-ACK loss detection, no PRR, no receive-buffer limit (docs/tcp.md).",
        "Host links (unstated): 100 Mbit/s, 1 ms, with 1000-packet host queues, so that only the routers drop.",
        "Competing traffic in §5.1 (\"the other clients\", unstated count): nine 5 MB FTP transfers, three per other client, "
        "starting uniformly in 0.25-0.35 s so that drop-tail phase effects vary with the seed.",
        "TCP timers (unstated; ns-2.26/2.27 defaults of the paper's era): minimum RTO 1 s, RFC 2988 RTO, and ns-2 NewReno's "
        "timer that only the first partial ACK restarts (`head_retransmit_rearms_rto = false`).",
        "HTTP clients of §5.4 (parameters from an unnamed traffic study): SURGE web users (docs/traffic.md).",
        "Replications (the paper shows single runs): 10 at `quick`, 30 at `full`; seeds 1..N.",
    ),
    scales={
        "smoke": "both experiments, 30 s runs, one replication (checks the pipeline, not the claims)",
        "quick": "both experiments, 80 s runs as in the paper, 10 replications",
        "full": "both experiments, 80 s runs, 30 replications",
    },
    experiments=experiments,
    tables=(TABLE_1, NOTIFICATION, UTILISATION),
    ours=ours,
    claims=CLAIMS,
    figures=(Figure("Figura 3", "The 5 MB FTP flow's congestion window with and without SQM-Response (first seed).", _draw_cwnd),),
    series=("ftp",),
    note="Table 2 (the extra bytes of SACK blocks against Source Quench messages on TCP Tahoe) is not reproduced: "
    "the simulator does not size ACKs by their SACK blocks.",
)
