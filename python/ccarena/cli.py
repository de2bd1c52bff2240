"""The ``ccarena`` command line: a thin layer over :mod:`ccarena.api`.

User errors (an invalid scenario, a bad option) print exactly one line, ``error: <message>``, on
stderr and exit with status 2; no traceback. Output meant for programs (``run --json``) is the only
thing written to stdout.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from ccarena import _format
from ccarena import cli_experiment as _experiment_commands
from ccarena import cli_reproduce as _reproduce_commands
from ccarena import cli_testbed as _testbed_commands
from ccarena._cli_params import (
    OutputPath,
    out_dir_option,
    progress_default,
    progress_option,
    scenario_argument,
    seed_option,
    set_option,
)

if TYPE_CHECKING:
    from ccarena.api import JainOver as JainOverName

EXIT_USAGE = 2
EXIT_INTERRUPTED = 128 + 2  # SIGINT, as shells report it
EXIT_TERMINATED = 128 + 15  # SIGTERM

class _Terminated(BaseException):
    """Raised in the main thread by SIGTERM, so that cleanup runs as for Ctrl-C."""


class _Interrupted(BaseException):
    """Ctrl-C inside a command, carried past click, which would turn it into ``Abort`` after
    writing a blank line to stderr."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise _Terminated


def _interrupted(code: int) -> NoReturn:
    what = "interrupted" if code == EXIT_INTERRUPTED else "terminated"
    print(f"error: {what} (finished sweep runs are kept in the store)" if "sweep" in sys.argv else f"error: {what}", file=sys.stderr)
    sys.exit(code)


