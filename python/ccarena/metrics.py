"""Derived metrics: pure functions over numbers and arrays.

The core records raw counters only (``docs/results.md``); every derived quantity is computed here,
with its formula in the docstring and a test on hand-computed inputs in ``tests/test_metrics.py``.
Rates are bits per second, times seconds, sizes bytes. Functions taking arrays accept anything
``numpy.asarray`` accepts. Undefined values (an empty sample, a zero-length window) are ``NaN``,
never an exception, so that a table of many flows survives one odd flow.

The t quantile for confidence intervals is computed here (regularised incomplete beta function and
bisection) rather than taken from SciPy, to keep SciPy out of the dependencies; it agrees with
published tables to better than 1e-9.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

__all__ = [
    "throughput_bps",
    "goodput_bps",
    "delivery_ratio",
    "utilisation",
    "jain_index",
    "coefficient_of_variation",
    "MeanCI",
    "mean_ci",
    "student_t_quantile",
    "percentile",
    "mathis_throughput_bps",
    "padhye_throughput_bps",
]

ArrayLike = npt.ArrayLike


def _rate(nbytes: ArrayLike, seconds: ArrayLike) -> npt.NDArray[np.float64] | float:
    b = np.asarray(nbytes, dtype=float)
    s = np.asarray(seconds, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(s > 0, b * 8.0 / np.where(s > 0, s, 1.0), np.nan)
    return float(out) if out.ndim == 0 else out


def throughput_bps(sent_bytes: ArrayLike, duration_s: ArrayLike) -> npt.NDArray[np.float64] | float:
    """Sending rate: ``throughput = sent_bytes · 8 / duration_s``.

    ``sent_bytes`` are wire bytes put on the wire by the sender, retransmissions and headers
    included. NaN where ``duration_s <= 0``.
    """
    return _rate(sent_bytes, duration_s)


def goodput_bps(goodput_bytes: ArrayLike, duration_s: ArrayLike) -> npt.NDArray[np.float64] | float:
    """Useful rate: ``goodput = goodput_bytes · 8 / duration_s``.

    ``goodput_bytes`` is application payload delivered in order to the receiver. NaN where
    ``duration_s <= 0``.
    """
    return _rate(goodput_bytes, duration_s)


def delivery_ratio(delivered_pkts: ArrayLike, sent_pkts: ArrayLike) -> npt.NDArray[np.float64] | float:
    """``delivery_ratio = delivered_pkts / sent_pkts``, and 1.0 where nothing was sent.

    Packets still in flight at the end count as not delivered, so a short run can read slightly
    below 1 without any loss.
    """
    d = np.asarray(delivered_pkts, dtype=float)
    s = np.asarray(sent_pkts, dtype=float)
    out = np.where(s > 0, d / np.where(s > 0, s, 1.0), 1.0)
    return float(out) if out.ndim == 0 else out


def utilisation(tx_bytes: ArrayLike, rate_bps: ArrayLike, duration_s: ArrayLike) -> npt.NDArray[np.float64] | float:
    """Link utilisation: ``utilisation = tx_bytes · 8 / (rate_bps · duration_s)``, in [0, 1].

    NaN where ``rate_bps · duration_s <= 0``.
    """
    capacity_bits = np.asarray(rate_bps, dtype=float) * np.asarray(duration_s, dtype=float)
    tx_bits = np.asarray(tx_bytes, dtype=float) * 8.0
    out = np.where(capacity_bits > 0, tx_bits / np.where(capacity_bits > 0, capacity_bits, 1.0), np.nan)
    return float(out) if out.ndim == 0 else out


def _values(x: Any) -> npt.NDArray[np.float64]:
    if isinstance(x, Iterable) and not isinstance(x, (np.ndarray, list, tuple)) and not hasattr(x, "__array__"):
        x = list(x)  # a generator or other one-shot iterable
    return np.asarray(x, dtype=float).ravel()


def jain_index(x: ArrayLike | Iterable[float]) -> float:
    """Jain's fairness index: ``J = (Σ xᵢ)² / (n · Σ xᵢ²)``.

    1 when all ``n`` values are equal, ``1/n`` when one value takes everything (Jain, Chiu & Hawe
    1984). NaN for an empty input or when every value is 0 (the index is 0/0 there).
    """
    v = _values(x)
    n = v.size
    sq = float(np.sum(v * v))
    if n == 0 or sq == 0.0:
        return math.nan
    return float(np.sum(v)) ** 2 / (n * sq)


def coefficient_of_variation(x: ArrayLike | Iterable[float]) -> float:
    """``CoV = σ / μ`` with the *population* standard deviation ``σ = sqrt(Σ (xᵢ − μ)² / n)``.

    The population form describes the given values themselves (e.g. the goodput samples of one
    run), as in the TCP-friendliness literature. NaN for an empty input or a zero mean.
    """
    v = _values(x)
    if v.size == 0:
        return math.nan
    mean = float(np.mean(v))
    if mean == 0.0:
        return math.nan
    return float(np.std(v, ddof=0)) / mean


class MeanCI(NamedTuple):
    """A sample mean and its two-sided confidence interval ``[low, high] = mean ∓ half_width``."""

    mean: float
    half_width: float
    low: float
    high: float
    n: int


def mean_ci(x: ArrayLike | Iterable[float], level: float = 0.95) -> MeanCI:
    """Mean with a Student-t confidence interval.

    ``half_width = t_{(1+level)/2, n−1} · s / √n`` with the *sample* standard deviation
    ``s = sqrt(Σ (xᵢ − x̄)² / (n − 1))``. Assumes independent, roughly normal observations (e.g.
    replications of one scenario with different seeds). For ``n = 1`` the half-width is NaN; for
    ``n = 0`` everything is NaN.
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    v = _values(x)
    n = int(v.size)
    if n == 0:
        return MeanCI(math.nan, math.nan, math.nan, math.nan, 0)
    mean = float(np.mean(v))
    if n == 1:
        return MeanCI(mean, math.nan, math.nan, math.nan, 1)
    s = float(np.std(v, ddof=1))
    half = student_t_quantile((1.0 + level) / 2.0, n - 1) * s / math.sqrt(n)
    return MeanCI(mean, half, mean - half, mean + half, n)


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction for the incomplete beta function (modified Lentz, Numerical Recipes 6.4)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta function ``I_x(a, b)``."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def _student_t_cdf(t: float, df: float) -> float:
    tail = 0.5 * _betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def student_t_quantile(q: float, df: float) -> float:
    """The ``q`` quantile of Student's t distribution with ``df`` degrees of freedom.

    Solves ``F(t) = q`` by bisection on the CDF ``F(t) = 1 − ½ I_{df/(df+t²)}(df/2, ½)`` (t ≥ 0),
    where ``I`` is the regularised incomplete beta function. E.g.
    ``student_t_quantile(0.975, 10) = 2.2281388…``.
    """
    if not 0.0 < q < 1.0:
        raise ValueError(f"q must be in (0, 1), got {q}")
    if df <= 0:
        raise ValueError(f"df must be positive, got {df}")
    if q == 0.5:
        return 0.0
    if q < 0.5:
        return -student_t_quantile(1.0 - q, df)
    lo, hi = 0.0, 1.0
    while _student_t_cdf(hi, df) < q:
        lo, hi = hi, hi * 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if _student_t_cdf(mid, df) < q:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


