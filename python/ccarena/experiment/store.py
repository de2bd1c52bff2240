"""The result store: a directory of finished runs, each written atomically, read as tidy tables.

Layout (docs/experiments.md, "The store")::

    STORE/
      runs/<key>/run.json            the run: seed, metrics, engine counters, ccarena version
      runs/<key>/flows.parquet       its RunResult.flows table     (pyarrow writes and reads Parquet)
      runs/<key>/links.parquet       its RunResult.links table
      runs/<key>/delay_quantiles.parquet   its RunResult.delay_quantiles table (runs stored
                                     by earlier versions have none)
      runs/<key>/flow_series.parquet, link_series.parquet   with series=True only
      failed/<key>.json              a run that failed, with its error
      experiments/<name>.json        an experiment: its keys and, per run, key/point/replication/params

``<key>`` is the SHA-256 of the run's normalised scenario (defaults filled in by the core, seed
included) and the ccarena version, so the same run is found whatever experiment asked for it,
and a new version recomputes. A run is written into ``runs/.tmp-*`` and renamed into place:
a directory under ``runs/`` that does not start with ``.`` is always complete, even after SIGKILL.

``run.json`` is written last and records the size and SHA-256 of each table file (``files``) and
of its own content (``checksum``). Reading checks them: a run whose files are missing, truncated
or altered, or whose JSON does not parse, is *damaged*: one :class:`StoreDamagedWarning` names it,
it is left out of the results and :meth:`Store.has` says it is not there, so the next sweep
recomputes it. Runs written before checksums were recorded are read unverified. Tables and
metrics stored before columns were renamed are read under the new names
(:func:`ccarena._aliases.upgrade_table`).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import uuid
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from ccarena import _aliases
from ccarena.errors import ExperimentError, OutputError, StoreDamagedWarning

TABLES = ("flows", "links", "delay_quantiles", "flow_series", "link_series")


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


def _file_digest(path: Path) -> tuple[int, str]:
    """Size in bytes and SHA-256 (hex) of a file, read in 1 MiB blocks."""
    h = hashlib.sha256()
    size = 0
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
            size += len(block)
    return size, h.hexdigest()


def _json_checksum(info: Mapping[str, Any]) -> str:
    """SHA-256 of a run record without its ``checksum`` field, in a canonical JSON form (what
    parsing the stored file gives back prints the same, so the check needs no raw bytes)."""
    rest = {k: v for k, v in info.items() if k != "checksum"}
    text = json.dumps(_jsonable(rest), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


#: A run directory's state as seen by stat: (name, size, mtime_ns, inode) of every file in it.
_Signature = tuple[tuple[str, int, int, int], ...]


class Store:
    """A result-store directory (created on first write)."""

    def __init__(self, root: str | Path) -> None:
        if str(root).strip() == "":
            raise OutputError("store: the directory name is empty")
        self.root = Path(root)
        if self.root.exists() and not self.root.is_dir():
            raise OutputError(f"store: {self.root} exists and is not a directory")
        # Verification results by run key, valid while the run directory's files keep their
        # signature: the tables are hashed once per Store, not at every has() / read_table().
        self._checked: dict[str, tuple[_Signature, str | None, dict[str, Any] | None]] = {}
        self._reported: set[tuple[str, str]] = set()

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
        """Whether the run is stored and intact (a damaged run is reported and counts as absent)."""
        return (self.runs_dir / key).is_dir() and self.problem(key) is None

    def problem(self, key: str) -> str | None:
        """What is wrong with a stored run (reported once as a :class:`StoreDamagedWarning`), or
        None when it is intact or not stored at all."""
        return self._check(key)[0]

    def _check(self, key: str) -> tuple[str | None, dict[str, Any] | None]:
        run_dir = self.runs_dir / key
        try:
            with os.scandir(run_dir) as it:
                sig: _Signature = tuple(sorted(
                    (e.name, st.st_size, st.st_mtime_ns, st.st_ino)
                    for e in it if not e.name.startswith(".") for st in (e.stat(),)
                ))
        except (FileNotFoundError, NotADirectoryError):
            return None, None
        cached = self._checked.get(key)
        if cached is None or cached[0] != sig:
            cached = (sig, *_verify(run_dir))
            self._checked[key] = cached
        problem = cached[1]
        if problem is not None:
            self._report(key, problem)
        return problem, cached[2]

    def _damaged(self, key: str, problem: str) -> None:
        """Record damage found while reading a table (runs without checksums show it only then)."""
        cached = self._checked.get(key)
        if cached is not None:
            self._checked[key] = (cached[0], problem, None)
        self._report(key, problem)

    def _report(self, key: str, problem: str) -> None:
        if (key, problem) in self._reported:
            return
        self._reported.add((key, problem))
        # warn_explicit, located at the store rather than at a line of ccarena, so that the
        # default display is this one line instead of a path into the package and its source line.
        warnings.warn_explicit(
            f"run {key} is damaged ({problem}); it is treated as not run, so a sweep recomputes it",
            StoreDamagedWarning, str(self.root), 0, module="ccarena.experiment.store",
        )

    def write_run(self, key: str, tables: Mapping[str, pd.DataFrame], info: Mapping[str, Any]) -> None:
        """Store a finished run atomically (replacing an older copy) and clear its failure record.

        The tables are written first, then ``run.json`` with each table file's size and SHA-256
        and the record's own checksum."""
        final = self.runs_dir / key
        tmp = self.runs_dir / f".tmp-{key}-{uuid.uuid4().hex}"
        tmp.mkdir()
        files = {}
        for name, df in tables.items():
            path = tmp / f"{name}.parquet"
            df.to_parquet(path, index=False)
            size, digest = _file_digest(path)
            files[path.name] = {"bytes": size, "sha256": digest}
        # the checksum is taken of the record as it will read back (JSON turns tuples into lists
        # and keys into strings), so that verifying needs only the parsed file
        record: dict[str, Any] = json.loads(json.dumps(_jsonable({**info, "files": files})))
        record["checksum"] = _json_checksum(record)
        _write_json_atomic(tmp / "run.json", record)
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
        self._checked.pop(key, None)
        self._reported = {r for r in self._reported if r[0] != key}
        (self.failed_dir / f"{key}.json").unlink(missing_ok=True)

    def write_failure(self, key: str, info: Mapping[str, Any]) -> None:
        _write_json_atomic(self.failed_dir / f"{key}.json", info)

    def write_experiment(self, name: str, description: Mapping[str, Any]) -> None:
        _write_json_atomic(self.experiments_dir / f"{_safe_name(name)}.json", description)

    def experiments(self) -> dict[str, dict[str, Any]]:
        """Every experiment recorded in the store, by name."""
        out = {}
        for p in sorted(self.experiments_dir.glob("*.json")):
            if p.name.startswith("."):
                continue
            data = _read_json(p)
            if not isinstance(data, dict) or not {"name", "keys", "replications", "runs"} <= data.keys():
                raise ExperimentError(f"store: {p} is unreadable or incomplete; run the experiment's sweep again to rewrite it")
            out[p.stem] = data
        return out

    def run_info(self, key: str) -> dict[str, Any]:
        """The record of an intact stored run (:meth:`has`), its metrics under their current names."""
        problem, info = self._check(key)
        if info is None:
            raise ExperimentError(f"store: run {key} is {'damaged' if problem else 'not in ' + str(self.root)}")
        return {**info, "metrics": _aliases.upgrade_metrics(info["metrics"])}

    def failure(self, key: str) -> dict[str, Any] | None:
        """The failure record of a run, or None (also when the record is unreadable: the run is
        then simply not done, and the next sweep retries it)."""
        p = self.failed_dir / f"{key}.json"
        if not p.is_file():
            return None
        data = _read_json(p)
        if not isinstance(data, dict):
            self._report(key, f"its failure record {p.name} is unreadable")
            return None
        return data

    def read_table(self, key: str, table: str) -> pd.DataFrame | None:
        """A table of an intact stored run, with the current column names; None when the run has
        no such table or is damaged."""
        p = self.runs_dir / key / f"{table}.parquet"
        if not p.is_file() or self.problem(key) is not None:
            return None
        try:
            df = pd.read_parquet(p)
        except Exception as exc:  # noqa: BLE001 - pyarrow raises several types for a bad file
            self._damaged(key, f"{p.name} cannot be read: {type(exc).__name__}")
            return None
        return _aliases.upgrade_table(table, df)