class _OrderedGroup(click.Group):
    """A group whose help lists its commands in the order they were added, not sorted."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)


class _Group(_OrderedGroup):
    """Maps every user error to one line on stderr and exit status 2."""

    group_class = _OrderedGroup  # for `app.group()`: ccarena testbed

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        from ccarena.errors import Error, ScenarioError

        try:
            code = super().main(
                args=args,
                prog_name=prog_name or "ccarena",
                complete_var=complete_var,
                standalone_mode=False,
                windows_expand_args=windows_expand_args,
                **extra,
            )
        except ScenarioError as exc:  # every error the scenario had, one line each
            _fail(*exc.errors)
        except Error as exc:
            _fail(str(exc))
        except click.exceptions.NoArgsIsHelpError as exc:  # `ccarena`, `ccarena testbed`: the help, as a usage error
            print(exc.format_message(), file=sys.stderr)
            sys.exit(EXIT_USAGE)
        except click.ClickException as exc:  # usage errors (bad option, missing file, ...)
            _fail(exc.format_message(), code=getattr(exc, "exit_code", EXIT_USAGE) or EXIT_USAGE)
        except click.Abort as exc:
            if isinstance(exc.__cause__, KeyboardInterrupt):  # Ctrl-C while click parsed the command line
                _interrupted(EXIT_INTERRUPTED)
            print("error: aborted", file=sys.stderr)
            sys.exit(1)
        except (KeyboardInterrupt, _Interrupted):
            _interrupted(EXIT_INTERRUPTED)
        except _Terminated:
            _interrupted(EXIT_TERMINATED)
        except BrokenPipeError:
            sys.exit(1)
        except OSError as exc:  # e.g. an output file of `results -o` cannot be written: a user error
            _fail(_os_error_line(exc))
        if standalone_mode:
            sys.exit(code if isinstance(code, int) else 0)
        return code

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise _Interrupted from None


def _os_error_line(exc: OSError) -> str:
    """One line naming the path and the system's reason; for a path below a regular file, that
    file (the system says only "File exists" or "Not a directory")."""
    if not exc.filename:
        return str(exc.strerror or exc)
    name = str(exc.filename)
    ancestor = Path(name)
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if ancestor.exists() and not ancestor.is_dir() and ancestor != Path(name):
        return f"{name}: {ancestor} is not a directory"
    return f"{name}: {exc.strerror or exc}"


def _fail(*messages: str, code: int = EXIT_USAGE) -> NoReturn:
    for message in messages:
        line = " ".join(str(message).split())  # exactly one line each
        print(f"error: {line}", file=sys.stderr)
    sys.exit(code)


app = _Group(
    name="ccarena",
    help="Deterministic packet-level simulation of congestion control.\n\n"
    "Run a scenario (a TOML file, see docs/scenario.md) and get per-flow and per-link metrics, "
    "Parquet tables and plots.",
    no_args_is_help=True,
    # click stops at 80 columns; a wider terminal shows the commands' summaries whole.
    context_settings={"max_content_width": 120},
)
app = click.version_option(package_name="ccarena", prog_name="ccarena", message="%(prog)s %(version)s")(app)


@app.command()
@scenario_argument()
@click.option("--json", "json_", is_flag=True, help="Print only the JSON summary (the output contract) to stdout.")
@out_dir_option(
    "Write Parquet tables (flows, flow_series, links, link_series), summary.json and "
    "PNG plots (goodput, cwnd, queue) into this directory."
)
@set_option()
@seed_option()
@click.option(
    "--jain-over",
    type=click.Choice(["flow", "group"]),
    default="flow",
    show_default=True,
    help="Compute Jain's index over each flow's goodput, or over each group's total.",
)
@progress_option()
@click.option(
    "--pcap",
    type=OutputPath(file_okay=False, path_type=Path),
    help="Write packet captures (pcap, for Wireshark and tshark) into this directory: one file per link direction.",
)
@click.option("--pcap-links", help="Links to capture, comma-separated (default: the bottleneck links, or all).")
@click.option("--pcap-snaplen", type=int, help="Bytes stored per packet, zero payload included (default: its headers).")
def run(
    file: Path,
    json_: bool,
    out: Path | None,
    set_: tuple[str, ...],
    seed: int | None,
    jain_over: JainOverName,
    progress: bool | None,
    pcap: Path | None,
    pcap_links: str | None,
    pcap_snaplen: int | None,
) -> None:
    """Run a scenario and print per-flow and per-link results.

    \b
    Example:
      ccarena run scenarios/reno-pair.toml --set duration=20s -o out/reno-pair
    """
    from ccarena import api

    if out is not None:
        api.check_output_dir(out)  # before the simulation, not after it
    links = [name.strip() for name in pcap_links.split(",") if name.strip()] if pcap_links is not None else None
    # The time series feed only the files of -o; without it they are not even built.
    result = api.run(
        file, overrides=set_, seed=seed, progress=progress_default(progress), series=out is not None,
        pcap=pcap, pcap_links=links, pcap_snaplen=pcap_snaplen,
    )
    if out is not None:
        result.to_parquet(out, jain_over=jain_over, plots=True)
    if json_:
        click.echo(result.to_json(jain_over))
        return
    click.echo(_format.report_text(result, jain_over))
    if out is not None:
        click.echo(f"\nwrote {out}/: flows.parquet flow_series.parquet links.parquet link_series.parquet "
                   "summary.json goodput.png cwnd.png queue.png")
    if pcap is not None:
        click.echo(f"wrote {pcap}/: " + " ".join(sorted(p.name for p in pcap.glob("*.pcap"))))


@app.command()
@scenario_argument()
@set_option()
def validate(file: Path, set_: tuple[str, ...]) -> None:
    """Check a scenario without running it: prints "ok: NAME (N flows, DURATION)" or the error."""
    from ccarena import api

    doc = api.prepare(file, overrides=set_)
    normalised = api.validate(doc)
    name = normalised.get("name") or doc.get("name") or file.stem
    n = sum(int(group.get("count", 1)) for group in doc.get("flows", []))
    duration = doc.get("duration", normalised.get("duration", "?"))
    click.echo(f"ok: {name} ({_format.counted(n, 'flow')}, {duration})")


@app.command()
@scenario_argument()
@click.option(
    "--png",
    type=OutputPath(dir_okay=False, path_type=Path),
    help="Draw the network (nodes, links with rate and delay) into this PNG file.",
)
@set_option()
def topology(file: Path, png: Path | None, set_: tuple[str, ...]) -> None:
    """Show the network a scenario builds: its links as a table, or a drawing with --png.

    \b
    Example:
      ccarena topology scenarios/seed003-parking-lot.toml --png parking-lot.png
    """
    from ccarena import api
    from ccarena import topology as topo

    desc = api.topology(file, overrides=set_)
    if png is None:
        click.echo(topo.text_summary(desc))
        return
    topo.draw(desc, png)
    click.echo(f"wrote {png}")


@app.command()
@click.option("--copy", "copy_name", metavar="NAME", help="Write the example NAME into the current directory (or --out DIR) to edit.")
@click.option("--out", "-o", "out", type=OutputPath(file_okay=False, path_type=Path), default=Path("."), help="Directory for --copy (default: here).")
def examples(copy_name: str | None, out: Path) -> None:
    """List the example scenarios that ship with ccarena; every command that reads a scenario
    takes one by name.

    \b
    Example:
      ccarena run reno-pair
      ccarena examples --copy reno-pair && ccarena run reno-pair.toml --set duration=20s
    """
    from ccarena import examples as bundled

    if copy_name is not None:
        click.echo("wrote " + " ".join(str(p) for p in bundled.copy(copy_name, out)))
        return
    rows = [[e.name, e.summary] for e in bundled.all_examples()]
    click.echo(_format.text_table(["name", "what it shows"], rows))


@app.command()
@click.option("--params", "-p", "verbose", is_flag=True, help="Also list each algorithm's parameters (with defaults) and presets.")
def algorithms(verbose: bool) -> None:
    """List the congestion control algorithms the simulator provides.

    Select one with `cc = "NAME"` (or `cc = "NAME@PRESET"`) in a [[flows]] group and change its
    parameters with `cc_params = { ... }`; docs/algorithms.md gives their sources."""
    from ccarena import api

    algos = api.algorithms()
    rows = [[a.protocol, a.name, a.description] for a in algos]
    click.echo(_format.text_table(["protocol", "name", "description"], rows))
    if verbose:
        for a in algos:
            click.echo(f"\n{a.name}")
            for key, default in a.params.items():
                click.echo(f"  cc_params.{key} = {json.dumps(default)}")
            for preset, source in a.presets:
                click.echo(f"  preset {a.name}@{preset}: {source}")


@app.command()
@out_dir_option("Directory for index.html, plots and data.", default=Path("out/demo"))
@progress_option()
def demo(out: Path, progress: bool | None) -> None:
    """Run the bundled demo scenarios and write an HTML report.

    The report (OUT/index.html) explains each scenario and shows its per-flow and per-link
    tables, Jain's index and plots of goodput, congestion window and queue length, of goodput
    against 95th-percentile delay and of the delay CDF."""
    from ccarena.demo import run_demo

    index = run_demo(out, progress=progress_default(progress))
    click.echo(f"wrote {index}")


@app.command()
@click.option(
    "--case",
    default="b1",
    show_default=True,
    help="Benchmark case: a file scenarios/bench/CASE.toml bundled with the package.",
)
@click.option(
    "--repeat",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="How many times to run it (each in a fresh process).",
)
@set_option()
def bench(case: str, repeat: int, set_: tuple[str, ...]) -> None:
    """Time a benchmark scenario and print a row for BENCHMARKS.md.

    Each repetition runs in a fresh Python process; reports engine wall time, simulated events/s,
    packets forwarded/s, peak memory, CPU and Python version. `--set` changes the case, e.g.
    `ccarena bench --set flows[0].cc=cubic` times B1 with CUBIC flows."""
    from ccarena.bench import format_report, run_bench

    try:
        report = run_bench(case, repeat=repeat, overrides=set_, log=lambda s: click.echo(s, err=True))
    except RuntimeError as exc:  # the benchmark process failed
        _fail(str(exc), code=1)
    click.echo(format_report(report))


_experiment_commands.register(app)
_reproduce_commands.register(app)
_testbed_commands.register(app)


def main() -> None:
    """The command line, as the ``ccarena`` console script runs it (``ccarena.__main__``, which
    first restarts the process on huge pages for commands that simulate)."""
    import os
    import signal
    import warnings

    # The command only writes image files: matplotlib's Agg backend, whatever backend the
    # environment names (a notebook's, inherited by a `!ccarena ...` shell command, needs IPython).
    os.environ["MPLBACKEND"] = "Agg"
    signal.signal(signal.SIGTERM, _on_sigterm)
    warnings.showwarning = _show_warning
    app(prog_name="ccarena")


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int, file: Any = None, line: str | None = None) -> None:
    """ccarena's own warnings (a damaged store run) as one ``warning:`` line, like its errors;
    other libraries' warnings as Python prints them."""
    from ccarena.errors import StoreDamagedWarning

    if issubclass(category, StoreDamagedWarning):
        click.echo(f"warning: {message}", err=True)
    else:
        import warnings

        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


if __name__ == "__main__":
    from ccarena._hugepages import restart_with_huge_pages

    restart_with_huge_pages(sys.argv[1:])
    main()
