"""Mutated-scenario corpus: every key of the example scenarios × classes of bad values, through
``ccarena validate`` and (for the accepted ones) ``ccarena run --set duration=1s --json``.

Usage::

    python tools/mutate_scenarios.py [--out DIR] [--jobs N] [--timeout S] [--limit N] [--every K]

Writes the corpus to ``DIR/corpus/`` (TOML files, written with tomli-w) and prints the count per
outcome: a clean error (exit 2, one line on stderr), accepted, a traceback, an abort (killed by a
signal or another exit status) or a hang (over ``--timeout`` seconds). Files of the last three
classes are listed for reproduction. The aim: zero aborts, hangs and tracebacks.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import copy
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

import tomli_w

ROOT = Path(__file__).resolve().parents[1]
CCARENA = [sys.executable, "-m", "ccarena.cli"]

#: The mutation classes: (name, the value put in place of a key's value).
MUTATIONS: list[tuple[str, Any]] = [
    ("string", "x"),
    ("empty-string", ""),
    ("list", [1, 2]),
    ("table", {"a": 1}),
    ("bool", True),
    ("zero", 0),
    ("negative", -1),
    ("huge-int", 2**62),
    ("huge-float", 1e30),
    ("tiny-float", 1e-30),
    ("zero-unit", "0s"),
    ("negative-unit", "-5ms"),
    ("huge-unit", "1e30Gbps"),
    ("tiny-unit", "1e-12s"),
    ("huge-size", "1e18pkt"),
]


def paths(value: Any, prefix: str = "") -> list[str]:
    """Every key path of a scenario document (``flows[0].app.rate``), leaves and tables."""
    out = []
    if isinstance(value, dict):
        for k, v in value.items():
            p = f"{prefix}.{k}" if prefix else k
            out.append(p)
            out.extend(paths(v, p))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            if isinstance(v, (dict, list)):
                out.extend(paths(v, f"{prefix}[{i}]"))
    return out


def mutants(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    from ccarena import scenario

    out = []
    for key in paths(doc):
        for name, value in MUTATIONS:
            m = copy.deepcopy(doc)
            scenario.set_key(m, key, copy.deepcopy(value))
            out.append((f"{key}={name}", m))
        m = copy.deepcopy(doc)
        parent, _, _ = key.rpartition(".")
        try:
            scenario.set_key(m, f"{parent}.bogus_key" if parent else "bogus_key", 1)
            out.append((f"{key}:unknown-sibling", m))
        except Exception:  # noqa: BLE001 - a sibling of a list element cannot be added
            pass
    return out


def deep_nesting(doc: dict[str, Any], depth: int) -> str:
    """The scenario with an array nested ``depth`` deep (TOML writers recurse: written by hand)."""
    return tomli_w.dumps(doc) + "\ndeep = " + "[" * depth + "1" + "]" * depth + "\n"


def classify(proc: subprocess.CompletedProcess[str] | None) -> str:
    if proc is None:
        return "hang"
    if "Traceback" in proc.stderr:
        return "traceback"
    if proc.returncode == 0:
        return "accepted"
    if proc.returncode == 2 and proc.stderr.count("\n") <= 1 and proc.stderr.startswith("error: "):
        return "clean-error"
    return "abort"


def run(args: list[str], timeout: float) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run([*CCARENA, *args], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def check(path: Path, timeout: float) -> tuple[str, str | None]:
    """(outcome of validate, outcome of run or None when validate refused the file)."""
    v = classify(run(["validate", str(path)], timeout))
    if v != "accepted":
        return v, None
    return v, classify(run(["run", str(path), "--set", "duration=1s", "--json"], timeout))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "out" / "mutations")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--limit", type=int, default=None, help="check only the first N files")
    ap.add_argument("--every", type=int, default=1, help="check every K-th file only (a spread sample)")
    a = ap.parse_args()
    corpus = a.out / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    files = []
    for example in sorted((ROOT / "scenarios").glob("*.toml")):
        doc = tomllib.loads(example.read_text(encoding="utf-8"))
        for i, (label, m) in enumerate(mutants(doc)):
            f = corpus / f"{example.stem}-{i:04d}.toml"
            f.write_text(f"# {example.name}: {label}\n" + tomli_w.dumps(m), encoding="utf-8")
            files.append(f)
        for depth in (100, 300, 500):
            f = corpus / f"{example.stem}-deep{depth}.toml"
            f.write_text(f"# {example.name}: nested {depth} deep\n" + deep_nesting(doc, depth), encoding="utf-8")
            files.append(f)
    files = files[:: a.every]
    files = files[: a.limit] if a.limit else files
    print(f"{len(files)} mutated scenarios in {corpus}", file=sys.stderr)
    validate_counts: Counter[str] = Counter()
    run_counts: Counter[str] = Counter()
    bad: list[str] = []
    with cf.ThreadPoolExecutor(a.jobs) as pool:
        for f, (v, r) in zip(files, pool.map(lambda p: check(p, a.timeout), files)):
            validate_counts[v] += 1
            if r is not None:
                run_counts[r] += 1
            if v in ("traceback", "abort", "hang") or r in ("traceback", "abort", "hang"):
                bad.append(f"{f.name}: validate {v}, run {r}")
    print(f"validate: {dict(sorted(validate_counts.items()))}")
    print(f"run --set duration=1s: {dict(sorted(run_counts.items()))}")
    for line in bad:
        print("  " + line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
