"""The result store: a directory of finished runs, each written atomically, read as tidy tables.

Layout (docs/experiments.md, "The store")::

    STORE/
      runs/<key>/run.json            the run: seed, metrics, engine counters, ccarena version
      runs/<key>/flows.parquet       its RunResult.flows table     (pyarrow writes and reads Parquet)
      runs/<key>/links.parquet       its RunResult.links table
      runs/<key>/flow_series.parquet, link_series.parquet   with series=True only
      failed/<key>.json              a run that failed, with its error
      experiments/<name>.json        an experiment: its keys and, per run, key/point/replication/params

``<key>`` is the SHA-256 of the run's normalised scenario (defaults filled in by the core, seed
included) and the ccarena version, so the same run is found whatever experiment asked for it,
and a new version recomputes. A run is written into ``runs/.tmp-*`` and renamed into place:
a directory under ``runs/`` that does not start with ``.`` is always complete, even after SIGKILL.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from ccarena.errors import ExperimentError, OutputError

TABLES = ("flows", "links", "flow_series", "link_series")


def run_key(normalised_scenario: Mapping[str, Any], version: str) -> str:
    """The content hash that names a run in the store."""
    text = json.dumps({"scenario": normalised_scenario, "version": version}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value


def _write_json_atomic(path: Path, data: Any) -> None:
    tmp = path.with_name(f".tmp-{path.name}-{uuid.uuid4().hex}")
    tmp.write_text(json.dumps(_jsonable(data), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)


class Store:
    """A result-store directory (created on first write)."""

    def __init__(self, root: str | Path) -> None:
        if str(root).strip() == "":
            raise OutputError("store: the directory name is empty")
        self.root = Path(root)
        if self.root.exists() and not self.root.is_dir():
            raise OutputError(f"store: {self.root} exists and is not a directory")

    @property
    def runs_dir(self) -> Path:
        return self.root / "runs"

    @property
    def failed_dir(self) -> Path:
        return self.root / "failed"

    @property
    def experiments_dir(self) -> Path:
        return self.root / "experiments"

    def prepare(self) -> None:
        """Create the directories and sweep away what a killed writer left half-done."""
        try:
            for d in (self.runs_dir, self.failed_dir, self.experiments_dir):
                d.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputError(f"store: cannot create {self.root} ({exc.strerror or exc})") from None
        for d in (self.runs_dir, self.failed_dir, self.experiments_dir):
            for tmp in d.glob(".tmp-*"):
                shutil.rmtree(tmp, ignore_errors=True) if tmp.is_dir() else tmp.unlink(missing_ok=True)

    def has(self, key: str) -> bool:
        return (self.runs_dir / key).is_dir()

    def write_run(self, key: str, tables: Mapping[str, pd.DataFrame], info: Mapping[str, Any]) -> None:
        """Store a finished run atomically (replacing an older copy) and clear its failure record."""
        final = self.runs_dir / key
        tmp = self.runs_dir / f".tmp-{key}-{uuid.uuid4().hex}"
        tmp.mkdir()
        for name, df in tables.items():
            df.to_parquet(tmp / f"{name}.parquet", index=False)
        (tmp / "run.json").write_text(json.dumps(_jsonable(dict(info)), indent=1, sort_keys=True) + "\n", encoding="utf-8")
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
        (self.failed_dir / f"{key}.json").unlink(missing_ok=True)

    def write_failure(self, key: str, info: Mapping[str, Any]) -> None:
        _write_json_atomic(self.failed_dir / f"{key}.json", info)

    def write_experiment(self, name: str, description: Mapping[str, Any]) -> None:
        _write_json_atomic(self.experiments_dir / f"{_safe_name(name)}.json", description)

    def experiments(self) -> dict[str, dict[str, Any]]:
        """Every experiment recorded in the store, by name."""
        out = {}
        for p in sorted(self.experiments_dir.glob("*.json")):
            if not p.name.startswith("."):
                out[p.stem] = json.loads(p.read_text(encoding="utf-8"))
        return out

    def run_info(self, key: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.runs_dir / key / "run.json").read_text(encoding="utf-8"))
        return data

    def failure(self, key: str) -> dict[str, Any] | None:
        p = self.failed_dir / f"{key}.json"
        if not p.is_file():
            return None
        data: dict[str, Any] = json.loads(p.read_text(encoding="utf-8"))
        return data

    def read_table(self, key: str, table: str) -> pd.DataFrame | None:
        p = self.runs_dir / key / f"{table}.parquet"
        return pd.read_parquet(p) if p.is_file() else None


def _safe_name(name: str) -> str:
    keep = "".join(c if c.isalnum() or c in "-_." else "-" for c in name).strip(".")
    return keep or "experiment"


def open_store(root: str | Path, experiment: str | None = None) -> Any:
    """Read a store written by :meth:`Experiment.run` (``ccarena sweep``) without running
    anything: the result of ``experiment`` (by name), or of the only experiment it holds.
    Raises :class:`ExperimentError` if the store or the experiment is not there."""
    from ccarena.experiment.result import ExperimentResult

    store = Store(root)
    if not store.experiments_dir.is_dir():
        raise ExperimentError(f"store: {store.root} holds no experiment results (run `ccarena sweep` first)")
    found = store.experiments()
    if not found:
        raise ExperimentError(f"store: {store.root} holds no experiment results (run `ccarena sweep` first)")
    if experiment is None:
        if len(found) > 1:
            raise ExperimentError(f"store: {store.root} holds several experiments ({', '.join(found)}); name one")
        experiment = next(iter(found))
    if _safe_name(experiment) not in found:
        raise ExperimentError(f"store: no experiment {experiment!r} in {store.root} (it has: {', '.join(found)})")
    return ExperimentResult.from_description(store, found[_safe_name(experiment)])

