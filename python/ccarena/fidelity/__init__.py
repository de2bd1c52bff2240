"""``ccarena fidelity``: a fixed suite of scenarios on the simulator and the peer simulators
(ns-2, ns-3), compared metric by metric, written as docs/fidelity.md and fidelity.html.

``run(backends, ...)`` runs the suite and returns its rows; ``write(directory, rows, meta)``
writes the pages and ``fidelity.json`` (every value, so the pages can be checked or redrawn);
``merge_base`` and ``merged`` put re-run rows into the table a directory already holds.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ccarena.errors import ScenarioError
from ccarena.fidelity.page import generated_now, markdown, page_html
from ccarena.fidelity.run import DEFAULT_BACKENDS, RowResult, run_suite
from ccarena.fidelity.suite import rows

__all__ = ["DEFAULT_BACKENDS", "run_suite", "write", "merge_base", "merged", "rows", "RowResult"]


def write(directory: str | Path, results: list[RowResult], meta: dict[str, Any]) -> list[Path]:
    """Write fidelity.md, fidelity.html and fidelity.json into ``directory``; return the paths."""
    from ccarena import __version__

    meta = {"generated": generated_now(), "version": __version__, **meta}
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "fidelity.md", out / "fidelity.html", out / "fidelity.json"]
    paths[0].write_text(markdown(results, meta))
    paths[1].write_text(page_html(results, meta))
    paths[2].write_text(json.dumps({"meta": meta, "rows": [r.to_dict() for r in results]}, indent=1, allow_nan=False) + "\n")
    return paths


def merge_base(directory: str | Path, meta: dict[str, Any], rerun: Iterable[str], peers: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The rows of ``directory``'s fidelity.json, by key, to merge re-run rows (keys ``rerun``,
    on ``peers``) into: the table must have been run the same way (peers, replications,
    duration) and hold every other row of the suite."""
    path = Path(directory) / "fidelity.json"
    if not path.is_file():
        raise ScenarioError(f"--merge: {path} does not exist: run the whole suite into {directory} first")
    try:
        old = json.loads(path.read_text())
        kept = {r["row"]: r for r in old["rows"]}
        old_meta = old["meta"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ScenarioError(f"--merge: {path} is not a fidelity table to merge into ({exc.__class__.__name__}: {exc})") from None
    for key in ("replications", "duration"):
        if old_meta.get(key) != meta.get(key):
            raise ScenarioError(f"--merge: {path} was run with {key} = {old_meta.get(key)!r}, this run with "
                                f"{meta.get(key)!r}: run both alike")
    had = sorted({b for r in kept.values() for b in (*r["values"], *r["skipped"]) if not b.startswith("sim:")})
    if had != sorted(set(peers) - {"sim"}):
        raise ScenarioError(f"--merge: {path} compares with {', '.join(had) or 'no peer'}, this run with "
                            f"{', '.join(sorted(set(peers) - {'sim'})) or 'no peer'}: run both alike")
    coming = set(rerun)
    for row in rows():
        if row.key not in kept and row.key not in coming:
            raise ScenarioError(f"--merge: {path} has no row {row.key!r}: re-run it too (--only {row.cc})")
    return kept


def merged(kept: dict[str, dict[str, Any]], results: list[RowResult]) -> list[RowResult]:
    """The whole suite's rows: ``results`` in place of the same rows of ``kept`` (:func:`merge_base`)."""
    new = {r.row.key: r for r in results}
    return [new[row.key] if row.key in new else RowResult.from_dict(kept[row.key], row) for row in rows()]