def _read_json(path: Path) -> Any:
    """A JSON file's content, or None when it cannot be read or parsed (missing, truncated)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None


def _verify(run_dir: Path) -> tuple[str | None, dict[str, Any] | None]:
    """(what is wrong, None) or (None, the run record) for a run directory."""
    info_path = run_dir / "run.json"
    if not info_path.is_file():
        return "run.json is missing", None
    info = _read_json(info_path)
    if not isinstance(info, dict) or not isinstance(info.get("metrics"), dict):
        return "run.json cannot be parsed (truncated or altered)", None
    files, checksum = info.get("files"), info.get("checksum")
    if files is None and checksum is None:
        # written before checksums were recorded: accepted unverified, with the two tables
        # every run has; a table that turns out unreadable is reported by read_table
        for name in ("flows.parquet", "links.parquet"):
            if not (run_dir / name).is_file():
                return f"{name} is missing", None
        return None, info
    if not isinstance(files, dict) or checksum != _json_checksum(info):
        return "run.json does not match its checksum (altered)", None
    for name, rec in sorted(files.items()):
        path = run_dir / name
        if not path.is_file():
            return f"{name} is missing", None
        try:
            size, digest = _file_digest(path)
        except OSError as exc:
            return f"{name} cannot be read ({exc.strerror or exc})", None
        if size != rec.get("bytes"):
            return f"{name} has {size} bytes, {rec.get('bytes')} were written", None
        if digest != rec.get("sha256"):
            return f"{name} does not match its checksum (altered)", None
    return None, info


def _safe_name(name: str) -> str:
    keep = "".join(c if c.isalnum() or c in "-_.@" else "-" for c in name).strip(".")
    return keep or "experiment"


def open_store(root: str | Path | None, experiment: str | None = None) -> Any:
    """Read a store written by :meth:`Experiment.run` (``ccarena sweep``) without running
    anything: the result of ``experiment`` (by name), or of the only experiment it holds.
    Raises :class:`ExperimentError` if the store or the experiment is not there."""
    from ccarena.experiment.result import ExperimentResult

    if root is None or not isinstance(root, (str, os.PathLike)):
        raise ExperimentError(f"store: expected a store directory (a path), got {root!r}")
    path = Path(root)
    if not path.exists():
        raise ExperimentError(f"store: {path} does not exist (run `ccarena sweep` first)")
    if not path.is_dir():
        raise ExperimentError(f"store: {path} is a file, not a store directory")
    store = Store(path)
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

