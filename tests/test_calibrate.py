"""The dry run's cost estimate of one run (ccarena.experiment.calibrate)."""

from __future__ import annotations

import json

import pytest

from ccarena import _core
from ccarena.errors import ArgumentError
from ccarena.experiment import calibrate as cal


def feed(log: cal._Log, events_per_s, cpu_per_event: float, until_s: float, dt: float = 0.001) -> float | None:  # type: ignore[no-untyped-def]
    """Drives ``log`` as the engine would: a report at every whole number of events (events
    per simulated second given by ``events_per_s(t)``), each event costing ``cpu_per_event``
    of the clock. Returns the simulated second at which the log stopped the run, or None."""
    now = [0.0]
    log.clock = lambda: now[0]
    log.start = 0.0
    t, events, next_report = 0.0, 0.0, 1.0
    while t < until_s:
        t += dt
        events += events_per_s(t) * dt
        now[0] = events * cpu_per_event
        if events >= next_report:
            next_report += 1.0
            try:
                log(t / until_s, t)
            except cal._Enough:
                return t
    return None


def test_a_steady_run_stops_at_the_first_check_and_is_priced_at_its_rate() -> None:
    log = cal._Log(600.0)
    stopped = feed(log, lambda t: 50.0, 0.01, 600.0)
    assert log.first_check == 30.0  # a twentieth of 600 s
    assert stopped is not None and log.first_check <= stopped < log.first_check + 0.1
    assert not log.growing
    assert log.per_second(log.cpu)[1] == pytest.approx(0.5, rel=0.01)  # 50 events/s x 0.01 s


def test_a_run_that_is_still_filling_its_pipe_is_calibrated_past_the_ramp() -> None:
    # Events per second grow for the first 40 s (windows opening at 10 Gbit/s), then stay: the
    # calibration must not stop inside the ramp, whose rate would price the run too low.
    def rate(t: float) -> float:
        return 20.0 + 40.0 * min(t, 40.0) / 40.0

    log = cal._Log(600.0)
    stopped = feed(log, rate, 0.01, 600.0)
    assert stopped is not None and 55.0 < stopped < cal.MAX_FRACTION * 600.0
    assert not log.growing
    assert log.per_second(log.cpu)[1] == pytest.approx(0.6, rel=0.01)  # the steady 60 events/s


def test_a_run_still_growing_at_the_limit_is_flagged() -> None:
    log = cal._Log(600.0)
    stopped = feed(log, lambda t: 10.0 + t, 0.01, 600.0)
    assert stopped == pytest.approx(cal.MAX_FRACTION * 600.0, abs=0.1)
    assert log.growing


def test_calibrating_a_real_run(tiny_text: str) -> None:
    import tomllib

    scenario = tomllib.loads(tiny_text)
    scenario["topology"]["bottleneck_rate"] = "1Gbps"  # about 10^6 events per 3 s: reports to read
    short = cal.calibrate("short", scenario)  # 3 s: shorter than a calibration, run whole
    assert short.error is None and short.engine["simulated_s"] == 3.0
    assert short.engine["estimate_s"] == short.engine["cpu_s"] > 0
    long = cal.calibrate("long", dict(scenario, duration="120s"))
    assert long.error is None, long.error
    assert cal.MIN_S <= long.engine["simulated_s"] <= cal.MAX_FRACTION * 120.0 + 1.0
    assert long.engine["estimate_s"] > 2.0 * long.engine["cpu_s"]
    broken = cal.calibrate("broken", dict(scenario, duration="forever"))
    assert broken.error is not None and "forever" in broken.error


def test_progress_every_report_of_the_engine(tiny_text: str) -> None:
    import tomllib

    scenario = tomllib.loads(tiny_text)
    scenario["topology"]["bottleneck_rate"] = "1Gbps"
    calls: list[float] = []
    res = _core.run(json.dumps(scenario), progress=lambda frac, s: calls.append(s), series=False, progress_every_s=0.0)
    # One report per 2^18 steps (events and packet hops), and the final one.
    assert len(calls) == (res["engine"]["events"] + res["engine"]["packets_forwarded"]) // (1 << 18) + 1
    assert calls == sorted(calls) and calls[-1] == 3.0
    with pytest.raises(ArgumentError, match="progress_every_s: -1"):
        _core.run(json.dumps(scenario), progress_every_s=-1.0)


def test_durations_are_read_by_the_core_alone() -> None:
    """The estimate and the testbed read durations with the core's parser, so they accept what
    a scenario accepts and nothing else (the estimate's own reader once took "1h", which no
    scenario may say)."""
    from ccarena.errors import ExperimentError, TestbedError
    from ccarena.testbed import units

    assert cal.seconds("600s") == 600 and cal.seconds("2min") == 120 and cal.seconds("100ms") == 0.1
    assert units.seconds("250ms", "stop") == 0.25 and _core.duration_s("1.5us") == 1.5e-6
    for bad in ("soon", "1h", "5", "-1s"):
        with pytest.raises(ValueError, match="duration|unit"):
            _core.duration_s(bad)
        with pytest.raises(ExperimentError, match=f"duration: .*{bad}"):
            cal.seconds(bad)
        with pytest.raises(TestbedError, match=f"flows\\[0\\].stop: .*{bad}"):
            units.seconds(bad, "flows[0].stop")
