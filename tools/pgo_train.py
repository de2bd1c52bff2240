"""The training run of the profile-guided build (tools/build_ext.sh): every example, benchmark
and paper scenario for a few simulated seconds through the instrumented extension, so that the
profile weighs the code paths real runs take (TCP stacks, CUBIC and the others, DCCP, RED,
background traffic, the parking lot). Only speed depends on it, never a result."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import ccarena

#: Simulated seconds of each training run: past the start-up into the steady state, a few
#: seconds of wall time in all.
TRAIN_S = 8


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
    print(f"pgo training: {len(files) - failed} scenarios, {TRAIN_S} s each, {time.monotonic() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
