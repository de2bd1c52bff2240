"""``ccarena bench``: it measures and reports; nothing here asserts on speed."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ccarena.bench import cpu_model, format_report, run_bench
from ccarena.cli import app

TOOLS = Path(__file__).resolve().parent.parent / "tools"


def test_bench_runs_a_scenario_in_a_child_process(tiny_file: Path) -> None:
    logged: list[str] = []
    report = run_bench("tiny", repeat=2, log=logged.append, scenario=tiny_file)
    assert len(report.samples) == 2 and len(logged) == 2
    assert (report.name, report.flows, report.duration_s) == ("tiny", 2, 3.0)
    s = report.samples[0]
    assert s.events > 0 and s.packets_forwarded > 0 and s.sim_wall_s > 0
    assert s.events == report.samples[1].events  # deterministic
    assert 1 < report.peak_rss_mib < 4096
    text = format_report(report)
    assert text.splitlines()[0] == "case tiny (tiny): 2 flows, 3 s simulated, 2 runs"
    one = dataclasses.replace(report, flows=1, samples=report.samples[:1])
    assert format_report(one).splitlines()[0] == "case tiny (tiny): 1 flow, 3 s simulated, 1 run"
    row = text.splitlines()[-1]
    assert row.startswith("| ") and row.endswith(" |") and "| tiny |" in row
    assert row.count("|") == text.splitlines()[-3].count("|")  # matches the header


def test_bench_applies_overrides(tiny_file: Path) -> None:
    report = run_bench("tiny", scenario=tiny_file, overrides=["flows[0].count=3"])
    assert report.flows == 3


def test_cpu_model_is_named() -> None:
    assert cpu_model()


@pytest.mark.slow
def test_bench_command_on_b1() -> None:
    result = CliRunner().invoke(app, ["bench", "--case", "b1"])
    assert result.exit_code == 0, result.stderr
    assert "| b1 |" in result.stdout


def test_engine_reports_the_wall_time_of_the_warm_up(tiny_file: Path) -> None:
    # What the measured part of a run cost: all of it less the warm-up.
    import ccarena

    with_warmup = ccarena.run(str(tiny_file), overrides=["warmup=1s"]).engine
    assert 0.0 < with_warmup["warmup_wall_s"] <= with_warmup["wall_s"]
    assert ccarena.run(str(tiny_file), overrides=["warmup=0s"]).engine["warmup_wall_s"] == 0.0


def _paired(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(TOOLS / "paired.py"), *args], capture_output=True, text=True)


@pytest.fixture
def two_cores() -> None:
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("tools/paired.py pins its runs to cores 0 and 1")


@pytest.mark.usefixtures("two_cores")
def test_paired_script_takes_the_median_ratio_and_counts_wins(tmp_path: Path) -> None:
    """tools/paired.py (BENCHMARKS.md, "How to run") reads both output forms, reports B/A, and
    counts B's wins with the sign test's p-value, side by side and one after the other."""
    bench_like = tmp_path / "a.sh"
    bench_like.write_text("#!/bin/sh\necho 'case: x'\necho 'wall: 2.00 s for 8 s simulated'\n")
    json_like = tmp_path / "b.sh"
    json_like.write_text('#!/bin/sh\necho \'{"engine": {"wall_s": 1.5, "events": 3}}\'\n')
    for f in (bench_like, json_like):
        f.chmod(0o755)
    done = _paired("3", str(bench_like), str(json_like))
    lines = done.stdout.splitlines()
    assert done.returncode == 0 and len(lines) == 5 and all("B/A 0.7500" in line for line in lines[:3])
    # Three wins of three: p = 2 / 2^3 under the sign test; every ratio alike: a zero-width interval.
    assert lines[3] == "median B/A 0.7500 over 3 rounds (0.7500 to 0.7500); B faster in 3 of 3 (sign test p = 0.25)"
    assert lines[4] == "geometric mean B/A 0.7500 (95 % interval 0.7500 to 0.7500)"
    # Ten wins of ten one after the other: p = 2 / 2^10; A against itself: no wins, p = 1.
    seq = _paired("--sequential", "10", str(bench_like), str(json_like))
    assert seq.stdout.splitlines()[-2].endswith("B faster in 10 of 10 (sign test p = 0.00195)")
    same = _paired("2", str(bench_like), str(bench_like))
    assert same.stdout.splitlines()[-2].endswith("B faster in 0 of 2 (sign test p = 1)")


@pytest.mark.usefixtures("two_cores")
def test_interleaved_rounds_time_each_command_by_its_cpu_with_its_children() -> None:
    """Taking turns on one core, each command is timed by the CPU time it and its children used:
    B burns half of A's, through a shell, so B/A is about a half whatever the host does meanwhile."""
    burn = "import time; t = time.process_time()\nwhile time.process_time() - t < {}: pass"
    a = f"{sys.executable} -c '{burn.format(0.4)}'"
    b = f"sh -c \"{sys.executable} -c '{burn.format(0.2)}'\""
    done = _paired("--interleaved", "--slice", "0.02", "2", a, b)
    assert done.returncode == 0, done.stderr
    ratios = [float(line.split("B/A ")[1]) for line in done.stdout.splitlines()[:2]]
    assert all(0.4 < r < 0.65 for r in ratios), done.stdout