def percentile(x: ArrayLike | Iterable[float], q: float | ArrayLike) -> float | npt.NDArray[np.float64]:
    """The ``q``-th percentile (``q`` in 0..100) with linear interpolation between order statistics.

    For sorted values ``v₀ ≤ … ≤ v_{n−1}`` the percentile sits at rank ``r = q/100 · (n − 1)``:
    ``v_⌊r⌋ + (r − ⌊r⌋)(v_⌈r⌉ − v_⌊r⌋)`` (NumPy's default "linear" method). NaN values are
    ignored; NaN for an empty input.
    """
    v = _values(x)
    v = v[~np.isnan(v)]
    qa = np.asarray(q, dtype=float)
    if np.any((qa < 0) | (qa > 100)):
        raise ValueError(f"percentile q must be in [0, 100], got {q!r}")
    if v.size == 0:
        return math.nan if qa.ndim == 0 else np.full(qa.shape, np.nan)
    out = np.percentile(v, qa)
    return float(out) if np.ndim(out) == 0 else np.asarray(out, dtype=float)


def mathis_throughput_bps(mss_bytes: float, rtt_s: float, p: float, c: float = math.sqrt(1.5)) -> float:
    """Mathis et al. (1997) steady-state throughput of a Reno-like flow at loss rate ``p``:

    ``B = (MSS · 8 / RTT) · C / √p``, with ``C = √(3/2) ≈ 1.22`` for periodic loss and one ACK per
    segment (``C = √(3/4)`` with delayed ACKs). Ignores timeouts and the receive window, so it
    overestimates at high ``p``. Returns bits per second of payload.
    """
    if p <= 0:
        return math.inf
    return mss_bytes * 8.0 / rtt_s * c / math.sqrt(p)


