"""Shared fixtures: a synthetic raw result (no simulation needed) and a tiny real scenario."""

from __future__ import annotations

import math
import signal
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent


def pytest_configure(config: pytest.Config) -> None:
    # A suite started in the background by a script (`cmd &`) inherits SIGINT ignored, and so
    # would every command it starts, which then never sees the Ctrl-C the interruption tests send.
    # A handler, unlike "ignored", is not inherited across exec: the commands get the default.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)

# A small dumbbell that the core simulates in well under a second.
TINY_SCENARIO = """
name = "tiny"
duration = "3s"
seed = 7
sample_interval = "100ms"

[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
queue = { kind = "droptail", limit = "50pkt" }

[[flows]]
name = "reno"
count = 2
cc = "reno"
rtt = "40ms"
app = { kind = "bulk" }
"""


@pytest.fixture
def tiny_text() -> str:
    return TINY_SCENARIO


@pytest.fixture
def tiny_file(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text(TINY_SCENARIO)
    return path


def synthetic_raw() -> dict[str, Any]:
    """A raw result as the binding returns it, with hand-picked numbers (see test_results.py).

    Duration 10 s, warm-up 2 s, samples every 2.5 s. Flows 0 and 1 (group "a", TCP) are measured
    from 2 s (8 s long), flow 2 (group "b", UDP) starts at 6 s (4 s long).
    """
    nan = math.nan
    flows = {
        "flow_id": [0, 1, 2],
        "group": ["a", "a", "b"],
        "protocol": ["tcp", "tcp", "udp"],
        "cc": ["reno", "reno", ""],
        "recovery": ["sack", "sack", ""],
        "stack": ["linux", "linux", ""],
        "app": ["bulk", "file", "cbr"],
        "cc_params": ["{}", "{}", "{}"],
        "src": ["s0", "s1", "s2"],
        "dst": ["d0", "d1", "d2"],
        "start_s": [0.0, 0.0, 6.0],
        "rtt_base_s": [0.04, 0.04, 0.08],
        "sent_pkts": [100, 50, 80],
        "sent_bytes": [150_000, 75_000, 80_000],
        "retransmitted_pkts": [10, 0, 0],
        "delivered_pkts": [90, 50, 80],
        "delivered_bytes": [135_000, 75_000, 80_000],
        "dropped_pkts": [10, 0, 0],
        "in_flight_pkts": [0, 0, 0],
        "ack_dropped_pkts": [0, 0, 0],
        "goodput_bytes": [900_000, 400_000, 600_000],
        "meas_start_s": [2.0, 2.0, 6.0],
        "meas_sent_pkts": [100, 50, 80],
        "meas_sent_bytes": [1_000_000, 500_000, 1_000_000],
        "meas_delivered_pkts": [90, 50, 80],
        "meas_goodput_bytes": [800_000, 400_000, 600_000],
        "meas_dropped_pkts": [10, 0, 0],
        "delay_count": [90, 50, 80],
        "delay_mean_s": [0.025, 0.03, 0.05],
        "delay_min_s": [0.02, 0.02, 0.04],
        "delay_max_s": [0.05, 0.05, 0.06],
        "delay_p50_s": [0.024, 0.03, 0.05],
        "delay_p95_s": [0.04, 0.04, 0.055],
        "delay_p99_s": [0.045, 0.045, 0.058],
        "completion_s": [nan, 7.5, nan],
        "timeouts": [1, 0, 0],
        "fast_recoveries": [3, 0, 0],
    }
    times = [2.5, 5.0, 7.5, 10.0]
    fs: dict[str, list[Any]] = {k: [] for k in ("flow_id", "t_s", "sent_pkts", "sent_bytes", "retransmitted_pkts",
                                                 "delivered_pkts", "dropped_pkts", "goodput_bytes", "cwnd_pkts",
                                                 "ssthresh_pkts", "srtt_s", "delay_mean_s")}
    for flow in (0, 1, 2):
        for k, t in enumerate(times):
            tcp = flow < 2
            fs["flow_id"].append(flow)
            fs["t_s"].append(t)
            fs["sent_pkts"].append(10)
            fs["sent_bytes"].append(15_000)
            fs["retransmitted_pkts"].append(1 if tcp else 0)
            fs["delivered_pkts"].append(9)
            fs["dropped_pkts"].append(1)
            fs["goodput_bytes"].append(250_000 * (flow + 1))  # 0.8, 1.6, 2.4 Mbit/s over 2.5 s
            fs["cwnd_pkts"].append(float(10 + 5 * k) if tcp else nan)
            fs["ssthresh_pkts"].append(20.0 if tcp else nan)
            fs["srtt_s"].append(0.045 if tcp else nan)
            fs["delay_mean_s"].append(0.025)
    links = {
        "link": ["bottleneck", "bottleneck_rev"],
        "src": ["r0", "r1"],
        "dst": ["r1", "r0"],
        "rate_bps": [10_000_000, 10_000_000],
        "delay_s": [0.01, 0.01],
        "queue": ["droptail 50pkt", "droptail 50pkt"],
        "tx_pkts": [6000, 300],
        "tx_bytes": [9_000_000, 120_000],
        "dropped_pkts": [10, 0],
        "meas_tx_bytes": [9_000_000, 100_000],
        "meas_dropped_pkts": [8, 0],
        "mean_queue_pkts": [20.5, 0.0],
        "max_queue_pkts": [50, 1],
        "meas_duration_s": [8.0, 8.0],
    }
    ls: dict[str, list[Any]] = {k: [] for k in ("link", "t_s", "tx_pkts", "tx_bytes", "dropped_pkts", "queue_pkts",
                                                 "queue_bytes")}
    for name in links["link"]:
        for k, t in enumerate(times):
            ls["link"].append(name)
            ls["t_s"].append(t)
            ls["tx_pkts"].append(100)
            ls["tx_bytes"].append(150_000)
            ls["dropped_pkts"].append(0)
            ls["queue_pkts"].append(10.0 * k if name == "bottleneck" else 0.0)
            ls["queue_bytes"].append(15_000.0 * k if name == "bottleneck" else 0.0)
    return {
        "meta": {"name": "synthetic", "seed": 3, "duration_s": 10.0, "warmup_s": 2.0, "sample_interval_s": 2.5,
                 "version": "0.0.0-test", "scenario": {}},
        "engine": {"events": 12345, "wall_s": 0.5, "packets_forwarded": 6789, "peak_packets": 42, "warmup_wall_s": 0.1},
        "flows": flows,
        "flow_series": fs,
        "links": links,
        "link_series": ls,
    }


@pytest.fixture
def raw() -> dict[str, Any]:
    return synthetic_raw()
