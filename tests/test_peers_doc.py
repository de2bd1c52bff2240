"""docs/peers.md's examples, run as printed (skipped where ns-2 is not installed)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from ccarena.peers import ns2

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "peers.md"
pytestmark = pytest.mark.skipif(ns2.available() is not None, reason=ns2.available() or "")


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", DOC.read_text(), re.S)


def _ccarena(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    args = shlex.split(command)
    assert args[0] == "ccarena", command
    return subprocess.run([sys.executable, "-m", "ccarena", *args[1:]], capture_output=True, text=True, cwd=cwd, timeout=600)


def test_the_compare_example_prints_the_table_the_page_shows(tmp_path: Path) -> None:
    compare = next(b for b in _blocks("sh") if b.startswith("ccarena compare")).strip()
    out = _ccarena(compare + f" -o {tmp_path}", REPO)
    assert out.returncode == 0, out.stderr
    printed = next(b for b in _blocks("text") if b.startswith("metric"))
    assert out.stdout.splitlines()[0].split() == printed.splitlines()[0].split()
    for line in printed.splitlines()[1:]:
        if line.strip() and line.strip() != "...":
            assert any(got.startswith(line.split("  ")[0]) for got in out.stdout.splitlines()), line


def test_the_refusal_the_page_quotes_is_what_compare_prints(tmp_path: Path) -> None:
    quoted = re.search(r"`(ns2: not run: [^`]+)`", " ".join(DOC.read_text().split()))
    assert quoted
    out = _ccarena(f"ccarena compare scenarios/reno-pair.toml --with sim,ns2 -n 1 --set duration=2s --set warmup=0s -o {tmp_path}", REPO)
    assert out.returncode == 0, out.stderr
    assert quoted.group(1) in out.stdout


def test_the_python_example_runs() -> None:
    code = _blocks("python")[0]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.splitlines()
    assert first.startswith("ns2 ") and second == "True"


def test_the_fidelity_example_writes_the_pages(tmp_path: Path) -> None:
    command = next(b for b in _blocks("sh") if b.startswith("ccarena fidelity")).strip()
    out = _ccarena(command.replace("-o out/fidelity", f"-o {tmp_path}"), REPO)
    assert out.returncode == 0, out.stderr
    page = (tmp_path / "fidelity.md").read_text()
    assert "| reno | one-flow |" in page and "ns-2.35" in page
    assert (tmp_path / "fidelity.html").read_text().startswith("<!doctype html>")


def test_the_ns3_example_runs_like_for_like(tmp_path: Path) -> None:
    from ccarena.peers import ns3

    if ns3.available() is not None:
        pytest.skip(ns3.available() or "")
    command = next(b for b in _blocks("sh") if "--with sim,ns3" in b).strip()
    out = _ccarena(command + f" -o {tmp_path}", REPO)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0].split()[:5] == ["metric", "sim", "(n=1)", "ns3", "(n=1)"]
    assert "not run" not in out.stdout
