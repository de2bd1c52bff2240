"""What the ``ccarena`` entry point (``ccarena.__main__``) sets up before the command runs."""

from __future__ import annotations

import os
import sys

import pytest

from ccarena import __main__ as entry


@pytest.mark.parametrize(("given", "expected"), [(None, "1"), ("4", "4")], ids=["default", "user-choice"])
def test_openblas_gets_one_thread_unless_the_user_chose(monkeypatch: pytest.MonkeyPatch, given: str | None, expected: str) -> None:
    if given is None:
        monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    else:
        monkeypatch.setenv("OPENBLAS_NUM_THREADS", given)
    seen: list[str | None] = []
    monkeypatch.setattr(entry, "restart_with_huge_pages", lambda args: seen.append(os.environ.get("OPENBLAS_NUM_THREADS")))
    monkeypatch.setattr("ccarena.cli.main", lambda: seen.append(os.environ.get("OPENBLAS_NUM_THREADS")))
    monkeypatch.setattr(sys, "argv", ["ccarena", "run", "s.toml"])
    entry.main()
    # Set before the restart on huge pages, so the restarted process (and its workers) inherit it.
    assert seen == [expected, expected]
