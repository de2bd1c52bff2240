"""`ccarena reproduce --dry-run`: the calibration cache (ccarena.experiment.calibration_cache),
the cost model (ccarena.experiment.cost_model) and the pricing of a paper (ccarena.papers.pricing).

Every test here caches under its own directory (XDG_CACHE_HOME), never the user's."""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path

import numpy as np
import pytest

from ccarena import _core
from ccarena.experiment import calibration_cache as cache
from ccarena.experiment import cost_model
from ccarena.experiment.worker import RunOutcome
from ccarena.papers import paper
from ccarena.papers.pricing import dry_run


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(root))
    return root / "ccarena"


def test_entries_are_filed_under_the_build_and_a_damaged_one_is_missing(own_cache: Path) -> None:
    assert cache.cache_root() == own_cache
    version, digest = cache.build_id().rsplit("-", 1)
    assert version == _core.__version__ and len(digest) == 16
    name = cache.scenario_key({"b": 1, "a": [1, 2]})
    assert name == cache.scenario_key({"a": [1, 2], "b": 1})  # key order does not matter
    assert name != cache.scenario_key({"a": [2, 1], "b": 1})
    fields = {"estimate_s": float, "growing": bool}
    assert cache.load("calibrations", name, fields) is None
    cache.store("calibrations", name, {"estimate_s": 2, "growing": False})
    path = own_cache / "calibrations" / cache.build_id() / f"{name}.json"
    assert path.is_file() and [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left
    assert cache.load("calibrations", name, fields) == {"estimate_s": 2, "growing": False}
    for damaged in ('{"estimate_s": 2.0, "grow', "[]", '{"estimate_s": "2", "growing": false}', '{"estimate_s": 2.0}', "\0\0"):
        path.write_text(damaged)
        assert cache.load("calibrations", name, fields) is None, damaged


def test_an_unwritable_cache_only_costs_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # a file where the directory would be
    cache.store("calibrations", "x", {"estimate_s": 1.0})
    assert cache.load("calibrations", "x", {"estimate_s": float}) is None


def test_max_min_shares_a_link_and_gives_what_a_capped_flow_leaves() -> None:
    # Links: 0 (10 units) is shared by classes 0 and 1; 1 (4 units) carries class 1 alone.
    # Class 2 has one flow on link 0 and wants 1 unit. Max-min: class 2 gets its 1; class 1
    # is held by link 1 at 4 / 2 flows = 2 each; class 0 gets the rest of link 0.
    crossing = np.array([[1.0, 2.0, 1.0], [0.0, 2.0, 0.0]])
    rate = cost_model._max_min(np.array([10.0, 4.0]), crossing, np.array([math.inf, math.inf, 1.0]))
    assert rate == pytest.approx([10 - 4 - 1, 2.0, 1.0])


def test_predicted_hops_of_a_small_run_are_near_its_real_ones(tiny_text: str) -> None:
    # Two bulk Reno flows filling 10 Mbit/s for 3 s: data over three links, ACKs back over three.
    scenario = tomllib.loads(tiny_text)
    real = _core.run(json.dumps(scenario), series=False)["engine"]["packets_forwarded"]
    assert 0.7 < cost_model.hops(scenario) / real < 1.4
    # A CBR source asks for no more than its rate: a tenth of the link, a tenth of the hops.
    cbr = dict(scenario, flows=[{"name": "cbr", "protocol": "udp", "app": {"kind": "cbr", "rate": "1Mbps", "packet_size": "1000B"}}])
    real = _core.run(json.dumps(cbr), series=False)["engine"]["packets_forwarded"]
    assert 0.8 < cost_model.hops(cbr) / real < 1.25
    # Background sources of the default mix beside the bulk flows, planned as a few: the bulk
    # flows take what the background leaves.
    busy = dict(scenario, duration="10s", background=[{"load": 0.5}])
    real = _core.run(json.dumps(busy), series=False)["engine"]["packets_forwarded"]
    assert 0.7 < cost_model.hops(busy) / real < 1.4


def test_a_paper_with_background_is_planned_without_its_thousands_of_sources() -> None:
    spec = paper("highspeed-tcp").experiments("smoke")["parking-lot"].runs()[0]
    small, loads = cost_model._planned(spec.scenario)
    assert len(_core.plan(json.dumps(small))["flows"]["flow_id"]) < 100 < len(_core.plan(json.dumps(spec.scenario))["flows"]["flow_id"])
    assert loads == [pytest.approx({"udp": 0.04, "ftp": 0.048, "web": 0.112})]  # load 0.2 times the default mix


def _counting_runs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every simulation the core starts from now on, by scenario name."""
    started: list[str] = []
    real_run = _core.run

    def run(text: str, *args: object, **kwargs: object) -> object:
        started.append(json.loads(text).get("name", ""))
        return real_run(text, *args, **kwargs)

    monkeypatch.setattr(_core, "run", run)
    return started


def test_a_second_dry_run_simulates_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    started = _counting_runs(monkeypatch)
    sqm = paper("sqm-response")
    first = dry_run(sqm, "quick")
    assert len(started) == len(cost_model.REFERENCE_S) * cost_model.REFERENCE_REPEAT  # the reference run, once per build
    assert [p.experiment for p in first] == ["ftp", "utilisation"] and all(p.runs == 20 and p.points == 2 for p in first)
    assert all(p.cpu_s > 0 and p.calibrated == 0 for p in first)

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a cached dry run simulated")

    monkeypatch.setattr(_core, "run", refuse)
    monkeypatch.setattr(_core, "plan", refuse)
    assert dry_run(sqm, "quick") == first


def test_calibrations_are_cached_and_a_damaged_one_is_priced_again(own_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sqm = paper("sqm-response")
    calibrated = dry_run(sqm, "smoke", jobs=1, calibrate=True)
    assert all(p.calibrated == p.points == 2 for p in calibrated)
    files = sorted((own_cache / "calibrations" / cache.build_id()).glob("*.json"))
    assert len(files) == 4
    started = _counting_runs(monkeypatch)
    assert dry_run(sqm, "smoke") == calibrated  # the calibrations read back, nothing simulated
    assert started == []
    files[0].write_text('{"estimate_s": ')  # as a crash while writing would leave it, were it not atomic
    again = dry_run(sqm, "smoke")
    assert sum(p.calibrated for p in again) == 3  # that point is priced by the cost model instead
    assert len(started) == len(cost_model.REFERENCE_S) * cost_model.REFERENCE_REPEAT


def test_calibrate_adds_up_each_points_calibration_times_its_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every calibration "estimates" 1 s per simulated second and says the 10 Gbit/s points were
    # still growing: each experiment's total is its runs' durations, its flag count theirs.
    from contextlib import contextmanager

    from ccarena.experiment.calibrate import calibrate, seconds

    seen: list[dict[str, object]] = []

    class Pool:
        def run_all(self, runs, on_done, task):  # type: ignore[no-untyped-def]
            assert task is calibrate
            for key, (scenario,) in runs.items():
                seen.append(scenario)
                fast = "10Gbps" in json.dumps(scenario)
                on_done(RunOutcome(key, engine={"estimate_s": seconds(scenario["duration"]), "growing": fast}))

    @contextmanager
    def fake_executor(*_args: object):  # type: ignore[no-untyped-def]
        yield Pool()

    monkeypatch.setattr("ccarena.experiment.executors.open_executor", fake_executor)
    hs = paper("highspeed-tcp")
    prices = dry_run(hs, "full", calibrate=True)
    assert all(s["duration"] == "600s" for s in seen)  # calibrated from the scenario as it runs
    assert all(abs(p.cpu_s - 600.0 * p.runs) < 1e-6 and p.calibrated == p.points for p in prices)
    growing = {p.experiment: p.growing for p in prices}
    assert growing["capacity"] > 0 and growing["connections"] == 0
    # A run two experiments share is counted once, as a reproduction runs it once.
    unique = {json.dumps(s.scenario, sort_keys=True, default=str) for e in hs.experiments("full").values() for s in e.runs()}
    assert sum(p.runs for p in prices) == len(unique) < sum(len(e.runs()) for e in hs.experiments("full").values())
