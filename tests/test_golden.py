"""Golden results: every example scenario's summary, at its own seed, must stay identical.

Speed work on the engine (event queue, routing, packet layout) must not change what a run
computes. Each example scenario (and each benchmark case) runs for a shortened duration and its
summary JSON, without the wall-clock time, is compared field by field with the copy stored in
``tests/golden/<name>.json``. A change that is intended (a model fix, new TCP behaviour) is
recorded by regenerating the files with ``make golden`` and reviewing the diff.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pytest

import ccarena

REPO = Path(__file__).resolve().parent.parent
GOLDEN = REPO / "tests" / "golden"
SCENARIOS = sorted((REPO / "python" / "ccarena" / "scenarios").glob("*.toml")) + sorted(
    (REPO / "python" / "ccarena" / "scenarios" / "bench").glob("*.toml")
)
# Long enough for slow start, losses and recovery and for late-starting flows on every example;
# the high-rate cases (millions of events per simulated second) run shorter so that the whole set
# takes seconds. Warm-up is cut to a fifth of the duration so the measured window is not empty.
DURATION_S = 30
SHORT_S = {"b1": 3, "b2": 0.5, "seed003-parking-lot": 3, "recovery-compare": 2}
UPDATE = os.environ.get("CCARENA_UPDATE_GOLDEN") == "1"


def _overrides(path: Path) -> list[str]:
    d = SHORT_S.get(path.stem, DURATION_S)
    return [f"duration={d}s", f"warmup={d / 5}s"]


def _summary(path: Path) -> dict[str, Any]:
    result = ccarena.run(path, overrides=_overrides(path))
    summary = result.summary()
    del summary["engine"]["wall_s"]  # the only field that depends on the machine
    return summary


def _diff(expected: Any, actual: Any, where: str = "") -> list[str]:
    """Every field that differs, named by its path; floats must match bit for bit."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        out = [f"{where}.{k}: missing" for k in expected.keys() - actual.keys()]
        out += [f"{where}.{k}: unexpected" for k in actual.keys() - expected.keys()]
        for k in sorted(expected.keys() & actual.keys()):
            out += _diff(expected[k], actual[k], f"{where}.{k}")
        return out
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return [f"{where}: {len(actual)} entries, expected {len(expected)}"]
        return [d for i, (e, a) in enumerate(zip(expected, actual)) for d in _diff(e, a, f"{where}[{i}]")]
    same = expected == actual or (
        isinstance(expected, float) and isinstance(actual, float) and math.isnan(expected) and math.isnan(actual)
    )
    return [] if same else [f"{where}: {actual!r}, expected {expected!r}"]


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_summary_matches_golden(path: Path) -> None:
    golden = GOLDEN / f"{path.stem}.json"
    summary = _summary(path)
    if UPDATE:
        record = {"scenario": str(path.relative_to(REPO)), "overrides": _overrides(path), "summary": summary}
        golden.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    assert golden.exists(), f"no golden file for {path.name}: run `make golden` and commit tests/golden/{golden.name}"
    stored = json.loads(golden.read_text())
    assert stored["overrides"] == _overrides(path)
    assert summary["seed"] == stored["summary"]["seed"]
    differences = _diff(stored["summary"], json.loads(json.dumps(summary)))
    assert not differences, f"{path.name} differs from {golden.name} (run `make golden` if intended):\n" + "\n".join(
        differences[:30]
    )


def test_diff_names_each_changed_field() -> None:
    a = {"flows": [{"goodput_bps": 1.0, "x": float("nan")}], "jain": 0.5}
    b = {"flows": [{"goodput_bps": 1.0000000000000002, "x": float("nan")}], "jain": 0.5}
    assert _diff(a, a) == []
    assert _diff(a, b) == [".flows[0].goodput_bps: 1.0000000000000002, expected 1.0"]
    assert _diff({"a": 1}, {"b": 1}) == [".a: missing", ".b: unexpected"]
