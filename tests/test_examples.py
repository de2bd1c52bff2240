"""The bundled examples (`ccarena.examples`, docs/cli.md "Scenario arguments" and `ccarena
examples`): found by name from any directory, listed, copied out without overwriting, and a name
that is neither a file nor an example is one error line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ccarena import examples

SCENARIOS = Path(examples.__file__).resolve().parent / "scenarios"


def _ccarena(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ccarena", *args], cwd=cwd, capture_output=True, text=True, check=False)


def test_every_example_is_listed_with_its_first_comment_line() -> None:
    listed = {e.name: e for e in examples.all_examples()}
    on_disk = {p.stem for p in SCENARIOS.glob("*.toml")} | {f"{d}/{p.stem}" for d in examples.FOLDERS for p in (SCENARIOS / d).glob("*.toml")}
    assert set(listed) == on_disk and "reno-pair" in listed and "bench/b1" in listed
    assert listed["reno-pair"].summary == "Two Reno flows share a bottleneck"
    assert all(e.summary for e in listed.values()), [e.name for e in listed.values() if not e.summary]
    assert not any(name.startswith("papers/") for name in listed)  # those belong to `ccarena reproduce`


@pytest.mark.parametrize("name", ["reno-pair", "reno-pair.toml", "bench/b3", "experiments/reno-vs-cubic"])
def test_a_name_resolves_where_no_file_of_that_name_exists(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert examples.resolve(name) == SCENARIOS / f"{name.removesuffix('.toml')}.toml"
    (tmp_path / "reno-pair.toml").write_text("# mine\n")  # a user's file of that name wins
    assert examples.resolve("reno-pair.toml") == Path("reno-pair.toml")


def test_the_cli_runs_an_example_by_name_and_copies_one_out(tmp_path: Path) -> None:
    # docs/cli.md, `ccarena examples`
    listed = _ccarena(tmp_path, "examples")
    assert listed.returncode == 0 and listed.stdout.splitlines()[0].split() == ["name", "what", "it", "shows"]
    copied = _ccarena(tmp_path, "examples", "--copy", "reno-pair", "-o", "mine")
    assert copied.returncode == 0 and copied.stdout.strip() == f"wrote {Path('mine') / 'reno-pair.toml'}", copied.stderr
    ran = _ccarena(tmp_path, "run", "mine/reno-pair.toml", "--set", "duration=20s")
    assert ran.returncode == 0 and ran.stdout.startswith("reno-pair: 20 s simulated"), ran.stderr
    by_name = _ccarena(tmp_path, "validate", "recovery-compare")
    assert by_name.returncode == 0 and by_name.stdout.startswith("ok: recovery-compare"), by_name.stderr
    again = _ccarena(tmp_path, "examples", "--copy", "reno-pair", "-o", "mine")
    assert again.returncode == 2 and again.stderr.strip() == f"error: {Path('mine') / 'reno-pair.toml'}: already exists; not overwritten"


def test_a_copied_experiment_comes_with_its_base_and_runs(tmp_path: Path) -> None:
    from ccarena import Experiment

    mine = Path("mine")
    # The base copied out before, unchanged: kept, and the experiment still comes out.
    assert _ccarena(tmp_path, "examples", "--copy", "reno-pair", "-o", "mine").returncode == 0
    copied = _ccarena(tmp_path, "examples", "--copy", "experiments/reno-vs-cubic", "-o", "mine")
    assert copied.stdout.strip() == f"wrote {mine / 'reno-vs-cubic.toml'} {mine / 'reno-pair.toml'}", copied.stderr
    assert 'base = "reno-pair.toml"' in (tmp_path / mine / "reno-vs-cubic.toml").read_text()
    assert len(Experiment.from_toml(tmp_path / mine / "reno-vs-cubic.toml")) == 60
    # A base of that name the user changed is not overwritten.
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "reno-pair.toml").write_text("# mine\n")
    refused = _ccarena(tmp_path, "examples", "--copy", "experiments/reno-vs-cubic", "-o", "other")
    assert refused.returncode == 2 and "reno-pair.toml: already exists; not overwritten" in refused.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "no-such-thing"], "error: Invalid value for 'FILE': no-such-thing: no such file, and no bundled example of that name (`ccarena examples` lists them)"),
        (["run", "."], "error: Invalid value for 'FILE': .: is a directory, not a scenario file"),
        (["examples", "--copy", "nope"], "error: nope: no bundled example of that name (`ccarena examples` lists them)"),
        (["sweep", "nope"], "error: Invalid value for 'EXPERIMENT': nope: no such file, and no bundled example of that name (`ccarena examples` lists them)"),
    ],
    ids=["unknown-name", "directory", "copy-unknown", "sweep-unknown"],
)
def test_what_is_neither_a_file_nor_an_example_is_one_line(args: list[str], message: str, tmp_path: Path) -> None:
    out = _ccarena(tmp_path, *args)
    assert out.returncode == 2 and out.stderr.strip() == message and not out.stdout


def test_version() -> None:
    import ccarena

    out = _ccarena(Path.cwd(), "--version")
    assert out.returncode == 0 and out.stdout.strip() == f"ccarena {ccarena.__version__}"
