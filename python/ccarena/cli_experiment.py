"""The campaign commands of the ``ccarena`` CLI: ``sweep``, ``results`` and ``report``.

Heavy modules (pandas, SciPy, Dask) are imported inside the commands, so ``ccarena --help``
stays fast.
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from ccarena import _format

#: Metrics ``sweep`` prints by default, with their formatting.
SWEEP_COLUMNS = ("goodput_bps", "utilisation", "jain", "dropped_pkts")


class ExecutorName(str, Enum):
    local = "local"
    dask = "dask"


class Format(str, Enum):
    table = "table"
    csv = "csv"
    parquet = "parquet"


class TableName(str, Enum):
    runs = "runs"
    links = "links"
    metrics = "metrics"
    summary = "summary"
    failures = "failures"


StoreDir = Annotated[
    Path,
    typer.Argument(help="A result store written by `ccarena sweep`.", exists=True, file_okay=False, metavar="STORE", show_default=False),
]
ExperimentName = Annotated[
    str | None,
    typer.Option("--experiment", "-e", help="Which experiment of the store (needed when it holds several).", show_default=False),
]


def register(app: typer.Typer) -> None:
    """Add the campaign commands to the ``ccarena`` app."""

    @app.command()
    def sweep(
        file: Annotated[
            Path, typer.Argument(help="Experiment file (TOML with an [experiment] table).", exists=True, dir_okay=False, metavar="EXPERIMENT", show_default=False)
        ],
        out: Annotated[
            Path | None, typer.Option("--out", "-o", help="Result store directory (default: out/NAME).", file_okay=False, show_default=False)
        ] = None,
        jobs: Annotated[int | None, typer.Option("--jobs", "-j", min=1, help="Parallel runs (default: the number of cores).", show_default=False)] = None,
        executor: Annotated[ExecutorName, typer.Option(help="Where runs execute: local processes or a Dask cluster.")] = ExecutorName.local,
        scheduler: Annotated[
            str | None, typer.Option(help="Dask scheduler address, e.g. tcp://10.0.0.1:8786 (default: a local cluster).", show_default=False)
        ] = None,
        replications: Annotated[int | None, typer.Option("--replications", "-r", min=1, help="Replications per grid point (overrides the file).", show_default=False)] = None,
        force: Annotated[bool, typer.Option("--force", help="Recompute runs already in the store.")] = False,
        series: Annotated[bool, typer.Option("--series", help="Also store each run's time series.")] = False,
        metric: Annotated[
            list[str] | None,
            typer.Option("--metric", "-m", help=f"Metric to print (repeatable; default: {', '.join(SWEEP_COLUMNS)}).", show_default=False),
        ] = None,
        progress: Annotated[
            bool | None,
            typer.Option("--progress/--no-progress", help="Show a progress bar on stderr (default: when stdout and stderr are terminals).", show_default=False),
        ] = None,
    ) -> None:
        """Run an experiment into a resumable store; print means ± 95% CI per grid point.

        An experiment is a grid of scenario values × replications (docs/experiments.md). Finished runs are stored at once; run the same command again after an interruption and
        only the missing runs execute. Example:
        ccarena sweep scenarios/experiments/reno-vs-cubic.toml --jobs 2"""
        from ccarena.cli import progress_default
        from ccarena.experiment import Experiment

        exp = Experiment.from_toml(file, replications=replications)
        store = out if out is not None else Path("out") / exp.name
        typer.echo(f"{exp}; store {store}", err=True)
        res = exp.run(
            store, executor=executor.value, jobs=jobs, scheduler=scheduler, force=force, progress=progress_default(progress), series=series
        )
        from ccarena.experiment.tables import failures_text, grid_table

        typer.echo(_format.text_table(*grid_table(res, list(metric or SWEEP_COLUMNS))))
        text = failures_text(res)
        if text:
            typer.echo("\n" + text)

    @app.command()
    def results(
        store: StoreDir,
        experiment: ExperimentName = None,
        table: Annotated[TableName, typer.Option("--table", "-t", help="Which table: per run × flow, per run × link, per run, per grid point, or the failures.")] = TableName.runs,
        format_: Annotated[Format, typer.Option("--format", "-f", help="Print as text, or export as CSV or Parquet.")] = Format.table,
        out: Annotated[Path | None, typer.Option("--out", "-o", help="Write to this file instead of stdout (required for parquet).", dir_okay=False, show_default=False)] = None,
    ) -> None:
        """Print or export a store's results without running anything.

        Example: ccarena results out/reno-vs-cubic --table summary
                 ccarena results out/reno-vs-cubic --format parquet -o runs.parquet"""
        import pandas as pd

        from ccarena.errors import OutputError
        from ccarena.experiment import open_store

        res = open_store(store, experiment)
        df: pd.DataFrame = res.summary() if table is TableName.summary else getattr(res, table.value)
        if format_ is Format.parquet:
            if out is None:
                raise OutputError("--format parquet needs --out FILE")
            df.to_parquet(out, index=False)
            typer.echo(f"wrote {out} ({len(df)} rows)")
        elif format_ is Format.csv:
            if out is None:
                df.to_csv(sys.stdout, index=False)
            else:
                df.to_csv(out, index=False)
                typer.echo(f"wrote {out} ({len(df)} rows)")
        else:
            with pd.option_context("display.max_rows", 200, "display.max_columns", 30, "display.width", 200):
                text = df.to_string(index=False)
            if out is None:
                typer.echo(text)
            else:
                out.write_text(text + "\n", encoding="utf-8")
                typer.echo(f"wrote {out} ({len(df)} rows)")

    @app.command()
    def report(
        store: StoreDir,
        experiment: ExperimentName = None,
        out: Annotated[Path | None, typer.Option("--out", "-o", help="Directory for index.html and plots (default: STORE/report).", file_okay=False, show_default=False)] = None,
    ) -> None:
        """Write an HTML page with a store's means ± 95% CI and plots.

        One plot per metric against the swept parameter, one line per algorithm (or other varied
        key), confidence intervals as error bars. Example: ccarena report out/reno-vs-cubic"""
        from ccarena.experiment import open_store
        from ccarena.experiment.report import write_report

        res = open_store(store, experiment)
        index = write_report(res, out if out is not None else store / "report")
        typer.echo(f"wrote {index}")

