"""The run report (``ccarena demo``): a self-contained HTML page with one section per scenario,
its explanation, the per-flow and per-link tables, Jain's index and plots of goodput, window and
queue over time, throughput against delay and the delay CDF (``templates/run_report.html`` and
``run_section.html``). Images are PNG files next to ``index.html``; the page has no scripts and
no external resources.

Long tables and crowded plots are folded: a flow table of more than :data:`ROWS_SHOWN` rows
shows one row per flow group (or its first rows) with every flow in a ``<details>``, and runs
with more than :data:`ccarena.report.figures.MANY_LINES` flows are drawn by group
(:mod:`ccarena.report.figures`). Jain's index is given only where two flows share something."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from ccarena import _format, plots
from ccarena.errors import ArgumentError
from ccarena.report import figures
from ccarena.report.render import generated_stamp, html_table, render, stylesheet, write_html

if TYPE_CHECKING:
    from ccarena.api import RunResult
    from ccarena.demo import DemoRun

__all__ = ["write_report", "render_section", "html_table"]

_LINKS_SHOWN = 6
#: A flow table longer than this is folded into a ``<details>``.
ROWS_SHOWN = 8

#: The pages' stylesheet as text, for pages written without the templates (the fidelity page).
CSS = stylesheet()


@dataclass
class TableBlock:
    """A table of a section: what is shown, and what a ``<details>`` holds (``rest``, with the
    ``summary`` line that opens it); ``note`` says what the shown table is."""

    shown: _format.Table
    rest: _format.Table | None = None
    summary: str = ""
    note: str = ""


def _engine_note(results: dict[str, RunResult]) -> dict[str, str]:
    first = next(iter(results.values()))
    events = sum(int(r.engine.get("events", 0)) for r in results.values())
    wall = sum(float(r.engine.get("wall_s", 0.0)) for r in results.values())
    return {
        "runs": f"{len(results)} runs of " if len(results) > 1 else "",
        "duration_s": f"{float(first.meta['duration_s']):g}",
        "events": f"{events:,}",
        "wall_s": f"{wall:.2f}",
        "seed": str(first.meta.get("seed")),
    }


def _prefixed(variant: str, table: _format.Table) -> _format.Table:
    headers, rows, right = table
    return ["variant", *headers], [[variant, *row] for row in rows], [False, *right]


def _joined(tables: Sequence[_format.Table]) -> _format.Table:
    """Tables with the same headers as one: their rows one after another."""
    return tables[0][0], [row for t in tables for row in t[1]], tables[0][2]


def flow_block(flows: _format.Table, groups: _format.Table) -> TableBlock:
    """The flow table of a section: whole up to :data:`ROWS_SHOWN` rows; longer, one row per
    group with every flow in the ``<details>`` when that is shorter, else the first rows with
    the rest in the ``<details>``."""
    headers, rows, right = flows
    if len(rows) <= ROWS_SHOWN:
        return TableBlock(flows)
    if len(groups[1]) < len(rows):
        note = "Per flow group: the sum of its flows' goodput, the mean, lowest and highest flow, and totals of drops, retransmissions and timeouts."
        return TableBlock(groups, flows, f"All {len(rows)} flows, one row each", note)
    head = (headers, rows[:ROWS_SHOWN], right)
    return TableBlock(head, (headers, rows[ROWS_SHOWN:], right), f"{len(rows) - ROWS_SHOWN} more flows")


def _single_tables(res: RunResult) -> dict[str, Any]:
    flows = res._main_flow_records()
    links, left_out = _format.link_table(res._link_records(), limit=_LINKS_SHOWN)
    return {
        "tables": [flow_block(_format.flow_table(flows), _format.group_table(flows)), TableBlock(links)],
        "links_left_out": left_out,
        "jain_flows": _format.ratio(res.jain("flow")) if _format.jain_shares(flows, "flow") > 1 else "",
        "jain_groups": _format.ratio(res.jain("group")) if _format.jain_shares(flows, "group") > 1 else "",
    }


def _variant_tables(results: dict[str, RunResult]) -> dict[str, Any]:
    """One table of flows and one of the bottleneck with a row per variant, side by side."""
    completion = any(_format.has_completion(r._main_flow_records()) for r in results.values())
    flows, groups, links = [], [], []
    for variant, res in results.items():
        records = res._main_flow_records()
        flows.append(_prefixed(variant, _format.flow_table(records, completion=completion)))
        groups.append(_prefixed(variant, _format.group_table(records)))
        name = res.bottleneck()
        bottleneck, _ = _format.link_table([link for link in res._link_records() if link["link"] == name])
        links.append(_prefixed(variant, bottleneck))
    shared = [f"{v} {_format.ratio(r.jain('flow'))}" for v, r in results.items() if _format.jain_shares(r._main_flow_records(), "flow") > 1]
    return {
        "tables": [flow_block(_joined(flows), _joined(groups)), TableBlock(_joined(links))],
        "links_left_out": 0,
        "jain_flows": ", ".join(shared),
        "jain_groups": "",
    }


def _goodput_caption(results: dict[str, RunResult], grouped: bool) -> str:
    if grouped:
        k, seconds = figures.goodput_window(results)
        text = (f"Goodput per flow group: the mean of the group's flows (line) and the range from its lowest to its "
                f"highest flow (band), each flow smoothed by a moving average over {k} sample intervals ({seconds:g} s).")
    else:
        text = ("Goodput of each flow: the payload it delivered in order in each sample interval, over the "
                "interval's length (averaged over a few intervals where the axis says so).")
    burst = figures.bursts_above_rate(results)
    if burst is not None:
        peak, rate = burst
        text += (f" Single sample intervals, before any averaging, reach up to {_format.rate(peak)}, above the {_format.rate(rate)} bottleneck: "
                 "goodput counts payload delivered in order, and once a lost packet is repaired the receiver hands "
                 "over at once all the data it held behind the hole.")
    return text


def _plots(results: dict[str, RunResult], sub: Path, slug: str) -> list[tuple[str, str, str, bool]]:
    """Draw the section's plots; return (image, alt text, caption, full width) per plot."""
    overlay: RunResult | dict[str, RunResult]
    overlay = results if len(results) > 1 else next(iter(results.values()))
    grouped = figures.lines_drawn(results) > figures.MANY_LINES
    if grouped:
        figures.group_goodput(results, sub / "goodput.png")
    else:
        plots.plot_goodput(overlay, sub / "goodput.png")
    # Runs of one flow each keep the plots' own window figure: overlaid up to GRID_ABOVE runs, a
    # panel per run beyond, one line in each; only runs of several flows need their groups drawn.
    cwnd_grouped = grouped and any(len(r._main_flow_records()) > 1 for r in results.values())
    if cwnd_grouped:
        figures.group_cwnd(results, sub / "cwnd.png")
        cwnd = "Congestion window per flow group, the mean of its flows and their range; rate-based and UDP flows have none."
    else:
        plots.plot_cwnd_runs(results, sub / "cwnd.png")
        cwnd = "Congestion window of each window-based flow, in segments."
    many_runs = len(results) > plots.GRID_ABOVE
    if many_runs:
        figures.queue_panels(results, sub / "queue.png")
    else:
        plots.plot_queue(overlay, sub / "queue.png")
    panels = len(results) > 1  # panels side by side need the page's width
    return [
        (f"{slug}/goodput.png", "goodput over time", _goodput_caption(results, grouped), grouped and panels),
        (f"{slug}/cwnd.png", "congestion window over time", cwnd, (cwnd_grouped and panels) or many_runs),
        (f"{slug}/queue.png", "queue length", "Queue length at the link in the title, in packets, time-averaged per sample interval.", many_runs),
        *_delay_plots(results, sub, slug),
    ]


