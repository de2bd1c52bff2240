"""Where runs execute: a local process pool, or a ``dask.distributed`` cluster.

Both call :func:`ccarena.experiment.worker.execute` (or another task) on each run and hand
every outcome to ``on_done`` in this process as soon as it arrives, in completion order; the
store sorts nothing by arrival, so results do not depend on the executor or the number of jobs.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from ccarena.errors import ExperimentError
from ccarena.experiment.worker import RunOutcome, execute

#: What a worker calls for one run: ``task(key, *args) -> RunOutcome``, a module-level function
#: (pickled by name): :func:`execute` for a campaign, ``calibrate`` for an estimate.
Task = Callable[..., RunOutcome]


def default_jobs() -> int:
    """The number of cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class Executor:
    """Runs calls of :func:`~ccarena.experiment.worker.execute`; a context manager that owns its
    workers. Workers are started on entry, before a progress bar starts its drawing thread."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the workers."""

    def run_all(self, runs: Mapping[str, tuple[Any, ...]], on_done: Callable[[RunOutcome], None], task: Task = execute) -> None:
        """Call ``task(key, *args)`` for every run (key → args; :func:`execute`'s are the scenario
        and whether to keep its time series) and ``on_done`` with each outcome."""
        raise NotImplementedError


def open_executor(executor: str, jobs: int | None, scheduler: str | None, n_runs: int) -> Executor:
    """The executor named ``executor`` (``local`` or ``dask``) sized for ``n_runs`` runs."""
    if executor == "local":
        return LocalExecutor(min(jobs or default_jobs(), max(n_runs, 1)))
    if executor == "dask":
        return DaskExecutor(jobs, scheduler)
    raise ExperimentError(f"executor: {executor!r} is not one of local, dask")


class LocalExecutor(Executor):
    """A pool of ``jobs`` worker processes on this machine (in-process when ``jobs`` is 1)."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.pool: Any = None
        if jobs > 1:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            # fork (on Linux) needs no `if __name__ == "__main__":` guard in user scripts; every
            # worker is forked here, before any thread of ours (the progress bar) exists.
            method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
            try:
                with _stop_signals_held():
                    self.pool = ProcessPoolExecutor(
                        max_workers=jobs, mp_context=multiprocessing.get_context(method), initializer=_worker_signals
                    )
                    for fut in [self.pool.submit(os.getpid) for _ in range(jobs)]:
                        fut.result()
            except BaseException:  # a stop that came while forking: the workers are idle
                self.close()
                raise

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True)
            self.pool = None

    def run_all(self, runs: Mapping[str, tuple[Any, ...]], on_done: Callable[[RunOutcome], None], task: Task = execute) -> None:
        if self.pool is None:
            for key, args in runs.items():
                on_done(task(key, *args))
            return
        from concurrent.futures import FIRST_COMPLETED, Future, wait

        pool = self.pool
        workers = list(getattr(pool, "_processes", {}).values())
        items = iter(runs.items())
        pending: dict[Future[RunOutcome], str] = {}

        def submit_next() -> None:
            for key, args in items:
                pending[pool.submit(task, key, *args)] = key
                return

        try:
            # At most two runs per worker queued, so an interrupted sweep has little in flight.
            for _ in range(2 * self.jobs):
                submit_next()
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in finished:
                    key = pending.pop(fut)
                    on_done(_outcome(fut, key))
                    submit_next()
        except BaseException:
            # Stop the runs in progress now, not when they finish, then wait for the pool's manager
            # thread to see its workers gone. Python 3.11's shutdown(wait=False) would leave that
            # thread closing its wake-up pipe while the exiting interpreter writes to it (EBADF).
            for fut in pending:
                fut.cancel()
            for proc in workers:
                proc.terminate()
            pool.shutdown(wait=True)
            self.pool = None
            raise


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def _stop_signals_held() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM while workers are forked; a stop that arrived is delivered on exit
    from the block.

    Python runs a signal's handler in the main thread at its next bytecode, whichever thread the
    signal reached, which during a fork may be inside an at-fork hook that swallows the exception
    (the stop is lost), or between forking the workers and starting the pool's manager thread
    (the workers, never told to stop, outlive the sweep). A signal mask would not do: it applies to
    the calling thread only, and libraries may have started threads of their own."""
    if threading.current_thread() is not threading.main_thread():  # handlers are main-thread only
        yield
        return
    arrived: list[int] = []
    previous = {sig: signal.signal(sig, lambda signum, frame: arrived.append(signum)) for sig in _STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if arrived:
            signal.raise_signal(arrived[0])


def _worker_signals() -> None:
    """Workers leave Ctrl-C to the sweep process (which stops them) and die at once on SIGTERM,
    whatever handlers they inherited from it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _outcome(fut: Any, key: str) -> RunOutcome:
    """A future's outcome; a worker that died (killed, out of memory) fails only its run."""
    exc = fut.exception()
    if exc is not None:
        return RunOutcome(key, error=f"worker failed: {type(exc).__name__}: {exc}")
    outcome: RunOutcome = fut.result()
    return outcome


class DaskExecutor(Executor):
    """A ``dask.distributed`` client: of the scheduler at ``scheduler`` (``tcp://host:8786``), or
    of a ``LocalCluster`` of ``jobs`` single-threaded worker processes started here."""

    def __init__(self, jobs: int | None, scheduler: str | None) -> None:
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise ExperimentError("executor dask: install dask.distributed (pip install 'dask[distributed]')") from None
        self.cluster: Any = None
        try:
            if scheduler is None:
                self.cluster = LocalCluster(
                    n_workers=jobs or default_jobs(), threads_per_worker=1, processes=True, dashboard_address=None
                )
                self.client = Client(self.cluster)
            else:
                self.client = Client(scheduler, timeout="10s")
        except (OSError, TimeoutError) as exc:
            if self.cluster is not None:
                self.cluster.close()
            raise ExperimentError(f"executor dask: cannot reach the scheduler {scheduler!r} ({exc})") from None

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()

    def run_all(self, runs: Mapping[str, tuple[Any, ...]], on_done: Callable[[RunOutcome], None], task: Task = execute) -> None:
        from dask.distributed import as_completed

        keys = list(runs)
        columns = list(zip(*(runs[k] for k in keys)))  # one list per argument
        kind = "run" if task is execute else task.__name__
        futures = self.client.map(task, keys, *columns, key=[f"ccarena-{kind}-{k}" for k in keys])
        by_future = dict(zip(futures, keys))
        try:
            for fut in as_completed(futures):
                on_done(_outcome(fut, by_future[fut]))
        except BaseException:
            self.client.cancel(futures)
            raise
