"""Confidence intervals stay inside each metric's range: Student's t cut to the range, a seeded
bootstrap from 10 values on, the plain t interval for unbounded metrics."""

from __future__ import annotations

import contextlib
import io
import math
import re
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import ccarena
from ccarena import Experiment
from ccarena import metrics as m
from ccarena.experiment.result import GROUP_METRICS, RUN_METRICS
from ccarena.experiment.tables import grid_table, interval_text

ROOT = Path(__file__).resolve().parents[1]
RENO_PAIR = ROOT / "scenarios" / "reno-pair.toml"


def test_every_campaign_metric_has_a_range() -> None:
    for name in (*RUN_METRICS, *GROUP_METRICS):
        assert m.metric_range(name) in (m.UNIT_INTERVAL, m.NON_NEGATIVE), name
    assert m.metric_range("jain") == (0.0, 1.0) and m.metric_range("convergence_s") == (0.0, math.inf)
    assert m.metric_range("mean_diff") == (-math.inf, math.inf)


def test_jain_near_1_stays_at_or_below_1() -> None:
    values = [0.999, 1.0, 1.0, 0.998]
    assert m.mean_ci(values).high > 1.0  # what Student's t alone gives
    ci = m.metric_ci(values, "jain")
    assert ci.n == 4 and ci.mean == pytest.approx(0.99925)
    assert 0.0 <= ci.low <= ci.mean <= ci.high == 1.0
    # the t interval's low end is kept as it is
    assert ci.low == pytest.approx(m.mean_ci(values).low, rel=1e-12)
    many = m.metric_ci(values * 3, "jain")  # 12 values: the bootstrap
    assert 0.998 <= many.low < many.mean < many.high <= 1.0


def test_skewed_times_stay_at_or_above_0() -> None:
    values = [0.1, 0.2, 40.0]
    assert m.mean_ci(values).low < -40
    ci = m.metric_ci(values, "convergence_s")
    assert ci.low == 0.0 and ci.high == pytest.approx(m.mean_ci(values).high, rel=1e-12)
    skewed = [0.0, 0.1, 0.1, 0.2, 0.2, 0.3, 0.5, 1.0, 2.0, 90.0]
    assert m.mean_ci(skewed).low < 0
    boot = m.metric_ci(skewed, "convergence_s")
    assert 0.0 <= boot.low < boot.mean < boot.high <= 90.0


def test_an_unbounded_metric_gets_the_student_t_interval() -> None:
    # x = 1..5: mean 3, sample sd sqrt(2.5), t(0.975, 4) = 2.776445105 (tables)
    ci = m.metric_ci([1, 2, 3, 4, 5], "mean_diff")
    half = 2.776445105 * math.sqrt(2.5) / math.sqrt(5)
    assert ci.mean == 3.0 and ci.n == 5
    assert (ci.low, ci.high, ci.half_width) == pytest.approx((3 - half, 3 + half, half), rel=1e-9)
    # unbounded with many values: still t, no bootstrap
    x = np.arange(12.0) - 5.0
    t = m.mean_ci(x)
    assert m.bounded_mean_ci(x) == t


def test_the_bootstrap_is_scipys_percentile_at_the_expanded_level_and_deterministic() -> None:
    x = np.random.default_rng(7).beta(40, 1, 15)
    n = x.size
    tail = stats.norm.cdf(-math.sqrt(n / (n - 1)) * stats.t.ppf(0.975, n - 1))
    ref = stats.bootstrap(
        (x,), np.mean, n_resamples=m.BOOTSTRAP_RESAMPLES, confidence_level=1 - 2 * tail, method="percentile",
        rng=np.random.default_rng(m.BOOTSTRAP_SEED),
    ).confidence_interval
    ci = m.metric_ci(x, "jain")
    assert (ci.low, ci.high) == (ref.low, ref.high)
    assert m.metric_ci(x, "jain") == ci == m.metric_ci(list(x), "jain")
    # the expanded level is wider than the plain 95% percentile interval
    plain = stats.bootstrap((x,), np.mean, n_resamples=2000, method="percentile", rng=np.random.default_rng(1)).confidence_interval
    assert ci.high - ci.low > plain.high - plain.low


