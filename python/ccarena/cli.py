"""The ``ccarena`` command line: a thin layer over :mod:`ccarena.api`.

User errors (an invalid scenario, a bad option) print exactly one line, ``error: <message>``, on
stderr and exit with status 2; no traceback. Output meant for programs (``run --json``) is the only
thing written to stdout.
"""

from __future__ import annotations

import json

import sys
from collections.abc import Sequence
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from typer.core import TyperGroup

from ccarena import _format
from ccarena import cli_experiment as _experiment_commands
from ccarena import cli_reproduce as _reproduce_commands
from ccarena import cli_testbed as _testbed_commands

if TYPE_CHECKING:
    from ccarena.api import JainOver as JainOverName
    from ccarena.api import RunResult

EXIT_USAGE = 2
EXIT_INTERRUPTED = 128 + 2  # SIGINT, as shells report it
EXIT_TERMINATED = 128 + 15  # SIGTERM


class _Terminated(BaseException):
    """Raised in the main thread by SIGTERM, so that cleanup runs as for Ctrl-C."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise _Terminated


def _interrupted(code: int) -> NoReturn:
    what = "interrupted" if code == EXIT_INTERRUPTED else "terminated"
    print(f"error: {what} (finished sweep runs are kept in the store)" if "sweep" in sys.argv else f"error: {what}", file=sys.stderr)
    sys.exit(code)


class _Group(TyperGroup):
    """Maps every user error to one line on stderr and exit status 2."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        from ccarena.errors import Error

        try:
            code = super().main(
                args=args,
                prog_name=prog_name or "ccarena",
                complete_var=complete_var,
                standalone_mode=False,
                windows_expand_args=windows_expand_args,
                **extra,
            )
        except Error as exc:
            _fail(str(exc))
        except typer.TyperException as exc:  # click's usage errors (bad option, missing file, ...)
            if type(exc).__name__ == "NoArgsIsHelpError":
                print(exc.format_message(), file=sys.stderr)
                sys.exit(EXIT_USAGE)
            _fail(exc.format_message(), getattr(exc, "exit_code", EXIT_USAGE) or EXIT_USAGE)
        except typer.Abort:
            print("error: aborted", file=sys.stderr)
            sys.exit(1)
        except KeyboardInterrupt:
            _interrupted(EXIT_INTERRUPTED)
        except _Terminated:
            _interrupted(EXIT_TERMINATED)
        except BrokenPipeError:
            sys.exit(1)
        except OSError as exc:  # e.g. the output directory cannot be written
            name = f"{exc.filename}: " if exc.filename else ""
            _fail(f"{name}{exc.strerror or exc}", 1)
        if code == EXIT_INTERRUPTED:  # typer turns Ctrl-C into a plain exit code
            _interrupted(EXIT_INTERRUPTED)
        if standalone_mode:
            sys.exit(code if isinstance(code, int) else 0)
        return code


def _fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    line = " ".join(str(message).split())  # exactly one line
    print(f"error: {line}", file=sys.stderr)
    sys.exit(code)


app = typer.Typer(
    cls=_Group,
    name="ccarena",
    help="Deterministic packet-level simulation of congestion control.\n\n"
    "Run a scenario (a TOML file, see docs/scenario.md) and get per-flow and per-link metrics, "
    "Parquet tables and plots.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # help texts are plain: TOML's [[flows]] and [experiment] must print as written
)


class JainOver(str, Enum):
    flow = "flow"
    group = "group"


ScenarioFile = Annotated[
    Path,
    typer.Argument(
        help="Scenario file (TOML).",
        exists=True,
        file_okay=True,
        dir_okay=False,
        readable=True,
        metavar="FILE",
        show_default=False,
    ),
]
SetOption = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        "-s",
        help="Override a scenario value, e.g. --set flows[0].cc=newreno (repeatable; the value is "
        "read as TOML if it parses, else as a string).",
        metavar="KEY=VALUE",
        show_default=False,
    ),
]


def progress_default(flag: bool | None) -> bool:
    """Progress bars by default only for a person at a terminal: stdout redirected (a pipe, a
    file, CI) means a program reads the output."""
    if flag is not None:
        return flag
    return sys.stdout.isatty() and sys.stderr.isatty()


