"""Congestion controls written in Python in campaigns (docs/python.md, "In a sweep"): a module
next to the experiment file works from any directory, without PYTHONPATH, on the local pool and
on Dask; `ccarena validate` and `ccarena.validate` make the classes too, so a bad one fails
before a run starts."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import ccarena

ROOT = Path(__file__).resolve().parents[1]

MODULE = textwrap.dedent(
    """
    import ccarena

    class MyReno(ccarena.CongestionControl):
        def __init__(self, beta=0.5):
            self.beta = beta

        def on_ack(self, st, acked, rtt, now):
            used = min(float(acked), max(st.ssthresh - st.cwnd, 0.0))
            st.cwnd += used
            left = acked - min(int(-(-used // 1)), acked)
            if left:
                st.cwnd += left / max(st.cwnd, 1.0)

        def on_congestion(self, st, kind, flight_size, now):
            st.ssthresh = max(self.beta * st.cwnd, 2.0)
    """
)

EXPERIMENT = f"""
[experiment]
name = "pycc-sweep"
base = "{ROOT / 'scenarios' / 'reno-pair.toml'}"
replications = 2
set = ["duration=8s", "warmup=2s"]
[experiment.grid]
"flows[0].cc" = ["reno", "py:mycc.MyReno"]
"""


@pytest.fixture
def experiment_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "exp"
    folder.mkdir()
    (folder / "mycc.py").write_text(MODULE)
    (folder / "exp.toml").write_text(EXPERIMENT)
    return folder


def _sweep(cwd: Path, experiment: Path, store: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(cwd)}  # no PYTHONPATH
    return subprocess.run(
        [sys.executable, "-m", "ccarena", "sweep", str(experiment), "-o", str(store), "--no-progress", "--jobs", "2", *extra],
        cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=600,
    )


@pytest.mark.parametrize("executor", ["local", "dask"])
def test_a_sweep_over_a_python_cc_runs_from_another_directory(experiment_dir: Path, tmp_path: Path, executor: str) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    store = tmp_path / f"store-{executor}"
    out = _sweep(elsewhere, experiment_dir / "exp.toml", store, "--executor", executor)
    assert out.returncode == 0, out.stderr
    assert "failed" not in out.stdout + out.stderr
    runs = ccarena.open_store(store, "pycc-sweep").runs
    by_cc = runs.groupby("flows[0].cc")["goodput_bps"].apply(sorted)
    # MyReno is Reno's rule: the same results as the built-in one, run for run and flow for flow
    assert len(by_cc["py:mycc.MyReno"]) == 4 and by_cc["py:mycc.MyReno"] == by_cc["reno"]


def test_validate_makes_the_python_classes(experiment_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(experiment_dir)
    scenario = ROOT / "scenarios" / "reno-pair.toml"
    normalised = ccarena.validate(scenario, overrides=["flows[0].cc=py:mycc.MyReno"])
    assert normalised["flows"][0]["cc"] == "py:mycc.MyReno"
    with pytest.raises(TypeError, match="unexpected keyword argument 'gamma'"):
        ccarena.validate(scenario, overrides=["flows[0].cc=py:mycc.MyReno", "flows[0].cc_params={gamma=1}"])
    cli = subprocess.run(
        [sys.executable, "-m", "ccarena", "validate", str(scenario), "--set", "flows[0].cc=py:mycc.MyReno"],
        cwd=experiment_dir, capture_output=True, text=True, check=False,
    )
    assert cli.returncode == 0 and cli.stdout.startswith("ok: reno-pair"), cli.stderr


def test_a_python_cc_that_cannot_be_made_fails_each_run_before_any_worker(experiment_dir: Path, tmp_path: Path) -> None:
    (experiment_dir / "exp.toml").write_text(EXPERIMENT.replace("py:mycc.MyReno", "py:mycc.Missing"))
    out = _sweep(tmp_path, experiment_dir / "exp.toml", tmp_path / "store")
    assert out.returncode == 0, out.stderr
    assert "2 × ScenarioError: flows[0].cc: \"py:mycc.Missing\": module 'mycc' has no 'Missing'" in out.stdout + out.stderr
