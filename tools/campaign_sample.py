"""Times the engine on a sample of seed 003's full campaign: every 29th of its distinct runs,
from the 15th (so not the runs the profile-guided build trains on, `tools/pgo_train.py`), each
shortened to 10 simulated seconds, and prints the engine's wall time after a 4 s warm-up,
summed over the sample: the steady part, which a 600 s run repeats, without the start-up it
pays once. The sample keeps the campaign's proportions (21 runs: 13 on the dumbbell,
8 on the parking lot, loads 0.2 to 0.8, 155 Mbit/s to 5 Gbit/s), so the sum moves as the
campaign's cost does.

    .venv/bin/python tools/campaign_sample.py
    .venv/bin/python tools/campaign_sample.py --compare /tmp/a /tmp/b --rounds 2

`--compare A B` weighs two builds (each directory a copy of `python/` holding that build's
extension): every run of the sample runs with A and with B one right after the other, in a
child process on core 1, the order alternating, so that the host's drift over minutes falls on
both alike; it prints each run's ratio B/A and, per round and in all, the ratio of the sums.
`--seconds`, `--warmup` and `--runs` shorten the sample (the tests run two runs of 1.5 s)."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pgo_train import campaign_sample

#: The first run of the sample: the training's sample starts at the campaign's first.
FIRST = 14
#: The core `--compare` runs on (core 0 is left to the rest of the machine).
CORE = 1


def timed(scenario: dict[str, Any]) -> tuple[float, int]:
    """The engine's wall time after the warm-up of one run, and its events."""
    from ccarena import _core

    engine = _core.run(json.dumps(scenario, default=str), series=False)["engine"]
    return engine["wall_s"] - engine["warmup_wall_s"], engine["events"]


def run_one_in(build: Path, args: argparse.Namespace, run: int) -> float:
    """Run `run` of the sample with the package in `build`, in a child process on `CORE`."""
    cmd = [sys.executable, __file__, "--seconds", str(args.seconds), "--warmup", str(args.warmup), "--only", str(run)]
    env = dict(os.environ, PYTHONPATH=str(build))
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, preexec_fn=lambda: os.sched_setaffinity(0, {CORE}))
    m = re.search(r"^wall: ([0-9.]+) s", done.stdout, re.MULTILINE)
    if done.returncode != 0 or m is None:
        sys.exit(f"campaign_sample: run {run} with {build} failed: {done.stderr.strip().splitlines()[-1:]}")
    return float(m.group(1))


def compare(a: Path, b: Path, args: argparse.Namespace, runs: int) -> None:
    sums = [0.0, 0.0]
    for r in range(args.rounds):
        round_sums = [0.0, 0.0]
        for i in range(runs):
            if (i + r) % 2 == 1:  # the order alternates, run by run and round by round
                t_b = run_one_in(b, args, i)
                t_a = run_one_in(a, args, i)
            else:
                t_a = run_one_in(a, args, i)
                t_b = run_one_in(b, args, i)
            round_sums[0] += t_a
            round_sums[1] += t_b
            print(f"round {r + 1} run {i:2d}: A {t_a:.3f} s  B {t_b:.3f} s  B/A {t_b / t_a:.3f}", file=sys.stderr)
        print(f"round {r + 1}: A {round_sums[0]:.3f} s  B {round_sums[1]:.3f} s  B/A {round_sums[1] / round_sums[0]:.4f}")
        sums = [sums[0] + round_sums[0], sums[1] + round_sums[1]]
    print(f"all rounds: A {sums[0]:.3f} s  B {sums[1]:.3f} s  B/A {sums[1] / sums[0]:.4f}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tools/campaign_sample.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="simulated seconds of each run (default 10)")
    parser.add_argument("--warmup", type=float, default=4.0, help="seconds not timed at each run's start (default 4)")
    parser.add_argument("--runs", type=int, default=None, help="only the sample's first RUNS runs")
    parser.add_argument("--only", type=int, default=None, metavar="RUN", help=argparse.SUPPRESS)
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"), help="weigh build B against build A")
    parser.add_argument("--rounds", type=int, default=1, help="rounds of --compare (default 1)")
    args = parser.parse_args(argv)
    for name in ("runs", "rounds"):
        if (value := getattr(args, name)) is not None and value < 1:
            parser.error(f"--{name} {value}: expected at least 1")
    if not 0 <= args.warmup < args.seconds:
        parser.error(f"--warmup {args.warmup:g}: expected at least 0 and less than --seconds ({args.seconds:g})")
    sample = campaign_sample(FIRST, args.seconds, args.warmup)[: args.runs]
    if args.compare:
        for build in args.compare:
            if not (build / "ccarena" / "__init__.py").is_file():
                parser.error(f"--compare {build}: not a copy of python/ (no ccarena/__init__.py in it)")
        compare(*args.compare, args, len(sample))
        return 0
    chosen = list(enumerate(sample)) if args.only is None else [(args.only, sample[args.only])]
    total = 0.0
    for i, scenario in chosen:
        steady, events = timed(scenario)
        total += steady
        print(f"run {i:2d} ({scenario['topology']['kind']}, {events:,} events): {steady:.3f} s", file=sys.stderr)
    print(f"wall: {total:.3f} s for {len(chosen)} runs of seed 003's campaign, {args.seconds - args.warmup:g} s each after warm-up")
    return 0


if __name__ == "__main__":
    sys.exit(main())