def padhye_throughput_bps(
    mss_bytes: float,
    rtt_s: float,
    p: float,
    rto_s: float,
    b: float = 1.0,
    wmax: float = math.inf,
) -> float:
    """Padhye, Firoiu, Towsley & Kurose (SIGCOMM 1998) "full model" of Reno throughput.

    With ``b`` segments acknowledged per ACK, ``T₀ = rto_s`` and the window limit ``W_max``
    (segments)::

        E[W]  = (2+b)/(3b) + √( 8(1−p)/(3bp) + ((2+b)/(3b))² )        unconstrained mean window
        Q̂(w) = min(1, (1−(1−p)³)(1+(1−p)³(1−(1−p)^(w−3))) / (1−(1−p)^w)),  Q̂(w) = 1 for w ≤ 3
        f(p)  = 1 + p + 2p² + 4p³ + 8p⁴ + 16p⁵ + 32p⁶

        if E[W] < W_max:
            B = ((1−p)/p + E[W] + Q̂(E[W])/(1−p))
                / (RTT (b/2 · E[W] + 1) + Q̂(E[W]) T₀ f(p)/(1−p))
        else:
            B = ((1−p)/p + W_max + Q̂(W_max)/(1−p))
                / (RTT (b/8 · W_max + (1−p)/(p W_max) + 2) + Q̂(W_max) T₀ f(p)/(1−p))

    ``B`` is in segments per second; the result is ``B · MSS · 8`` bits per second.
    ``Q̂`` is the probability that a loss is detected by timeout rather than triple duplicate ACK.
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"loss probability p must be in (0, 1), got {p}")
    q = 1.0 - p

    def q_hat(w: float) -> float:
        if w <= 3.0:
            return 1.0
        num = (1.0 - q**3) * (1.0 + q**3 * (1.0 - q ** (w - 3.0)))
        return min(1.0, num / (1.0 - q**w))

    f = 1.0 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6
    k = (2.0 + b) / (3.0 * b)
    ew = k + math.sqrt(8.0 * q / (3.0 * b * p) + k * k)
    if ew < wmax:
        qh = q_hat(ew)
        num = q / p + ew + qh / q
        den = rtt_s * (b / 2.0 * ew + 1.0) + qh * rto_s * f / q
    else:
        qh = q_hat(wmax)
        num = q / p + wmax + qh / q
        den = rtt_s * (b / 8.0 * wmax + q / (p * wmax) + 2.0) + qh * rto_s * f / q
    return num / den * mss_bytes * 8.0
