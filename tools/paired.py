"""Compares the speed of two builds on a host whose speed drifts, round after round, and prints
the median of the ratios B/A, how many rounds B won with the sign test's p-value (ties left out),
and the geometric mean of the ratios with its 95 % interval (BENCHMARKS.md, "How to run").

Three ways to run a round (each takes the commands as shell words):

- side by side (the default): A and B at the same time, one per core, the cores swapped every
  round; each command's own report gives its time: `wall: X s` (`cargo bench -p ccarena-core --
  FILE`) or the JSON of `ccarena run FILE --json` (its `engine.wall_s`);
- `--sequential`: one after the other on core 0, in alternating order, with the same reports;
- `--interleaved`: both on one core, taking turns in slices of `--slice` seconds (the other is
  stopped with SIGSTOP meanwhile), and each timed by the CPU time the kernel counted for it and
  its children. Both meet the same host, slice after slice, so a drift of the host's speed over
  seconds, which moves whole runs by ±25 % on a shared guest, cancels in the ratio: a build
  against itself stays within ±2 % a round.

    .venv/bin/python tools/paired.py --interleaved 8 "/tmp/b1-old s.toml" "/tmp/b1-new s.toml"
    .venv/bin/python tools/paired.py --sequential 20 "/tmp/b1-old s.toml" "/tmp/b1-new s.toml"
    .venv/bin/python tools/paired.py 6 "old/.venv/bin/ccarena run s.toml --json" ".venv/bin/ccarena run s.toml --json"

SciPy gives the sign test (`binomtest`) and the t quantile of the interval."""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import re
import shlex
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence

from scipy import stats


def reported_wall(cmd: str, output: str) -> float:
    """The time a command's output reports: `wall: X s`, or a run's JSON `engine.wall_s`."""
    m = re.search(r"^wall: ([0-9.]+)", output, re.MULTILINE)
    if m:
        return float(m.group(1))
    try:
        return float(json.loads(output)["engine"]["wall_s"])
    except (ValueError, KeyError, TypeError):
        sys.exit(f"paired: {cmd!r} printed neither a 'wall: X s' line nor a run's JSON with engine.wall_s (use --interleaved to time any command)")


def pinned(core: int) -> Callable[[], None]:
    return lambda: os.sched_setaffinity(0, {core})


def run_pinned(cmd: str, core: int) -> subprocess.Popen[str]:
    return subprocess.Popen(shlex.split(cmd), stdout=subprocess.PIPE, text=True, preexec_fn=pinned(core))


def side_by_side(a: str, b: str, round_no: int) -> tuple[float, float]:
    pa, pb = run_pinned(a, round_no % 2), run_pinned(b, (round_no + 1) % 2)
    out_a, out_b = pa.communicate()[0], pb.communicate()[0]
    check(a, pa.returncode)
    check(b, pb.returncode)
    return reported_wall(a, out_a), reported_wall(b, out_b)


def sequential(a: str, b: str, round_no: int) -> tuple[float, float]:
    def one(cmd: str) -> float:
        p = run_pinned(cmd, 0)
        out = p.communicate()[0]
        check(cmd, p.returncode)
        return reported_wall(cmd, out)

    if round_no % 2:
        t_a = one(a)
        return t_a, one(b)
    t_b = one(b)
    return one(a), t_b


def interleaved(a: str, b: str, round_no: int, slice_s: float, core: int = 1) -> tuple[float, float]:
    """Runs A and B on `core` in turns of `slice_s` seconds; their CPU times (with children's)."""
    a_first = round_no % 2 == 1
    order = (a, b) if a_first else (b, a)
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for cmd in order:
            # Its own process group, so that a stop reaches the children a command starts.
            p = subprocess.Popen(shlex.split(cmd), stdout=subprocess.DEVNULL, start_new_session=True, preexec_fn=pinned(core))
            procs.append(p)
            with contextlib.suppress(ProcessLookupError):  # a command may be done already
                os.killpg(p.pid, signal.SIGSTOP)
        cpu: dict[int, float] = {}
        turn = 0
        while len(cpu) < 2:
            i = turn % 2
            turn += 1
            if i in cpu:
                continue
            pid = procs[i].pid
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGCONT)
            time.sleep(slice_s)
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if done:
                procs[i].returncode = os.waitstatus_to_exitcode(status)
                check(order[i], procs[i].returncode)
                cpu[i] = usage.ru_utime + usage.ru_stime
            else:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGSTOP)
    finally:
        for p in procs:
            if p.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(p.pid, signal.SIGKILL)
                    os.killpg(p.pid, signal.SIGCONT)
                p.wait()
    return (cpu[0], cpu[1]) if a_first else (cpu[1], cpu[0])


def check(cmd: str, code: int | None) -> None:
    if code != 0:
        sys.exit(f"paired: {cmd!r} exited with {code}")


def summary(ratios: Sequence[float]) -> list[str]:
    """The median and range of the ratios, B's wins with the sign test, and the geometric mean
    with its 95 % t interval (over the logarithms of the ratios)."""
    r = sorted(ratios)
    n = len(r)
    wins, losses = sum(x < 1 for x in r), sum(x > 1 for x in r)
    p = stats.binomtest(wins, wins + losses).pvalue if wins + losses else 1.0
    lines = [f"median B/A {r[(n - 1) // 2]:.4f} over {n} rounds ({r[0]:.4f} to {r[-1]:.4f}); B faster in {wins} of {n} (sign test p = {p:.3g})"]
    if n >= 2:
        logs = [math.log(x) for x in r]
        mean, half = statistics.fmean(logs), stats.t.ppf(0.975, n - 1) * statistics.stdev(logs) / math.sqrt(n)
        lines.append(f"geometric mean B/A {math.exp(mean):.4f} (95 % interval {math.exp(mean - half):.4f} to {math.exp(mean + half):.4f})")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tools/paired.py", description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--sequential", action="store_true", help="one after the other on core 0")
    mode.add_argument("--interleaved", action="store_true", help="both on core 1 in alternating slices, timed by CPU time")
    parser.add_argument("--slice", type=float, default=0.05, metavar="SECONDS", help="an interleaved turn (default 0.05)")
    parser.add_argument("rounds", type=int)
    parser.add_argument("a", metavar="COMMAND_A")
    parser.add_argument("b", metavar="COMMAND_B")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.slice <= 0:
        parser.error(f"rounds must be at least 1 and --slice above 0 (got {args.rounds} and {args.slice})")
    if len(os.sched_getaffinity(0)) < 2:
        parser.error("needs two cores (0 and 1)")
    ratios = []
    for i in range(1, args.rounds + 1):
        if args.interleaved:
            t_a, t_b = interleaved(args.a, args.b, i, args.slice)
        elif args.sequential:
            t_a, t_b = sequential(args.a, args.b, i)
        else:
            t_a, t_b = side_by_side(args.a, args.b, i)
        ratios.append(t_b / t_a)
        print(f"A {t_a:.3f} s  B {t_b:.3f} s  B/A {t_b / t_a:.4f}", flush=True)
    print("\n".join(summary(ratios)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
