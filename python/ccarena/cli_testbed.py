"""``ccarena testbed run|cleanup`` and ``ccarena compare``: the Linux kernel backend on the command
line (see docs/testbed.md). Heavy modules are imported inside the commands."""

# No `from __future__ import annotations`: typer reads the annotations of the commands defined
# inside register(), which name its arguments.
from pathlib import Path
from typing import Annotated, Any

import typer


def register(app: typer.Typer, ScenarioFile: Any, SetOption: Any) -> None:  # noqa: N803 (cli.py's type names)
    """Add ``testbed run|cleanup`` and ``compare`` to ``app`` (cli.py passes its argument types;
    importing them from here would be circular when cli.py runs as ``python -m ccarena.cli``)."""
    testbed_app = typer.Typer(
        help="Run a dumbbell scenario on this machine's Linux TCP in network namespaces (needs root).",
        no_args_is_help=True,
        rich_markup_mode=None,
    )
    testbed_app.command("run")(_run_command(ScenarioFile, SetOption))
    testbed_app.command("cleanup")(testbed_cleanup)
    app.add_typer(testbed_app, name="testbed")
    app.command("compare")(_compare_command(ScenarioFile, SetOption))


OutDir = Annotated[
    Path | None,
    typer.Option("--out", "-o", help="Write Parquet tables, summary.json and plots into this directory.", file_okay=False, show_default=False),
]
Seed = Annotated[int | None, typer.Option(help="Use this seed instead of the scenario's.", show_default=False)]


def _run_command(ScenarioFile: Any, SetOption: Any) -> Any:  # noqa: N803
    def testbed_run(
        file: ScenarioFile,
        json_: Annotated[bool, typer.Option("--json", help="Print only the JSON summary to stdout.")] = False,
        out: OutDir = None,
        set_: SetOption = None,
        seed: Seed = None,
    ) -> None:
        """Run a scenario on the kernel and print the simulator's result tables.

        Example: ccarena testbed run scenarios/e1-cubic-vs-reno.toml --set duration=20s -o out/e1-kernel"""
        import sys

        from ccarena import plots
        from ccarena.cli import _report_text
        from ccarena.testbed import run

        result = run(file, overrides=set_ or (), seed=seed, progress=sys.stderr.isatty())
        if out is not None:
            result.to_parquet(out)
            plots.plot_goodput(result, out / "goodput.png")
            plots.plot_cwnd(result, out / "cwnd.png")
            plots.plot_queue(result, out / "queue.png")
        if json_:
            typer.echo(result.to_json())
            return
        header = f"{result.name}: {float(result.meta['duration_s']):g} s on the Linux kernel ({result.engine['wall_s']:.1f} s wall)"
        typer.echo("\n".join([header, *_report_text(result, "flow").splitlines()[1:]]))
        line = result.meta["testbed"]
        for direction, stats in line["delayline"].items():
            typer.echo(
                f"delay line {direction}: {stats['packets']} packets, lateness mean {stats['lateness_mean_s'] * 1e6:.0f} µs, "
                f"p99 {stats['lateness_p99_s'] * 1e6:.0f} µs, max {stats['lateness_max_s'] * 1e6:.0f} µs"
            )
        if line["lateness_flagged"]:
            typer.echo(f"warning: the delay line released a packet more than {line['lateness_limit_s'] * 1e3:g} ms late", err=True)
        if out is not None:
            typer.echo(f"\nwrote {out}/: flows.parquet flow_series.parquet links.parquet link_series.parquet "
                       "summary.json goodput.png cwnd.png queue.png")

    return testbed_run


def testbed_cleanup(
    all_: Annotated[bool, typer.Option("--all", help="Also remove namespaces of runs still going.")] = False,
) -> None:
    """Remove namespaces (and their processes) left by killed testbed runs."""
    from ccarena.testbed import checks, cleanup

    checks.require_privileges()
    removed = cleanup(include_live=all_)
    typer.echo(f"removed {len(removed)} namespaces" + (": " + " ".join(removed) if removed else ""))


def _compare_command(ScenarioFile: Any, SetOption: Any) -> Any:  # noqa: N803
    def compare(
        file: ScenarioFile,
        replications: Annotated[int, typer.Option("--replications", "-n", min=1, help="Runs per backend (seed, seed+1, ...).")] = 3,
        out: Annotated[Path, typer.Option("--out", "-o", help="Directory for the plots.", file_okay=False)] = Path("out/compare"),
        set_: SetOption = None,
        seed: Seed = None,
    ) -> None:
        """Run a scenario on the simulator and on the kernel testbed and print them side by side.

        Example: ccarena compare scenarios/e1-cubic-vs-reno.toml --replications 3"""
        from ccarena.testbed.compare import compare as run_compare

        result = run_compare(file, replications=replications, overrides=set_ or (), seed=seed, log=lambda s: typer.echo(s, err=True))
        typer.echo(result.table())
        files = result.plot(out)
        typer.echo("\nwrote " + " ".join(str(f) for f in files))
    return compare
