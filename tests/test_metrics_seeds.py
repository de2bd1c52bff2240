"""The seed papers' campaign metrics on hand-computed inputs."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from ccarena import metrics as m


def test_fair_share_follows_seed_003() -> None:
    # (C − C·bg)/N: 1 Gbit/s, 20% background, 20 connections → 40 Mbit/s each
    assert m.fair_share_bps(1e9, 20, 0.2) == pytest.approx(40e6)
    assert m.fair_share_bps(10e6, 2) == 5e6
    assert math.isnan(m.fair_share_bps(10e6, 0))


def test_jain_intra_protocol_averages_each_protocols_index() -> None:
    # reno: (1, 1) → 1; cubic: (1, 3) → 16 / (2·10) = 0.8; mean 0.9
    values = [1.0, 1.0, 1.0, 3.0]
    labels = ["reno", "reno", "cubic", "cubic"]
    assert m.jain_intra_protocol(values, labels) == pytest.approx(0.9)
    with pytest.raises(ValueError):
        m.jain_intra_protocol([1.0], ["a", "b"])


def test_jain_inter_protocol_compares_mean_rates_per_protocol() -> None:
    # per-protocol means: reno 1, cubic 3 → (1+3)² / (2·(1+9)) = 0.8, whatever the flow counts
    assert m.jain_inter_protocol([1.0, 1.0, 1.0, 3.0, 3.0, 3.0, 3.0], ["r"] * 3 + ["c"] * 4) == pytest.approx(0.8)
    assert math.isnan(m.jain_inter_protocol([1.0, 2.0], ["r", "r"]))


def test_convergence_time_is_from_start_to_staying_in_the_band() -> None:
    # fair share 10; band 0.8 → threshold 8. Flow starts at 100 s; 1 s bins end at 101..108.
    t = [101, 102, 103, 104, 105, 106, 107, 108]
    r = [2, 5, 9, 7, 8.5, 9, 10, 11]  # crosses at 103, dips at 104, stays from the bin ending 105
    # the bin ending at 105 began at 104: the flow was there by 104 s → 4 s after its start
    assert m.convergence_time_s(t, r, 10.0, 100.0) == pytest.approx(4.0)
    # already in the band in the first bin: converged within it → 0
    assert m.convergence_time_s(t, [9] * 8, 10.0, 100.0) == 0.0
    # samples before the start are ignored
    assert m.convergence_time_s([99, *t], [0, *[9] * 8], 10.0, 100.0) == 0.0


def test_a_flow_that_never_converges_gives_nan() -> None:
    assert math.isnan(m.convergence_time_s([1, 2, 3], [9, 9, 5], 10.0, 0.0))  # falls out at the end
    assert math.isnan(m.convergence_time_s([1, 2], [1, 2], 10.0, 5.0))  # no sample after its start
    assert math.isnan(m.convergence_time_s([1, 2], [9, 9], 0.0, 0.0))  # no fair share
    with pytest.raises(ValueError):
        m.convergence_time_s([1], [1], 1.0, 0.0, band=1.5)


def test_reno_compatibility_and_rtt_fairness_are_ratios() -> None:
    assert m.reno_compatibility(0.25, 0.5) == 0.5
    assert math.isnan(m.reno_compatibility(0.25, 0.0))
    # Reno's rate ∝ 1/RTT: 40 ms vs 160 ms flows at 8 and 2 Mbit/s → 0.25
    assert m.rtt_fairness([2e6, 2e6], [8e6]) == pytest.approx(0.25)
    assert math.isnan(m.rtt_fairness([], [1.0]))
    assert math.isnan(m.rtt_fairness([1.0], [0.0]))


def test_voip_jitter_is_zero_alone_and_grows_with_a_competing_queue() -> None:
    """RFC 3550 jitter (``delay_jitter_s``): a CBR flow alone on a link sees constant delays, so
    none; beside a Reno flow that keeps the queue oscillating, its delays vary."""
    import ccarena

    base = ccarena.scenario.load(str(Path(__file__).resolve().parents[1] / "scenarios" / "cbr-vs-reno.toml"))
    base["jitter"] = False  # the example jitters link delays: here delays must vary only by queueing
    alone = dict(base, flows=[base["flows"][0]], duration="10s")
    shared = dict(base, duration="10s")
    j_alone = ccarena.run(alone).flows.iloc[0]["delay_jitter_s"]
    j_shared = ccarena.run(shared).flows.iloc[0]["delay_jitter_s"]
    assert j_alone == 0.0
    assert j_shared > 1e-4  # a 1000 B packet takes 0.8 ms at 10 Mbit/s: the queue moves by packets
