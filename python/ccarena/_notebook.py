"""How a run and a campaign show in a notebook (``_repr_html_``): a compact summary built from
the same tables the command line prints (:mod:`ccarena._format`, :mod:`ccarena.experiment.tables`),
as HTML with every text escaped."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from ccarena import _format

if TYPE_CHECKING:
    from ccarena.api import RunResult
    from ccarena.experiment.result import ExperimentResult

#: Links shown (most utilised first) and grid points shown, before "… N more".
LINKS_SHOWN = 6
POINTS_SHOWN = 40
#: The campaign metrics of the grid table, as the campaign report shows them.
GRID_METRICS = ["goodput_bps", "utilisation", "jain", "dropped_pkts", "mean_queue_pkts"]


def _table(table: _format.Table, more: int = 0, what: str = "rows") -> str:
    from ccarena.report.render import html_table

    tail = f"<p><em>… {more} more {escape(what)}</em></p>" if more else ""
    return f'<div style="overflow-x:auto">{html_table(*table)}</div>{tail}'


def run_html(result: RunResult) -> str:
    """Name, duration and seed; the main flows (and background groups); the most utilised links;
    Jain's index when two or more flows share."""
    main = result._main_flow_records()
    backend = result.meta.get("backend")
    head = (
        f"<p><strong>{escape(result.name)}</strong>: {float(result.meta['duration_s']):g} s simulated, "
        f"seed {escape(str(result.meta.get('seed')))}, {_format.counted(len(main), 'flow')}"
        f"{escape(f', on {backend}') if backend else ''}</p>"
    )
    parts = [head, "<p>Flows (rates over each flow's measured window)</p>", _table(_format.flow_table(main))]
    background = result._background_records()
    if background:
        parts += ["<p>Background traffic (sums over each group's sources)</p>", _table(_format.background_table(background))]
    links, left_out = _format.link_table(result._link_records(), limit=LINKS_SHOWN)
    parts += ["<p>Links (most utilised first)</p>", _table(links, left_out, "link directions")]
    if _format.jain_shares(main, "flow") > 1:  # one flow has no fairness to measure
        parts.append(f"<p>Jain's fairness index over flow goodputs: {escape(_format.ratio(result.jain()))}</p>")
    return '<div class="ccarena-run">' + "".join(parts) + "</div>"


def experiment_html(res: ExperimentResult) -> str:
    """Name and progress; the varied keys with their values; one row per grid point with the
    mean ± 95% CI of the main campaign metrics (:func:`ccarena.experiment.tables.grid_table`);
    the failures, if any."""
    from ccarena.experiment.tables import failures_text, grid_table

    head = (
        f"<p><strong>{escape(res.name)}</strong>: {len(res.plan)} runs planned "
        f"({res.replications} per grid point), {len(res.metrics)} finished, {len(res.failures)} failed, "
        f"{res.missing} missing</p>"
    )
    varied = "".join(
        f"<li><code>{escape(k)}</code>: {escape(', '.join(str(v) for v in res.metrics[k].drop_duplicates()))}</li>"
        for k in res.keys
    )
    parts = [head, f"<p>Varied</p><ul>{varied}</ul>" if varied else ""]
    if len(res.metrics):
        headers, rows, right = grid_table(res, GRID_METRICS)
        more = max(0, len(rows) - POINTS_SHOWN)
        parts += ["<p>Mean ± 95% CI per grid point</p>", _table((headers, rows[:POINTS_SHOWN], right), more, "grid points")]
    failures = failures_text(res)
    if failures:
        parts.append(f"<pre>{escape(failures)}</pre>")
    return '<div class="ccarena-experiment">' + "".join(parts) + "</div>"