def _delay_plots(results: dict[str, RunResult], sub: Path, slug: str) -> list[tuple[str, str, str, bool]]:
    """Throughput against delay and the delay CDF, where the runs measured one-way delays."""
    out = []
    try:
        figures.throughput_delay(results, sub / "throughput_delay.png")
    except ArgumentError:  # no flow has a delay percentile: nothing to place
        pass
    else:
        _, per = figures.point_names(results)
        out.append((f"{slug}/throughput_delay.png", "goodput against 95th-percentile delay",
                    "Each main flow's goodput against its 95th-percentile one-way delay (Pantheon's plot; the delay axis is "
                    f"inverted, so better is up and to the right), a colour and marker per {per}.", False))
    # Runs that delivered nothing after the warm-up have no delays: the CDF leaves them out.
    measured = {v: r for v, r in results.items() if r.delay_quantiles["delay_s"].notna().any()}
    if not measured:
        return out
    if figures.delay_cdf_overlaid(measured):
        plots.plot_delay_cdf(measured if len(measured) > 1 else next(iter(measured.values())), sub / "delay_cdf.png")
        styles = ", a line style per variant" if len(measured) > 1 else ""
        caption = f"CDF of one-way delay of each main flow's packets delivered after the warm-up, a line per flow{styles}."
        wide = False
    elif figures.one_group_each(measured):
        figures.run_delay_cdf(measured, sub / "delay_cdf.png")
        caption = "CDF of one-way delay of each variant's main flows, their packets delivered after the warm-up together."
        wide = False
    else:
        figures.group_delay_cdf(measured, sub / "delay_cdf.png")
        caption = ("CDF of one-way delay per flow group: the packets its main flows delivered after the warm-up "
                   "together, each flow weighted by its packets.")
        wide = len(measured) > 1
    if len(measured) < len(results):
        caption += f" Not shown: {', '.join(v for v in results if v not in measured)}, with no packet delivered after the warm-up."
    out.append((f"{slug}/delay_cdf.png", "one-way delay distribution", caption, wide))
    return out


def render_section(run: DemoRun, out_dir: Path) -> str:
    """Write the plots and data of one scenario under ``out_dir/<slug>/`` and return its HTML."""
    sc = run.scenario
    sub = out_dir / sc.slug
    # The tables first: to_parquet replaces the directory it writes as a whole.
    for variant, res in run.results.items():
        res.to_parquet(sub / variant if variant else sub)
    sub.mkdir(parents=True, exist_ok=True)
    tables = _single_tables(next(iter(run.results.values()))) if len(run.results) == 1 else _variant_tables(run.results)
    return render("run_section.html", sc=sc, **tables, engine=_engine_note(run.results), plots=_plots(run.results, sub, sc.slug))


def write_report(runs: Sequence[DemoRun], out_dir: Path, *, title: str = "ccarena report") -> Path:
    """Write ``out_dir/index.html`` with one section per run; returns its path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    # Each section is HTML rendered (and escaped) by run_section.html.
    sections = [Markup(render_section(r, out_dir)) for r in runs]
    version = ""
    if runs:
        first = next(iter(runs[0].results.values()))
        version = str(first.meta.get("version", ""))
    return write_html(
        out_dir / "index.html",
        "run_report.html",
        title=title,
        version=version,
        generated=generated_stamp(),
        contents=[(r.scenario.slug, r.scenario.title) for r in runs],
        sections=sections,
    )