@app.command()
def run(
    file: ScenarioFile,
    json_: Annotated[
        bool, typer.Option("--json", help="Print only the JSON summary (the output contract) to stdout.")
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Write Parquet tables (flows, flow_series, links, link_series), summary.json and "
            "PNG plots (goodput, cwnd, queue) into this directory.",
            file_okay=False,
            show_default=False,
        ),
    ] = None,
    set_: SetOption = None,
    seed: Annotated[int | None, typer.Option(help="Use this seed instead of the scenario's.", show_default=False)] = None,
    jain_over: Annotated[
        JainOver, typer.Option(help="Compute Jain's index over each flow's goodput, or over each group's total.")
    ] = JainOver.flow,
    progress: Annotated[
        bool | None,
        typer.Option("--progress/--no-progress", help="Show a progress bar on stderr (default: when stdout and stderr are terminals).", show_default=False),
    ] = None,
    pcap: Annotated[
        Path | None,
        typer.Option(
            help="Write packet captures (pcap, for Wireshark and tshark) into this directory: one file per link direction.",
            file_okay=False,
            show_default=False,
        ),
    ] = None,
    pcap_links: Annotated[
        str | None,
        typer.Option(help="Links to capture, comma-separated (default: the bottleneck links, or all).", show_default=False),
    ] = None,
    pcap_snaplen: Annotated[
        int | None,
        typer.Option(help="Bytes stored per packet, zero payload included (default: its headers).", show_default=False),
    ] = None,
) -> None:
    """Run a scenario and print per-flow and per-link results.

    Example: ccarena run scenarios/reno-pair.toml --set duration=20s -o out/reno-pair"""
    from ccarena import api

    if out is not None:
        api.check_output_dir(out)  # before the simulation, not after it
    links = [name.strip() for name in pcap_links.split(",") if name.strip()] if pcap_links is not None else None
    # The time series feed only the files of -o; without it they are not even built.
    result = api.run(
        file, overrides=set_ or (), seed=seed, progress=progress_default(progress), series=out is not None,
        pcap=pcap, pcap_links=links, pcap_snaplen=pcap_snaplen,
    )
    over: api.JainOver = "group" if jain_over is JainOver.group else "flow"
    if out is not None:
        result.to_parquet(out, jain_over=over, plots=True)
    if json_:
        typer.echo(result.to_json(over))
        return
    typer.echo(_report_text(result, over))
    if out is not None:
        typer.echo(f"\nwrote {out}/: flows.parquet flow_series.parquet links.parquet link_series.parquet "
                   "summary.json goodput.png cwnd.png queue.png")
    if pcap is not None:
        typer.echo(f"wrote {pcap}/: " + " ".join(sorted(p.name for p in pcap.glob("*.pcap"))))


def _report_text(result: RunResult, jain_over: JainOverName) -> str:
    eng = result.engine
    lines = [
        f"{result.name}: {float(result.meta['duration_s']):g} s simulated, seed {result.meta.get('seed')}, "
        f"{int(eng.get('events', 0)):,} events in {float(eng.get('wall_s', 0.0)):.2f} s",
        "",
        "Flows (rates over each flow's measured window)",
        _format.text_table(*_format.flow_table(result.main_flows)),
        "",
    ]
    background = result.background()
    if not background.empty:
        lines += ["Background traffic (sums over each group's sources)", _format.text_table(*_format.background_table(background)), ""]
    (headers, rows, right), left_out = _format.link_table(result.links, limit=4)
    lines += ["Links (most utilised first)", _format.text_table(headers, rows, right)]
    if left_out:
        lines.append(f"... {left_out} more link directions (see --json or -o)")
    what = "flow goodputs" if jain_over == "flow" else "group goodput totals"
    lines += ["", f"Jain's fairness index over {what}: {_format.ratio(result.jain(jain_over))}"]
    return "\n".join(lines)


