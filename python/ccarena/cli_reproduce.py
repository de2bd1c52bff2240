"""``ccarena reproduce``: re-run a seed paper's evaluation and write its page (docs/reproducing.md)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ccarena import _format
from ccarena._cli_params import executor_options, jobs_option, out_dir_option, progress_default, progress_option

if TYPE_CHECKING:
    from ccarena.papers.model import Scale

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
        help="smoke: about a minute; quick: under 30 minutes on 2 cores; full: the paper's own scale.",
    )
    @out_dir_option(
        "Directory for the pages (one sub-directory per paper) and the result stores.", default=Path("out/reproduce")
    )
    @jobs_option()
    @executor_options()
    @click.option("--dry-run", is_flag=True, help="Print the number of runs and an estimate of their CPU time; run nothing.")
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
        progress: bool | None,
    ) -> None:
        """Re-run a seed paper; write its page with the paper's numbers beside ours.

        The page shows the paper's tables beside ours, its figures redrawn and its claims checked
        (docs/reproducing.md). Interrupted reproductions resume.

        \b
        Example:
          ccarena reproduce sqm-response --scale quick
        """
        from ccarena.errors import ExperimentError
        from ccarena.experiment.executors import default_jobs
        from ccarena.papers import paper, papers
        from ccarena.papers.reproduce import dry_run as estimate
        from ccarena.papers.reproduce import run_paper, write_index

        if list_:
            rows = [[p.name, p.seed, p.title] for p in papers().values()]
            click.echo(_format.text_table(["name", "seed", "title"], rows))
            return
        if name is None:
            raise ExperimentError("reproduce: name a paper (or `all`); `ccarena reproduce --list` lists them")
        chosen = list(papers().values()) if name == "all" else [paper(name)]
        if dry_run:
            total_runs, total_cpu, total_growing = 0, 0.0, 0
            for p in chosen:
                for exp_name, n, cpu, growing in estimate(p, scale, jobs=jobs, progress=progress_default(progress)):
                    note = f" (at least: {growing} grid points still ramping up when calibrated)" if growing else ""
                    click.echo(f"{p.name}/{exp_name}: {n} runs, about {_format.span(cpu)} of CPU{note}")
                    total_runs, total_cpu, total_growing = total_runs + n, total_cpu + cpu, total_growing + growing
            cores = jobs or default_jobs()
            click.echo(
                f"total: {total_runs} runs, about {total_cpu / 3600:.2f} CPU-hours ({_format.span(total_cpu)} of CPU) at "
                f"scale {scale}: about {_format.span(total_cpu / cores)} on {cores} cores"
                + (" (a lower bound: see the experiments marked 'at least')" if total_growing else "")
            )
            return
        for p in chosen:
            click.echo(f"{p.name}: running scale {scale} into {out / p.name}", err=True)
            page = run_paper(
                p, scale, out / p.name, jobs=jobs, executor=executor, scheduler=scheduler,
                progress=progress_default(progress),
            )
            click.echo(f"wrote {page}")
        click.echo(f"wrote {write_index(out)}")
