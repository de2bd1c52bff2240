"""What a reproduction would cost, without running it: `ccarena reproduce --dry-run`.

Each grid point is priced once, at the CPU time of its first run, times its runs; a run two
experiments share is counted once, with the first (a reproduction runs it once). A point's
price comes from its calibration (:mod:`ccarena.experiment.calibrate`: its start simulated
until its work per simulated second is steady, within a few percent of the whole run) where one
is cached for this build, else from the cost model (:mod:`ccarena.experiment.cost_model`: its
packet hops predicted from the scenario, priced per hop by one reference run per build), which
takes milliseconds a point and reads within about a factor of two of the calibration.
``calibrate=True`` calibrates every point anew (minutes to hours, ``jobs`` at a time) and caches
what it measures (:mod:`ccarena.experiment.calibration_cache`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ccarena.errors import ExperimentError
from ccarena.experiment import calibration_cache
from ccarena.papers.reproduce import each_run

if TYPE_CHECKING:
    from ccarena.experiment.definition import RunSpec
    from ccarena.papers.model import Paper, Scale

#: A calibration as the cache keeps it: its estimate of the run's CPU seconds and whether the
#: run was still speeding up when the calibration stopped (then the estimate is a lower bound).
CALIBRATION = {"estimate_s": float, "growing": bool}


@dataclass(frozen=True)
class Price:
    """One experiment's price: its runs (those not counted with an earlier experiment), their
    estimated CPU seconds, its grid points, how many of them were priced from a calibration
    (the rest by the cost model) and how many of those were still speeding up when calibrated."""

    experiment: str
    runs: int
    cpu_s: float
    points: int
    calibrated: int
    growing: int


def dry_run(paper: Paper, scale: Scale, *, jobs: int | None = None, progress: bool = False, calibrate: bool = False) -> list[Price]:
    """Per experiment of ``paper`` at ``scale``, its price (module text)."""
    from ccarena.experiment.cost_model import estimate_s

    experiments = paper.experiments(scale)
    first: dict[tuple[str, int], RunSpec] = {}  # (experiment, point) -> its first run
    new_runs: dict[tuple[str, int], int] = {}  # (experiment, point) -> its runs not counted before
    for name, spec, new in each_run(experiments):
        first.setdefault((name, spec.point), spec)
        if new:
            new_runs[name, spec.point] = new_runs.get((name, spec.point), 0) + 1
    found: dict[tuple[str, int], dict[str, Any]] = {}
    if calibrate:
        found = _calibrate({point: first[point].scenario for point in new_runs}, jobs, progress)
    else:
        for point in new_runs:
            entry = calibration_cache.load("calibrations", calibration_cache.scenario_key(first[point].scenario), CALIBRATION)
            if entry is not None:
                found[point] = entry
    prices = []
    for name in experiments:
        points = [point for point in new_runs if point[0] == name]
        entries = [found.get(point) for point in points]
        cpu = sum(
            (float(entry["estimate_s"]) if entry is not None else estimate_s(first[point].scenario)) * new_runs[point]
            for point, entry in zip(points, entries, strict=True)
        )
        prices.append(Price(
            name, runs=sum(new_runs[point] for point in points), cpu_s=cpu, points=len(points),
            calibrated=sum(entry is not None for entry in entries),
            growing=sum(bool(entry is not None and entry["growing"]) for entry in entries),
        ))
    return prices


def _calibrate(
    scenarios: dict[tuple[str, int], dict[str, Any]], jobs: int | None, progress: bool
) -> dict[tuple[str, int], dict[str, Any]]:
    """Every point's calibration, ``jobs`` at a time, each cached as it comes."""
    from ccarena.experiment.calibrate import calibrate
    from ccarena.experiment.campaign import progress_bars
    from ccarena.experiment.executors import open_executor
    from ccarena.experiment.worker import RunOutcome

    keys = {f"{name}/{point}": (name, point) for name, point in scenarios}
    found: dict[tuple[str, int], dict[str, Any]] = {}
    bars = [("calibration", len(keys), 0, 0)]
    with open_executor("local", jobs, None, len(keys)) as pool, progress_bars(progress, bars) as advance:

        def add(outcome: RunOutcome) -> None:
            if outcome.error is not None:
                raise ExperimentError(f"{outcome.key}: calibration run failed: {outcome.error}")
            point = keys[outcome.key]
            found[point] = outcome.engine
            calibration_cache.store("calibrations", calibration_cache.scenario_key(scenarios[point]), outcome.engine)
            advance(0, False)

        pool.run_all({key: (scenarios[point],) for key, point in keys.items()}, add, task=calibrate)
    return found
