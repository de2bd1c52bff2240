"""The binding's contract (crates/py): numeric result columns cross as NumPy arrays whose
DataFrames are those of plain lists; ``plan`` is what a run reports before its first packet; the
quantity readers accept what a scenario accepts and fail as a scenario fails."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import ccarena
from ccarena import _core, api
from ccarena.errors import ScenarioError, TestbedError
from ccarena.testbed import units

REPO = Path(__file__).resolve().parents[1]
#: One example of each topology kind, with main and background flows, UDP and DCCP among them.
EXAMPLES = ["reno-pair.toml", "cbr-vs-reno.toml", "ccid2-vs-cubic.toml", "seed000-lan-ring.toml",
            "seed003-parking-lot.toml", "seed004-six-routers.toml", "web-background.toml"]
SHORT = ['duration="1s"', 'warmup="0s"']


def test_numeric_columns_are_arrays_whose_frames_are_those_of_lists(tiny_text: str) -> None:
    raw = _core.run(json.dumps(api.prepare(tiny_text)))
    for table in ("flows", "flow_series", "links", "link_series"):
        columns = raw[table]
        for name, col in columns.items():
            assert isinstance(col, (np.ndarray, list)), (table, name)
            if isinstance(col, np.ndarray):
                assert col.dtype in (np.int64, np.float64), (table, name, col.dtype)
            else:
                assert all(isinstance(v, str) for v in col), (table, name)
        as_lists = pd.DataFrame({k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in columns.items()})
        pd.testing.assert_frame_equal(pd.DataFrame(columns), as_lists, check_exact=True)


def test_series_left_out_have_columns_without_rows(tiny_text: str) -> None:
    raw = _core.run(json.dumps(api.prepare(tiny_text)), None, False)
    assert raw["flow_series"] and all(col == [] for col in raw["flow_series"].values())
    assert isinstance(raw["flows"]["sent_pkts"], np.ndarray)


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_plan_is_what_a_run_reports_before_its_first_packet(name: str) -> None:
    path = REPO / "scenarios" / name
    plan = api.plan(path, overrides=SHORT, seed=3)
    run = ccarena.run(path, overrides=SHORT, seed=3, series=False)
    for table in ("flows", "links"):
        planned = getattr(plan, table)
        pd.testing.assert_frame_equal(planned, getattr(run, table)[list(planned.columns)], check_exact=True)
    pd.testing.assert_frame_equal(plan.main_flows, run.main_flows[list(plan.flows.columns)], check_exact=True)
    assert plan.meta == run.meta
    derived = {"throughput_bps", "goodput_bps", "delivery_ratio", "utilisation"}
    for table, columns in plan.columns.items():
        assert columns == [c for c in getattr(run, table).columns if c not in derived], table


def test_a_plan_fails_as_the_run_would() -> None:
    doc = {"duration": "1s", "topology": {"kind": "graph", "nodes": ["A", "B", "C"],
                                          "links": [{"a": "A", "b": "B", "rate": "10Mbps", "delay": "1ms"}]},
           "flows": [{"src": "A", "dst": "C"}]}
    with pytest.raises(ScenarioError) as planned:
        api.plan(doc)
    with pytest.raises(ScenarioError) as ran:
        ccarena.run(doc)
    assert str(planned.value) == str(ran.value)


@pytest.mark.parametrize(
    "read, text, value",
    [
        (_core.rate_bps, "1Gbps", 1e9), (_core.rate_bps, "1.94Mbps", 1.94e6), (_core.rate_bps, "80kbps", 8e4),
        (_core.size_bytes, "1500B", 1500), (_core.size_bytes, "64KB", 64_000), (_core.size_bytes, "1KiB", 1024),
        (_core.queue_limit, "2500pkt", (2500, "pkt")), (_core.queue_limit, "150KB", (150_000, "B")),
        (_core.duration_s, "100ms", 0.1), (_core.duration_s, "2min", 120.0),
    ],
)
def test_quantities_read_as_a_scenario_reads_them(read: Callable[[str], Any], text: str, value: Any) -> None:
    assert read(text) == value


@pytest.mark.parametrize(
    "read, key, text",
    [
        (_core.rate_bps, ("topology", "bottleneck_rate"), "10Mbit"),
        (_core.rate_bps, ("topology", "bottleneck_rate"), "2Tbps"),  # above the scenario limit
        (_core.queue_limit, ("topology", "queue", "limit"), "0pkt"),
        (_core.duration_s, ("duration",), "2d"),
    ],
)
def test_a_bad_quantity_fails_with_the_scenario_s_error(read: Callable[[str], Any], key: tuple[str, ...], text: str) -> None:
    doc = api.prepare(REPO / "scenarios" / "reno-pair.toml")
    node = doc
    for k in key[:-1]:
        node = node.setdefault(k, {})
    node[key[-1]] = text
    with pytest.raises(ScenarioError) as scenario:
        ccarena.validate(doc)
    with pytest.raises(ScenarioError) as alone:
        read(text)
    assert str(scenario.value).endswith(str(alone.value)), (str(scenario.value), str(alone.value))


def test_the_testbed_names_the_field_of_a_bad_quantity() -> None:
    assert units.rate_bps("10Mbps", "flows[0].app.rate") == 1e7
    assert units.size_bytes("1448B", "flows[0].mss") == 1448
    assert units.queue_limit("100pkt", "topology.queue.limit") == (100, "pkt")
    with pytest.raises(TestbedError, match=r'^flows\[0\]\.app\.rate: "fast" is not a rate'):
        units.rate_bps("fast", "flows[0].app.rate")
    with pytest.raises(TestbedError, match=r'^topology\.queue\.limit: "lots" is not a queue limit'):
        units.queue_limit("lots", "topology.queue.limit")
