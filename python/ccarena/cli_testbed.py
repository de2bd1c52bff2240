"""``ccarena testbed run|cleanup`` and ``ccarena compare``: the Linux kernel backend on the command
line (see docs/testbed.md). Heavy modules are imported inside the commands."""

from __future__ import annotations

from pathlib import Path

import click

from ccarena._cli_params import out_dir_option, scenario_argument, seed_option, set_option


def register(app: click.Group) -> None:
    """Add ``testbed run|cleanup`` and ``compare`` to ``app``."""

    @app.command()
    @scenario_argument()
    @click.option(
        "--replications", "-n", type=click.IntRange(min=1), default=3, show_default=True, help="Runs per backend (seed, seed+1, ...)."
    )
    @out_dir_option("Directory for the plots.", default=Path("out/compare"))
    @set_option()
    @seed_option()
    def compare(file: Path, replications: int, out: Path, set_: tuple[str, ...], seed: int | None) -> None:
        """Run a scenario on the simulator and on the kernel testbed and print them side by side.

        \b
        Example:
          ccarena compare scenarios/e1-cubic-vs-reno.toml --replications 3
        """
        from ccarena.testbed.compare import compare as run_compare

        result = run_compare(file, replications=replications, overrides=set_, seed=seed, log=lambda s: click.echo(s, err=True))
        click.echo(result.table())
        files = result.plot(out)
        click.echo("\nwrote " + " ".join(str(f) for f in files))

    @app.group(no_args_is_help=True)
    def testbed() -> None:
        """Run a dumbbell scenario on this machine's Linux TCP in network namespaces (needs root)."""

    @testbed.command("run")
    @scenario_argument()
    @click.option("--json", "json_", is_flag=True, help="Print only the JSON summary to stdout.")
    @out_dir_option("Write Parquet tables, summary.json and plots into this directory.")
    @set_option()
    @seed_option()
    def testbed_run(file: Path, json_: bool, out: Path | None, set_: tuple[str, ...], seed: int | None) -> None:
        """Run a scenario on the kernel and print the simulator's result tables.

        \b
        Example:
          ccarena testbed run scenarios/e1-cubic-vs-reno.toml --set duration=20s -o out/e1-kernel
        """
        import sys

        from ccarena import plots
        from ccarena.cli import _report_text
        from ccarena.testbed import run

        result = run(file, overrides=set_, seed=seed, progress=sys.stderr.isatty())
        if out is not None:
            result.to_parquet(out)
            plots.plot_goodput(result, out / "goodput.png")
            plots.plot_cwnd(result, out / "cwnd.png")
            plots.plot_queue(result, out / "queue.png")
        if json_:
            click.echo(result.to_json())
            return
        header = f"{result.name}: {float(result.meta['duration_s']):g} s on the Linux kernel ({result.engine['wall_s']:.1f} s wall)"
        click.echo("\n".join([header, *_report_text(result, "flow").splitlines()[1:]]))
        line = result.meta["testbed"]
        for direction, stats in line["delayline"].items():
            click.echo(
                f"delay line {direction}: {stats['packets']} packets, lateness mean {stats['lateness_mean_s'] * 1e6:.0f} µs, "
                f"p99 {stats['lateness_p99_s'] * 1e6:.0f} µs, max {stats['lateness_max_s'] * 1e6:.0f} µs"
            )
        if line["lateness_flagged"]:
            click.echo(f"warning: the delay line released a packet more than {line['lateness_limit_s'] * 1e3:g} ms late", err=True)
        if out is not None:
            click.echo(f"\nwrote {out}/: flows.parquet flow_series.parquet links.parquet link_series.parquet "
                       "summary.json goodput.png cwnd.png queue.png")

    testbed.add_command(testbed_cleanup)


@click.command("cleanup")
@click.option("--all", "all_", is_flag=True, help="Also remove namespaces of runs still going.")
def testbed_cleanup(all_: bool) -> None:
    """Remove namespaces (and their processes) left by killed testbed runs."""
    from ccarena.testbed import checks, cleanup

    checks.require_privileges()
    removed = cleanup(include_live=all_)
    click.echo(f"removed {len(removed)} namespaces" + (": " + " ".join(removed) if removed else ""))
