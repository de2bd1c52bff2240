"""The core's robustness contract seen from Python: series on request, limits as
ScenarioError, jitter making seeds distinct samples."""

from __future__ import annotations

import json

import pytest

import ccarena
from ccarena import _core
from ccarena.errors import ScenarioError

SMALL = {
    "duration": "2s",
    "topology": {"kind": "dumbbell", "bottleneck_rate": "10Mbps", "bottleneck_delay": "10ms"},
    "flows": [{"count": 2, "cc": "reno"}],
}


def test_series_false_keeps_the_columns_but_builds_no_rows() -> None:
    full = _core.run(json.dumps(SMALL))
    lean = _core.run(json.dumps(SMALL), None, False)
    for table, col in (("flows", "goodput_bytes"), ("flows", "sent_pkts"), ("links", "tx_bytes"), ("links", "max_queue_pkts")):
        assert list(lean[table][col]) == list(full[table][col])
    for table in ("flow_series", "link_series"):
        assert list(lean[table]) == list(full[table])
        assert all(col == [] for col in lean[table].values())
        assert len(full[table]["t_s"]) > 0


def test_too_many_samples_is_a_scenario_error_naming_the_field() -> None:
    doc = dict(SMALL, duration="100s", sample_interval="10us")
    with pytest.raises(ScenarioError, match=r"^sample_interval: 10us over 100s records .* the limit is 5000000"):
        ccarena.validate(doc)


def test_out_of_range_parameter_names_its_range() -> None:
    doc = dict(SMALL, flows=[{"cc": "reno", "cc_params": {"beta": 2}}])
    with pytest.raises(ScenarioError, match=r"^flows\[0\]\.cc_params\.beta: 2 is out of range: expected a factor in \(0, 1\)$"):
        ccarena.validate(doc)


def test_jitter_makes_seeds_differ_and_keeps_a_seed_reproducible() -> None:
    flows = [{"cc": "reno", "rtt": "40ms"}, {"cc": "reno", "rtt": "80ms"}]
    plain = dict(SMALL, flows=flows)
    assert [tuple(ccarena.run(plain, seed=s).flows["goodput_bps"]) for s in (1, 2)] == [tuple(ccarena.run(plain, seed=1).flows["goodput_bps"])] * 2
    jittered = dict(plain, jitter=True)
    goodput = [tuple(ccarena.run(jittered, seed=s).flows["goodput_bps"]) for s in (1, 2, 1)]
    assert goodput[0] != goodput[1]
    assert goodput[0] == goodput[2]
