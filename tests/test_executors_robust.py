"""Executors and the command line under stress: shutdown, Ctrl-C, a killed parent, scripts
without an entry-point guard, and grids too big to expand."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from ccarena import Experiment, ExperimentError
from ccarena.experiment.definition import MAX_RUNS

ROOT = Path(__file__).resolve().parents[1]
RENO_PAIR = ROOT / "scenarios" / "reno-pair.toml"
CCARENA = [sys.executable, "-m", "ccarena"]  # the entry point the console script runs (ccarena.__main__)


def experiment_file(tmp_path: Path, name: str, *, replications: int, duration: str, ccs: tuple[str, ...] = ("reno", "cubic")) -> Path:
    path = tmp_path / f"{name}.toml"
    values = ", ".join(f'"{cc}"' for cc in ccs)
    path.write_text(
        f'[experiment]\nname = "{name}"\nbase = "{RENO_PAIR}"\nreplications = {replications}\n'
        f'set = ["duration={duration}", "warmup=1s", "topology.bottleneck_rate=100Mbps"]\n'
        f'[experiment.grid]\n"flows[0].cc" = [{values}]\n'
    )
    return path


def wait_for(condition: Any, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


# --- Dask: a quiet shutdown and a quiet Ctrl-C ----------------------------------------------------


def test_a_dask_sweep_ends_without_tracebacks(tmp_path: Path) -> None:
    """Closing the client, then the cluster, used to let a worker's heartbeat meet the closed
    scheduler now and then (about one sweep in six): a CommClosedError traceback after the table."""
    exp = experiment_file(tmp_path, "two", replications=2, duration="2s")
    for attempt in range(2):
        out = subprocess.run(
            [*CCARENA, "sweep", str(exp), "-o", str(tmp_path / f"s{attempt}"), "--executor", "dask", "--jobs", "2", "--no-progress"],
            capture_output=True, text=True, timeout=180,
        )
        assert out.returncode == 0, out.stderr
        assert "Traceback" not in out.stderr and "CommClosedError" not in out.stderr, out.stderr
        assert out.stderr.splitlines() == [f"Experiment('two': flows[0].cc×2; 2 replications, 4 runs); store {tmp_path / f's{attempt}'}"]
        assert len(out.stdout.splitlines()) == 2 + 2


@pytest.mark.parametrize("after_s", [0.3, 2.5], ids=["while-starting", "while-simulating"])
def test_ctrl_c_stops_a_dask_sweep_with_one_line(tmp_path: Path, after_s: float) -> None:
    """A Ctrl-C at the terminal reaches the whole foreground process group, workers included."""
    exp = experiment_file(tmp_path, "long", replications=4, duration="900s", ccs=("reno",))
    store = tmp_path / "store"
    proc = subprocess.Popen(
        [*CCARENA, "sweep", str(exp), "-o", str(store), "--executor", "dask", "--jobs", "2", "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    try:
        wait_for(lambda: (store / "experiments" / "long.json").is_file(), 60, "the sweep to plan its runs")
        time.sleep(after_s)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "Traceback" not in err, err
    lines = err.splitlines()
    assert lines[-1] == "error: interrupted (finished sweep runs are kept in the store)" and len(lines) == 2, err


# --- scripts that start a local cluster without `if __name__ == "__main__":` ---------------------


@pytest.mark.parametrize("hidden", [False, True], ids=["at-top-level", "through-exec"])
def test_a_script_without_a_main_guard_gets_one_clear_error(tmp_path: Path, hidden: bool) -> None:
    """Dask's workers import the script again; unguarded, each would start a cluster of its own.
    Seen at its top level the call is refused before anything starts; hidden from that check
    (exec'd code), the workers leave quietly and the parent names the guard all the same."""
    body = textwrap.dedent(f"""\
        import ccarena
        exp = ccarena.Experiment({str(RENO_PAIR)!r}, grid={{"flows[0].cc": ["reno", "cubic"]}}, overrides=["duration=2s", "warmup=1s"])
        exp.run(store={str(tmp_path / "store")!r}, executor="dask", jobs=2)
        print("finished")
        """)
    script = tmp_path / "sweep_script.py"
    if hidden:
        (tmp_path / "body.txt").write_text(body)
        script.write_text(f"exec(open({str(tmp_path / 'body.txt')!r}).read())\n")
    else:
        script.write_text(body)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 1 and "finished" not in out.stdout
    last = out.stderr.splitlines()[-1]
    assert last.startswith("ccarena.errors.ExperimentError: executor dask: ") and 'if __name__ == "__main__":' in last, out.stderr
    # the script's own uncaught exception is the only traceback: none from the workers or the nanny
    assert out.stderr.count("Traceback") == 1 and "Nanny failed to start" not in out.stderr.replace(last, ""), out.stderr
    assert "bootstrapping phase" not in out.stderr


# --- local pool workers die with their parent -----------------------------------------------------


def test_local_workers_die_when_the_sweep_is_sigkilled(tmp_path: Path) -> None:
    exp = experiment_file(tmp_path, "slow", replications=4, duration="900s", ccs=("reno",))
    proc = subprocess.Popen(
        [*CCARENA, "sweep", str(exp), "-o", str(tmp_path / "store"), "--jobs", "2", "--no-progress"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    try:
        parent = psutil.Process(proc.pid)
        wait_for(lambda: len(parent.children()) >= 2, 60, "two pool workers")
        workers = parent.children(recursive=True)
        time.sleep(0.5)  # into their runs
        proc.kill()
        proc.wait()
        killed = time.monotonic()

        def alive() -> list[int]:
            out = []
            for w in workers:
                try:
                    if w.status() != psutil.STATUS_ZOMBIE:
                        out.append(w.pid)
                except psutil.NoSuchProcess:
                    pass
            return out

        while alive() and time.monotonic() - killed < 5:
            time.sleep(0.02)
        assert alive() == [], "pool workers outlived the SIGKILLed sweep"
    finally:  # whatever is left of the sweep's own session, if the test failed
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_the_parent_watch_ends_an_orphaned_worker() -> None:
    """The fallback where PR_SET_PDEATHSIG is not available: a worker whose parent pid is no
    longer the sweep's exits by itself."""
    code = "import os; from ccarena.experiment.executors import _watch_parent; _watch_parent(os.getppid() + 1_000_000, 0.01)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert out.returncode == 1 and out.stderr == ""


# --- Ctrl-C while the command line starts ---------------------------------------------------------


def _sigint_blocked() -> None:
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


def _interrupts_unblocked(pid: int) -> bool:
    """Whether the process has reached ``ccarena.__main__.main``, which unblocks SIGINT."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True  # already gone
    blocked = int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigBlk:")), 16)
    return not blocked & (1 << (signal.SIGINT - 1))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the signal mask from /proc")
@pytest.mark.parametrize("delay_ms", [0, 5, 10, 20, 30, 45, 60, 80])
def test_ctrl_c_while_the_command_line_starts_is_one_line_and_130(tmp_path: Path, delay_ms: int) -> None:
    """From ``ccarena.__main__.main`` on (the restart on huge pages, the second interpreter's
    start and imports, click's) a Ctrl-C ends the command with one line and status 130. The
    process starts with SIGINT blocked, as if a Ctrl-C had come during the interpreter's own
    start, and is sent it ``delay_ms`` after main has run."""
    exp = experiment_file(tmp_path, "early", replications=1, duration="4s", ccs=("reno",))
    proc = subprocess.Popen(
        [*CCARENA, "sweep", str(exp), "-o", str(tmp_path / "store"), "--jobs", "1", "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_sigint_blocked,
    )
    wait_for(lambda: _interrupts_unblocked(proc.pid), 30, "the entry point")
    time.sleep(delay_ms / 1000)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    # 130, or death by SIGINT after the line is written (what Python does when the interrupt
    # lands in its own shutdown, rarely, under load): a shell reports both as status 130.
    assert proc.returncode in (130, -signal.SIGINT), err
    assert "Traceback" not in err, err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith("error: interrupted"), err
    assert err.splitlines()[-1] == errors[0]


def test_a_ctrl_c_pending_at_start_is_handled_by_the_entry_point(tmp_path: Path) -> None:
    """A Ctrl-C that came before the entry point ran (held pending here by a blocked mask, as
    across the restart on huge pages) is delivered when it unblocks it: one line, 130."""
    exp = experiment_file(tmp_path, "pending", replications=1, duration="4s", ccs=("reno",))

    def blocked_and_pending() -> None:
        _sigint_blocked()
        os.kill(os.getpid(), signal.SIGINT)

    out = subprocess.run(
        [*CCARENA, "sweep", str(exp), "-o", str(tmp_path / "store"), "--no-progress"],
        capture_output=True, text=True, timeout=60, preexec_fn=blocked_and_pending,
    )
    assert (out.returncode, out.stderr) == (130, "error: interrupted\n")
    assert not (tmp_path / "store").exists()


# --- grids too big to expand ----------------------------------------------------------------------


def values(n: int, unit: str = "s") -> list[str]:
    return [f"{i}{unit}" for i in range(1, n + 1)]


def never_expanded(self: Experiment) -> Any:
    raise AssertionError("the grid was expanded")


def test_an_absurd_grid_is_refused_at_once_with_its_size_and_axes(monkeypatch: pytest.MonkeyPatch) -> None:
    # Refused from the axes' lengths alone: expanding the points would fail this test.
    monkeypatch.setattr(Experiment, "iter_points", never_expanded)
    with pytest.raises(ExperimentError) as err:
        Experiment(RENO_PAIR, grid={"duration": values(10_000), "warmup": values(100, "ms"), "flows[0].start": values(100, "ms")})
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith("grid: 100000000 points × 1 replications = 100000000 runs")
    assert "duration×10000, warmup×100, flows[0].start×100" in message and f"at most {MAX_RUNS} runs" in message


def test_the_limit_counts_replications_and_zip_groups() -> None:
    zipped = [{"warmup": values(300, "ms"), "flows[0].start": values(300, "ms")}]
    with pytest.raises(ExperimentError, match=r"9000000 points × 1 replications .*zip\(warmup, flows\[0\].start\)×300"):
        Experiment(RENO_PAIR, grid={"duration": values(30_000)}, zip=zipped)
    with pytest.raises(ExperimentError, match="10000 points × 101 replications = 1010000 runs"):
        Experiment(RENO_PAIR, grid={"duration": values(10_000)}, replications=101)
    at_limit = Experiment(RENO_PAIR, grid={"duration": values(10_000)}, replications=100)
    assert len(at_limit) == MAX_RUNS


def test_len_and_repr_of_a_large_grid_do_not_expand_it(monkeypatch: pytest.MonkeyPatch) -> None:
    exp = Experiment(RENO_PAIR, grid={"duration": values(1000), "warmup": values(100, "ms")}, name="big")
    with monkeypatch.context() as m:
        m.setattr(Experiment, "iter_points", never_expanded)
        text, n = repr(exp), len(exp)
        assert n == exp.n_points == 100_000 and exp.describe()["points"] == 100_000
    assert text == "Experiment('big': duration×1000, warmup×100; 1 replication, 100000 runs)"
    first = next(exp.iter_runs())
    assert (first.point, first.params) == (0, {"duration": "1s", "warmup": "1ms"})


def old_points(exp: Experiment) -> list[dict[str, Any]]:
    """The expansion the grid had before it became lazy, verbatim."""
    axes: list[list[dict[str, Any]]] = [[{k: v} for v in vs] for k, vs in exp.grid.items()]
    for group in exp.zip:
        n = len(next(iter(group.values())))
        axes.append([{k: vs[i] for k, vs in group.items()} for i in range(n)])
    out = []
    for combo in itertools.product(*axes):
        point: dict[str, Any] = {}
        for part in combo:
            point.update(part)
        out.append(point)
    return out


def test_the_lazy_grid_keeps_the_order_of_points_and_runs() -> None:
    exp = Experiment(
        RENO_PAIR,
        grid={"flows[0].cc": ["reno", "cubic", "bbr"], "topology.bottleneck_rate": ["5Mbps", "20Mbps"]},
        zip=[{"flows[0].rtt": ["20ms", "80ms"], "topology.queue.limit": ["20pkt", "80pkt"]}, {"duration": ["3s", "4s", "5s"]}],
        replications=2,
    )
    expected = old_points(exp)
    assert len(expected) == exp.n_points == 36
    assert exp.points() == list(exp.iter_points()) == expected
    assert [list(p) for p in exp.points()] == [list(p) for p in expected]  # key order too
    runs = exp.runs()
    assert len(runs) == len(exp) == 72
    assert [(r.point, r.replication, r.seed, r.params) for r in runs] == [
        (i, r, 1 + r, p) for i, p in enumerate(expected) for r in range(2)
    ]
    assert runs[5].scenario["flows"][0]["cc"] == "reno" and runs[5].scenario["seed"] == 2
