"""Where runs execute: a local process pool, or a ``dask.distributed`` cluster.

Both call :func:`ccarena.experiment.worker.execute` (or another task) on each run and hand
every outcome to ``on_done`` in this process as soon as it arrives, in completion order; the
store sorts nothing by arrival, so results do not depend on the executor or the number of jobs.
"""

from __future__ import annotations

import ast
import logging
import os
import signal
import sys
import threading
import time
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
                    # Every worker is forked by this thread, which also closes the pool: the
                    # parent-death signal the workers ask for (_worker_signals) is tied to it.
                    self.pool = ProcessPoolExecutor(
                        max_workers=jobs,
                        mp_context=multiprocessing.get_context(method),
                        initializer=_worker_signals,
                        initargs=(os.getpid(),),
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


def _worker_signals(parent: int) -> None:
    """Workers leave Ctrl-C to the sweep process (which stops them) and die at once on SIGTERM,
    whatever handlers they inherited from it, and when the sweep process ``parent`` dies."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent(parent)


#: prctl(2) option: the signal the calling process gets when the thread that forked it exits.
_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> None:
    """End this worker when the process ``parent`` is gone (SIGKILLed, say), instead of letting
    it finish its run for a sweep that will never store it and wait forever for the next one.

    On Linux the kernel kills it at once (``PR_SET_PDEATHSIG``); that signal follows the forking
    *thread*, which is safe here because the thread that forks the workers keeps the pool until it
    closes it. A thread polling ``os.getppid()`` covers every other system, and a parent that died
    before the request was made."""
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # no prctl in this libc: the watch below does it
            pass
    if os.getppid() != parent:
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), name="ccarena-parent-watch", daemon=True).start()


def _watch_parent(parent: int, interval_s: float = 1.0) -> None:
    while os.getppid() == parent:  # an orphan is adopted by init or a subreaper: another pid
        time.sleep(interval_s)
    os._exit(1)


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
            raise ExperimentError("executor dask needs the dask extra: pip install 'ccarena[dask]'") from None
        self.cluster: Any = None
        self.client: Any = None
        self._config: Any = None
        if scheduler is not None:
            try:
                self.client = Client(scheduler, timeout="10s")
            except (OSError, TimeoutError) as exc:
                raise ExperimentError(f"executor dask: cannot reach the scheduler {scheduler!r} ({exc})") from None
            return
        refuse_unguarded_main("dask", None)
        import dask

        try:
            # A stop during the start is held until the cluster is up, then closes it whole: one
            # cut short tears it down half-started, in tracebacks from it and its workers.
            with _stop_signals_held():
                # Kept for the cluster's life: a worker the nanny restarts is started the same way.
                self._config = dask.config.set({"distributed.worker.multiprocessing-method": _worker_start_method()})
                try:
                    self.cluster = LocalCluster(
                        n_workers=jobs or default_jobs(), threads_per_worker=1, processes=True, dashboard_address=None
                    )
                except Exception as exc:  # a worker that did not start: one line, not distributed's log
                    hint = f"; {_GUARD_ADVICE}" if _main_rerun_by_spawn() else ""
                    raise ExperimentError(f"executor dask: the local cluster did not start ({_first_line(exc)}){hint}") from None
                self.client = Client(self.cluster)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Close the client, then the cluster started here, if any. Their workers, heartbeats and
        comms then see each other go away in some order and log it (CommClosedError tracebacks):
        expected at this point, so those logs are silenced for the shutdown alone."""
        client, cluster, self.client, self.cluster = self.client, self.cluster, None, None
        if cluster is not None and client is not None:
            try:
                client.run(_silence_logs_for_shutdown, on_error="ignore")
            except Exception:  # a worker already gone: nothing of it left to silence
                pass
        with _distributed_logs_silenced():
            if client is not None:
                client.close()
            if cluster is not None:
                cluster.close()
        config, self._config = self._config, None
        if config is not None:
            config.__exit__(None, None, None)

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


def _worker_start_method() -> str:
    """How our ``LocalCluster`` starts its workers: from a fork server that ignores Ctrl-C where
    there is one (Linux, macOS), else dask's setting.

    A Ctrl-C at the terminal reaches every process of the foreground group, workers included; a
    worker that takes it prints KeyboardInterrupt tracebacks, dozens of lines, while the sweep
    process stops it anyway. A process started with SIGINT ignored keeps it ignored (Python
    installs its handler only over the default), and children of multiprocessing's fork server
    get the dispositions the server started with: so the server is started while SIGINT is
    ignored, and every worker, a restarted one too, ignores Ctrl-C from its first instruction."""
    import multiprocessing
    import multiprocessing.forkserver

    import dask

    if "forkserver" not in multiprocessing.get_all_start_methods():
        return str(dask.config.get("distributed.worker.multiprocessing-method"))
    with dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"}):
        from distributed.utils import get_mp_context

        get_mp_context()  # hands the server distributed's modules to preload; before it starts
    if threading.current_thread() is threading.main_thread():
        # Ignored for the fork and exec of the server (about a millisecond), not the whole start.
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            multiprocessing.forkserver.ensure_running()
        finally:
            signal.signal(signal.SIGINT, previous)
    return "forkserver"


def _silence_logs_for_shutdown() -> None:
    """Run on each Dask worker of our own cluster when the sweep is done with it: a worker about
    to be closed logs nothing more (its heartbeat may meet a closed comm: an expected error)."""
    logging.disable(logging.CRITICAL)


@contextmanager
def _distributed_logs_silenced() -> Iterator[None]:
    """Drop the records of distributed's (and tornado's) loggers in this process for the block."""
    names = {n for n in list(logging.root.manager.loggerDict) if n.split(".")[0] in ("distributed", "tornado")}
    loggers = [logging.getLogger(n) for n in sorted(names | {"distributed", "tornado"})]

    def drop(record: logging.LogRecord) -> bool:
        return False

    for lg in loggers:
        lg.addFilter(drop)
    try:
        yield
    finally:
        for lg in loggers:
            lg.removeFilter(drop)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__


# --- scripts without an entry-point guard -------------------------------------------------------

_GUARD_ADVICE = (
    'a script that starts worker processes must run the experiment under `if __name__ == "__main__":` '
    "(the workers import the script again)"
)


def refuse_unguarded_main(executor: str, scheduler: str | None) -> None:
    """Refuse, in one line and before anything starts, a campaign run from a script's unguarded
    top level when its workers would import the script again and so run the campaign a second
    time: Dask's local cluster starts them by spawn (or forkserver), which runs the main module's
    top level. Each would start a cluster of its own, fail in multiprocessing's bootstrapping
    check, and the sweep would end in pages of tracebacks and "Nanny failed to start"."""
    if _bootstrapping_child():
        # We are such a worker, importing the parent's unguarded script (a call the check below
        # could not see): leave quietly, so that the parent alone reports it, in one line.
        raise SystemExit(1)
    if executor != "dask" or scheduler is not None:
        return
    import multiprocessing

    try:
        import dask
        import distributed  # noqa: F401 - loads distributed's defaults into dask.config
    except ImportError:  # the executor says so itself
        return
    if dask.config.get("distributed.worker.multiprocessing-method", default="spawn") == "fork" and (
        "forkserver" not in multiprocessing.get_all_start_methods()
    ):
        return  # the one case where the workers would not run the script again (_worker_start_method)
    frame = _main_module_frame()
    if frame is not None and _main_rerun_by_spawn() and not _inside_main_guard(frame.f_code.co_filename, frame.f_lineno):
        raise ExperimentError(f"executor dask: {_GUARD_ADVICE}")


def _bootstrapping_child() -> bool:
    """True in a process that multiprocessing is starting, while it imports the parent's main module."""
    import multiprocessing.process

    return bool(getattr(multiprocessing.process.current_process(), "_inheriting", False))


def _main_rerun_by_spawn() -> bool:
    """Whether a spawned process runs ``__main__``'s top level again, as multiprocessing decides:
    a module run with ``-m`` unless it is a package's ``__main__``, or a script file."""
    main = sys.modules.get("__main__")
    name = getattr(getattr(main, "__spec__", None), "name", None)
    if name is not None:
        return not (name == "__main__" or name.endswith(".__main__"))
    path = getattr(main, "__file__", None)
    return bool(path) and os.path.splitext(os.path.basename(str(path)))[0] != "ipython"


def _main_module_frame() -> Any:
    """The frame running ``__main__``'s top-level code, if this call comes from there."""
    main = sys.modules.get("__main__")
    frame = sys._getframe(1)
    while frame is not None:
        if main is not None and frame.f_globals is vars(main) and frame.f_code.co_name == "<module>":
            return frame
        frame = frame.f_back  # type: ignore[assignment]
    return None


def _inside_main_guard(filename: str, line: int) -> bool:
    """Whether ``line`` of the file ``filename`` is in the body of an ``if __name__ == "__main__":``
    (either way round, possibly within a larger condition). A file that cannot be read or parsed
    counts as guarded: no false alarm."""
    try:
        with open(filename, encoding="utf-8") as f:
            tree = ast.parse(f.read(), filename)
    except (OSError, SyntaxError, ValueError):
        return True

    def is_main_test(node: ast.expr) -> bool:
        for cmp in ast.walk(node):
            if isinstance(cmp, ast.Compare) and len(cmp.ops) == 1 and isinstance(cmp.ops[0], ast.Eq):
                sides = {_name_or_text(cmp.left), _name_or_text(cmp.comparators[0])}
                if sides == {"name:__name__", "text:__main__"}:
                    return True
        return False

    for node in ast.walk(tree):
        if isinstance(node, ast.If) and is_main_test(node.test):
            if any(stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno) for stmt in node.body):
                return True
    return False


def _name_or_text(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return f"name:{node.id}"
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return f"text:{node.value}"
    return None
