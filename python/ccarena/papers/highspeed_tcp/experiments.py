"""Seed 003's experiments: the protocols as ccarena runs them, the grid axes, and each experiment
per scale on the dumbbell and the parking lot."""

from __future__ import annotations

from pathlib import Path

from ccarena.experiment import Experiment
from ccarena.papers.model import Scale

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios" / "papers" / "highspeed-tcp"

#: The paper's protocols as ccarena runs them (its ns-2.29 implementations with their original
#: parameters): CUBIC v2.1 of Linux 2.6.22, ns-2's own HighSpeed TCP, Scalable TCP with Kelly's
#: a = 0.01, b = 0.125.
ALGORITHMS = {
    "BIC": "bic",
    "CUBIC": "cubic@linux-2.6.22",
    "FAST": "fast",
    "HSTCP": "highspeed@ns2",
    "HTCP": "htcp",
    "LIBRA": "libra",
    "STCP": "scalable",
}
LABEL = {v: k for k, v in ALGORITHMS.items()} | {"reno": "RENO"}
CC = "flows[0].cc"
LOAD = "background[0].load"
LOADS = (0.2, 0.5, 0.8)


def _delay_zip(delays_ms: list[int]) -> dict[str, list[str]]:
    """The bottleneck's one-way delay with the round trips of the main flows and the background
    that cross it (2 ms of access links besides)."""
    return {
        "topology.bottleneck_delay": [f"{d}ms" for d in delays_ms],
        "flows[0].rtt": [f"{2 * d + 2}ms" for d in delays_ms],
        "background[0].rtt": [f"{2 * d + 2}ms" for d in delays_ms],
    }


