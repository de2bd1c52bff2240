"""Experiments: grid expansion, the store, executors, resumption, statistics and the CLI."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import ccarena
from ccarena import Experiment, ExperimentError, ScenarioError, open_store

ROOT = Path(__file__).resolve().parents[1]
RENO_PAIR = ROOT / "scenarios" / "reno-pair.toml"
SHORT = ["duration=4s", "warmup=1s"]

# 2 algorithms × 2 rates × 3 replications, runs of a few tens of milliseconds each
SMALL_GRID = {"flows[0].cc": ["reno", "cubic"], "topology.bottleneck_rate": ["5Mbps", "10Mbps"]}


def small_experiment(**kw: object) -> Experiment:
    return Experiment(RENO_PAIR, grid=SMALL_GRID, replications=3, overrides=SHORT, name="small", **kw)  # type: ignore[arg-type]


def tables(res: ccarena.ExperimentResult) -> dict[str, pd.DataFrame]:
    return {"runs": res.runs, "links": res.links, "metrics": res.metrics}


def assert_same_tables(a: ccarena.ExperimentResult, b: ccarena.ExperimentResult) -> None:
    for name, df in tables(a).items():
        pd.testing.assert_frame_equal(df, tables(b)[name], check_exact=True, obj=name)


# --- definition -----------------------------------------------------------------------------------


def test_grid_is_the_product_then_zip_groups_and_replications_vary_the_seed() -> None:
    exp = Experiment(
        RENO_PAIR,
        grid={"flows[0].cc": ["reno", "cubic"]},
        zip=[{"topology.bottleneck_rate": ["5Mbps", "20Mbps"], "topology.queue.limit": ["20pkt", "80pkt"]}],
        replications=2,
    )
    assert exp.points() == [
        {"flows[0].cc": "reno", "topology.bottleneck_rate": "5Mbps", "topology.queue.limit": "20pkt"},
        {"flows[0].cc": "reno", "topology.bottleneck_rate": "20Mbps", "topology.queue.limit": "80pkt"},
        {"flows[0].cc": "cubic", "topology.bottleneck_rate": "5Mbps", "topology.queue.limit": "20pkt"},
        {"flows[0].cc": "cubic", "topology.bottleneck_rate": "20Mbps", "topology.queue.limit": "80pkt"},
    ]
    runs = exp.runs()
    assert len(runs) == len(exp) == 8
    assert [(r.point, r.replication, r.seed) for r in runs[:3]] == [(0, 0, 1), (0, 1, 2), (1, 0, 1)]
    third = runs[2].scenario
    assert third["flows"][0]["cc"] == "reno" and third["topology"]["bottleneck_rate"] == "20Mbps"
    assert third["topology"]["queue"]["limit"] == "80pkt" and third["seed"] == 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"grid": {"flows[0].cc": []}}, "flows[0].cc: the list of values is empty"),
        ({"grid": {"flows[0].cc": "reno"}}, "expected a list of values"),
        ({"grid": {"seed": [1, 2]}}, "'seed' cannot be varied"),
        ({"zip": [{"a": [1, 2], "b": [1]}]}, "lists of one length (a: 2, b: 1)"),
        ({"grid": {"duration": ["1s"]}, "zip": [{"duration": ["2s"]}]}, "appears more than once"),
        ({"replications": 0}, "replications: 0 is not an integer in 1..100000"),
    ],
)
def test_malformed_experiments_are_refused_with_the_field(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ExperimentError) as info:
        Experiment(RENO_PAIR, **kwargs)  # type: ignore[arg-type]
    assert message in str(info.value)


def test_a_bad_key_path_is_a_scenario_error() -> None:
    with pytest.raises(ScenarioError, match="cannot parse"):
        Experiment(RENO_PAIR, grid={"flows[0": ["x"]})


def test_toml_form_with_base_path_and_inline_scenario(tmp_path: Path) -> None:
    f = tmp_path / "e.toml"
    f.write_text(
        f'[experiment]\nname = "t"\nbase = "{os.path.relpath(RENO_PAIR, tmp_path)}"\nreplications = 2\n'
        'set = ["duration=4s", "warmup=1s"]\n[experiment.grid]\n"flows[0].cc" = ["reno", "cubic"]\n'
    )
    exp = Experiment.from_toml(f)
    assert (exp.name, exp.replications, exp.keys, len(exp)) == ("t", 2, ["flows[0].cc"], 4)
    assert exp.base["duration"] == "4s"
    inline = tmp_path / "inline.toml"
    inline.write_text(
        '[experiment]\nreplications = 1\n[experiment.grid]\n"duration" = ["2s", "3s"]\n'
        + "[scenario]\n" + RENO_PAIR.read_text().split("[topology]")[0].replace('warmup = "10s"', "")
        + "[scenario.topology]" + RENO_PAIR.read_text().split("[topology]")[1].replace("[[flows]]", "[[scenario.flows]]")
    )
    assert Experiment.from_toml(inline).points() == [{"duration": "2s"}, {"duration": "3s"}]
    bad = tmp_path / "bad.toml"
    bad.write_text('[experiment]\nbase = "x.toml"\ngird = {}\n')
    with pytest.raises(ExperimentError, match=r"experiment\.gird: unknown key"):
        Experiment.from_toml(bad)


# --- running and the store ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> ccarena.ExperimentResult:
    """The small experiment run in-process (one job): what every other way must reproduce."""
    return small_experiment().run(tmp_path_factory.mktemp("ref"), jobs=1)


def test_tidy_tables_have_parameters_as_columns(reference: ccarena.ExperimentResult) -> None:
    res = reference
    assert len(res.metrics) == 12 and res.failures.empty and res.missing == 0
    assert len(res.runs) == 24  # 12 runs × 2 flows
    for col in ("run_id", "point", "replication", "seed", "flows[0].cc", "topology.bottleneck_rate", "goodput_bps", "run_jain"):
        assert col in res.runs, col
    assert set(res.runs["cc"]) == {"reno", "cubic"}
    assert (res.runs["cc"] == res.runs["flows[0].cc"]).all()
    bottleneck = res.links[res.links["link"] == "bottleneck"]
    assert len(bottleneck) == 12
    assert set(bottleneck["rate_bps"]) == {5e6, 10e6}
    # seeds 1..3 at every point; different seeds give different runs
    assert sorted(set(res.metrics["seed"])) == [1, 2, 3]
    assert res.metrics["goodput_bps"].nunique() > 4


def test_local_pool_and_dask_cluster_store_identical_tables(
    reference: ccarena.ExperimentResult, tmp_path: Path
) -> None:
    local = small_experiment().run(tmp_path / "local", jobs=2)
    assert_same_tables(reference, local)
    dask = small_experiment().run(tmp_path / "dask", executor="dask", jobs=2)
    assert_same_tables(reference, dask)
    # the stores hold the same runs under the same content keys
    assert sorted(os.listdir(tmp_path / "local" / "runs")) == sorted(os.listdir(tmp_path / "dask" / "runs"))


def test_rerun_skips_stored_runs_and_force_recomputes(tmp_path: Path) -> None:
    exp = Experiment(RENO_PAIR, grid={"flows[0].cc": ["reno", "cubic"]}, replications=2, overrides=SHORT)
    seen: list[str] = []
    from ccarena.experiment.campaign import run_campaigns

    def go(force: bool) -> ccarena.ExperimentResult:
        return run_campaigns(
            [(exp, False)], tmp_path, executor="local", jobs=1, scheduler=None, force=force, progress=False,
            on_outcome=lambda o: seen.append(o.key),
        )[0]

    first = go(False)
    assert len(seen) == 4
    seen.clear()
    again = go(False)
    assert seen == []
    assert_same_tables(first, again)
    go(True)
    assert len(seen) == 4


def test_experiments_run_together_share_one_pool_and_their_common_runs(tmp_path: Path) -> None:
    """run_campaigns: one pool for several experiments; a run both contain executes once and is in
    both results; each experiment keeps its own `series` choice; the same as running them apart."""
    from ccarena.experiment.campaign import run_campaigns

    by_cc = Experiment(RENO_PAIR, grid={"flows[0].cc": ["reno", "cubic"]}, overrides=SHORT, name="by-cc")
    by_rate = Experiment(RENO_PAIR, grid={"topology.bottleneck_rate": ["10Mbps", "20Mbps"]}, overrides=SHORT, name="by-rate")
    executed: list[str] = []
    both = run_campaigns(
        [(by_cc, True), (by_rate, False)], tmp_path / "together", executor="local", jobs=2, scheduler=None,
        force=False, progress=False, on_outcome=lambda o: executed.append(o.key),
    )
    # reno-pair's own values: flows[0].cc = reno at 10 Mbit/s is in both grids
    assert 'cc = "reno"' in RENO_PAIR.read_text() and 'bottleneck_rate = "10Mbps"' in RENO_PAIR.read_text()
    assert len(executed) == len(set(executed)) == 3
    assert set(both[0].runs["run_id"]) & set(both[1].runs["run_id"])
    assert not both[0].series().empty
    apart = [exp.run(tmp_path / "apart", jobs=1) for exp in (by_cc, by_rate)]
    for together, alone in zip(both, apart):
        pd.testing.assert_frame_equal(together.metrics, alone.metrics, check_exact=True)


def test_a_failing_run_is_recorded_and_the_campaign_goes_on(tmp_path: Path) -> None:
    exp = Experiment(RENO_PAIR, grid={"topology.bottleneck_rate": ["10Mbps", "-3Mbps"]}, replications=2, overrides=SHORT)
    res = exp.run(tmp_path, jobs=1)
    assert len(res.metrics) == 2 and len(res.failures) == 2
    assert set(res.failures["topology.bottleneck_rate"]) == {"-3Mbps"}
    assert res.failures["error"].str.contains("bottleneck_rate").all()
    from ccarena.experiment.tables import failures_text

    assert failures_text(res).startswith("2 run(s) failed:\n  2 × ScenarioError: topology.bottleneck_rate")


def test_open_store_reads_without_running(reference: ccarena.ExperimentResult) -> None:
    again = open_store(reference.store.root)
    assert_same_tables(reference, again)
    with pytest.raises(ExperimentError, match="no experiment 'nope'"):
        open_store(reference.store.root, "nope")


def test_series_are_stored_on_request(tmp_path: Path) -> None:
    exp = Experiment(RENO_PAIR, grid={"flows[0].cc": ["reno"]}, overrides=SHORT)
    assert exp.run(tmp_path / "no", jobs=1).series().empty
    s = exp.run(tmp_path / "yes", jobs=1, series=True).series()
    assert {"flows[0].cc", "t_s", "cwnd_pkts"} <= set(s.columns) and len(s) == 2 * 40


def test_a_killed_sweep_resumes_without_recomputing_or_reading_partial_runs(tmp_path: Path) -> None:
    """SIGKILL a sweep after some runs finished, plant the debris a write cut short leaves, re-run:
    only the missing runs execute and the result equals an uninterrupted sweep's."""
    exp_file = tmp_path / "kill.toml"
    exp_file.write_text(
        f'[experiment]\nname = "kill"\nbase = "{RENO_PAIR}"\nreplications = 6\n'
        'set = ["duration=30s", "warmup=1s"]\n[experiment.grid]\n"flows[0].cc" = ["reno", "cubic"]\n'
        '"topology.bottleneck_rate" = ["20Mbps", "40Mbps"]\n'
    )
    store = tmp_path / "store"
    cmd = [sys.executable, "-m", "ccarena.cli", "sweep", str(exp_file), "-o", str(store), "--jobs", "1", "--no-progress"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    runs_dir = store / "runs"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        done = [p for p in runs_dir.glob("*") if not p.name.startswith(".")] if runs_dir.is_dir() else []
        if len(done) >= 3:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    finished = {p.name: p.stat().st_mtime_ns for p in runs_dir.glob("*") if not p.name.startswith(".")}
    assert 3 <= len(finished) < 24, "the sweep was not interrupted mid-way; make its runs longer"
    # what a write killed half-way leaves behind: a temporary directory with some of the files
    debris = runs_dir / ".tmp-deadbeef-0"
    debris.mkdir(exist_ok=True)
    (debris / "flows.parquet").write_bytes(b"PAR1 half")

    from ccarena.experiment.campaign import run_campaigns
    from ccarena.experiment.definition import Experiment as Exp

    executed: list[str] = []
    resumed = run_campaigns(
        [(Exp.from_toml(exp_file), False)], store, executor="local", jobs=2, scheduler=None, force=False,
        progress=False, on_outcome=lambda o: executed.append(o.key),
    )[0]
    assert not set(executed) & set(finished), "a finished run was recomputed"
    assert len(executed) == 24 - len(finished)
    assert not debris.exists()
    assert all((runs_dir / k).stat().st_mtime_ns == t for k, t in finished.items())
    whole = Exp.from_toml(exp_file).run(tmp_path / "whole", jobs=2)
    assert_same_tables(whole, resumed)


# --- statistics -----------------------------------------------------------------------------------


def test_summary_mean_and_ci_match_scipy(reference: ccarena.ExperimentResult) -> None:
    summ = reference.summary(["goodput_bps", "jain"])
    assert len(summ) == 4 * 2
    row = summ[(summ["point"] == 1) & (summ["metric"] == "goodput_bps")].iloc[0]
    values = reference.metrics[reference.metrics["point"] == 1]["goodput_bps"].to_numpy()
    lo, hi = stats.t.interval(0.95, len(values) - 1, loc=values.mean(), scale=stats.sem(values))
    assert row["n"] == 3 and row["flows[0].cc"] == "reno" and row["topology.bottleneck_rate"] == "10Mbps"
    assert row["mean"] == pytest.approx(values.mean(), rel=1e-12)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((lo, hi), rel=1e-9)
    assert row["sd"] == pytest.approx(np.std(values, ddof=1), rel=1e-12)
    per_group = reference.summary(["goodput_bps"], per="group")
    assert set(per_group["group"]) == {"reno"} and len(per_group) == 4
    with pytest.raises(ExperimentError, match="unknown metric 'nope'"):
        reference.summary(["nope"])


def test_compare_pairs_runs_by_seed(reference: ccarena.ExperimentResult) -> None:
    cmp = reference.compare("flows[0].cc", "cubic", "reno", "goodput_bps")
    assert list(cmp["topology.bottleneck_rate"]) == ["10Mbps", "5Mbps"]
    m = reference.metrics
    a = m[(m["flows[0].cc"] == "cubic") & (m["topology.bottleneck_rate"] == "5Mbps")].sort_values("seed")["goodput_bps"].to_numpy()
    b = m[(m["flows[0].cc"] == "reno") & (m["topology.bottleneck_rate"] == "5Mbps")].sort_values("seed")["goodput_bps"].to_numpy()
    row = cmp[cmp["topology.bottleneck_rate"] == "5Mbps"].iloc[0]
    assert row["n"] == 3 and row["mean_diff"] == pytest.approx((a - b).mean(), rel=1e-12)
    assert row["p_value"] == pytest.approx(stats.ttest_rel(a, b).pvalue, rel=1e-9)
    with pytest.raises(ExperimentError, match="no finished run has flows\\[0\\].cc = 'vegas'"):
        reference.compare("flows[0].cc", "vegas", "reno")


# --- command line ---------------------------------------------------------------------------------


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ccarena.cli", *args], capture_output=True, text=True, cwd=cwd, timeout=300)


def test_cli_sweep_results_and_report(tmp_path: Path) -> None:
    exp = ROOT / "scenarios" / "experiments" / "reno-vs-cubic.toml"
    store = tmp_path / "store"
    out = cli("sweep", str(exp), "-o", str(store), "-r", "2", "--no-progress", "--jobs", "2")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split()[:5] == ["flows[0].cc", "topology.bottleneck_rate", "flows[0].rtt", "topology.queue.limit", "n"]
    assert len(lines) == 2 + 12 and " ± " in lines[2]
    csv = cli("results", str(store), "--format", "csv", "--table", "metrics")
    assert csv.returncode == 0, csv.stderr
    assert csv.stdout.splitlines()[0].startswith("run_id,point,replication,seed,flows[0].cc")
    assert len(csv.stdout.splitlines()) == 1 + 24
    pq = cli("results", str(store), "--format", "parquet", "-o", str(tmp_path / "runs.parquet"))
    assert pq.returncode == 0 and len(pd.read_parquet(tmp_path / "runs.parquet")) == 48
    rep = cli("report", str(store))
    assert rep.returncode == 0, rep.stderr
    page = (store / "report" / "index.html").read_text()
    assert "reno-vs-cubic" in page and "goodput_bps.png" in page
    assert (store / "report" / "goodput_bps.png").stat().st_size > 10_000


def test_cli_errors_are_one_line_with_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[experiment]\nbase = "missing.toml"\n')
    out = cli("sweep", str(bad), "-o", str(tmp_path / "s"))
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert "experiment.base: 'missing.toml' is not a file" in out.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    out = cli("results", str(empty))
    assert out.returncode == 2 and "holds no experiment results" in out.stderr
    out = cli("results", str(empty), "--format", "parquet")
    assert out.returncode == 2


@pytest.mark.parametrize("after_s", [0.0, 1.0], ids=["while-forking", "while-simulating"])
@pytest.mark.parametrize(("sig", "code", "word"), [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")])
def test_ctrl_c_and_sigterm_stop_a_sweep_at_once(
    tmp_path: Path, sig: signal.Signals, code: int, word: str, after_s: float
) -> None:
    """Runs here take several seconds each; the sweep must stop in well under one run's time,
    with its workers, and leave only complete runs in the store. A signal that arrives while the
    workers are being forked must not be lost, nor leave a traceback behind the error line."""
    exp_file = tmp_path / "long.toml"
    exp_file.write_text(
        f'[experiment]\nname = "long"\nbase = "{RENO_PAIR}"\nreplications = 4\n'
        'set = ["duration=900s", "warmup=1s", "topology.bottleneck_rate=100Mbps"]\n'
        '[experiment.grid]\n"flows[0].cc" = ["reno"]\n'
    )
    store = tmp_path / "store"
    proc = subprocess.Popen(
        [sys.executable, "-m", "ccarena.cli", "sweep", str(exp_file), "-o", str(store), "-j", "2", "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (store / "experiments" / "long.json").is_file():
        time.sleep(0.02)
    time.sleep(after_s)
    sent = time.monotonic()
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code and time.monotonic() - sent < 4.0
    assert err.splitlines()[-1] == f"error: {word} (finished sweep runs are kept in the store)"
    runs = list((store / "runs").iterdir())
    assert all((p / "run.json").is_file() and (p / "flows.parquet").is_file() for p in runs if not p.name.startswith("."))
    time.sleep(0.2)
    leftovers = subprocess.run(["pgrep", "-f", str(store)], capture_output=True, text=True).stdout.split()
    assert leftovers == [], "worker processes outlived the sweep"
