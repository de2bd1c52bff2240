"""The bundled BBR scenario shows what docs/algorithms/bbr.md says: alone, BBR fills the link with
a small queue; with CUBIC, the buffer size decides who wins."""

from __future__ import annotations

from pathlib import Path

import pytest

import ccarena

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "bbr-vs-cubic.toml"
CUBIC_JOINS_S = 20.0


def _run(limit_pkt: int) -> ccarena.RunResult:
    return ccarena.run(SCENARIO, overrides=[f"topology.queue.limit={limit_pkt}pkt"])


def test_bbr_alone_fills_the_link_with_a_small_queue() -> None:
    r = _run(67)
    ls = r.link_series
    alone = ls[(ls.link == "bottleneck") & (ls.t_s > 3.0) & (ls.t_s <= CUBIC_JOINS_S)]
    rate_bps = float(r.links.set_index("link").loc["bottleneck", "rate_bps"])
    utilisation = alone.tx_bytes.sum() * 8 / (rate_bps * (CUBIC_JOINS_S - 3.0))
    # Measured: 0.9999 of the link with 4.8 packets queued on average (of 67).
    assert utilisation > 0.95
    assert alone.queue_pkts.mean() < 0.1 * 67
    # CUBIC, once it joins, keeps the same buffer several times fuller.
    shared = ls[(ls.link == "bottleneck") & (ls.t_s > CUBIC_JOINS_S + 3.0)]
    assert shared.queue_pkts.mean() > 4 * alone.queue_pkts.mean()


def _bbr_share_after_cubic_joins(r: ccarena.RunResult) -> float:
    fs = r.flow_series
    shared = fs[fs.t_s > CUBIC_JOINS_S + 5.0].groupby("flow_id").goodput_bytes.sum()
    return float(shared[0] / shared.sum())


@pytest.mark.parametrize(("limit_pkt", "bbr_wins"), [(536, False), (7, True)], ids=["deep-8-bdp", "shallow-0.1-bdp"])
def test_the_buffer_decides_between_bbr_and_cubic(limit_pkt: int, bbr_wins: bool) -> None:
    share = _bbr_share_after_cubic_joins(_run(limit_pkt))
    # Measured: 0.18 in the deep buffer, 0.99 in the shallow one.
    assert (share > 0.7) if bbr_wins else (share < 0.4), share


def test_bbr_is_listed_with_the_linux_constants_as_parameters() -> None:
    bbr = next(a for a in ccarena.algorithms() if a.name == "bbr")
    assert bbr.protocol == "tcp"
    expected = {"bw_filter_rounds": 10, "min_rtt_window_s": 10.0, "probe_rtt_duration_s": 0.2, "min_cwnd": 4.0, "cwnd_gain": 2.0}
    assert {k: bbr.params[k] for k in expected} == expected


def test_a_bad_bbr_parameter_is_one_line_naming_it() -> None:
    with pytest.raises(ccarena.ScenarioError, match=r"^flows\[0\]\.cc_params\.cycle_rand: 8 is out of range"):
        ccarena.validate(SCENARIO, overrides=["flows[0].cc_params.cycle_rand=8"])
