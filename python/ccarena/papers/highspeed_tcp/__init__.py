"""Seed 003: "Análise de Protocolos TCP para Redes de Alta Velocidade" (ns-2.29): BIC, CUBIC, FAST,
HighSpeed TCP, H-TCP, TCP Libra and Scalable TCP on a dumbbell and a parking lot with 20, 50 or
80% background traffic. Transcribed here: the dumbbell's scalability (Figs 4.3, 4.4, 4.6 and
Tabela 4.1), Reno compatibility (Fig. 4.7), RTT fairness (Tabela 4.2), inter-protocol fairness
(Tabela 4.3), convergence (Fig. 4.10), stability (Fig. 4.11), and on the parking lot scalability
with the number of connections (Fig. 4.13), Reno compatibility (Fig. 4.15), RTT fairness
(Tabela 4.4), inter-protocol fairness (Tabela 4.5) and scalability with the capacity (Fig. 4.14).

The parts: `experiments` (the protocols and each experiment per scale), `tables` (the published
tables and our estimates of them), `claims` (the paper's statements checked against our runs),
`figures` (its figures redrawn); this module assembles them with the page's text."""

from __future__ import annotations

from ccarena.papers.highspeed_tcp.claims import CLAIMS
from ccarena.papers.highspeed_tcp.experiments import ALGORITHMS, CC, LABEL, LOAD, LOADS, SCENARIOS, experiments
from ccarena.papers.highspeed_tcp.figures import FIGURES
from ccarena.papers.highspeed_tcp.tables import TABLE_4_1, TABLE_4_2, TABLE_4_3, TABLE_4_4, TABLE_4_5, ours
from ccarena.papers.model import Paper

PAPER = Paper(
    name="highspeed-tcp",
    seed="003",
    title="Análise de Protocolos TCP para Redes de Alta Velocidade",
    citation="Seed 003 (dissertation, ns-2.29), chapter 4",
    setup=(
        "ns-2.29. Dumbbell with a 1 Gbit/s bottleneck, 100 ms of propagation delay (a 200 ms round trip), 2500-packet "
        "DropTail buffers of 1500-byte packets, background traffic in both directions at 20, 50 or 80% of the capacity "
        "(20% UDP CBR, 24% FTP, 56% web), small random offsets of start times against synchronisation, 600 s runs, each "
        "point run once. Scalability: 2..256 connections; capacities 155 Mbit/s..10 Gbit/s; delays 10..200 ms. Reno "
        "compatibility: 20 Reno connections against 0..40 of a high-speed protocol. RTT fairness: 20 connections with "
        "delays uniform in 10-105 ms. Inter-protocol fairness: two connections of each protocol."
    ),
    choices=(
        "TCP stack (ns-2 ran the paper): ccarena's `ns2` profile, ns-2's one-way agents: no handshake, no "
        "timestamps, duplicate-ACK loss detection, no PRR, no receive-buffer limit (docs/tcp.md).",
        "The 100 ms is the bottleneck link's one-way delay: the paper's buffer sizing (20% of the BDP = 16,666 packets "
        "at 5 Gbit/s) implies a 200 ms round trip.",
        "CUBIC as the Linux 2.6.22 v2.1 the paper's era implemented; HighSpeed TCP as ns-2's own; Scalable TCP with "
        "a = 0.01, b = 0.125; FAST, H-TCP, BIC and Libra with ccarena's defaults (their papers' parameters).",
        "RTT fairness: the 10-105 ms per-connection delays are added to the 100 ms path on each side (round trips 222-412 ms).",
        "Inter-protocol fairness: two connections of each of the seven protocols and of TCP Reno (Tabela 4.3 lists Reno).",
        "Background: ccarena's aggregate with the paper's mix calibrated to the offered load (docs/traffic.md); its round "
        "trip is the main flows'.",
        "`quick` runs 60 s instead of 600 s (10 s of warm-up), which favours fast-converging protocols; `full` runs 600 s.",
    ),
    scales={
        "smoke": "every experiment at 100 Mbit/s, 10 s runs, a few grid points",
        "quick": "60 s runs at 1 Gbit/s: 2, 16, 64 connections at 20 and 50% background; 155 and 622 Mbit/s; 10 and 200 ms at three loads; RTT and inter-protocol fairness and the parking lot (RTT and inter-protocol fairness) at three loads; Reno compatibility with 10 and 20 flows; convergence (210 s runs) and the parking lot's scalability (16, 64 connections; 100 connections at 155 and 622 Mbit/s) and Reno compatibility at 20% background",
        "full": "the paper's grid: 600 s, 2..256 connections, six capacities, four delays, three loads, 10..40 flows against Reno",
    },
    experiments=experiments,
    tables=(TABLE_4_1, TABLE_4_2, TABLE_4_3, TABLE_4_4, TABLE_4_5),
    ours=ours,
    claims=CLAIMS,
    figures=FIGURES,
    note="Below `full`, the parking lot's scalability with the number of connections runs at 20% background only; its "
    "scalability with the capacity (Figura 4.14; 155 and 622 Mbit/s at `quick`) runs at 20% at every scale: at 50 and "
    "80% the background of 5 and 10 Gbit/s hops would need more than the 100,000 sources a scenario may have.",
)

__all__ = [
    "ALGORITHMS",
    "CC",
    "CLAIMS",
    "LABEL",
    "LOAD",
    "LOADS",
    "PAPER",
    "SCENARIOS",
    "TABLE_4_1",
    "TABLE_4_2",
    "TABLE_4_3",
    "TABLE_4_4",
    "TABLE_4_5",
    "experiments",
    "ours",
]
