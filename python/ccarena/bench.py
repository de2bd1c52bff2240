"""``ccarena bench``: time a benchmark scenario, each repetition in a fresh subprocess.

The child process loads only the compiled core, runs the scenario and reports the engine's
counters and its own peak resident memory (``VmHWM`` in ``/proc/self/status``); the parent
measures the process's wall time. ``getrusage(RUSAGE_CHILDREN).ru_maxrss`` is only a fallback
where ``/proc`` is missing: on Linux a child's maximum includes the parent's resident set from
before ``exec``, and the parent here has pandas and matplotlib loaded.

Simulation speed is ``events / engine wall time``, so interpreter start-up is not counted in it.
Benchmarks are measurements, never asserts.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ccarena._format import counted
from ccarena._hugepages import environ_with_huge_pages
from ccarena.errors import ScenarioError
from ccarena.scenario import ScenarioSource

__all__ = ["BenchSample", "BenchReport", "run_bench", "format_report", "cpu_model"]

# The child loads only the compiled core (not pandas and friends), so that its peak RSS is the
# interpreter (about 10 MiB) plus the simulation.
_CHILD = """
import importlib.machinery, importlib.util, json, sys
path, scenario_json = sys.argv[1], sys.stdin.read()
loader = importlib.machinery.ExtensionFileLoader("ccarena._core", path)
core = importlib.util.module_from_spec(importlib.util.spec_from_loader("ccarena._core", loader))
loader.exec_module(core)
r = core.run(scenario_json)
peak_kib = None
try:  # VmHWM: this process's own peak RSS since exec (Linux)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            peak_kib = int(line.split()[1])
except OSError:
    pass
print(json.dumps({"engine": r["engine"], "flows": len(r["flows"]["flow_id"]), "version": r["meta"]["version"],
                  "name": r["meta"]["name"], "duration_s": r["meta"]["duration_s"], "peak_kib": peak_kib}))
"""


@dataclass
class BenchSample:
    """One repetition: engine counters and the child process's wall time."""

    events: int
    packets_forwarded: int
    sim_wall_s: float
    process_wall_s: float


@dataclass
class BenchReport:
    case: str
    name: str
    version: str
    duration_s: float
    flows: int
    samples: list[BenchSample] = field(default_factory=list)
    peak_rss_mib: float = 0.0
    cpu: str = ""
    python: str = ""
    platform: str = ""

    @property
    def median_sim_wall_s(self) -> float:
        return statistics.median(s.sim_wall_s for s in self.samples)

    @property
    def events_per_s(self) -> float:
        return statistics.median(s.events / s.sim_wall_s for s in self.samples if s.sim_wall_s > 0)

    @property
    def packets_per_s(self) -> float:
        return statistics.median(s.packets_forwarded / s.sim_wall_s for s in self.samples if s.sim_wall_s > 0)


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo (Linux), else what :mod:`platform` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _children_maxrss_mib() -> float:
    """Fallback where /proc is missing. ru_maxrss is KiB on Linux, bytes on macOS; note that a
    child's figure can include the parent's peak from before ``exec``."""
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024


def _case_file(case: str) -> Path:
    from ccarena.demo import bundled

    node = bundled("bench", f"{case}.toml")
    if not node.is_file():
        available = sorted(f.name.removesuffix(".toml") for f in bundled("bench").iterdir() if f.name.endswith(".toml"))
        raise ScenarioError(f"--case: unknown benchmark {case!r}; available: {', '.join(available)}")
    return Path(str(node))


def run_bench(
    case: str = "b1",
    *,
    repeat: int = 1,
    log: Callable[[str], None] | None = None,
    scenario: ScenarioSource | None = None,
    overrides: Iterable[str] = (),
) -> BenchReport:
    """Run benchmark ``case`` (a bundled ``scenarios/bench/CASE.toml``, or ``scenario`` if given)
    with ``overrides`` applied, ``repeat`` times, each in a new Python process."""
    from ccarena import _core
    from ccarena.scenario import apply_overrides, load, to_json

    scenario_json = to_json(apply_overrides(load(scenario if scenario is not None else _case_file(case)), overrides))
    _core.validate(scenario_json)  # a bad scenario is reported here, not as a child's traceback
    samples: list[BenchSample] = []
    peaks: list[int] = []  # KiB
    info: dict[str, Any] = {}
    for i in range(repeat):
        if log:
            log(f"bench {case}: run {i + 1}/{repeat} ...")
        t0 = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-c", _CHILD, str(_core.__file__)],
            # as the command line would run it: on huge pages where CCARENA_HUGE_PAGES=1 (`ccarena._hugepages`)
            env=environ_with_huge_pages(os.environ),
            input=scenario_json,
            capture_output=True,
            text=True,
            check=False,
        )
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
            raise RuntimeError(f"benchmark process failed with status {proc.returncode}: {last}")
        info = json.loads(proc.stdout.strip().splitlines()[-1])
        if info.get("peak_kib"):
            peaks.append(int(info["peak_kib"]))
        engine = info["engine"]
        samples.append(
            BenchSample(
                events=int(engine["events"]),
                packets_forwarded=int(engine.get("packets_forwarded", 0)),
                sim_wall_s=float(engine["wall_s"]),
                process_wall_s=wall,
            )
        )
    rss_mib = max(peaks) / 1024 if peaks else _children_maxrss_mib()
    return BenchReport(
        case=case,
        name=str(info.get("name", case)),
        version=str(info.get("version", "")),
        duration_s=float(info.get("duration_s", 0.0)),
        flows=int(info.get("flows", 0)),
        samples=samples,
        peak_rss_mib=rss_mib,
        cpu=cpu_model(),
        python=platform.python_version(),
        platform=platform.platform(terse=True),
    )


def format_report(r: BenchReport) -> str:
    """A readable summary followed by a Markdown header and row for BENCHMARKS.md."""
    walls = ", ".join(f"{s.sim_wall_s:.2f}" for s in r.samples)
    s0 = r.samples[0]
    lines = [
        f"case {r.case} ({r.name}): {counted(r.flows, 'flow')}, {r.duration_s:g} s simulated, {counted(len(r.samples), 'run')}",
        f"  engine wall time      {r.median_sim_wall_s:.3f} s (median; runs: {walls})",
        f"  process wall time     {statistics.median(s.process_wall_s for s in r.samples):.3f} s (incl. Python start-up)",
        f"  events                {s0.events:,} ({r.events_per_s / 1e6:.2f} M events/s)",
        f"  packets forwarded     {s0.packets_forwarded:,} ({r.packets_per_s / 1e6:.2f} M packets/s)",
        f"  peak RSS              {r.peak_rss_mib:.1f} MiB (child process: interpreter + core)",
        f"  simulated / wall time {r.duration_s / r.median_sim_wall_s:.1f}x" if r.median_sim_wall_s > 0 else "",
        f"  CPU {r.cpu}; Python {r.python}; {r.platform}",
        "",
        "| date | case | version | sim time (s) | wall (s) | events | events/s | packets/s | peak RSS (MiB) | CPU | Python | platform |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
        f"| {_dt.date.today().isoformat()} | {r.case} | {r.version} | {r.duration_s:g} | {r.median_sim_wall_s:.2f} "
        f"| {s0.events:,} | {r.events_per_s / 1e6:.2f} M | {r.packets_per_s / 1e6:.2f} M | {r.peak_rss_mib:.0f} "
        f"| {r.cpu} | {r.python} | {r.platform} |",
    ]
    return "\n".join(lines)
