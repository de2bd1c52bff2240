"""Writes the delivery traces in scenarios/traces/ (Mahimahi's format: one line per delivery
opportunity of 1504 bytes, in milliseconds; the last line is the trace's length).

    .venv/bin/python tools/make_traces.py

- ``constant-10mbps.trace``: five opportunities every 6 ms, 10.03 Mbit/s throughout.
- ``cellular.trace``: 30 s whose capacity wanders between about 0.5 and 24 Mbit/s — a
  log-normal random walk updated every 100 ms, with two outages of 300 ms — drawn from a fixed
  seed, so the file is the same every time. It is synthetic, not a recording: it has the
  variability of a cellular downlink, not any network's statistics.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

OPPORTUNITY_BITS = 1504 * 8
HERE = Path(__file__).resolve().parent.parent / "scenarios" / "traces"


def constant() -> list[int]:
    # 1.2 ms per opportunity on a millisecond grid: the instants ceil(1.2 k), k = 1..5.
    return [math.ceil(1.2 * k - 1e-9) for k in range(1, 6)]


def cellular(seconds: int = 30, seed: int = 2015) -> list[int]:
    rng = np.random.default_rng(seed)
    log_rate = math.log(8e6)
    lines: list[int] = []
    credit = 0.0
    outages = {(8_000, 8_300), (21_000, 21_300)}
    for slot in range(seconds * 10):
        # Pulled back towards 8 Mbit/s, so that the walk wanders but does not drift away.
        step = 0.1 * (math.log(8e6) - log_rate) + rng.normal(0.0, 0.3)
        log_rate = min(math.log(24e6), max(math.log(0.5e6), log_rate + step))
        for ms in range(slot * 100 + 1, slot * 100 + 101):
            if any(a < ms <= b for a, b in outages):
                continue
            credit += math.exp(log_rate) / 1000 / OPPORTUNITY_BITS
            while credit >= 1.0:
                lines.append(ms)
                credit -= 1.0
    if lines[-1] != seconds * 1000:
        lines.append(seconds * 1000)
    return lines


def main() -> None:
    HERE.mkdir(parents=True, exist_ok=True)
    for name, lines in (("constant-10mbps.trace", constant()), ("cellular.trace", cellular())):
        (HERE / name).write_text("".join(f"{ms}\n" for ms in lines))
        print(f"{name}: {len(lines)} opportunities over {lines[-1]} ms")


if __name__ == "__main__":
    main()
