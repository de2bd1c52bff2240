"""Running an experiment: plan the runs, skip the stored ones, execute the rest, store each at once.

Only this process writes to the store; workers (local processes or Dask) return plain data. So a
store is never written by two processes of one sweep, and killing the sweep loses at most the
runs in progress.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ccarena import _core
from ccarena import scenario as _scenario
from ccarena.errors import ExperimentError, ScenarioError
from ccarena.experiment.executors import open_executor
from ccarena.experiment.store import Store, run_key
from ccarena.experiment.worker import METRICS_VERSION, RunOutcome

if TYPE_CHECKING:
    from ccarena.experiment.definition import Experiment
    from ccarena.experiment.result import ExperimentResult


def _store_version() -> str:
    """What, besides the scenario, decides a run's stored values: the simulator and the metrics."""
    return f"{_core.__version__}+metrics.{METRICS_VERSION}"


def plan(experiment: Experiment) -> tuple[list[dict[str, Any]], dict[str, str], dict[str, dict[str, Any]]]:
    """Every run with its store key; the runs whose scenario the core refuses (key → error);
    and the scenario of every valid run (key → scenario)."""
    rows, invalid, scenarios = [], {}, {}
    for spec in experiment.runs():
        try:
            normalised = _core.validate(_scenario.to_json(spec.scenario))
            key = run_key(normalised, _store_version())
            scenarios[key] = spec.scenario
        except ScenarioError as exc:
            key = run_key({"invalid": spec.scenario}, _store_version())
            invalid[key] = f"ScenarioError: {exc}"
        rows.append({"key": key, "point": spec.point, "replication": spec.replication, "seed": spec.seed, "params": spec.params})
    return rows, invalid, scenarios


def run_campaign(
    experiment: Experiment,
    store_dir: str | Path,
    *,
    executor: str,
    jobs: int | None,
    scheduler: str | None,
    force: bool,
    progress: bool | None,
    series: bool,
    on_outcome: Callable[[RunOutcome], None] | None = None,
) -> ExperimentResult:
    from ccarena.experiment.result import ExperimentResult

    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise ExperimentError(f"jobs: {jobs!r} is not a positive integer")
    if scheduler is not None and executor != "dask":
        raise ExperimentError("scheduler: a scheduler address needs executor 'dask'")
    store = Store(store_dir)
    rows, invalid, scenarios = plan(experiment)
    store.prepare()
    description = {**experiment.describe(), "runs": rows}
    store.write_experiment(experiment.name, description)

    todo: dict[str, dict[str, Any]] = {}
    seen = set()
    for row in rows:
        key = row["key"]
        if key in seen:  # the same run twice in one grid (e.g. a value listed twice)
            continue
        seen.add(key)
        if key in invalid:
            store.write_failure(key, {"error": invalid[key], "params": row["params"], "seed": row["seed"]})
        elif force or not store.has(key):
            todo[key] = scenarios[key]
    skipped = len(seen) - len(todo) - len(invalid)

    show = progress if progress is not None else sys.stderr.isatty()
    with open_executor(executor, jobs, scheduler, len(todo)) as pool, _progress_bar(show, experiment.name, total=len(seen), done=skipped + len(invalid), failed=len(invalid)) as advance:

        def record(outcome: RunOutcome) -> None:
            if outcome.error is None:
                info = {
                    "key": outcome.key,
                    "version": _store_version(),
                    "seed": scenarios[outcome.key].get("seed"),
                    "scenario": scenarios[outcome.key],
                    "metrics": outcome.metrics,
                    "engine": outcome.engine,
                    "finished_at": time.time(),
                }
                store.write_run(outcome.key, outcome.tables, info)
            else:
                store.write_failure(outcome.key, {"error": outcome.error, "scenario": json.loads(_scenario.to_json(scenarios[outcome.key]))})
            advance(outcome.error is not None)
            if on_outcome is not None:
                on_outcome(outcome)

        pool.run_all(todo, series, record)
    return ExperimentResult.from_description(store, description)


@contextmanager
def _progress_bar(show: bool, name: str, *, total: int, done: int, failed: int) -> Iterator[Callable[[bool], None]]:
    """A rich progress bar on stderr (runs done/total, failures, elapsed, ETA), or nothing."""
    if not show:
        yield lambda failed_run: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    state = {"failed": failed}
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("runs, {task.fields[failed]} failed"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=False) as bar:
        task = bar.add_task(name, total=total, completed=done, failed=failed)

        def advance(failed_run: bool) -> None:
            state["failed"] += int(failed_run)
            bar.update(task, advance=1, failed=state["failed"])

        yield advance
