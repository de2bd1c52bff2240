"""The result store is never read wrong: a damaged run is reported once, left out, and recomputed
by the next sweep; runs written without checksums stay readable; bad store paths are one error."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

import ccarena
from ccarena import Experiment, ExperimentError, open_store
from ccarena.errors import StoreDamagedWarning
from ccarena.experiment.campaign import run_campaigns

ROOT = Path(__file__).resolve().parents[1]
RENO_PAIR = ROOT / "scenarios" / "reno-pair.toml"
CCARENA = Path(sys.executable).with_name("ccarena")


def experiment() -> Experiment:
    # 2 algorithms × 2 replications: four runs of a few tens of milliseconds
    return Experiment(
        RENO_PAIR, grid={"flows[0].cc": ["reno", "cubic"]}, replications=2, overrides=["duration=4s", "warmup=1s"], name="integrity"
    )


def sweep(store: Path) -> tuple[ccarena.ExperimentResult, list[str]]:
    executed: list[str] = []
    res = run_campaigns(
        [(experiment(), False)], store, executor="local", jobs=1, scheduler=None, force=False, progress=False,
        on_outcome=lambda o: executed.append(o.key),
    )[0]
    return res, executed


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("pristine")
    res, executed = sweep(store)
    assert len(executed) == 4 and len(res.metrics) == 4
    return store


@pytest.fixture
def store(pristine: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "store"
    shutil.copytree(pristine, copy)
    return copy


def first_run(store: Path) -> Path:
    return sorted(p for p in (store / "runs").iterdir() if not p.name.startswith("."))[0]


def truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def flip_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


DAMAGES: dict[str, tuple[Callable[[Path], None], str]] = {
    "truncated-flows": (lambda run: truncate(run / "flows.parquet"), "flows.parquet has"),
    "deleted-flows": (lambda run: (run / "flows.parquet").unlink(), "flows.parquet is missing"),
    "truncated-json": (lambda run: truncate(run / "run.json"), "run.json cannot be parsed"),
    "flipped-byte": (lambda run: flip_byte(run / "links.parquet"), "links.parquet does not match its checksum"),
    "deleted-json": (lambda run: (run / "run.json").unlink(), "run.json is missing"),
    "deleted-delays": (lambda run: (run / "delay_quantiles.parquet").unlink(), "delay_quantiles.parquet is missing"),
}


def only_warning(record: pytest.WarningsRecorder, key: str, what: str) -> None:
    messages = [str(w.message) for w in record]
    assert len(messages) == 1, messages
    assert key in messages[0] and what in messages[0] and "a sweep recomputes it" in messages[0]


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_run_is_reported_once_left_out_and_recomputed(pristine: Path, store: Path, damage: str) -> None:
    intact = open_store(pristine)
    run = first_run(store)
    key = run.name
    apply, what = DAMAGES[damage]
    apply(run)

    with pytest.warns(StoreDamagedWarning) as record:
        res = open_store(store)
        res.summary()
        res.series()
    only_warning(record, key, what)
    assert res.missing == 1 and res.failures.empty
    others = intact.metrics[intact.metrics["run_id"] != key].reset_index(drop=True)
    pd.testing.assert_frame_equal(res.metrics, others, check_exact=True)
    kept = intact.runs[intact.runs["run_id"] != key].reset_index(drop=True)
    pd.testing.assert_frame_equal(res.runs, kept, check_exact=True)
    assert set(res.links["run_id"]) == set(others["run_id"])

    with pytest.warns(StoreDamagedWarning) as record:
        again, executed = sweep(store)
    only_warning(record, key, what)
    assert executed == [key]
    pd.testing.assert_frame_equal(again.metrics, intact.metrics, check_exact=True)
    pd.testing.assert_frame_equal(again.runs, intact.runs, check_exact=True)
    # the recomputed run is whole: reading the store now warns of nothing (warnings are errors)
    pd.testing.assert_frame_equal(open_store(store).metrics, intact.metrics, check_exact=True)


def test_run_json_records_sizes_and_checksums_of_the_files(store: Path) -> None:
    import hashlib

    run = first_run(store)
    info = json.loads((run / "run.json").read_text())
    assert set(info["files"]) == {"flows.parquet", "links.parquet", "delay_quantiles.parquet"}
    for name, rec in info["files"].items():
        data = (run / name).read_bytes()
        assert rec == {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    # an altered value in run.json itself (still valid JSON) does not match the record's checksum
    info["metrics"]["goodput_bps"] = 1.0
    (run / "run.json").write_text(json.dumps(info))
    with pytest.warns(StoreDamagedWarning, match=f"run {run.name} is damaged .run.json does not match its checksum"):
        assert open_store(store).missing == 1


def test_runs_written_without_checksums_are_still_read(pristine: Path, store: Path) -> None:
    """A store written before checksums were recorded: accepted unverified; a table that cannot
    be parsed is still reported, not raised."""
    for run in (store / "runs").iterdir():
        info = json.loads((run / "run.json").read_text())
        del info["files"], info["checksum"]
        (run / "run.json").write_text(json.dumps(info))
    pd.testing.assert_frame_equal(open_store(store).runs, open_store(pristine).runs, check_exact=True)
    run = first_run(store)
    truncate(run / "flows.parquet")
    with pytest.warns(StoreDamagedWarning, match=f"run {run.name} is damaged .flows.parquet cannot be read") as record:
        res = open_store(store)
    assert len(record) == 1 and len(res.metrics) == 3 and run.name not in set(res.runs["run_id"])


def test_cli_results_on_a_damaged_store_warns_in_one_line_and_exits_0(store: Path) -> None:
    run = first_run(store)
    (run / "flows.parquet").unlink()
    out = subprocess.run([str(CCARENA), "results", str(store), "--table", "summary"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr and out.stderr.count("\n") == 1, out.stderr
    assert out.stderr.startswith(f"warning: run {run.name} is damaged (flows.parquet is missing)"), out.stderr
    assert "goodput_bps" in out.stdout


def test_bad_store_paths_are_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ExperimentError, match="expected a store directory .a path., got None"):
        open_store(None)
    f = tmp_path / "file.txt"
    f.write_text("x")
    with pytest.raises(ExperimentError, match="is a file, not a store directory"):
        open_store(f)
    with pytest.raises(ExperimentError, match="does not exist"):
        open_store(tmp_path / "nowhere")
    with pytest.raises(ExperimentError, match="holds no experiment results"):
        open_store(tmp_path)


def test_an_unreadable_experiment_record_is_one_error(store: Path) -> None:
    truncate(store / "experiments" / "integrity.json")
    with pytest.raises(ExperimentError, match="integrity.json is unreadable or incomplete"):
        open_store(store)


def test_an_unreadable_failure_record_is_reported_and_the_run_retried(tmp_path: Path) -> None:
    exp = Experiment(RENO_PAIR, grid={"topology.bottleneck_rate": ["-3Mbps"]}, overrides=["duration=4s", "warmup=1s"], name="bad")
    res = exp.run(tmp_path, jobs=1)
    assert len(res.failures) == 1
    record = next((tmp_path / "failed").glob("*.json"))
    truncate(record)
    with pytest.warns(StoreDamagedWarning, match=f"run {record.stem} is damaged .its failure record {record.name} is unreadable") as rec:
        again = open_store(tmp_path)
    assert len(rec) == 1 and again.failures.empty and again.missing == 1
    assert len(exp.run(tmp_path, jobs=1).failures) == 1  # the next sweep records the failure again