def test_paired_script_rejects_bad_arguments_and_failed_commands() -> None:
    bad = _paired("--sequential", "3")
    assert bad.returncode == 2 and "usage: tools/paired.py" in bad.stderr
    zero = _paired("0", "true", "true")
    assert zero.returncode == 2 and "rounds must be at least 1" in zero.stderr
    if len(os.sched_getaffinity(0)) >= 2:
        failed = _paired("--interleaved", "1", "true", "false")
        assert failed.returncode == 1 and failed.stderr.strip() == "paired: 'false' exited with 1"
        # A command that reports no time of its own: one line, no traceback.
        silent = _paired("1", "true", "true")
        assert silent.returncode == 1 and silent.stderr.strip().startswith("paired: 'true' printed neither a 'wall: X s' line")


def _tool(name: str) -> Any:
    """`tools/<name>.py` as a module (`pgo_train`: the profile-guided build's training run)."""
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _values(scenarios: list[dict[str, Any]], of: Callable[[dict[str, Any]], Iterable[Any]]) -> set[Any]:
    return {x for s in scenarios for x in of(s)}


def test_pgo_training_samples_the_whole_campaign_with_valid_short_runs() -> None:
    import ccarena
    from ccarena.papers import paper

    train = _tool("pgo_train")
    sample = train.campaign_sample()
    runs = [spec.scenario for exp in paper("highspeed-tcp").experiments("full").values() for spec in exp.runs()]
    assert len(sample) == 21  # every 29th of the 604 distinct runs
    # Both topologies, every algorithm and every background load of the campaign are trained on.
    for of in (
        lambda s: [s["topology"]["kind"]],
        lambda s: [flow["cc"] for flow in s["flows"]],
        lambda s: [bg["load"] for bg in s["background"]],
    ):
        assert _values(sample, of) == _values(runs, of)
    for s in sample:
        assert (s["duration"], s["warmup"]) == (f"{train.CAMPAIGN_S}s", "1s")
        ccarena.validate(s)


