"""``ccarena reproduce``: re-run a seed paper's evaluation and write its page (docs/reproducing.md)."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from ccarena import _format


class ScaleName(str, Enum):
    smoke = "smoke"
    quick = "quick"
    full = "full"


def register(app: typer.Typer) -> None:
    """Add ``reproduce`` to the ``ccarena`` app."""

    @app.command()
    def reproduce(
        name: Annotated[str | None, typer.Argument(help="A paper (see --list) or `all`.", show_default=False)] = None,
        list_: Annotated[bool, typer.Option("--list", help="List the papers that can be reproduced.")] = False,
        scale: Annotated[ScaleName, typer.Option(help="smoke: about a minute; quick: under 30 minutes on 2 cores; full: the paper's own scale.")] = ScaleName.quick,
        out: Annotated[Path, typer.Option("--out", "-o", help="Directory for the pages (one sub-directory per paper) and the result stores.", file_okay=False)] = Path("out/reproduce"),
        jobs: Annotated[int | None, typer.Option("--jobs", "-j", min=1, help="Parallel runs (default: the number of cores).", show_default=False)] = None,
        executor: Annotated[str, typer.Option(help="local or dask (see docs/experiments.md).")] = "local",
        scheduler: Annotated[str | None, typer.Option(help="Dask scheduler address (default: a local cluster).", show_default=False)] = None,
        dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the number of runs and an estimate of their CPU time; run nothing.")] = False,
        progress: Annotated[
            bool | None,
            typer.Option("--progress/--no-progress", help="Progress bars on stderr (default: when stdout and stderr are terminals).", show_default=False),
        ] = None,
    ) -> None:
        """Re-run a seed paper; write its page with the paper's numbers beside ours.

        The page shows the paper's tables beside ours, its figures redrawn and its claims checked
        (docs/reproducing.md). Interrupted reproductions resume.

        Example: ccarena reproduce sqm-response --scale quick"""
        from ccarena.cli import progress_default
        from ccarena.errors import ExperimentError
        from ccarena.experiment.executors import default_jobs
        from ccarena.papers import paper, papers
        from ccarena.papers.reproduce import dry_run as estimate
        from ccarena.papers.reproduce import run_paper, write_index

        if list_:
            rows = [[p.name, p.seed, p.title] for p in papers().values()]
            typer.echo(_format.text_table(["name", "seed", "title"], rows))
            return
        if name is None:
            raise ExperimentError("reproduce: name a paper (or `all`); `ccarena reproduce --list` lists them")
        chosen = list(papers().values()) if name == "all" else [paper(name)]
        if dry_run:
            total_runs, total_cpu, total_growing = 0, 0.0, 0
            for p in chosen:
                for exp_name, n, cpu, growing in estimate(p, scale.value, jobs=jobs, progress=progress_default(progress)):
                    note = f" (at least: {growing} grid points still ramping up when calibrated)" if growing else ""
                    typer.echo(f"{p.name}/{exp_name}: {n} runs, about {_format.secs(cpu)} of CPU{note}")
                    total_runs, total_cpu, total_growing = total_runs + n, total_cpu + cpu, total_growing + growing
            cores = jobs or default_jobs()
            typer.echo(
                f"total: {total_runs} runs, about {total_cpu / 3600:.2f} CPU-hours ({total_cpu / 60:.0f} CPU-minutes) at scale "
                f"{scale.value}: about {total_cpu / 60 / cores:.0f} minutes on {cores} cores"
                + (" (a lower bound: see the experiments marked 'at least')" if total_growing else "")
            )
            return
        for p in chosen:
            typer.echo(f"{p.name}: running scale {scale.value} into {out / p.name}", err=True)
            page = run_paper(
                p, scale.value, out / p.name, jobs=jobs, executor=executor, scheduler=scheduler,
                progress=progress_default(progress),
            )
            typer.echo(f"wrote {page}")
        typer.echo(f"wrote {write_index(out)}")
