"""``ccarena reproduce``: re-run a seed paper's evaluation and write its page (docs/reproducing.md)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ccarena import _format
from ccarena._cli_params import executor_options, jobs_option, out_dir_option, progress_default, progress_option

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ccarena.papers.model import Paper, Scale
    from ccarena.papers.pricing import Price

#: `papers.model.Scale`'s values, listed here so that the command line loads no pandas
#: (tests/test_papers.py keeps the two equal).
SCALES = ("smoke", "quick", "full")


def register(app: click.Group) -> None:
    """Add ``reproduce`` to the ``ccarena`` app."""

    @app.command()
    @click.argument("name", required=False, help="A paper (see --list) or `all`.")
    @click.option("--list", "list_", is_flag=True, help="List the papers that can be reproduced.")
    @click.option(
        "--scale",
        type=click.Choice(SCALES),
        default="quick",
        show_default=True,
        help="smoke: about a minute, checks that the reproduction runs but no claims; quick: under 30 minutes on "
        "2 cores; full: the paper's own scale (`--dry-run` says how long).",
    )
    @out_dir_option(
        "Directory for the pages (one sub-directory per paper) and the result stores.", default=Path("out/reproduce")
    )
    @jobs_option()
    @executor_options()
    @click.option(
        "--dry-run", is_flag=True,
        help="Print, per paper, its runs and an estimate of their CPU time; run nothing (seconds: docs/reproducing.md).",
    )
    @click.option(
        "--calibrate", is_flag=True,
        help="With --dry-run: price each grid point by simulating its start until steady (minutes; a quarter of an "
        "hour for highspeed-tcp at full) instead of by the cost model; kept for later dry runs of this build.",
    )
    @progress_option()
    def reproduce(
        name: str | None,
        list_: bool,
        scale: Scale,
        out: Path,
        jobs: int | None,
        executor: str,
        scheduler: str | None,
        dry_run: bool,
        calibrate: bool,
        progress: bool | None,
    ) -> None:
        """Re-run a seed paper; write its page with the paper's numbers beside ours.

        The page shows the paper's tables beside ours, its figures redrawn and its claims checked
        (docs/reproducing.md). Interrupted reproductions resume.

        When it ends it prints, per paper, how many of its claims were reproduced. The smoke
        scale only checks that a reproduction runs: it checks no claims.

        \b
        Examples:
          ccarena reproduce all --dry-run
          ccarena reproduce sqm-response --scale quick
        """
        from ccarena.errors import ExperimentError
        from ccarena.papers import paper, papers
        from ccarena.papers.reproduce import run_paper, total_line, write_index

        if list_:
            rows = [[p.name, p.seed, p.title] for p in papers().values()]
            click.echo(_format.text_table(["name", "seed", "title"], rows))
            return
        if name is None:
            raise ExperimentError("reproduce: name a paper (or `all`); `ccarena reproduce --list` lists them")
        chosen = list(papers().values()) if name == "all" else [paper(name)]
        if calibrate and not dry_run:
            raise click.UsageError("--calibrate prices a dry run: give --dry-run too")
        if dry_run:
            _print_dry_run(chosen, scale, jobs, calibrate, progress_default(progress))
            return
        tallies = []
        for p in chosen:
            click.echo(f"{p.name}: running scale {scale} into {out / p.name}", err=True)
            tallies.append(run_paper(
                p, scale, out / p.name, jobs=jobs, executor=executor, scheduler=scheduler,
                progress=progress_default(progress),
            ))
            click.echo(f"wrote {tallies[-1].page}", err=True)
        click.echo(f"wrote {write_index(out)}", err=True)
        # The tally last, where a reader looks when the runs are over.
        for tally in tallies:
            click.echo(tally.line())
        click.echo(total_line(tallies))


def _print_dry_run(chosen: Sequence[Paper], scale: Scale, jobs: int | None, calibrate: bool, progress: bool) -> None:
    """Per paper its runs and estimated CPU time, then per experiment, then the total, and how
    the estimates were made."""
    from ccarena.experiment.executors import default_jobs
    from ccarena.papers.pricing import dry_run

    cores = jobs or default_jobs()
    total_runs, total_cpu, points, calibrated, growing = 0, 0.0, 0, 0, 0
    for p in chosen:
        prices = dry_run(p, scale, jobs=jobs, progress=progress, calibrate=calibrate)
        runs, cpu = sum(x.runs for x in prices), sum(x.cpu_s for x in prices)
        click.echo(
            f"{p.name} at scale {scale}: {_format.counted(runs, 'run')}, about {_format.span(cpu)} of CPU "
            f"({_format.span(cpu / cores)} on {cores} cores){_how(prices)}"
        )
        for x in prices:
            note = f" (at least: {x.growing} of its grid points still ramping up when calibrated)" if x.growing else ""
            click.echo(f"  {x.experiment}: {_format.counted(x.runs, 'run')}, about {_format.span(x.cpu_s)} of CPU{note}")
        total_runs, total_cpu = total_runs + runs, total_cpu + cpu
        points += sum(x.points for x in prices)
        calibrated += sum(x.calibrated for x in prices)
        growing += sum(x.growing for x in prices)
    click.echo(
        f"total: {_format.counted(total_runs, 'run')}, about {total_cpu / 3600:.2f} CPU-hours ({_format.span(total_cpu)} of CPU) "
        f"at scale {scale}: about {_format.span(total_cpu / cores)} on {cores} cores"
        + (" (a lower bound: see the experiments marked 'at least')" if growing else "")
    )
    if calibrated < points:
        click.echo(
            f"{points - calibrated} of {_format.counted(points, 'grid point')} priced by the cost model (packet hops "
            "predicted from the scenario: within about a factor of two); --calibrate prices each by simulating its start"
        )


def _how(prices: Sequence[Price]) -> str:
    """How a paper's points were priced, where not all by the cost model."""
    points, calibrated = sum(x.points for x in prices), sum(x.calibrated for x in prices)
    if calibrated == 0:
        return ""
    return ", calibrated" if calibrated == points else f", {calibrated} of {points} grid points calibrated"
