"""The campaign commands of the ``ccarena`` CLI: ``sweep``, ``results`` and ``report``.

Heavy modules (pandas, SciPy, Dask) are imported inside the commands, so ``ccarena --help``
stays fast.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import click

from ccarena import _format
from ccarena._cli_params import (
    Command,
    OutputPath,
    executor_options,
    jobs_option,
    out_dir_option,
    progress_default,
    progress_option,
    scenario_argument,
)

#: Metrics ``sweep`` prints by default, with their formatting.
SWEEP_COLUMNS = ("goodput_bps", "utilisation", "jain", "dropped_pkts")

FORMATS = ("table", "csv", "parquet")
TABLES = ("runs", "links", "metrics", "summary", "failures")

def _store_argument() -> Callable[[Command], Command]:
    return click.argument(
        "store",
        type=click.Path(exists=True, file_okay=False, path_type=Path),
        metavar="STORE",
        help="A result store written by `ccarena sweep`.",
    )


def _experiment_option() -> Callable[[Command], Command]:
    return click.option("--experiment", "-e", help="Which experiment of the store (needed when it holds several).")


def register(app: click.Group) -> None:
    """Add the campaign commands to the ``ccarena`` app."""

    @app.command()
    @scenario_argument("EXPERIMENT", "Experiment file (TOML with an [experiment] table)")
    @out_dir_option("Result store directory (default: out/NAME).")
    @jobs_option()
    @executor_options()
    @click.option("--replications", "-r", type=click.IntRange(min=1), help="Replications per grid point (overrides the file).")
    @click.option("--force", is_flag=True, help="Recompute runs already in the store.")
    @click.option("--series", is_flag=True, help="Also store each run's time series.")
    @click.option("--metric", "-m", multiple=True, help=f"Metric to print (repeatable; default: {', '.join(SWEEP_COLUMNS)}).")
    @click.option("--backend", default="sim", show_default=True, metavar="NAME",
                  help="Run on sim, ns2, ns3 or kernel (docs/peers.md); each backend's runs are stored apart.")
    @progress_option()
    def sweep(
        file: Path,
        out: Path | None,
        jobs: int | None,
        executor: str,
        scheduler: str | None,
        replications: int | None,
        force: bool,
        series: bool,
        metric: tuple[str, ...],
        backend: str,
        progress: bool | None,
    ) -> None:
        """Run an experiment into a resumable store; print means ± 95% CI per grid point.

        An experiment is a grid of scenario values × replications (docs/experiments.md).
        Finished runs are stored at once; run the same command again after an interruption and
        only the missing runs execute.

        \b
        Example:
          ccarena sweep scenarios/experiments/reno-vs-cubic.toml --jobs 2
        """
        from ccarena.experiment import Experiment

        exp = Experiment.from_toml(file, replications=replications)
        store = out if out is not None else Path("out") / exp.name
        click.echo(f"{exp}; store {store}", err=True)
        res = exp.run(
            store, executor=executor, jobs=jobs, scheduler=scheduler, force=force, progress=progress_default(progress), series=series,
            backend=backend,
        )
        from ccarena.experiment.tables import failures_text, grid_table

        click.echo(_format.text_table(*grid_table(res, list(metric or SWEEP_COLUMNS))))
        text = failures_text(res)
        if text:
            click.echo("\n" + text)

    @app.command()
    @_store_argument()
    @_experiment_option()
    @click.option(
        "--table",
        "-t",
        type=click.Choice(TABLES),
        default="runs",
        show_default=True,
        help="Which table: per run × flow, per run × link, per run, per grid point, or the failures.",
    )
    @click.option(
        "--format",
        "-f",
        "format_",
        type=click.Choice(FORMATS),
        default="table",
        show_default=True,
        help="Print as text, or export as CSV or Parquet.",
    )
    @click.option(
        "--out",
        "-o",
        type=OutputPath(dir_okay=False, path_type=Path),
        help="Write to this file instead of stdout (required for parquet).",
    )
    @click.option(
        "--columns",
        "-c",
        metavar="A,B,...|all",
        help="Columns to show, by their names in the CSV (default for the text table: the run, the "
        "varied keys and the table's main metrics; for CSV and Parquet: all).",
    )
    @click.option("--limit", "-n", type=click.IntRange(min=1), help="Print at most this many rows of the text table.")
    def results(
        store: Path, experiment: str | None, table: str, format_: str, out: Path | None, columns: str | None, limit: int | None
    ) -> None:
        """Print or export a store's results without running anything.

        The text table shows values in human units and run ids by their first 8 hex digits;
        CSV and Parquet hold the raw values of every column (or of --columns).

        \b
        Examples:
          ccarena results out/reno-vs-cubic --table summary
          ccarena results out/reno-vs-cubic --columns run_id,id,goodput_bps,delay_p95_s
          ccarena results out/reno-vs-cubic --format parquet -o runs.parquet
        """
        from ccarena.errors import ExperimentError, OutputError
        from ccarena.experiment import open_store
        from ccarena.experiment import tables as t

        res = open_store(store, experiment)
        df = t.result_frame(res, table)
        if format_ != "table":
            if limit is not None:
                raise ExperimentError(f"--limit: only for --format table (a {format_.upper()} export holds every row)")
            if columns is not None:
                df = df[t.choose_columns(res, table, df, columns)]
        if format_ == "parquet":
            if out is None:
                raise OutputError("--format parquet needs --out FILE")
            df.to_parquet(out, index=False)
            click.echo(f"wrote {out} ({len(df)} rows)")
            return
        if format_ == "csv":
            if out is None:
                df.to_csv(sys.stdout, index=False)
            else:
                df.to_csv(out, index=False)
                click.echo(f"wrote {out} ({len(df)} rows)")
            return
        chosen = t.choose_columns(res, table, df, columns)
        if df.empty:
            text = t.empty_text(res, table)
        else:
            grid, left_out = t.result_table(table, df, chosen, limit)
            text = _format.text_table(*grid)
            if left_out:
                text += f"\n... {left_out} more rows ({len(df)} in all; without --limit to see every one)"
        if out is None:
            click.echo(text)
        else:
            out.write_text(text + "\n", encoding="utf-8")
            click.echo(f"wrote {out} ({len(df)} rows)")

    @app.command()
    @_store_argument()
    @_experiment_option()
    @out_dir_option("Directory for index.html and plots (default: STORE/report).")
    def report(store: Path, experiment: str | None, out: Path | None) -> None:
        """Write an HTML page with a store's means ± 95% CI and plots.

        One plot per metric against the swept parameter, one line per algorithm (or other varied
        key), confidence intervals as error bars.

        \b
        Example:
          ccarena report out/reno-vs-cubic
        """
        from ccarena.experiment import open_store
        from ccarena.experiment.report import write_report

        res = open_store(store, experiment)
        index = write_report(res, out if out is not None else store / "report")
        click.echo(f"wrote {index}")
