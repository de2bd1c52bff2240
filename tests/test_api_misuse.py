"""Misuse of the public API raises one documented ccarena.Error subclass with a clear message,
never a TypeError, RecursionError, OSError or OverflowError from deep inside."""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ccarena
from ccarena import metrics
from ccarena.errors import ArgumentError, OutputError, ScenarioError

ROOT = Path(__file__).resolve().parents[1]
RENO = str(ROOT / "scenarios" / "reno-pair.toml")
SHORT = ["duration=3s", "warmup=1s"]


def nested(depth: int) -> dict[str, Any]:
    d: dict[str, Any] = {"a": 1}
    for _ in range(depth):
        d = {"a": d}
    return d


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: ccarena.run(RENO, overrides=5), ScenarioError, 'overrides: expected a list of "KEY=VALUE" strings, got int'),
        (lambda: ccarena.run(RENO, overrides=[1]), ScenarioError, 'overrides: 1 is not a "KEY=VALUE" string'),
        (lambda: ccarena.run(RENO, seed="x"), ScenarioError, "seed"),
        (lambda: ccarena.run(RENO, seed=-1), ScenarioError, "seed"),
        (lambda: ccarena.run(5), ScenarioError, "scenario: expected a path, TOML text or a dict, not int"),
        (lambda: ccarena.run(None), ScenarioError, "not NoneType"),
        (lambda: ccarena.validate([1]), ScenarioError, "not list"),
        (lambda: ccarena.run(""), ScenarioError, "scenario: the text is empty"),
        (lambda: ccarena.run(str(ROOT / "scenarios")), ScenarioError, "is a directory, not a scenario file"),
        (lambda: ccarena.run({"name": {1, 2}}), ScenarioError, "cannot be encoded"),
        (lambda: ccarena.run({"duration": float("nan")}), ScenarioError, "not a finite number"),
        (lambda: ccarena.run("a = " + "[" * 600 + "]" * 600), ScenarioError, "nested 600 deep; at most 64"),
        (lambda: ccarena.run(nested(3000)), ScenarioError, "nested too deeply"),
    ],
)
def test_bad_scenarios_and_arguments_raise_scenario_errors(call: Callable[[], Any], error: type, message: str) -> None:
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value) and "\n" not in str(info.value)


def test_deeply_nested_toml_file_is_one_line_on_the_cli(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from ccarena.cli import app

    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * 500 + "]" * 500 + "\n")
    result = CliRunner().invoke(app, ["validate", str(deep)])
    assert result.exit_code == 2
    assert "nested 500 deep" in result.output and result.output.count("\n") == 1


@pytest.fixture(scope="module")
def result() -> ccarena.RunResult:
    return ccarena.run(RENO, overrides=SHORT)


def test_output_paths_are_checked_and_named(result: ccarena.RunResult, tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="the name is empty"):
        result.to_parquet("")
    a_file = tmp_path / "file"
    a_file.write_text("x")
    with pytest.raises(OutputError, match="exists and is not a directory"):
        result.to_parquet(a_file)
    with pytest.raises(OutputError, match="is a file, not a directory"):
        result.to_parquet(a_file / "below")
    with pytest.raises(OutputError, match="/proc/ccarena-x"):
        result.to_parquet("/proc/ccarena-x")
    with pytest.raises(ArgumentError, match="over must be 'flow' or 'group'"):
        result.jain("bogus")  # type: ignore[arg-type]


def test_an_interrupted_write_leaves_nothing_that_looks_complete(result: ccarena.RunResult, tmp_path: Path) -> None:
    out = tmp_path / "out"

    class Boom(BaseException):
        pass

    def explode(*_: Any, **__: Any) -> None:
        raise Boom

    original = result.to_json
    result.to_json = explode  # type: ignore[method-assign]
    try:
        with pytest.raises(Boom):
            result.to_parquet(out)
    finally:
        result.to_json = original  # type: ignore[method-assign]
    assert not out.exists() and os.listdir(tmp_path) == []
    result.to_parquet(out)
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["flows.parquet", "flow_series.parquet", "links.parquet", "link_series.parquet", "delay_quantiles.parquet", "summary.json"]
    )
    result.to_parquet(out, plots=True)  # replaces the older directory as a whole
    assert (out / "goodput.png").is_file() and len(os.listdir(tmp_path)) == 1


def test_cli_checks_the_output_directory_before_simulating(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from ccarena.cli import app

    a_file = tmp_path / "file"
    a_file.write_text("x")
    # a 10-minute scenario: failing after the simulation would take far longer than this test allows
    res = CliRunner().invoke(app, ["run", RENO, "--set", "duration=600s", "-o", str(a_file / "out")])
    assert res.exit_code == 2 and "is a file, not a directory" in res.output


def test_metrics_return_nan_or_values_never_overflow() -> None:
    assert metrics.jain_index([1e200, 1e200]) == 1.0
    assert metrics.jain_index([1e-320, 0.0]) == pytest.approx(0.5)
    assert math.isnan(metrics.jain_index([math.inf, 1.0]))
    assert metrics.coefficient_of_variation([1e300, -1e300, 1e300]) == pytest.approx(math.sqrt(8))


finite = st.floats(min_value=-1e300, max_value=1e300, allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(min_value=0, max_value=1e308, allow_nan=False), min_size=1, max_size=50))
def test_jain_index_lies_in_its_range_for_any_rates(values: list[float]) -> None:
    j = metrics.jain_index(values)
    if any(values):
        assert 1 / len(values) - 1e-12 <= j <= 1 + 1e-12
    else:
        assert math.isnan(j)


# Property: any scenario dict or override list built from the example's keys and odd values
# either runs or raises ccarena.Error; nothing else escapes.
odd_values = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    finite,
    st.booleans(),
    st.text(max_size=12),
    st.sampled_from(["1s", "0s", "-5ms", "1e30Gbps", "0pkt", "10Mbps", "reno", "cubic", "dccp", "udp", "1e-9s"]),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)
keys = st.sampled_from(
    [
        "duration", "seed", "sample_interval", "warmup", "topology.kind", "topology.bottleneck_rate",
        "topology.bottleneck_delay", "topology.queue.limit", "topology.queue.kind", "flows[0].cc",
        "flows[0].count", "flows[0].rtt", "flows[0].protocol", "flows[0].app", "flows[0].start",
        "flows[0].cc_params", "flows[0].mss", "flows[1].cc", "bogus", "flows[0].bogus",
    ]
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(keys, odd_values), min_size=1, max_size=3))
def test_any_edit_of_a_scenario_runs_or_raises_a_ccarena_error(edits: list[tuple[str, Any]]) -> None:
    from ccarena import scenario

    doc = scenario.load(RENO)
    doc["duration"], doc["warmup"] = "2s", "0s"
    try:
        for key, value in edits:
            scenario.set_key(doc, key, value)
        ccarena.run(doc)
    except ccarena.Error:
        pass


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.none(), st.integers(), st.text(max_size=20), st.lists(st.one_of(st.text(max_size=10), st.integers()), max_size=3)))
def test_any_overrides_argument_runs_or_raises_a_ccarena_error(overrides: Any) -> None:
    try:
        ccarena.run(RENO, overrides=overrides if overrides is not None else ["duration=2s", "warmup=0s"])
    except ccarena.Error:
        pass
