"""DCTCP on a step-marking queue follows the sawtooth of the DCTCP paper's analysis (Alizadeh et
al. 2010 §3.3): N synchronised flows, windows peaking at W* = (C·RTT + K)/N, α solving
α²(1 − α/4) = (2W* + 1)/(W* + 1)², the queue between K + N and K + N − N·W*·α/2. Only an
estimator that measures the marked fraction per window and cuts by α/2 lands there: Reno's
halving on the same marks empties the queue and idles the link."""

from __future__ import annotations

import pytest
from scipy.optimize import brentq

import ccarena

SCENARIO = """
name = "dctcp"
duration = "3s"
warmup = "1s"
sample_interval = "20us"
[topology]
kind = "dumbbell"
bottleneck_rate = "1Gbps"
bottleneck_delay = "250us"
queue = { kind = "droptail", limit = "200pkt", ecn_threshold = "20pkt" }
[[flows]]
count = 2
cc = "dctcp"
rtt = "1ms"
delayed_ack = false
"""
K, N = 20, 2
BDP_PKTS = 1e9 * 1e-3 / (1500 * 8)  # 1 Gbit/s x 1 ms in 1500-byte packets


def _run(tmp_path, *overrides: str) -> ccarena.RunResult:
    path = tmp_path / "dctcp.toml"
    path.write_text(SCENARIO)
    return ccarena.run(path, overrides=list(overrides))


def _paper_sawtooth() -> tuple[float, float, float]:
    """(alpha, Q_min, Q_max) of the analysis."""
    w = (BDP_PKTS + K) / N
    alpha = brentq(lambda a: a * a * (1 - a / 4) - (2 * w + 1) / (w + 1) ** 2, 1e-6, 1.0)
    q_max = K + N
    return alpha, q_max - N * w * alpha / 2, q_max


def test_the_queue_and_the_marked_fraction_follow_the_paper_s_sawtooth(tmp_path) -> None:
    r = _run(tmp_path)
    alpha, q_min, q_max = _paper_sawtooth()  # 0.199, 11.7, 22
    link = r.links.set_index("link").loc["bottleneck"]
    assert link.utilisation > 0.999
    assert link.dropped_pkts == 0
    # Measured: 0.188 of the packets marked; α is the marked fraction of a cycle.
    assert link.marked_pkts / link.tx_pkts == pytest.approx(alpha, rel=0.1)
    ls = r.link_series
    queue = ls[(ls.link == "bottleneck") & (ls.t_s > 1.0)].queue_pkts
    # Measured: 12.4 to 21.5 packets (20-µs means), the analysis 11.7 to 22.
    lo, hi = queue.quantile(0.01), queue.quantile(0.99)
    assert q_min - 1.5 <= lo <= q_min + 1.5, (lo, q_min)
    assert q_max - 1.5 <= hi <= q_max + 1.0, (hi, q_max)
    # The two flows share the link evenly.
    assert r.jain() > 0.99


def test_reno_halving_on_the_same_marks_idles_the_link(tmp_path) -> None:
    r = _run(tmp_path, "flows[0].cc=reno", "flows[0].ecn=true", "sample_interval=100ms")
    link = r.links.set_index("link").loc["bottleneck"]
    # Measured: 0.88, the queue below 6 packets: half of a window of ~52 drains the 20 queued.
    assert link.utilisation < 0.93
    assert link.mean_queue_pkts < K / 2


def test_a_dctcp_flow_is_ecn_capable_and_refuses_ecn_false(tmp_path) -> None:
    path = tmp_path / "dctcp.toml"
    path.write_text(SCENARIO)
    flows = ccarena.validate(path)["flows"]
    assert flows[0]["ecn"] is True
    with pytest.raises(ccarena.ScenarioError, match=r'^flows\[0\]\.ecn: false is not possible with cc = "dctcp"'):
        ccarena.validate(path, overrides=["flows[0].ecn=false"])
