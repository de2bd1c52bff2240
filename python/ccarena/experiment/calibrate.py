"""The CPU time of one run, estimated from its start: what `reproduce --dry-run` adds up.

A run is simulated from its beginning, the CPU time of its thread logged against simulated time
at every progress report of the engine (one per 262,144 steps of work: events taken from its
queue and packet hops). From a first check on (12 simulated seconds, or a twentieth of the run
if longer) the steps per simulated second of the last third of the way so far are compared with
those of the middle third: once they have stopped growing (within ``GROWTH``), the run is
stopped and the rest of it is priced at the last third's CPU time per simulated second. Steps,
unlike times, are exact: a noisy machine neither stops a calibration early nor keeps it going.

A run's start is cheaper than its steady state (flows opening their windows, background sources
starting), and at 10 Gbit/s seed 003's flows take tens of seconds to fill the pipe: its first
12 s priced a 600 s run of the 10 Gbit/s dumbbell at 132 s where it took 196 s (this estimate:
186 s, from 80 s), its cost per simulated second growing from 0.26 s over its first 50 s to
0.31 s over the next 50 (docs/reproducing.md has more such checks). A run still speeding up at
``MAX_FRACTION`` of its length is priced at its last rate and flagged: there the estimate is a
lower bound.

Runs on workers like :func:`ccarena.experiment.worker.execute` and returns a ``RunOutcome``
whose ``engine`` holds ``estimate_s`` (the whole run's CPU seconds), ``simulated_s`` (how far
the calibration ran), ``cpu_s`` (what it took) and ``growing`` (still speeding up when stopped).
"""

from __future__ import annotations

import bisect
import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from ccarena.errors import ExperimentError
from ccarena.experiment.worker import RunOutcome

#: Simulated seconds before the first check: at least ``MIN_S`` (past the start-up of seed
#: 003's runs: their flows start within 2 s) and ``MIN_FRACTION`` of the run's duration. The
#: cost per event of a 10 Gbit/s parking lot still grows by a tenth over its first 40 s, after
#: its events per second have levelled off (its memory grows from 505 to 597 MiB meanwhile):
#: stopped at 16 s it was priced 6 % low, at 32 s 2 %.
MIN_S = 12.0
MIN_FRACTION = 0.05
#: The last third may have at most this many times the middle third's steps per second.
GROWTH = 1.02
#: A calibration stops at this fraction of the run's duration at the latest.
MAX_FRACTION = 0.2


class _Enough(Exception):
    """Raised by the progress callback to stop a calibration whose rate is known."""


class _Log:
    """CPU time against simulated time at each progress report (a fixed number of steps
    apart), and the rule that ends the calibration."""

    def __init__(self, duration_s: float, clock: Callable[[], float] = time.thread_time) -> None:
        self.clock = clock
        self.start = clock()
        self.sim: list[float] = []
        self.cpu: list[float] = []
        self.first_check = min(duration_s, max(MIN_S, MIN_FRACTION * duration_s))
        self.limit = min(duration_s, max(self.first_check, MAX_FRACTION * duration_s))
        self.growing = False

    def _at(self, s: float, ys: Sequence[float]) -> float:
        """``ys`` (one value per report) at simulated second ``s``, interpolated."""
        i = min(max(bisect.bisect_left(self.sim, s), 1), len(self.sim) - 1)
        s0, s1 = self.sim[i - 1], self.sim[i]
        return ys[i - 1] if s1 <= s0 else ys[i - 1] + (ys[i] - ys[i - 1]) * (s - s0) / (s1 - s0)

    def per_second(self, ys: Sequence[float]) -> tuple[float, float]:
        """Growth of ``ys`` per simulated second over the middle and the last third so far."""
        t = self.sim[-1]
        a, b = self._at(t / 3, ys), self._at(2 * t / 3, ys)
        return (b - a) / (t / 3), (ys[-1] - b) / (t / 3)

    def __call__(self, _frac: float, sim_s: float) -> None:
        self.sim.append(sim_s)
        self.cpu.append(self.clock() - self.start)
        if sim_s < self.first_check or len(self.sim) < 4:
            return
        # Reports are a fixed number of steps apart: report `i` is the work done so far.
        middle, last = self.per_second(range(len(self.sim)))
        if last <= GROWTH * middle or sim_s >= self.limit:
            self.growing = last > GROWTH * middle
            raise _Enough


def calibrate(key: str, scenario: dict[str, Any]) -> RunOutcome:
    """Estimate the CPU time of running ``scenario`` (see the module's text)."""
    from ccarena import _core

    try:
        duration = seconds(str(scenario.get("duration", "60s")))
        log = _Log(duration)
        _core.run(json.dumps(scenario, default=str), progress=log, series=False, progress_every_s=0.0)
    except _Enough:
        done, cpu = log.sim[-1], log.cpu[-1]
        rate = log.per_second(log.cpu)[1]
        engine = {"estimate_s": cpu + rate * (duration - done), "simulated_s": done, "cpu_s": cpu, "growing": log.growing}
        return RunOutcome(key, engine=engine)
    except Exception as exc:  # noqa: BLE001 - reported as this calibration's failure
        return RunOutcome(key, error=f"{type(exc).__name__}: {exc}")
    cpu = log.clock() - log.start  # a run short enough to finish: its own cost
    return RunOutcome(key, engine={"estimate_s": cpu, "simulated_s": duration, "cpu_s": cpu, "growing": False})


def seconds(text: str) -> float:
    """A scenario duration such as ``"600s"`` or ``"2min"`` in seconds, read by the core."""
    from ccarena import _core

    try:
        return _core.duration_s(text)
    except ValueError as exc:
        raise ExperimentError(f"duration: {exc}") from None
