"""The run report (``ccarena demo``): a self-contained HTML page with one section per scenario,
its explanation, the per-flow and per-link tables, Jain's index and three plots
(``templates/run_report.html`` and ``run_section.html``). Images are PNG files next to
``index.html``; the page has no scripts and no external resources."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from ccarena import _format, plots
from ccarena.report.render import generated_stamp, html_table, render, stylesheet, write_html

if TYPE_CHECKING:
    from ccarena.api import RunResult
    from ccarena.demo import DemoRun

__all__ = ["write_report", "render_section", "html_table"]

_LINKS_SHOWN = 6

#: The pages' stylesheet as text, for pages written without the templates (the fidelity page).
CSS = stylesheet()

#: The plots of each scenario, in page order: file name (without ``.png``) and alt text.
_PLOTS = (("goodput", "goodput over time"), ("cwnd", "congestion window over time"), ("queue", "queue length"))


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


def _single_tables(res: RunResult) -> dict[str, Any]:
    links, left_out = _format.link_table(res._link_records(), limit=_LINKS_SHOWN)
    return {
        "tables": [_format.flow_table(res._main_flow_records()), links],
        "links_left_out": left_out,
        "jain_flows": _format.ratio(res.jain("flow")),
        "jain_groups": _format.ratio(res.jain("group")),
    }


def _variant_tables(results: dict[str, RunResult]) -> dict[str, Any]:
    """One table of flows and one of the bottleneck with a row per variant, side by side."""
    completion = any(_format.has_completion(r._main_flow_records()) for r in results.values())
    flow_rows: list[list[str]] = []
    link_rows: list[list[str]] = []
    headers: list[str] = []
    right: list[bool] = []
    lheaders: list[str] = []
    lright: list[bool] = []
    for variant, res in results.items():
        headers, rows, right = _format.flow_table(res._main_flow_records(), completion=completion)
        flow_rows += [[variant, *row] for row in rows]
        name = res.bottleneck()
        (lheaders, lrows, lright), _ = _format.link_table([link for link in res._link_records() if link["link"] == name])
        link_rows += [[variant, *row] for row in lrows]
    return {
        "tables": [(["variant", *headers], flow_rows, [False, *right]), (["variant", *lheaders], link_rows, [False, *lright])],
        "links_left_out": 0,
        "jain_flows": ", ".join(f"{v} {_format.ratio(r.jain('flow'))}" for v, r in results.items()),
        "jain_groups": "",
    }


def render_section(run: DemoRun, out_dir: Path) -> str:
    """Write the plots and data of one scenario under ``out_dir/<slug>/`` and return its HTML."""
    sc = run.scenario
    sub = out_dir / sc.slug
    # The tables first: to_parquet replaces the directory it writes as a whole.
    for variant, res in run.results.items():
        res.to_parquet(sub / variant if variant else sub)
    sub.mkdir(parents=True, exist_ok=True)
    overlay: RunResult | dict[str, RunResult]
    overlay = run.results if len(run.results) > 1 else next(iter(run.results.values()))
    plots.plot_goodput(overlay, sub / "goodput.png")
    plots.plot_cwnd_runs(run.results, sub / "cwnd.png")
    plots.plot_queue(overlay, sub / "queue.png")
    tables = _single_tables(next(iter(run.results.values()))) if len(run.results) == 1 else _variant_tables(run.results)
    return render("run_section.html", sc=sc, **tables, engine=_engine_note(run.results), plots=_PLOTS)


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
