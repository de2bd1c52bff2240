"""Asked with CCARENA_HUGE_PAGES=1, the command line restarts itself once with glibc's huge-page
tunable before a command that simulates (`ccarena._hugepages`), and leaves every other case alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ccarena import _hugepages


def test_the_tunable_is_added_beside_others_and_never_twice() -> None:
    on = {"CCARENA_HUGE_PAGES": "1"}
    with_other = on | {"GLIBC_TUNABLES": "glibc.malloc.check=0"}
    env = _hugepages.environ_with_huge_pages(with_other)
    if sys.platform.startswith("linux"):
        assert env["GLIBC_TUNABLES"] == "glibc.malloc.check=0:glibc.malloc.hugetlb=1"
        assert _hugepages.environ_with_huge_pages(on)["GLIBC_TUNABLES"] == "glibc.malloc.hugetlb=1"
    assert _hugepages.environ_with_huge_pages(env) == env
    assert with_other == on | {"GLIBC_TUNABLES": "glibc.malloc.check=0"}  # the caller's mapping is not changed


@pytest.mark.parametrize(
    "environ",
    [
        {},
        {"CCARENA_HUGE_PAGES": "0"},
        {"CCARENA_HUGE_PAGES": "1", "GLIBC_TUNABLES": "glibc.malloc.hugetlb=0"},
        {"CCARENA_HUGE_PAGES": "1", "GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"},
    ],
    ids=["not-asked", "turned-off", "user-said-no", "already-on"],
)
def test_a_user_choice_is_kept(environ: dict[str, str]) -> None:
    assert not _hugepages.wanted(environ)
    assert _hugepages.environ_with_huge_pages(environ) == environ


class _Exec(Exception):
    pass


def _restart(monkeypatch: pytest.MonkeyPatch, args: list[str], environ: dict[str, str]) -> Any:
    """What `restart_with_huge_pages` would execute (None if it returns), on a Linux host."""
    seen: dict[str, Any] = {}

    def fake_execve(path: str, argv: list[str], env: dict[str, str]) -> None:
        seen.update(path=path, argv=argv, env=env)
        raise _Exec

    monkeypatch.setattr(_hugepages.os, "execve", fake_execve)
    monkeypatch.setattr(_hugepages.sys, "platform", "linux")
    monkeypatch.setattr(_hugepages.os, "environ", environ)
    try:
        _hugepages.restart_with_huge_pages(args)
    except _Exec:
        return seen
    return None


def test_commands_that_simulate_restart_with_the_same_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    on = {"CCARENA_HUGE_PAGES": "1"}
    seen = _restart(monkeypatch, ["run", "s.toml", "--json"], on | {"PATH": "/bin"})
    assert seen is not None
    assert seen["argv"] == sys.orig_argv and seen["path"] == sys.executable
    assert seen["env"] == on | {"PATH": "/bin", "GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"}
    assert _restart(monkeypatch, ["--no-progress", "reproduce", "highspeed-tcp"], on) is not None


@pytest.mark.parametrize(
    ("args", "environ"),
    [
        (["validate", "s.toml"], {"CCARENA_HUGE_PAGES": "1"}),
        (["--help"], {"CCARENA_HUGE_PAGES": "1"}),
        ([], {"CCARENA_HUGE_PAGES": "1"}),
        (["run", "s.toml"], {}),
        (["run", "s.toml"], {"CCARENA_HUGE_PAGES": "0"}),
        # the restarted process
        (["run", "s.toml"], {"CCARENA_HUGE_PAGES": "1", "GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"}),
    ],
    ids=["no-simulation", "help", "no-command", "not-asked", "turned-off", "already-restarted"],
)
def test_nothing_else_restarts(monkeypatch: pytest.MonkeyPatch, args: list[str], environ: dict[str, str]) -> None:
    assert _restart(monkeypatch, args, environ) is None


@pytest.mark.parametrize("setting", ["1", "0"])
def test_the_restarted_command_runs_as_before(tiny_file: Path, setting: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "GLIBC_TUNABLES"} | {"CCARENA_HUGE_PAGES": setting}
    proc = subprocess.run(
        [sys.executable, "-m", "ccarena", "run", str(tiny_file), "--json", "--no-progress"],
        capture_output=True, text=True, env=env, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["flows"]