def test_campaign_sample_times_runs_the_training_does_not_and_prints_what_paired_reads() -> None:
    """tools/campaign_sample.py (BENCHMARKS.md, "How to run"): a sample of the campaign beside the
    training's, timed after each run's warm-up, summed on the line tools/paired.py reads."""
    train = _tool("pgo_train")
    trained = {json.dumps({**s, "duration": 0, "warmup": 0}, sort_keys=True, default=str) for s in train.campaign_sample()}
    timed = train.campaign_sample(14)
    assert len(timed) == 21 and not trained & {json.dumps({**s, "duration": 0, "warmup": 0}, sort_keys=True, default=str) for s in timed}
    script = TOOLS / "campaign_sample.py"
    done = subprocess.run([sys.executable, str(script), "--seconds", "1.5", "--warmup", "1", "--runs", "2"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("\nrun ") + done.stderr.startswith("run ") == 2, done.stderr
    assert _tool("paired").reported_wall("campaign_sample", done.stdout) > 0
    bad = subprocess.run([sys.executable, str(script), "--seconds", "2", "--warmup", "3"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--warmup 3: expected at least 0 and less than --seconds (2)" in bad.stderr
    none = subprocess.run([sys.executable, str(script), "--runs", "0"], capture_output=True, text=True)
    assert none.returncode == 2 and "--runs 0: expected at least 1" in none.stderr


@pytest.mark.usefixtures("two_cores")
def test_campaign_sample_compares_two_builds_run_by_run(tmp_path: Path) -> None:
    import ccarena

    package = Path(ccarena.__file__).resolve().parent.parent
    script = TOOLS / "campaign_sample.py"
    args = [sys.executable, str(script), "--seconds", "1.5", "--warmup", "1", "--runs", "2", "--rounds", "2"]
    done = subprocess.run([*args, "--compare", str(package), str(package)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    rounds = re.findall(r"^round (\d): A ([0-9.]+) s  B ([0-9.]+) s  B/A ([0-9.]+)$", done.stdout, re.MULTILINE)
    assert [r[0] for r in rounds] == ["1", "2"] and all(float(a) > 0 and float(b) > 0 for _, a, b, _ in rounds)
    assert done.stdout.splitlines()[-1].startswith("all rounds: A ")
    assert done.stderr.count(" run ") == 4, done.stderr
    bad = subprocess.run([*args, "--compare", str(package), str(tmp_path)], capture_output=True, text=True)
    assert bad.returncode == 2 and f"--compare {tmp_path}: not a copy of python/" in bad.stderr


def test_instructions_counts_a_functions_own_executions_by_source_line() -> None:
    """tools/instructions.py (BENCHMARKS.md, "How to run"): a callgrind profile's compressed names
    and relative positions are followed, the cost line after `calls=` (the callee's inclusive
    cost) is not the caller's own, the calls made to the function are counted, and each address
    goes to the source line `objdump -l` printed last before it."""
    tool = _tool("instructions")
    profile = """\
version: 1
positions: instr line
events: Ir
fl=(1) /work/crates/core/src/engine.rs
fn=(1) ccarena_core::engine::World::admit_one
0x100 10 5
+1 * 5
+3 +1 5
cfn=(2) ccarena_core::net::link::Link::dropped
calls=2 0x900 40
+2 * 700
-1 * 5
fn=(3) ccarena_core::engine::World::take_inbound
0x400 3 9
cfn=(1)
calls=5 0x100 10
* * 123
fn=(1)
0x106 12 2
"""
    got = tool.parse_callgrind(profile.splitlines(keepends=True), "ccarena_core::engine::World::admit_one")
    assert dict(got.by_address) == {0x100: 5, 0x101: 5, 0x104: 5, 0x105: 5, 0x106: 2}
    assert got.calls == 5
    listing = """\
0000000000000100 <ccarena_core::engine::World::admit_one>:
/work/crates/core/src/engine.rs:546
     100:\tpush   %rbp
     101:\tmov    %rdi,%r15
/rustc/abc/library/core/src/slice/index.rs:278 (discriminator 1)
     104:\tcmp    %rdi,%rsi
     105:\tjbe    900 <x>
/work/crates/core/src/net/link.rs:287
     106:\tret
     107:\tnop
"""
    by_line = tool.attribute(got.by_address, listing.splitlines())
    assert by_line == {"engine.rs:546": 10, "slice/index.rs:278": 10, "net/link.rs:287": 2}


def test_instructions_reports_bad_arguments_in_one_line(tmp_path: Path) -> None:
    script = [sys.executable, str(TOOLS / "instructions.py")]
    profile = tmp_path / "callgrind.out"
    profile.write_text("")
    absent = tmp_path / "b1-none"
    done = subprocess.run([*script, str(absent), "f", "--profile", str(profile)], capture_output=True, text=True)
    assert (done.returncode, done.stderr.strip()) == (1, f"instructions: {absent}: no such binary (cargo bench -p ccarena-core --no-run builds it)")
    bad = subprocess.run([*script, str(absent), "f", "--profile", str(profile), "--top", "0"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.strip().endswith("--top 0: must be at least 1")


def test_cost_model_prices_each_case_per_hop_and_fits_a_line_through_them() -> None:
    """tools/cost_model.py (BENCHMARKS.md, "How to run"): every case's file and overrides make a
    valid scenario, a case's row reports the engine's exact hops and events with the time per hop
    they give, and the fit through the origin is the least-squares one."""
    tool = _tool("cost_model")
    from ccarena import _core
    from ccarena.scenario import apply_overrides, load, to_json

    for case in tool.CASES:  # every case is valid: a renamed key in its file would fail here
        _core.validate(to_json(apply_overrides(load(tool.REPO / case.file), list(case.overrides))))
    rows = [{"wall_s": 1.0, "hops": 1e9}, {"wall_s": 3.0, "hops": 2e9}]
    assert tool.fit_ns_per_hop(rows) == pytest.approx((1 * 1 + 3 * 2) / (1 + 4))  # Σwh/Σh², in ns
    script = TOOLS / "cost_model.py"
    done = subprocess.run([sys.executable, str(script), "--cases", "b3", "--duration", "2s"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if line.startswith("| b3 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    hops, events = int(cells[3].replace(",", "")), int(cells[4].replace(",", ""))
    assert hops > events > 0 and cells[6].endswith(" ns") and cells[8].endswith(" MiB")
    assert "Fit through the origin: wall = " in done.stdout and "b3 1.00" in done.stdout
    bad = subprocess.run([sys.executable, str(script), "--cases", "b1,nope"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--cases 'b1,nope': expected a comma-separated list of b3, b1, b2" in bad.stderr
    unit = subprocess.run([sys.executable, str(script), "--cases", "b3", "--duration", "5"], capture_output=True, text=True)
    assert unit.returncode == 2 and unit.stderr.strip().splitlines()[-1].startswith("cost_model: duration:")