def test_degenerate_inputs() -> None:
    one = m.metric_ci([0.7], "jain")
    assert one.mean == 0.7 and one.n == 1 and math.isnan(one.low) and math.isnan(one.high)
    none = m.metric_ci([], "jain")
    assert none.n == 0 and math.isnan(none.mean)
    for n in (3, 12):  # t and bootstrap paths; warnings are errors here
        same = m.metric_ci([0.1] * n, "utilisation")
        assert same == m.MeanCI(0.1, 0.0, 0.1, 0.1, n)
    dropped = m.metric_ci([0.5, math.nan, 0.7, math.nan], "jain")
    assert dropped.n == 2 and dropped.mean == pytest.approx(0.6) and 0.0 <= dropped.low < dropped.high <= 1.0
    assert math.isnan(m.metric_ci([1.0, math.inf], "goodput_bps").low)
    # a value a little outside its nominal range widens the range: the interval keeps the mean
    over = m.metric_ci([1.0002, 1.0001, 1.0003], "utilisation")
    assert over.low <= over.mean <= over.high == 1.0003
    with pytest.raises(ValueError, match="bounds must be"):
        m.bounded_mean_ci([1, 2], (1.0, 0.0))
    with pytest.raises(ValueError, match="level must be in"):
        m.metric_ci([1, 2], "jain", level=1.0)


def test_interval_text_shows_asymmetric_intervals_as_such() -> None:
    assert interval_text("jain", 0.99925, 0.9977, 1.0) == "0.9992 −0.0015 +0.0008"
    assert interval_text("goodput_bps", 5e6, 4e6, 6e6) == "5.0 ± 1.0 Mbit/s"
    assert interval_text("jain", 0.5, math.nan, math.nan) == "0.5000"


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> ccarena.ExperimentResult:
    # two replications: t(0.975, 1) = 12.7 makes Student's t overshoot the ranges
    exp = Experiment(
        RENO_PAIR, grid={"flows[0].cc": ["reno", "cubic"]}, replications=2, overrides=["duration=4s", "warmup=1s"], name="ci"
    )
    return exp.run(tmp_path_factory.mktemp("ci"), jobs=1)


def test_summary_intervals_lie_inside_each_metric_range(small: ccarena.ExperimentResult) -> None:
    for per in ("run", "group"):
        summ = small.summary(per=per)
        defined = summ[summ["ci_low"].notna()]
        assert len(defined) > 10
        for _, row in defined.iterrows():
            lo, hi = m.metric_range(row["metric"])
            assert lo <= row["ci_low"] <= row["mean"] <= row["ci_high"] <= hi, dict(row)
    summ = small.summary(["jain", "goodput_bps"])
    clipped = 0
    for _, row in summ.iterrows():
        values = small.metrics[small.metrics["point"] == row["point"]][row["metric"]].dropna().to_numpy()
        t = m.mean_ci(values)
        lo, hi = m.metric_range(row["metric"])
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((max(t.low, lo), min(t.high, hi)), rel=1e-12)
        clipped += t.high > hi or t.low < lo
    assert clipped >= 1, "no interval needed cutting: the test no longer checks the bounds"
    headers, rows, _ = grid_table(small, ["jain"])
    assert headers[-1] == "jain" and all(re.fullmatch(r"[01]\.\d{1,4}( ± | −)\S+( \+\S+)?", r[-1]) for r in rows), rows


def test_the_documented_example_prints_what_the_docs_say() -> None:
    text = (ROOT / "docs" / "experiments.md").read_text(encoding="utf-8")
    section = text.split("## Confidence intervals", 1)[1].split("\n## ", 1)[0]
    code, printed = re.findall(r"```(?:python)?\n(.*?)```", section, flags=re.S)[:2]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/experiments.md", "exec"), {})
    assert out.getvalue() == printed
