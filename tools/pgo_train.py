"""The training run of the profile-guided build (tools/build_ext.sh): every example, benchmark
and paper scenario for a few simulated seconds through the instrumented extension, so that the
profile weighs the code paths real runs take (TCP stacks, CUBIC and the others, DCCP, RED,
background traffic, the parking lot), then a sample of seed 003's campaign, the largest workload
the tool runs (`ccarena reproduce highspeed-tcp --scale full`: 604 runs of 600 s): its points
share those paths in other proportions (hundreds of flows, loads up to 0.8, every algorithm).
Only speed depends on it, never a result."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import ccarena
from ccarena.papers import paper
from ccarena.papers.reproduce import each_run

#: Simulated seconds of each training run: past the start-up into the steady state, a few
#: seconds of wall time in all.
TRAIN_S = 8

#: Every this many of the campaign's distinct runs, one is trained on: 21 of its 604, spread over
#: its experiments, algorithms and loads in the campaign's own proportions.
CAMPAIGN_STRIDE = 29

#: Simulated seconds of each campaign sample (the longest, at 10 Gbit/s, takes about 2.5 s of
#: wall time).
CAMPAIGN_S = 4


def campaign_sample(first: int = 0, seconds: float = CAMPAIGN_S, warmup: float = 1) -> list[dict[str, Any]]:
    """Every `CAMPAIGN_STRIDE`-th distinct run of seed 003's full campaign from the `first`,
    shortened to `seconds` with `warmup`."""
    runs = [spec.scenario for _, spec, new in each_run(paper("highspeed-tcp").experiments("full")) if new]
    return [{**s, "duration": f"{seconds:g}s", "warmup": f"{warmup:g}s"} for s in runs[first::CAMPAIGN_STRIDE]]


def main() -> int:
    root = Path(__file__).resolve().parent.parent / "scenarios"
    files = sorted(root.glob("*.toml")) + sorted(root.glob("bench/*.toml")) + sorted(root.glob("papers/*/*.toml"))
    t0 = time.monotonic()
    failed = 0
    for f in files:
        try:
            ccarena.run(str(f), overrides=[f"duration={TRAIN_S}s", "warmup=1s"], series=False)
        except ccarena.ScenarioError as e:  # a paper file that needs its experiment's keys
            print(f"pgo training: {f.relative_to(root)} skipped: {e}", file=sys.stderr)
            failed += 1
    sample = campaign_sample()
    for scenario in sample:
        ccarena.run(scenario, series=False)
    print(
        f"pgo training: {len(files) - failed} scenarios, {TRAIN_S} s each, and {len(sample)} of seed 003's"
        f" campaign, {CAMPAIGN_S} s each: {time.monotonic() - t0:.1f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
