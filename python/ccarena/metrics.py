"""Derived metrics: pure functions over numbers and arrays.

The core records raw counters only (``docs/results.md``); every derived quantity is computed here,
with its formula in the docstring and a test on hand-computed inputs in ``tests/test_metrics.py``.
Rates are bits per second, times seconds, sizes bytes. Functions taking arrays accept anything
``numpy.asarray`` accepts. Undefined values (an empty sample, a zero-length window) are ``NaN``,
never an exception, so that a table of many flows survives one odd flow.

Confidence intervals come from SciPy (Student's t quantile ``scipy.stats.t`` and the bootstrap
``scipy.stats.bootstrap``); everything else is NumPy.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, ParamSpec, TypeVar

import numpy as np
import numpy.typing as npt

from ccarena.errors import ArgumentError, Error

__all__ = [
    "throughput_bps",
    "goodput_bps",
    "delivery_ratio",
    "utilisation",
    "jain_index",
    "coefficient_of_variation",
    "MeanCI",
    "mean_ci",
    "METRIC_RANGES",
    "metric_range",
    "bounded_mean_ci",
    "metric_ci",
    "fair_share_bps",
    "jain_intra_protocol",
    "jain_inter_protocol",
    "convergence_time_s",
    "reno_compatibility",
    "rtt_fairness",
    "percentile",
    "mathis_throughput_bps",
    "padhye_throughput_bps",
]

ArrayLike = npt.ArrayLike

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _checked(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """A public metric raises :class:`ArgumentError` (one line naming the function) for an
    argument NumPy cannot read as numbers, never a bare TypeError or ValueError."""

    @functools.wraps(fn)
    def call(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return fn(*args, **kwargs)
        except Error:
            raise
        except (TypeError, ValueError) as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ArgumentError(f"{fn.__name__}: {first}") from exc

    return call


def _rate(nbytes: ArrayLike, seconds: ArrayLike) -> npt.NDArray[np.float64] | float:
    b = np.asarray(nbytes, dtype=float)
    s = np.asarray(seconds, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(s > 0, b * 8.0 / np.where(s > 0, s, 1.0), np.nan)
    return float(out) if out.ndim == 0 else out


@_checked
def throughput_bps(sent_bytes: ArrayLike, duration_s: ArrayLike) -> npt.NDArray[np.float64] | float:
    """Sending rate: ``throughput = sent_bytes · 8 / duration_s``.

    ``sent_bytes`` are wire bytes put on the wire by the sender, retransmissions and headers
    included. NaN where ``duration_s <= 0``.
    """
    return _rate(sent_bytes, duration_s)


@_checked
def goodput_bps(goodput_bytes: ArrayLike, duration_s: ArrayLike) -> npt.NDArray[np.float64] | float:
    """Useful rate: ``goodput = goodput_bytes · 8 / duration_s``.

    ``goodput_bytes`` is application payload delivered in order to the receiver. NaN where
    ``duration_s <= 0``.
    """
    return _rate(goodput_bytes, duration_s)


@_checked
def delivery_ratio(delivered_pkts: ArrayLike, sent_pkts: ArrayLike) -> npt.NDArray[np.float64] | float:
    """``delivery_ratio = delivered_pkts / sent_pkts``, and 1.0 where nothing was sent.

    Packets still in flight at the end count as not delivered, so a short run can read slightly
    below 1 without any loss.
    """
    d = np.asarray(delivered_pkts, dtype=float)
    s = np.asarray(sent_pkts, dtype=float)
    out = np.where(s > 0, d / np.where(s > 0, s, 1.0), 1.0)
    return float(out) if out.ndim == 0 else out


@_checked
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


@_checked
def jain_index(x: ArrayLike | Iterable[float]) -> float:
    """Jain's fairness index: ``J = (Σ xᵢ)² / (n · Σ xᵢ²)``.

    1 when all ``n`` values are equal, ``1/n`` when one value takes everything (Jain, Chiu & Hawe
    1984). NaN for an empty input, when every value is 0 (the index is 0/0 there) or when a value
    is infinite or NaN. Any finite floats work: the values are scaled by their maximum first.
    """
    v = _values(x)
    n = v.size
    if n == 0 or not np.all(np.isfinite(v)):
        return math.nan
    top = float(np.max(np.abs(v)))
    if top == 0.0:
        return math.nan
    v = v / top  # the index is scale-free; scaling keeps the squares finite for any float input
    return float(np.sum(v)) ** 2 / (n * float(np.sum(v * v)))


@_checked
def coefficient_of_variation(x: ArrayLike | Iterable[float]) -> float:
    """``CoV = σ / μ`` with the *population* standard deviation ``σ = sqrt(Σ (xᵢ − μ)² / n)``.

    The population form describes the given values themselves (e.g. the goodput samples of one
    run), as in the TCP-friendliness literature. NaN for an empty input or a zero mean.
    """
    v = _values(x)
    if v.size == 0 or not np.all(np.isfinite(v)):
        return math.nan
    top = float(np.max(np.abs(v)))
    if top == 0.0:
        return math.nan
    v = v / top  # scale-free ratio: scaling keeps the squares finite for any float input
    mean = float(np.mean(v))
    if mean == 0.0:
        return math.nan
    return float(np.std(v, ddof=0)) / mean


class MeanCI(NamedTuple):
    """A sample mean and its two-sided confidence interval ``[low, high]``.

    ``half_width = (high − low) / 2``. A Student-t interval (:func:`mean_ci`) is ``mean ∓
    half_width``; an interval kept inside a metric's range (:func:`bounded_mean_ci`) need not be
    centred on the mean.
    """

    mean: float
    half_width: float
    low: float
    high: float
    n: int


@_checked
def mean_ci(x: ArrayLike | Iterable[float], level: float = 0.95) -> MeanCI:
    """Mean with a Student-t confidence interval.

    ``half_width = t_{(1+level)/2, n−1} · s / √n`` with the *sample* standard deviation
    ``s = sqrt(Σ (xᵢ − x̄)² / (n − 1))``. Assumes independent, roughly normal observations (e.g.
    replications of one scenario with different seeds). For ``n = 1`` the half-width is NaN; for
    ``n = 0`` everything is NaN.
    """
    if not 0.0 < level < 1.0:
        raise ArgumentError(f"level must be in (0, 1), got {level}")
    v = _values(x)
    n = int(v.size)
    if n == 0:
        return MeanCI(math.nan, math.nan, math.nan, math.nan, 0)
    mean = float(np.mean(v))
    if n == 1:
        return MeanCI(mean, math.nan, math.nan, math.nan, 1)
    from scipy import stats  # imported here: SciPy loads in ~0.2 s and most callers never need it

    s = float(np.std(v, ddof=1))
    half = float(stats.t.ppf((1.0 + level) / 2.0, n - 1)) * s / math.sqrt(n)
    return MeanCI(mean, half, mean - half, mean + half, n)


UNIT_INTERVAL = (0.0, 1.0)
NON_NEGATIVE = (0.0, math.inf)

#: The values each metric can take, by its column name in ``ExperimentResult.metrics`` /
#: ``runs`` (docs/experiments.md, "Confidence intervals"). A name not listed is unbounded and
#: gets the plain Student-t interval (differences, e.g. ``compare``'s ``a − b``, can be negative).
METRIC_RANGES: dict[str, tuple[float, float]] = {
    # Jain's index lies in [1/n, 1]; 0 is its lower bound for any number of flows n.
    "jain": UNIT_INTERVAL,
    "jain_intra": UNIT_INTERVAL,
    "jain_inter": UNIT_INTERVAL,
    # parts of a whole
    "utilisation": UNIT_INTERVAL,
    "utilisation_main": UNIT_INTERVAL,
    "delivery_ratio": UNIT_INTERVAL,
    "reno_share": UNIT_INTERVAL,
    # rates, times, delays, counts and ratios of non-negative quantities
    "goodput_bps": NON_NEGATIVE,
    "throughput_bps": NON_NEGATIVE,
    "dropped_pkts": NON_NEGATIVE,
    "retransmitted_pkts": NON_NEGATIVE,
    "sent_pkts": NON_NEGATIVE,
    "delivered_pkts": NON_NEGATIVE,
    "timeouts": NON_NEGATIVE,
    "mean_queue_pkts": NON_NEGATIVE,
    "delay_mean_s": NON_NEGATIVE,
    "delay_p95_s": NON_NEGATIVE,
    "delay_p99_s": NON_NEGATIVE,
    "delay_jitter_s": NON_NEGATIVE,
    "completion_s": NON_NEGATIVE,
    "convergence_s": NON_NEGATIVE,
    "stability_cov": NON_NEGATIVE,
    "rtt_fairness": NON_NEGATIVE,
}

#: With fewer values than this, a bounded metric's interval is Student's t cut to the range
#: instead of a bootstrap: a bootstrap interval of the mean never reaches past the smallest and
#: largest value, and below 10 values it covers the true mean less often than t does (95%
#: intervals simulated on near-1, exponential and normal samples: the bootstrap below 69-76%
#: with 3 values and 86-92% with 5, Student's t 89-94% and 88-95%; from 10 values on they are
#: alike). Cutting t to the range loses no coverage: the true mean is always inside it.
BOOTSTRAP_MIN_N = 10
#: Resamples per bootstrap interval: 2000 keep a summary of many grid points × metrics fast
#: (under 1 ms an interval), and its ends vary between seeds by 1-3% of its width (one standard
#: deviation).
BOOTSTRAP_RESAMPLES = 2000
#: Seed of the bootstrap's generator: the same values always give the same interval.
BOOTSTRAP_SEED = 20240601


@_checked
def metric_range(metric: str) -> tuple[float, float]:
    """``(low, high)`` a metric's values lie in (:data:`METRIC_RANGES`); ``(−inf, inf)`` for a
    name not listed."""
    return METRIC_RANGES.get(metric, (-math.inf, math.inf))


@_checked
def bounded_mean_ci(x: ArrayLike | Iterable[float], bounds: tuple[float, float] = (-math.inf, math.inf), level: float = 0.95) -> MeanCI:
    """Mean with a confidence interval that stays inside ``bounds``, NaN values dropped.

    - Unbounded (``(−inf, inf)``): the Student-t interval of :func:`mean_ci`.
    - Bounded, at least :data:`BOOTSTRAP_MIN_N` values: SciPy's percentile bootstrap
      (``scipy.stats.bootstrap``, :data:`BOOTSTRAP_RESAMPLES` resamples, a fixed seed) at the
      *expanded* level of Hesterberg (2015, The American Statistician 69(4)): the percentile
      interval is too narrow for small samples, so its tail probability is taken as
      ``Φ(−√(n/(n−1)) · t_{(1+level)/2, n−1})`` instead of ``(1 − level)/2``. Percentile rather
      than BCa: BCa covered the mean less often in simulations with 10-20 values (87-92%
      against 90-95% for 95% intervals of near-1, exponential and normal samples).
    - Bounded, fewer values: the Student-t interval cut to ``bounds``.

    Every interval is finally cut to ``bounds``, widened first to the values themselves, so that
    it always contains the mean (a value slightly outside its nominal range, e.g. a utilisation
    of 1.0002, is not hidden). ``n = 1``: NaN interval; all values equal: the zero-width interval
    at that value; an infinite value: NaN interval.
    """
    if not 0.0 < level < 1.0:
        raise ArgumentError(f"level must be in (0, 1), got {level}")
    lo_bound, hi_bound = (float(b) for b in bounds)
    if not lo_bound < hi_bound:
        raise ArgumentError(f"bounds must be (low, high) with low < high, got {bounds!r}")
    v = _values(x)
    v = v[~np.isnan(v)]
    n = int(v.size)
    if n == 0:
        return MeanCI(math.nan, math.nan, math.nan, math.nan, 0)
    if not np.all(np.isfinite(v)):
        return MeanCI(float(np.mean(v)), math.nan, math.nan, math.nan, n)
    if n > 1 and np.all(v == v[0]):
        # np.mean of equal values can differ from them in the last bit; the value itself is exact
        return MeanCI(float(v[0]), 0.0, float(v[0]), float(v[0]), n)
    t = mean_ci(v, level)
    if n == 1:
        return t
    lo_bound, hi_bound = min(lo_bound, float(np.min(v))), max(hi_bound, float(np.max(v)))
    bounded = math.isfinite(lo_bound) or math.isfinite(hi_bound)
    low, high = t.low, t.high
    if bounded and n >= BOOTSTRAP_MIN_N:
        from scipy import stats

        tail = float(stats.norm.cdf(-math.sqrt(n / (n - 1)) * stats.t.ppf((1.0 + level) / 2.0, n - 1)))
        boot = stats.bootstrap(
            (v,), np.mean, n_resamples=BOOTSTRAP_RESAMPLES, confidence_level=1.0 - 2.0 * tail,
            method="percentile", vectorized=True, rng=np.random.default_rng(BOOTSTRAP_SEED),
        )
        low, high = float(boot.confidence_interval.low), float(boot.confidence_interval.high)
    low, high = max(low, lo_bound), min(high, hi_bound)
    return MeanCI(t.mean, (high - low) / 2.0, low, high, n)


@_checked
def metric_ci(x: ArrayLike | Iterable[float], metric: str, level: float = 0.95) -> MeanCI:
    """:func:`bounded_mean_ci` inside the range of ``metric`` (:func:`metric_range`)."""
    return bounded_mean_ci(x, metric_range(metric), level)


@_checked
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
        raise ArgumentError(f"percentile q must be in [0, 100], got {q!r}")
    if v.size == 0:
        return math.nan if qa.ndim == 0 else np.full(qa.shape, np.nan)
    out = np.percentile(v, qa)
    return float(out) if np.ndim(out) == 0 else np.asarray(out, dtype=float)


@_checked
def mathis_throughput_bps(mss_bytes: float, rtt_s: float, p: float, c: float = math.sqrt(1.5)) -> float:
    """Mathis et al. (1997) steady-state throughput of a Reno-like flow at loss rate ``p``:

    ``B = (MSS · 8 / RTT) · C / √p``, with ``C = √(3/2) ≈ 1.22`` for periodic loss and one ACK per
    segment (``C = √(3/4)`` with delayed ACKs). Ignores timeouts and the receive window, so it
    overestimates at high ``p``. Returns bits per second of payload.
    """
    if p <= 0:
        return math.inf
    return mss_bytes * 8.0 / rtt_s * c / math.sqrt(p)


@_checked
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
        raise ArgumentError(f"loss probability p must be in (0, 1), got {p}")
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


# --- The seed papers' campaign metrics ------------------------------------------------------------


@_checked
def fair_share_bps(capacity_bps: float, n_flows: int, background_fraction: float = 0.0) -> float:
    """The ideal equal share of a bottleneck: ``(C − C · bg) / N``.

    Seed 003 §4.1.4: ``C`` is the link capacity, ``bg`` the fraction of it taken by background
    traffic (0.2 for 20%) and ``N`` the number of main connections. NaN for ``N ≤ 0``.
    """
    if n_flows <= 0:
        return math.nan
    return (capacity_bps - capacity_bps * background_fraction) / n_flows


def _by_label(values: ArrayLike | Iterable[float], labels: Iterable[Any]) -> dict[Any, npt.NDArray[np.float64]]:
    v = _values(values)
    lab = list(labels)
    if len(lab) != v.size:
        raise ArgumentError(f"{v.size} values but {len(lab)} labels")
    groups: dict[Any, list[float]] = {}
    for value, label in zip(v.tolist(), lab):
        groups.setdefault(label, []).append(value)
    return {k: np.asarray(g, dtype=float) for k, g in groups.items()}


@_checked
def jain_intra_protocol(values: ArrayLike | Iterable[float], labels: Iterable[Any]) -> float:
    """Fairness among flows of the same protocol: the mean over protocols of Jain's index of that
    protocol's flows (seed 003 §4.1.3, "justiça intra-protocolos"; seed 002 F3).

    ``values`` are per-flow rates, ``labels`` each flow's protocol (or algorithm). NaN when no
    protocol has a defined index.
    """
    per = [jain_index(g) for g in _by_label(values, labels).values()]
    defined = [j for j in per if not math.isnan(j)]
    return float(np.mean(defined)) if defined else math.nan


@_checked
def jain_inter_protocol(values: ArrayLike | Iterable[float], labels: Iterable[Any]) -> float:
    """Fairness between protocols: Jain's index over each protocol's mean per-flow rate (seed 003
    §4.1.3, "justiça inter-protocolos"), so a protocol with more flows does not count more.
    1 when every protocol's flows get the same rate on average; NaN with fewer than two protocols
    or all rates 0.
    """
    groups = _by_label(values, labels)
    if len(groups) < 2:
        return math.nan
    return jain_index([float(np.mean(g)) for g in groups.values()])


@_checked
def convergence_time_s(
    t_s: ArrayLike,
    rate_bps: ArrayLike,
    fair_share: float,
    start_s: float,
    band: float = 0.8,
) -> float:
    """Time a flow takes, from its start, to reach its fair share and stay there.

    Seed 003 §4.1.4 samples a late-starting flow's rate in 1 s intervals and measures the time
    from its start until it reaches its fair share (:func:`fair_share_bps`). A rate oscillates
    around its share, so reaching means ``rate ≥ band · fair_share`` (``band`` = 0.8 by default)
    and staying means every later sample does too. ``t_s`` are the interval *ends*. Returns
    ``t_end − start_s`` of the first interval from which that holds; NaN if it never does (the
    last sample is below the band) or there is no sample after the start.
    """
    if not 0.0 < band <= 1.0:
        raise ArgumentError(f"band must be in (0, 1], got {band}")
    t = _values(t_s)
    r = _values(rate_bps)
    if t.size != r.size:
        raise ArgumentError(f"{t.size} times but {r.size} rates")
    after = t > start_s
    t, r = t[after], r[after]
    if t.size == 0 or not math.isfinite(fair_share) or fair_share <= 0:
        return math.nan
    ok = r >= band * fair_share
    if not ok[-1]:
        return math.nan
    below = np.flatnonzero(~ok)
    first = int(below[-1]) + 1 if below.size else 0
    # The interval ending at t[first] is the first one entirely at or above the band; the flow
    # got there during it, so its start (the previous sample's end, or the flow's start) counts.
    reached = float(t[first - 1]) if first > 0 else start_s
    return reached - start_s


@_checked
def reno_compatibility(reno_share_vs_algorithm: float, reno_share_vs_reno: float) -> float:
    """TCP-friendliness: the share Reno flows keep against N flows of an algorithm, relative to
    the share they keep against N Reno flows (seed 003 §4.1.2: Reno flows should get what they
    would get without the other protocol; seed 002 F4).

    1 means the algorithm treats Reno as Reno would; below 1 it takes bandwidth from Reno. NaN
    when the reference share is 0 or undefined.
    """
    if not math.isfinite(reno_share_vs_reno) or reno_share_vs_reno <= 0:
        return math.nan
    return reno_share_vs_algorithm / reno_share_vs_reno


@_checked
def rtt_fairness(goodput_long_rtt: ArrayLike | Iterable[float], goodput_short_rtt: ArrayLike | Iterable[float]) -> float:
    """RTT fairness: mean rate of the long-RTT flows over the mean rate of the short-RTT ones
    (seed 003 §4.1.3 a, "justiça de RTT"). 1 is RTT-fair; Reno's rate scales as 1/RTT, so its ratio is about
    ``RTT_short / RTT_long``. NaN when either side is empty or the short-RTT mean is 0.
    """
    longs, shorts = _values(goodput_long_rtt), _values(goodput_short_rtt)
    if longs.size == 0 or shorts.size == 0:
        return math.nan
    short_mean = float(np.mean(shorts))
    if short_mean == 0.0:
        return math.nan
    return float(np.mean(longs)) / short_mean
