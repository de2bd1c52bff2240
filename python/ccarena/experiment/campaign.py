"""Running an experiment: plan the runs, skip the stored ones, execute the rest, store each at once.

Only this process writes to the store; workers (local processes or Dask) return plain data. So a
store is never written by two processes of one sweep, and killing the sweep loses at most the
runs in progress.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ccarena import _core
from ccarena import scenario as _scenario
from ccarena.errors import ExperimentError, ScenarioError
from ccarena.experiment.executors import open_executor, refuse_unguarded_main
from ccarena.experiment.store import Store, run_key
from ccarena.experiment.worker import METRICS_VERSION, RunOutcome

if TYPE_CHECKING:
    from ccarena.experiment.definition import Experiment
    from ccarena.experiment.result import ExperimentResult


def _store_version() -> str:
    """What, besides the scenario, decides a run's stored values: the simulator and the metrics."""
    return f"{_core.__version__}+metrics.{METRICS_VERSION}"


def plan(experiment: Experiment, backend: str = "sim") -> tuple[list[dict[str, Any]], dict[str, str], dict[str, dict[str, Any]]]:
    """Every run with its store key; the runs whose scenario the core refuses (key → error);
    and the scenario of every valid run (key → scenario). A run on a backend other than the
    simulator has a key of its own (``backend`` is part of what is hashed)."""
    from ccarena import cc as _cc

    rows, invalid, scenarios = [], {}, {}
    for spec in experiment.iter_runs():  # one run at a time: no list of every scenario besides `scenarios`
        try:
            # Python congestion controls are imported and made here, so a bad one is one failure
            # per run before any worker starts.
            factory = _cc.factory_for(spec.scenario, None, experiment.folders)
            normalised = _core.validate(_scenario.to_json(spec.scenario), factory)
            key = run_key(normalised if backend == "sim" else {**normalised, "backend": backend}, _store_version())
            scenarios[key] = spec.scenario
        except ScenarioError as exc:
            key = run_key({"invalid": spec.scenario}, _store_version())
            invalid[key] = "ScenarioError: " + "; ".join(exc.errors)
        rows.append({"key": key, "point": spec.point, "replication": spec.replication, "seed": spec.seed, "params": spec.params})
    return rows, invalid, scenarios


def run_campaigns(
    experiments: Sequence[tuple[Experiment, bool]],
    store_dir: str | Path,
    *,
    executor: str,
    jobs: int | None,
    scheduler: str | None,
    force: bool,
    progress: bool | None,
    on_outcome: Callable[[RunOutcome], None] | None = None,
    backend: str = "sim",
) -> list[ExperimentResult]:
    """Run several experiments (each with its ``series`` flag) through one store and one pool of
    workers, so that a worker done with one experiment starts on the next instead of idling
    until the slowest run of each experiment ends. A run two experiments share runs once.
    ``backend`` runs them on the simulator (``"sim"``), ns-2, ns-3 or the kernel testbed
    (:mod:`ccarena.backends`); a run a backend refuses is recorded as failed with its reason."""
    from ccarena import backends as _backends
    from ccarena import cc as _cc
    from ccarena.experiment.result import ExperimentResult

    (backend,) = _backends.names([backend]) if isinstance(backend, str) else _backends.names(backend)
    if (why := _backends.unavailable(backend)) is not None:
        raise ExperimentError(f"backend: {backend!r} cannot run here: {why}")

    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise ExperimentError(f"jobs: {jobs!r} is not a positive integer")
    if scheduler is not None and executor != "dask":
        raise ExperimentError("scheduler: a scheduler address needs executor 'dask'")
    refuse_unguarded_main(executor, scheduler)  # before the store is touched
    store = Store(store_dir)
    store.prepare()
    descriptions, bars = [], []
    todo: dict[str, tuple[dict[str, Any], bool, str, tuple[str, ...]]] = {}
    owners: dict[str, list[int]] = {}  # run key -> the experiments (progress bars) it counts for
    scenarios: dict[str, dict[str, Any]] = {}
    for index, (experiment, series) in enumerate(experiments):
        rows, invalid, valid = plan(experiment, backend)
        scenarios.update(valid)
        description = {**experiment.describe(), "runs": rows}
        if backend != "sim":
            # Stored beside the simulator's runs of the same experiment, not over them.
            description.update(name=f"{experiment.name}@{backend}", backend=backend)
        store.write_experiment(description["name"], description)
        descriptions.append(description)
        keys = list(dict.fromkeys(row["key"] for row in rows))  # a value listed twice is one run
        for row in rows:
            if row["key"] in invalid:
                store.write_failure(row["key"], {"error": invalid[row["key"]], "params": row["params"], "seed": row["seed"]})
        pending = [k for k in keys if k not in invalid and (force or not store.has(k))]
        for key in pending:
            scenario, wanted, _, _ = todo.get(key, (valid[key], False, backend, ()))
            # The folders a worker adds to its path to import the run's Python congestion controls.
            folders = tuple(_cc.module_folders(scenario, experiment.folders))
            todo[key] = (scenario, wanted or series, backend, folders)
            owners.setdefault(key, []).append(index)
        n_invalid = sum(k in invalid for k in keys)
        bars.append((description["name"], len(keys), len(keys) - len(pending), n_invalid))

    show = progress if progress is not None else sys.stderr.isatty()
    with open_executor(executor, jobs, scheduler, len(todo)) as pool, progress_bars(show, bars) as advance:

        def record(outcome: RunOutcome) -> None:
            if outcome.error is None:
                info = {
                    "key": outcome.key,
                    "version": _store_version(),
                    "backend": backend,
                    "seed": scenarios[outcome.key].get("seed"),
                    "scenario": scenarios[outcome.key],
                    "metrics": outcome.metrics,
                    "engine": outcome.engine,
                    "finished_at": time.time(),
                }
                store.write_run(outcome.key, outcome.tables, info)
            else:
                store.write_failure(outcome.key, {"error": outcome.error, "scenario": json.loads(_scenario.to_json(scenarios[outcome.key]))})
            for index in owners[outcome.key]:
                advance(index, outcome.error is not None)
            if on_outcome is not None:
                on_outcome(outcome)

        pool.run_all(todo, record)
    return [ExperimentResult.from_description(store, d) for d in descriptions]


@contextmanager
def progress_bars(show: bool, bars: Sequence[tuple[str, int, int, int]]) -> Iterator[Callable[[int, bool], None]]:
    """One rich progress bar per experiment (name, total runs, runs already done, of which failed)
    on stderr: runs done/total, failures, elapsed, ETA. Or nothing."""
    if not show:
        yield lambda index, failed_run: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("runs, {task.fields[failed]} failed"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=False) as progress:
        tasks = [progress.add_task(name, total=total, completed=done, failed=failed) for name, total, done, failed in bars]
        failures = [failed for _, _, _, failed in bars]

        def advance(index: int, failed_run: bool) -> None:
            failures[index] += int(failed_run)
            progress.update(tasks[index], advance=1, failed=failures[index])

        yield advance
