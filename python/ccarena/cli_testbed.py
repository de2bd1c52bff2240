"""``ccarena testbed run|cleanup`` (the Linux kernel backend, docs/testbed.md), ``ccarena
compare`` (every backend side by side, docs/peers.md) and ``ccarena fidelity`` (the suite of
docs/fidelity.md). Heavy modules are imported inside the
commands."""

from __future__ import annotations

from pathlib import Path

import click

from ccarena._cli_params import out_dir_option, scenario_argument, seed_option, set_option


def register(app: click.Group) -> None:
    """Add ``testbed run|cleanup``, ``compare`` and ``fidelity`` to ``app``."""

    @app.command()
    @scenario_argument()
    @click.option(
        "--with", "with_", metavar="BACKENDS", default=None,
        help="Comma-separated backends: sim, ns2, ns3, kernel. [default: every one; those that cannot run are listed with the reason]",
    )
    @click.option(
        "--replications", "-n", type=click.IntRange(min=1), default=3, show_default=True, help="Runs per backend (seed, seed+1, ...)."
    )
    @click.option("--json", "json_", is_flag=True, help="Print everything as JSON keyed by backend name.")
    @out_dir_option("Directory for the plots.", default=Path("out/compare"))
    @set_option()
    @seed_option()
    def compare(file: Path, with_: str | None, replications: int, json_: bool, out: Path, set_: tuple[str, ...], seed: int | None) -> None:
        """Run a scenario on several backends (the simulator, ns-2, ns-3, the kernel) and print
        them side by side: mean ± 95% CI per backend, the difference from the simulator and
        each backend's wall time (docs/peers.md).

        \b
        Example:
          ccarena compare scenarios/reno-pair.toml --set stack=ns2 --with sim,ns2 --replications 3
        """
        import json

        from ccarena import backends
        from ccarena.compare import compare as run_compare
        from ccarena.errors import ScenarioError

        try:
            wanted = backends.names(with_)
        except ValueError as exc:
            raise ScenarioError(f"--with: {str(exc).removeprefix('backends: ')}") from None
        result = run_compare(file, backends_=wanted, replications=replications, overrides=set_, seed=seed,
                             log=lambda s: click.echo(s, err=True))
        if json_:
            click.echo(json.dumps(result.to_dict(), indent=2, allow_nan=False))
            return
        click.echo(result.table())
        files = result.plot(out)
        click.echo("\nwrote " + " ".join(str(f) for f in files))

    @app.command()
    @click.option(
        "--backends", metavar="BACKENDS", default=None,
        help="Comma-separated backends besides the simulator: ns2, ns3, kernel. [default: ns2,ns3 where they run]",
    )
    @click.option("--replications", "-n", type=click.IntRange(min=1), default=5, show_default=True, help="Runs per row and backend.")
    @click.option("--only", metavar="NAME", default=None, help="Only the rows of these algorithms (e.g. cubic) or cases (e.g. two-flows), comma-separated.")
    @click.option("--duration", metavar="TIME", default=None, help="Shorter runs for a quick look (no warm-up), e.g. 10s.")
    @click.option("--merge", is_flag=True, help="With --only: put the re-run rows into the table the output directory holds, keeping its other rows.")
    @out_dir_option("Directory for fidelity.md, fidelity.html and fidelity.json.", default=Path("docs"))
    def fidelity(backends: str | None, replications: int, only: str | None, duration: str | None, merge: bool, out: Path) -> None:
        """Run the fidelity suite on the simulator and the peer simulators and write the table of
        where they agree (docs/fidelity.md: every row's values, verdicts within stated
        tolerances, causes, and each backend's wall time).

        \b
        Example:
          ccarena fidelity --only reno -o out/fidelity
          ccarena fidelity --only hybla --merge -o docs
        """
        from ccarena import backends as _backends
        from ccarena import fidelity as _fidelity
        from ccarena.errors import ScenarioError

        try:
            wanted = _backends.names(backends) if backends is not None else None
        except ValueError as exc:
            raise ScenarioError(f"--backends: {str(exc).removeprefix('backends: ')}") from None
        for name in (only or "").split(",") if only is not None else ():
            if not _fidelity.rows(name.strip()):
                raise ScenarioError(f"--only: {name.strip()!r} is no algorithm or case of the suite")
        if merge and only is None:
            raise ScenarioError("--merge: name the rows to re-run with --only (without it the whole suite is run and written)")
        meta = {"replications": replications, "only": None if merge else only, "duration": duration}
        # Refuse a table that cannot take the rows before running them.
        peers = wanted if wanted is not None else _backends.names(_fidelity.DEFAULT_BACKENDS)
        kept = _fidelity.merge_base(out, meta, (r.key for r in _fidelity.rows(only)), peers) if merge else {}
        rows, missing = _fidelity.run_suite(wanted, replications=replications, only=only, duration=duration,
                                            log=lambda s: click.echo(s, err=True))
        for name, why in missing.items():
            click.echo(f"{name}: not available: {why}", err=True)
        if merge:
            rows = _fidelity.merged(kept, rows)
        paths = _fidelity.write(out, rows, {**meta, "unavailable": missing})
        click.echo("wrote " + " ".join(str(p) for p in paths))

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

        from ccarena import _format, plots
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
        click.echo("\n".join([header, *_format.report_text(result, "flow").splitlines()[1:]]))
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
