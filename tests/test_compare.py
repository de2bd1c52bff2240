"""The table of ``ccarena compare``: each backend's mean ± 95 % CI written as the campaign tables
write them (``interval_text``: the mean's unit once, two significant digits), the interval kept
inside each metric's range, the difference from the reference beside it."""

from __future__ import annotations

import math

import pytest

import ccarena
from ccarena.compare import Comparison, _pm
from ccarena.experiment.tables import interval_text
from ccarena.metrics import bounded_mean_ci


@pytest.mark.parametrize(
    ("kind", "values", "text"),
    [
        ("rate", [9.60e6, 9.65e6, 9.70e6], "9.65 ± 0.12 Mbit/s"),  # t(2) · sd / √3 = 0.124 Mbit/s
        ("rate", [1.11e6, 1.11e6, 1.11e6], "1.11 ± 0 Mbit/s"),  # equal values: a zero-width interval
        ("rate", [783.96e3], "783.96 kbit/s"),  # one value: no interval
        ("count", [31.0, 35.0, 41.0], "36 ± 13"),  # a wide interval rounds the mean
        ("number", [15.2, 15.5, 15.3], "15.3 ± 0.38"),
        ("seconds", [0.031, 0.030, 0.032], "31.0 ± 2.5 ms"),
        ("ratio", [0.95, 0.97, 0.99], "0.970 −0.050 +0.030"),  # cut at 1: asymmetric
        ("ratio", [math.nan, math.nan], "-"),
    ],
)
def test_a_mean_and_its_interval_read_as_in_the_campaign_tables(kind: str, values: list[float], text: str) -> None:
    assert _pm(kind, values) == text


def test_the_interval_is_the_bounded_one_of_the_metrics_module() -> None:
    values = [0.95, 0.97, 0.99]
    ci = bounded_mean_ci(values, (0.0, 1.0))
    assert ci.high == 1.0 and ci.mean - ci.low > ci.high - ci.mean, "Student's t cut at 1"
    assert _pm("ratio", values) == interval_text("jain", ci.mean, ci.low, ci.high)


def test_the_table_writes_every_backend_s_interval_in_the_shared_form(tiny_text: str) -> None:
    runs = [ccarena.run(tiny_text, seed=s, overrides=["flows[0].start={uniform=['0s','1s']}"]) for s in (1, 2, 3)]
    table = Comparison(runs={"sim": runs, "other": runs[::-1]}).table().splitlines()
    assert table[0].split() == ["metric", "sim", "(n=3)", "other", "(n=3)", "other", "vs", "sim"]
    goodput = next(line for line in table if line.startswith("aggregate goodput"))
    total = [float(r.main_flows["goodput_bps"].sum()) for r in runs]
    ci = bounded_mean_ci(total, (0.0, math.inf))
    shown = interval_text("goodput_bps", ci.mean, ci.low, ci.high)
    assert goodput.count(shown) == 2 and goodput.rstrip().endswith("+0.0%"), goodput
    jain = next(line for line in table if line.startswith("Jain's index"))
    assert jain.count(" −") == 2 or jain.count(" ± ") == 2, jain
    assert any(line.startswith("wall time per run") and line.rstrip().endswith("x the time") for line in table)