def experiments(scale: Scale) -> dict[str, Experiment]:
    algos = list(ALGORITHMS.values())
    if scale == "smoke":
        # every experiment at a tenth of the rate, 10 s: the pipeline, not the claims
        common = ["duration=10s", "warmup=2s", "topology.bottleneck_rate=100Mbps"]
        conns, loads, delays, caps = [2, 16], [0.2], [10, 200], ["50Mbps", "100Mbps"]
        parking_conns, parking_caps, parking_n = [4, 16], ["50Mbps", "100Mbps"], 8
    elif scale == "quick":
        common = []
        conns, loads, delays, caps = [2, 16, 64], [0.2, 0.5], [10, 200], ["155Mbps", "622Mbps"]
        parking_conns, parking_caps, parking_n = [16, 64], ["155Mbps", "622Mbps"], 100
    else:
        common = ["duration=600s", "warmup=60s"]
        conns, loads, delays = [2**i for i in range(1, 9)], list(LOADS), [10, 50, 100, 200]
        caps = ["155Mbps", "622Mbps", "1Gbps", "2.5Gbps", "5Gbps", "10Gbps"]
        parking_conns = [2**i for i in range(2, 9)]
        parking_caps, parking_n = ["155Mbps", "622Mbps", "1Gbps", "2.5Gbps", "5Gbps", "10Gbps"], 100
    all_loads = list(LOADS)
    dumbbell = SCENARIOS / "dumbbell.toml"
    return {
        "connections": Experiment(
            dumbbell, grid={CC: algos, "flows[0].count": conns, LOAD: loads}, name="hs-connections", overrides=common
        ),
        "capacity": Experiment(
            dumbbell, grid={CC: algos, "topology.bottleneck_rate": caps, LOAD: [0.2]}, name="hs-capacity",
            overrides=[o for o in common if not o.startswith("topology.bottleneck_rate")],
        ),
        "delay": Experiment(
            dumbbell, grid={CC: algos, LOAD: all_loads if scale != "smoke" else loads}, zip=[_delay_zip(delays)],
            name="hs-delay", overrides=common,
        ),
        "rtt-fairness": Experiment(
            dumbbell, grid={CC: algos, LOAD: all_loads if scale != "smoke" else loads}, name="hs-rtt-fairness",
            # seed 003 §4.1.3 a: per-connection propagation delays uniform in 10-105 ms on the 100 ms path
            overrides=[*common, 'flows[0].rtt={uniform = ["222ms", "412ms"]}', "background[0].rtt=222ms"],
        ),
        "reno-compat": Experiment(
            SCENARIOS / "reno-compat.toml",
            grid={"flows[1].cc": [*algos, "reno"], "flows[1].count": [10, 20] if scale != "full" else [10, 20, 30, 40]},
            name="hs-reno-compat", overrides=common,
        ),
        "parking-lot": Experiment(
            SCENARIOS.parent.parent / "seed003-parking-lot.toml",
            grid={LOAD: all_loads if scale != "smoke" else loads},
            zip=[{"flows[0].cc": algos, "flows[1].cc": algos}],
            name="hs-parking-lot",
            overrides=[o for o in common if not o.startswith("topology.bottleneck_rate")]
            + (["topology.hop_rate=100Mbps"] if scale == "smoke" else []),
        ),
        "convergence": Experiment(
            SCENARIOS / "convergence.toml",
            grid={LOAD: all_loads if scale == "full" else loads[:1]},
            zip=[{"flows[0].cc": algos, "flows[1].cc": algos}],
            name="hs-convergence",
            overrides=(["duration=40s", "warmup=2s", "topology.bottleneck_rate=100Mbps", "flows[1].start=20s"] if scale == "smoke" else ["duration=600s"] if scale == "full" else []),
        ),
        "parking-connections": Experiment(
            SCENARIOS.parent.parent / "seed003-parking-lot.toml",
            grid={LOAD: [0.2] if scale != "full" else all_loads},
            zip=[
                {"flows[0].cc": algos, "flows[1].cc": algos},
                {"flows[0].count": [c // 2 for c in parking_conns], "flows[1].count": [c // 2 for c in parking_conns]},
            ],
            name="hs-parking-connections",
            overrides=[o for o in common if not o.startswith("topology.bottleneck_rate")]
            + (["topology.hop_rate=100Mbps"] if scale == "smoke" else []),
        ),
        "parking-capacity": Experiment(
            # §4.2.1, Figura 4.14: N = 100 connections (half of each RTT), capacity of every hop
            # varied; Reno included as the reference the paper compares against.
            SCENARIOS.parent.parent / "seed003-parking-lot.toml",
            # 20% background only: at 50 and 80% the background of 5 and 10 Gbit/s hops would need
            # more than the 100,000 sources a scenario may have (docs/scenario.md, "Limits").
            grid={"topology.hop_rate": parking_caps, LOAD: [0.2]},
            zip=[
                {"flows[0].cc": [*algos, "reno"], "flows[1].cc": [*algos, "reno"]},
            ],
            name="hs-parking-capacity",
            overrides=[o for o in common if not o.startswith("topology.bottleneck_rate")]
            + [f"flows[0].count={parking_n // 2}", f"flows[1].count={parking_n // 2}"],
        ),
        "parking-compat": Experiment(
            SCENARIOS / "parking-reno-compat.toml",
            grid={LOAD: [0.2] if scale != "full" else all_loads},
            zip=[{"flows[2].cc": algos, "flows[3].cc": algos}],
            name="hs-parking-compat",
            overrides=[o for o in common if not o.startswith("topology.bottleneck_rate")]
            + (["topology.hop_rate=100Mbps"] if scale == "smoke" else []),
        ),
        "inter": Experiment(
            SCENARIOS / "inter-protocol.toml", grid={LOAD: all_loads if scale != "smoke" else loads},
            name="hs-inter", overrides=common,
        ),
        "parking-inter": Experiment(
            SCENARIOS / "parking-inter-protocol.toml", grid={LOAD: all_loads if scale != "smoke" else loads},
            name="hs-parking-inter",
            overrides=[o for o in common if not o.startswith("topology.bottleneck_rate")]
            + (["topology.hop_rate=100Mbps"] if scale == "smoke" else []),
        ),
    }
