"""Parameters several ``ccarena`` commands share, as click decorators, and the progress default.

A module of their own, below ``cli.py`` and its command modules, so that each of them imports
what it uses (``python -m ccarena.cli`` would otherwise load ``cli.py`` twice, as ``__main__``
and as ``ccarena.cli``). Each factory returns a fresh decorator: click attaches a parameter to
the one command it decorates.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

Command = TypeVar("Command", bound=Callable[..., Any])


class OutputPath(click.Path):
    """A path to write to. An empty one is refused: ``Path("")`` is ``.``, so ``--pcap ""`` would
    otherwise write into the current directory."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():
            self.fail("the path is empty (name a file or directory to write)", param, ctx)
        return super().convert(value, param, ctx)


class ScenarioPath(click.ParamType):
    """A scenario file, or the name of a bundled example (``reno-pair``, ``bench/b1``:
    ``ccarena examples``) where no file of that name exists. Passes a :class:`Path`."""

    name = "file"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Path:
        from ccarena import examples
        from ccarena.errors import ArgumentError

        if isinstance(value, Path):
            return value
        try:
            return examples.resolve(str(value))
        except ArgumentError as exc:
            self.fail(str(exc), param, ctx)


def scenario_argument(metavar: str = "FILE", what: str = "Scenario file (TOML)") -> Callable[[Command], Command]:
    """The ``FILE`` argument of the commands that read a scenario or an experiment."""
    return click.argument("file", type=ScenarioPath(), metavar=metavar, help=f"{what}, or a bundled example's name (`ccarena examples`).")


def set_option() -> Callable[[Command], Command]:
    """``--set/-s KEY=VALUE``, repeatable (passes ``set_``, a tuple of strings)."""
    return click.option(
        "--set",
        "-s",
        "set_",
        multiple=True,
        metavar="KEY=VALUE",
        help="Override a scenario value, e.g. --set flows[0].cc=newreno (repeatable; the value is "
        "read as TOML if it parses, else as a string).",
    )


def seed_option() -> Callable[[Command], Command]:
    """``--seed N`` (passes ``seed``, None when not given)."""
    return click.option("--seed", type=int, help="Use this seed instead of the scenario's.")


def jobs_option() -> Callable[[Command], Command]:
    """``--jobs/-j N``, at least 1 (passes ``jobs``, None for one per core)."""
    return click.option("--jobs", "-j", type=click.IntRange(min=1), help="Parallel runs (default: the number of cores).")


def out_dir_option(help: str, default: Path | None = None) -> Callable[[Command], Command]:
    """``--out/-o DIR``, a directory to write into (passes ``out``, a :class:`Path`, or None
    without a default)."""
    return click.option(
        "--out",
        "-o",
        type=OutputPath(file_okay=False, path_type=Path),
        default=default,
        show_default=default is not None,
        help=help,
    )


#: Where runs execute (``ccarena.experiment.executors``).
EXECUTORS = ("local", "dask")


def executor_options() -> Callable[[Command], Command]:
    """``--executor local|dask`` and ``--scheduler ADDRESS`` (pass ``executor`` and ``scheduler``)."""
    executor = click.option(
        "--executor",
        type=click.Choice(EXECUTORS),
        default="local",
        show_default=True,
        help="Where runs execute: local processes or a Dask cluster (docs/experiments.md).",
    )
    scheduler = click.option(
        "--scheduler", help="Dask scheduler address, e.g. tcp://10.0.0.1:8786 (default: a local cluster)."
    )

    def both(f: Command) -> Command:
        return executor(scheduler(f))

    return both


def progress_option() -> Callable[[Command], Command]:
    """``--progress/--no-progress`` (passes ``progress``: None when neither is given, for
    :func:`progress_default`)."""
    return click.option(
        "--progress/--no-progress",
        default=None,
        help="Show progress on stderr (default: when stdout and stderr are terminals).",
    )


def progress_default(flag: bool | None) -> bool:
    """Progress bars by default only for a person at a terminal: stdout redirected (a pipe, a
    file, CI) means a program reads the output."""
    if flag is not None:
        return flag
    return sys.stdout.isatty() and sys.stderr.isatty()
