"""Derived metrics on hand-computed inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from ccarena import metrics as m


def test_throughput_and_goodput_are_bits_over_seconds() -> None:
    # 1 250 000 B in 10 s = 10 000 000 bit / 10 s = 1 Mbit/s
    assert m.throughput_bps(1_250_000, 10.0) == 1_000_000.0
    assert m.goodput_bps(1_250_000, 10.0) == 1_000_000.0
    np.testing.assert_allclose(m.goodput_bps([1000, 500], [8.0, 2.0]), [1000.0, 2000.0])


def test_rates_over_an_empty_window_are_nan() -> None:
    assert math.isnan(m.throughput_bps(1000, 0.0))
    assert math.isnan(m.goodput_bps(1000, -1.0))
    out = m.goodput_bps([1000, 1000], [0.0, 8.0])
    assert math.isnan(out[0]) and out[1] == 1000.0


def test_delivery_ratio_is_one_when_nothing_was_sent() -> None:
    assert m.delivery_ratio(90, 100) == 0.9
    assert m.delivery_ratio(0, 0) == 1.0
    np.testing.assert_allclose(m.delivery_ratio([3, 0], [4, 0]), [0.75, 1.0])


def test_utilisation() -> None:
    # 1 250 000 B = 10 Mbit over 2 s on a 10 Mbit/s link: half used
    assert m.utilisation(1_250_000, 10_000_000, 2.0) == 0.5
    assert math.isnan(m.utilisation(1, 0, 2.0))


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([5.0, 5.0, 5.0, 5.0], 1.0),
        ([1.0, 0.0, 0.0, 0.0], 0.25),  # one flow takes everything: 1/n
        ([1.0, 2.0], 0.9),  # 3² / (2 · 5)
        ([0.8, 0.4, 1.2], 6.0 / 7.0),  # 2.4² / (3 · 2.24)
    ],
)
def test_jain_index(values: list[float], expected: float) -> None:
    assert m.jain_index(values) == pytest.approx(expected, rel=1e-12)


def test_jain_index_undefined_cases() -> None:
    assert math.isnan(m.jain_index([]))
    assert math.isnan(m.jain_index([0.0, 0.0]))
    assert m.jain_index(x for x in (2.0, 2.0)) == 1.0  # any iterable


def test_coefficient_of_variation_uses_population_std() -> None:
    # values 2, 4, 4, 4, 5, 5, 7, 9: mean 5, population std 2
    assert m.coefficient_of_variation([2, 4, 4, 4, 5, 5, 7, 9]) == pytest.approx(0.4)
    assert m.coefficient_of_variation([3.0, 3.0]) == 0.0
    assert math.isnan(m.coefficient_of_variation([]))
    assert math.isnan(m.coefficient_of_variation([-1.0, 1.0]))


def test_mean_ci_matches_scipy_and_a_textbook_example() -> None:
    # Montgomery & Runger, Applied Statistics, Ex. 8-5 style: t(0.975, 9) = 2.262157163 (tables)
    x = [1.0, 2.0, 4.0, 4.0, 5.0, 6.0, 7.0, 9.0, 10.0, 12.0]
    ci = m.mean_ci(x)
    half = 2.262157162740992 * float(np.std(x, ddof=1)) / math.sqrt(10)
    assert ci.mean == 6.0
    assert ci.half_width == pytest.approx(half, rel=1e-9)
    lo, hi = stats.t.interval(0.95, 9, loc=6.0, scale=stats.sem(x))
    assert (ci.low, ci.high) == pytest.approx((lo, hi), rel=1e-9)


def test_mean_ci_by_hand() -> None:
    # x = 1..5: mean 3, sample std sqrt(2.5), t(0.975, 4) = 2.776445105
    ci = m.mean_ci([1, 2, 3, 4, 5])
    half = 2.776445105 * math.sqrt(2.5) / math.sqrt(5)
    assert ci.mean == 3.0 and ci.n == 5
    assert ci.half_width == pytest.approx(half, rel=1e-9)
    assert (ci.low, ci.high) == pytest.approx((3 - half, 3 + half), rel=1e-9)


def test_mean_ci_small_samples() -> None:
    one = m.mean_ci([4.0])
    assert one.mean == 4.0 and math.isnan(one.half_width)
    none = m.mean_ci([])
    assert none.n == 0 and math.isnan(none.mean)
    with pytest.raises(ValueError):
        m.mean_ci([1, 2], level=1.5)


def test_percentile_interpolates_linearly() -> None:
    # sorted 10, 20, 30, 40: q=50 → rank 1.5 → 25; q=90 → rank 2.7 → 37
    assert m.percentile([40, 10, 30, 20], 50) == 25.0
    assert m.percentile([40, 10, 30, 20], 90) == pytest.approx(37.0)
    assert m.percentile([1.0, float("nan"), 3.0], 100) == 3.0
    assert math.isnan(m.percentile([], 50))
    with pytest.raises(ValueError):
        m.percentile([1, 2], 101)


def test_mathis_by_hand() -> None:
    # 1460 B, 40 ms, p = 0.01: 1460·8/0.04 = 292 000 bit/s per segment per RTT; × 1.2247449 / 0.1
    assert m.mathis_throughput_bps(1460, 0.04, 0.01) == pytest.approx(292_000 * math.sqrt(1.5) / 0.1)
    assert m.mathis_throughput_bps(1460, 0.04, 0.01) == pytest.approx(3_576_255.0, rel=1e-6)
    assert m.mathis_throughput_bps(1000, 0.1, 0.04, c=1.0) == pytest.approx(1000 * 8 / 0.1 / 0.2)


def test_padhye_full_model_by_hand() -> None:
    # p = 0.01, b = 1, RTT = 0.1 s, T0 = 1 s, MSS 1000 B:
    # E[W] = 1 + sqrt(8·0.99/0.03 + 1) = 1 + sqrt(265) = 17.2788206
    # Q̂(E[W]) = (1-0.99³)(1+0.99³(1-0.99^14.2788)) / (1-0.99^17.2788) = 0.0335528 / 0.1594161 = 0.2104791
    # f(p) = 1 + 0.01 + 0.0002 + 0.000004 + ... = 1.0102041
    # B = (99 + 17.2788206 + 0.2126052) / (0.1·(8.6394103 + 1) + 0.2104791·1.0102041/0.99)
    #   = 116.4914257 / 1.1787156 = 98.8291 segments/s
    bps = m.padhye_throughput_bps(1000, 0.1, 0.01, 1.0)
    assert bps / 8000 == pytest.approx(98.8291, rel=1e-5)


def test_padhye_window_limited_and_limits() -> None:
    # With a small W_max the second branch applies and the rate approaches W_max / RTT as p → 0.
    limited = m.padhye_throughput_bps(1000, 0.1, 1e-6, 1.0, wmax=10)
    assert limited / 8000 == pytest.approx(10 / 0.1, rel=0.02)
    assert limited < m.padhye_throughput_bps(1000, 0.1, 1e-6, 1.0)
    # Where timeouts are rare the full model is close to sqrt(3/(2bp))/RTT (Mathis, C = sqrt(3/2)).
    full = m.padhye_throughput_bps(1460, 0.05, 1e-4, 0.2)
    assert full == pytest.approx(m.mathis_throughput_bps(1460, 0.05, 1e-4), rel=0.05)
    # Heavy loss: timeouts dominate and the model falls well below Mathis.
    assert m.padhye_throughput_bps(1460, 0.05, 0.1, 1.0) < 0.5 * m.mathis_throughput_bps(1460, 0.05, 0.1)
    with pytest.raises(ValueError):
        m.padhye_throughput_bps(1460, 0.05, 0.0, 1.0)
