"""The built wheel (`make wheel`, dist/) is a complete tool: installed into a fresh virtualenv
outside the checkout, it runs the README's tour from another directory, finds the bundled
examples by name, carries the testbed's delay line, and says in one line what an extra is
missing for.

`make test` builds the wheel before pytest runs; elsewhere the test is skipped with the reason.
"""

from __future__ import annotations

import json
import subprocess
import sys
import venv
from pathlib import Path

import pytest

import ccarena

REPO = Path(__file__).resolve().parent.parent
WHEELS = sorted((REPO / "dist").glob(f"ccarena-{ccarena.__version__}-*.whl"))


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv with the wheel and its dependencies (no Dask: it is an extra)."""
    if not WHEELS:
        pytest.skip("no wheel in dist/: `make wheel` builds it (make test does)")
    env_dir = tmp_path_factory.mktemp("wheel-venv")
    venv.create(env_dir, with_pip=True)
    pip = subprocess.run(
        [str(env_dir / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(WHEELS[-1])],
        capture_output=True, text=True, check=False, timeout=900,
    )
    assert pip.returncode == 0, pip.stderr[-2000:]
    return env_dir / "bin"


def _run(bin_dir: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # A clean environment: nothing of the checkout on the path.
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(cwd), "LANG": "C.UTF-8"}
    return subprocess.run(list(args), cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=600)


def test_the_readme_tour_runs_from_another_directory(installed: Path, tmp_path: Path) -> None:
    version = _run(installed, tmp_path, "ccarena", "--version")
    assert version.returncode == 0 and version.stdout.strip() == f"ccarena {ccarena.__version__}", version.stderr

    run = _run(installed, tmp_path, "ccarena", "run", "reno-pair", "--set", "duration=20s", "--set", "warmup=5s")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("reno-pair: 20 s simulated, seed 1") and "Jain's fairness index" in run.stdout

    listed = _run(installed, tmp_path, "ccarena", "examples")
    assert listed.returncode == 0 and "reno-pair" in listed.stdout and "bench/b1" in listed.stdout, listed.stderr
    copied = _run(installed, tmp_path, "ccarena", "examples", "--copy", "reno-rtt")
    assert copied.returncode == 0 and (tmp_path / "reno-rtt.toml").is_file(), copied.stderr
    assert _run(installed, tmp_path, "ccarena", "validate", "reno-rtt.toml").stdout.startswith("ok: reno-rtt")

    as_json = _run(installed, tmp_path, "ccarena", "run", "recovery-compare", "--set", "duration=5s", "--set", "warmup=1s", "--json")
    assert as_json.returncode == 0 and json.loads(as_json.stdout)["name"] == "recovery-compare", as_json.stderr

    store = tmp_path / "store"
    sweep = _run(
        installed, tmp_path, "ccarena", "sweep", "experiments/reno-vs-cubic", "-o", str(store), "--no-progress",
        "--jobs", "2", "--replications", "1",
    )
    assert sweep.returncode == 0, sweep.stderr
    report = _run(installed, tmp_path, "ccarena", "report", str(store), "-o", str(tmp_path / "report"))
    assert report.returncode == 0 and (tmp_path / "report" / "index.html").is_file(), report.stderr


def test_the_python_api_and_what_it_shows(installed: Path, tmp_path: Path) -> None:
    script = (
        "import ccarena, json\n"
        "from ccarena import examples\n"
        "r = ccarena.run(examples.find('reno-pair'), overrides=['duration=10s', 'warmup=2s'])\n"
        "print(json.dumps({'flows': len(r.flows), 'dir': dir(ccarena), 'version': ccarena.__version__}))\n"
    )
    out = _run(installed, tmp_path, "python", "-c", script)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["flows"] == 2 and got["version"] == ccarena.__version__
    assert "run" in got["dir"] and "importlib" not in got["dir"] and "_core" not in got["dir"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the delay line is Linux only")
def test_the_wheel_carries_the_testbeds_delay_line(installed: Path, tmp_path: Path) -> None:
    """Started as the testbed runner starts it: bad arguments get the usage line and status 2,
    an interface that does not exist status 1 (no root needed for either)."""
    usage = _run(installed, tmp_path, "python", "-m", "ccarena.testbed.delayline")
    assert usage.returncode == 2 and "usage: python -m ccarena.testbed.delayline IF_A IF_B" in usage.stderr, usage.stderr
    missing = _run(installed, tmp_path, "python", "-m", "ccarena.testbed.delayline", "nosuch0", "nosuch1", "10", "10", "s.json")
    assert missing.returncode == 1 and "nosuch0" in missing.stderr, missing.stderr


def test_dask_is_an_extra_named_in_one_line(installed: Path, tmp_path: Path) -> None:
    out = _run(
        installed, tmp_path, "ccarena", "sweep", "experiments/reno-vs-cubic", "-o", str(tmp_path / "s"), "--no-progress",
        "--executor", "dask",
    )
    assert out.returncode == 2, out.stderr
    # the experiment's one-line description comes first, then the one error line
    assert out.stderr.strip().splitlines()[-1] == "error: executor dask needs the dask extra: pip install 'ccarena[dask]'"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the wheel built here is a Linux wheel")
def test_the_wheel_is_one_abi3_wheel_with_its_licences() -> None:
    if not WHEELS:
        pytest.skip("no wheel in dist/: `make wheel` builds it (make test does)")
    import zipfile

    name = WHEELS[-1].name
    assert "-cp311-abi3-" in name, name
    files = zipfile.ZipFile(WHEELS[-1]).namelist()
    assert {f"ccarena-{ccarena.__version__}.dist-info/licenses/LICENSE-{x}" for x in ("MIT", "APACHE")} <= set(files)
    assert "ccarena/scenarios/reno-pair.toml" in files and "ccarena/py.typed" in files
    assert not any("__pycache__" in f for f in files)
