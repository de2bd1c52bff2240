"""The cost model: engine wall time against packet hops, over B1-B3 and seed-003
points, each run as `ccarena bench` runs a case (`ccarena.bench.run_bench`: a child process
per run, on huge pages, its own peak RSS), all of them pinned to the last core, and printed as a Markdown table for BENCHMARKS.md with each case's time per
hop and the least-squares line through the origin that prices a hop over all of them.

    .venv/bin/python tools/cost_model.py                       # every case, 60 simulated seconds
    .venv/bin/python tools/cost_model.py --cases b3,b1 --repeat 3
    .venv/bin/python tools/cost_model.py --duration 10s        # shorter, for a quick look

A case's wall time is the median over `--repeat` runs; hops and events are exact and do not
move between runs. Peak RSS is the child's (interpreter, core and results). What the whole
campaign costs is the calibrating dry run's to say (`ccarena reproduce highspeed-tcp --scale
full --dry-run --calibrate`; without `--calibrate` the dry run estimates from this cost model,
python/ccarena/experiment/cost_model.py, and measures nothing): its grid points are priced one
by one, each from its first run simulated until steady, where this table shows how the cost of
a hop varies with the traffic (cold background state costs more than bulk flows: the parking
lot's hop against B1's)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import NamedTuple

from ccarena.bench import run_bench
from ccarena.errors import Error

REPO = Path(__file__).resolve().parent.parent


class Case(NamedTuple):
    name: str
    what: str
    file: str
    overrides: tuple[str, ...] = ()


#: B1-B3 (`scenarios/bench/`) and three seed-003 points: the dumbbell at the grid's lowest capacity
#: and at 1 Gbit/s with the heaviest background, and the parking lot its hours go to.
CASES = (
    Case("b3", "B3: 10 Mbit/s, 20 ms, 1 Reno flow", "scenarios/bench/b3.toml"),
    Case("b1", "B1: 1 Gbit/s, 20 Reno flows", "scenarios/bench/b1.toml"),
    Case("b2", "B2: 10 Gbit/s, 100 CUBIC flows, 20 % background", "scenarios/bench/b2.toml"),
    Case(
        "d155",
        "seed 003 dumbbell: 155 Mbit/s, 20 CUBIC flows, 20 % background",
        "scenarios/bench/b2.toml",
        ("topology.bottleneck_rate=155Mbps", "flows[0].count=20"),
    ),
    Case(
        "d1g80",
        "seed 003 dumbbell: 1 Gbit/s, 20 CUBIC flows, 80 % background",
        "scenarios/bench/b2.toml",
        ("topology.bottleneck_rate=1Gbps", "flows[0].count=20", "background[0].load=0.8"),
    ),
    Case(
        "pl80",
        "seed 003 parking lot: 3 × 1 Gbit/s, 2 × 128 CUBIC flows, 80 % background",
        "scenarios/seed003-parking-lot.toml",
        ("background[0].load=0.8",),
    ),
)


def measure(case: Case, duration: str, repeat: int) -> dict[str, float]:
    """`case` run `repeat` times by `ccarena bench`'s machinery (a child process each, huge pages,
    the child's own peak RSS): the median engine wall time, the exact hops and events."""
    overrides = [*case.overrides, f"duration={duration}", "warmup=0s"]
    r = run_bench(case.name, repeat=repeat, log=lambda line: print(line, file=sys.stderr, flush=True), scenario=REPO / case.file, overrides=overrides)
    s = r.samples[0]
    return {"wall_s": r.median_sim_wall_s, "events": s.events, "hops": s.packets_forwarded, "rss_mib": r.peak_rss_mib}


def fit_ns_per_hop(rows: list[dict[str, float]]) -> float:
    """Least squares through the origin, wall = c · hops: c = Σ wall·hops / Σ hops²."""
    return sum(r["wall_s"] * r["hops"] for r in rows) / sum(r["hops"] ** 2 for r in rows) * 1e9


def table(cases: list[Case], rows: list[dict[str, float]], duration: str) -> str:
    out = [
        "| case | what | simulated | packet hops | events | wall | per hop | hops/s | peak RSS |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for case, r in zip(cases, rows, strict=True):
        per_hop = r["wall_s"] / r["hops"] * 1e9
        out.append(
            f"| {case.name} | {case.what} | {duration} | {r['hops']:,.0f} | {r['events']:,.0f} | {r['wall_s']:.3g} s "
            f"| {per_hop:.0f} ns | {r['hops'] / r['wall_s'] / 1e6:.1f} M | {r['rss_mib']:.0f} MiB |"
        )
    c = fit_ns_per_hop(rows)
    spread = ", ".join(f"{case.name} {r['wall_s'] / (c * 1e-9 * r['hops']):.2f}" for case, r in zip(cases, rows, strict=True))
    out += ["", f"Fit through the origin: wall = {c:.1f} ns × packet hops; each case against it: {spread}."]
    return "\n".join(out)


def selected(names: str) -> list[Case]:
    by_name = {c.name: c for c in CASES}
    wanted = [n.strip() for n in names.split(",") if n.strip()]
    unknown = [n for n in wanted if n not in by_name]
    if unknown or not wanted:
        sys.stderr.write(f"cost_model: --cases {names!r}: expected a comma-separated list of {', '.join(by_name)}\n")
        sys.exit(2)
    return [by_name[n] for n in wanted]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", default=",".join(c.name for c in CASES), help="comma-separated case names (default: all)")
    parser.add_argument("--duration", default="60s", help="simulated time of every case, e.g. 60s (default)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per case; the median wall time is kept")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error(f"--repeat {args.repeat}: expected at least 1")
    cases = selected(args.cases)
    # One core for every run (the children inherit it), the last: core 0 is the rest of the machine's.
    os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})
    try:
        rows = [measure(case, args.duration, args.repeat) for case in cases]
    except Error as e:  # a scenario the core refuses, e.g. a --duration without a unit
        sys.stderr.write(f"cost_model: {e}\n")
        sys.exit(2)
    print(table(cases, rows, args.duration))


if __name__ == "__main__":
    main()