@app.command()
def validate(file: ScenarioFile, set_: SetOption = None) -> None:
    """Check a scenario without running it: prints "ok: NAME (N flows, DURATION)" or the error."""
    from ccarena import api

    doc = api.prepare(file, overrides=set_ or ())
    normalised = api.validate(doc)
    name = normalised.get("name") or doc.get("name") or file.stem
    n = sum(int(group.get("count", 1)) for group in doc.get("flows", []))
    duration = doc.get("duration", normalised.get("duration", "?"))
    typer.echo(f"ok: {name} ({n} flow{'s' if n != 1 else ''}, {duration})")


@app.command()
def topology(
    file: ScenarioFile,
    png: Annotated[
        Path | None,
        typer.Option("--png", help="Draw the network (nodes, links with rate and delay) into this PNG file.", dir_okay=False, show_default=False),
    ] = None,
    set_: SetOption = None,
) -> None:
    """Show the network a scenario builds: its links as a table, or a drawing with --png.

    Example: ccarena topology scenarios/seed003-parking-lot.toml --png parking-lot.png"""
    from ccarena import api
    from ccarena import topology as topo

    desc = api.topology(file, overrides=set_ or ())
    if png is None:
        typer.echo(topo.text_summary(desc))
        return
    topo.draw(desc, png)
    typer.echo(f"wrote {png}")


@app.command()
def algorithms(
    verbose: Annotated[bool, typer.Option("--params", "-p", help="Also list each algorithm's parameters (with defaults) and presets.")] = False,
) -> None:
    """List the congestion control algorithms the simulator provides.

    Select one with `cc = "NAME"` (or `cc = "NAME@PRESET"`) in a [[flows]] group and change its
    parameters with `cc_params = { ... }`; docs/algorithms.md gives their sources."""
    from ccarena import api

    algos = api.algorithms()
    rows = [[a.protocol, a.name, a.description] for a in algos]
    typer.echo(_format.text_table(["protocol", "name", "description"], rows))
    if verbose:
        for a in algos:
            typer.echo(f"\n{a.name}")
            for key, default in a.params.items():
                typer.echo(f"  cc_params.{key} = {json.dumps(default)}")
            for preset, source in a.presets:
                typer.echo(f"  preset {a.name}@{preset}: {source}")


@app.command()
def demo(
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for index.html, plots and data.", file_okay=False)] = Path(
        "out/demo"
    ),
    progress: Annotated[
        bool | None,
        typer.Option("--progress/--no-progress", help="Show progress bars on stderr (default: when stdout and stderr are terminals).", show_default=False),
    ] = None,
) -> None:
    """Run the bundled demo scenarios and write an HTML report.

    The report (OUT/index.html) explains each scenario and shows its per-flow and per-link
    tables, Jain's index and plots of goodput, congestion window and queue length."""
    from ccarena.demo import run_demo

    index = run_demo(out, progress=progress_default(progress))
    typer.echo(f"wrote {index}")


@app.command()
def bench(
    case: Annotated[str, typer.Option(help="Benchmark case: a file scenarios/bench/CASE.toml bundled with the package.")] = "b1",
    repeat: Annotated[int, typer.Option(min=1, help="How many times to run it (each in a fresh process).")] = 1,
    set_: SetOption = None,
) -> None:
    """Time a benchmark scenario and print a row for BENCHMARKS.md.

    Each repetition runs in a fresh Python process; reports engine wall time, simulated events/s,
    packets forwarded/s, peak memory, CPU and Python version. `--set` changes the case, e.g.
    `ccarena bench --set flows[0].cc=cubic` times B1 with CUBIC flows."""
    from ccarena.bench import format_report, run_bench

    try:
        report = run_bench(case, repeat=repeat, overrides=set_ or (), log=lambda s: typer.echo(s, err=True))
    except RuntimeError as exc:  # the benchmark process failed
        _fail(str(exc), 1)
    typer.echo(format_report(report))


_experiment_commands.register(app)
_reproduce_commands.register(app)
_testbed_commands.register(app, ScenarioFile, SetOption)


def main() -> None:
    """The command line, as the ``ccarena`` console script runs it (``ccarena.__main__``, which
    first restarts the process on huge pages for commands that simulate)."""
    import signal

    signal.signal(signal.SIGTERM, _on_sigterm)
    app(prog_name="ccarena")


if __name__ == "__main__":
    from ccarena._hugepages import restart_with_huge_pages

    restart_with_huge_pages(sys.argv[1:])
    main()
