"""A self-contained HTML report: one section per scenario with its explanation, the per-flow and
per-link tables, Jain's index and three plots. Images are PNG files next to ``index.html``; the page
has no scripts and no external resources."""

from __future__ import annotations

import datetime as _dt
import html
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ccarena import _format, plots

if TYPE_CHECKING:
    from ccarena.api import RunResult
    from ccarena.demo import DemoRun

__all__ = ["write_report", "render_section", "html_table"]

_LINKS_SHOWN = 6

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; max-width: 60rem; margin: 2rem auto;
       padding: 0 1rem; color: #1d1d1f; line-height: 1.45; }
h1 { margin-bottom: 0.2rem; } h2 { margin-top: 2.5rem; border-bottom: 1px solid #ddd; padding-bottom: 0.2rem; }
.sub { color: #666; font-size: 0.9rem; }
table { border-collapse: collapse; margin: 0.6rem 0 1rem; font-size: 0.88rem; }
th, td { padding: 0.25rem 0.6rem; border-bottom: 1px solid #e4e4e4; }
th { background: #f5f5f7; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.scroll { overflow-x: auto; }
.plots img { max-width: 100%; border: 1px solid #eee; margin: 0.3rem 0; }
pre { background: #f7f7f9; padding: 0.7rem; overflow-x: auto; font-size: 0.82rem; }
nav li { margin: 0.15rem 0; }
.jain { font-weight: 600; }
"""


def html_table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool]) -> str:
    """An HTML table from the same (headers, rows, right-aligned) triple the text tables use."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = []
    for row in rows:
        cells = "".join(
            f'<td class="num">{html.escape(c)}</td>' if r else f"<td>{html.escape(c)}</td>" for c, r in zip(row, right)
        )
        body.append(f"<tr>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _engine_note(results: dict[str, RunResult]) -> str:
    first = next(iter(results.values()))
    events = sum(int(r.engine.get("events", 0)) for r in results.values())
    wall = sum(float(r.engine.get("wall_s", 0.0)) for r in results.values())
    runs = f"{len(results)} runs of " if len(results) > 1 else ""
    return (
        f'<p class="sub">Simulated {runs}{float(first.meta["duration_s"]):g} s with {events:,} events in '
        f"{wall:.2f} s of wall time (seed {first.meta.get('seed')}).</p>"
    )


def _single_tables(res: RunResult) -> str:
    headers, rows, right = _format.flow_table(res._main_flow_records())
    (lheaders, lrows, lright), left_out = _format.link_table(res._link_records(), limit=_LINKS_SHOWN)
    more = f'<p class="sub">{left_out} less used link directions not shown (see summary.json).</p>' if left_out else ""
    return (
        f"{html_table(headers, rows, right)}\n{html_table(lheaders, lrows, lright)}\n{more}"
        f'<p><span class="jain">Jain\'s fairness index</span> over flow goodputs: {_format.ratio(res.jain("flow"))}; '
        f"over group totals: {_format.ratio(res.jain('group'))}.</p>"
    )


def _variant_tables(results: dict[str, RunResult]) -> str:
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
        (lheaders, lrows, lright), _ = _format.link_table([link for link in res._link_records() if link["name"] == name])
        link_rows += [[variant, *row] for row in lrows]
    jains = ", ".join(f"{html.escape(v)} {_format.ratio(r.jain('flow'))}" for v, r in results.items())
    return (
        f"{html_table(['variant', *headers], flow_rows, [False, *right])}\n"
        f"{html_table(['variant', *lheaders], link_rows, [False, *lright])}\n"
        f'<p><span class="jain">Jain\'s fairness index</span> over flow goodputs: {jains}.</p>'
    )


def _results_tables(results: dict[str, RunResult]) -> str:
    if len(results) == 1:
        body = _single_tables(next(iter(results.values())))
    else:
        body = _variant_tables(results)
    return body + "\n" + _engine_note(results)


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
    if len(run.results) > plots.GRID_ABOVE:
        plots.plot_cwnd_grid(run.results, sub / "cwnd.png")
    else:
        plots.plot_cwnd(overlay, sub / "cwnd.png")
    plots.plot_queue(overlay, sub / "queue.png")

    paras = "\n".join(f"<p>{html.escape(p)}</p>" for p in sc.paragraphs)
    variants = ""
    if sc.variants:
        items = "".join(
            f"<li><code>{html.escape(v)}</code>: <code>{html.escape(' '.join(o))}</code></li>" for v, o in sc.variants
        )
        variants = f"<p>Runs once per variant, with these overrides:</p><ul>{items}</ul>"
    imgs = "".join(
        f'<img src="{sc.slug}/{name}.png" alt="{alt}">'
        for name, alt in (("goodput", "goodput over time"), ("cwnd", "congestion window over time"), ("queue", "queue length"))
    )
    return f"""<section id="{sc.slug}">
<h2>{html.escape(sc.title)}</h2>
<p class="sub">Scenario file <code>{html.escape(sc.name)}</code> — data in <a href="{sc.slug}/">{sc.slug}/</a></p>
{paras}
{variants}
{_results_tables(run.results)}
<div class="plots">{imgs}</div>
<details><summary>Scenario file</summary><pre>{html.escape(sc.text)}</pre></details>
</section>"""


def write_report(runs: Sequence[DemoRun], out_dir: Path, *, title: str = "ccarena report") -> Path:
    """Write ``out_dir/index.html`` with one section per run; returns its path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    sections = [render_section(r, out_dir) for r in runs]
    toc = "".join(f'<li><a href="#{r.scenario.slug}">{html.escape(r.scenario.title)}</a></li>' for r in runs)
    version = ""
    if runs:
        first = next(iter(runs[0].results.values()))
        version = str(first.meta.get("version", ""))
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    page = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<style>{CSS}</style>
</head>
<body>
<h1>{html.escape(title)}</h1>
<p class="sub">ccarena {html.escape(version)}, generated {stamp}.
Rates are averages over each flow's measured window (from its start, or the end of warm-up, to the end of
the run); goodput counts application payload delivered in order, throughput every byte the sender put on
the wire. Delays are one-way, sender to receiver. Column definitions: <code>docs/results.md</code>.</p>
<nav><ul>{toc}</ul></nav>
{"".join(sections)}
</body>
</html>
"""
    index = out_dir / "index.html"
    index.write_text(page, encoding="utf-8")
    return index
