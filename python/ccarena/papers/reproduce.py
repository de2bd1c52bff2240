"""Running a paper's experiments into a store and writing its page: the paper's tables beside
ours, its figures redrawn from our runs, and its claims checked."""

from __future__ import annotations

import datetime as _dt
import html
import json
import math
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ccarena import _core
from ccarena.errors import ExperimentError
from ccarena.papers.model import Paper, Results, Scale, Verdict, fmt
from ccarena.report.html import CSS

if TYPE_CHECKING:
    from ccarena.experiment import Experiment
    from ccarena.experiment.definition import RunSpec

_EXTRA_CSS = """
.ok { color: #0a7d32; font-weight: 700; } .no { color: #b3261e; font-weight: 700; }
td.claim { max-width: 26rem; } .why { color: #555; font-size: 0.85rem; }
figure { margin: 1rem 0; } figcaption { color: #555; font-size: 0.88rem; }
.paper { background: #fbf7ea; } .diff { color: #555; }
"""

def run_paper(
    paper: Paper,
    scale: Scale,
    out_dir: Path,
    *,
    jobs: int | None = None,
    executor: str = "local",
    scheduler: str | None = None,
    progress: bool | None = None,
) -> Path:
    """Run every experiment of ``paper`` at ``scale`` through the store ``out_dir/store`` (so an
    interrupted reproduction resumes) and write ``out_dir/index.html``; returns its path."""
    from ccarena.experiment.campaign import run_campaigns

    experiments = paper.experiments(scale)
    # One pool for all of them: no core idles at the end of each experiment (issue 9's 30 minutes).
    done = run_campaigns(
        [(exp, name in paper.series) for name, exp in experiments.items()], out_dir / "store",
        executor=executor, jobs=jobs, scheduler=scheduler, force=False, progress=progress,
    )
    return write_page(paper, scale, dict(zip(experiments, done)), out_dir)


def each_run(experiments: Mapping[str, Experiment]) -> Iterator[tuple[str, RunSpec, bool]]:
    """Every run of every experiment, in order, with its experiment's name and whether it is the
    first with its scenario: a run two experiments share is run, and counted, once."""
    seen: set[str] = set()
    for name, exp in experiments.items():
        for spec in exp.runs():
            key = json.dumps(spec.scenario, sort_keys=True, default=str)
            yield name, spec, key not in seen
            seen.add(key)


def dry_run(
    paper: Paper, scale: Scale, *, jobs: int | None = None, progress: bool = False
) -> list[tuple[str, int, float, int]]:
    """Per experiment: its number of runs, an estimate of their CPU seconds, and how many of its
    grid points were still ramping up (their events per second growing) when their calibration
    stopped: for those the estimate is a lower bound. Each grid point's first replication is
    calibrated, ``jobs`` at a time: simulated from its start until its events per second are
    steady, the rest priced at its CPU time per second by then
    (:mod:`ccarena.experiment.calibrate`), times the point's runs. A run two experiments share
    is counted once, with the first (a reproduction runs it once)."""
    from ccarena.experiment.calibrate import calibrate
    from ccarena.experiment.campaign import progress_bars
    from ccarena.experiment.executors import open_executor
    from ccarena.experiment.worker import RunOutcome

    experiments = paper.experiments(scale)
    first: dict[tuple[str, int], RunSpec] = {}  # (experiment, point) -> its first run
    new_runs: dict[tuple[str, int], int] = {}  # (experiment, point) -> its runs not counted before
    for name, spec, new in each_run(experiments):
        first.setdefault((name, spec.point), spec)
        if new:
            new_runs[name, spec.point] = new_runs.get((name, spec.point), 0) + 1
    calibrations: dict[str, tuple[dict[str, Any]]] = {}
    plans: dict[str, tuple[str, int]] = {}  # calibration key -> experiment, runs
    counted = dict.fromkeys(experiments, 0)
    for (name, point), n in new_runs.items():
        key = f"{name}/{point}"
        calibrations[key] = (first[name, point].scenario,)
        plans[key] = (name, n)
        counted[name] += n
    cpu = dict.fromkeys(experiments, 0.0)
    growing = dict.fromkeys(experiments, 0)
    bars = [("calibration", len(calibrations), 0, 0)]
    with open_executor("local", jobs, None, len(calibrations)) as pool, progress_bars(progress, bars) as advance:

        def add(outcome: RunOutcome) -> None:
            if outcome.error is not None:
                raise ExperimentError(f"{outcome.key}: calibration run failed: {outcome.error}")
            name, runs = plans[outcome.key]
            cpu[name] += float(outcome.engine["estimate_s"]) * runs
            growing[name] += int(bool(outcome.engine["growing"]))
            advance(0, False)

        pool.run_all(calibrations, add, task=calibrate)
    return [(name, counted[name], cpu[name], growing[name]) for name in experiments]


def check_claims(paper: Paper, results: Results) -> list[tuple[Any, Verdict]]:
    """Every claim with its verdict; a check that cannot be computed is a verdict too."""
    out = []
    for claim in paper.claims:
        try:
            verdict = claim.check(results)
        except (KeyError, IndexError, ValueError, ZeroDivisionError) as exc:
            verdict = Verdict(False, "not measurable from these runs", f"{type(exc).__name__}: {exc}")
        out.append((claim, verdict))
    return out


def _table_html(paper: Paper, table: Any, results: Results) -> str:
    estimates = paper.ours(results, table)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in table.index)
    for col in table.columns:
        unit = html.escape(table.units.get(col, ""))
        head += f'<th class="paper">{html.escape(col)}<br><small>paper, {unit}</small></th><th>ours<br><small>mean ± 95% CI</small></th><th>ours − paper</th>'
    rows = []
    for key, values in table.rows.items():
        cells = "".join(f"<td>{html.escape(str(k))}</td>" for k in key)
        ours_row = estimates.get(key, {})
        for col in table.columns:
            paper_value = values.get(col, math.nan)
            paper_ci = table.ci.get(key, {}).get(col)
            shown = fmt(paper_value) + (f" ({fmt(paper_ci)})" if paper_ci is not None else "")
            est = ours_row.get(col)
            if est is None or math.isnan(est.mean):
                ours_cell, diff = "–", "–"
            else:
                half = (est.high - est.low) / 2
                ours_cell = fmt(est.mean) + (f" ± {fmt(half)}" if not math.isnan(half) else "")
                d = est.mean - paper_value
                rel = f" ({d / paper_value * 100:+.0f}%)" if paper_value else ""
                diff = f"{d:+,.2f}{rel}" if abs(d) < 1000 else f"{d:+,.0f}{rel}"
            cells += f'<td class="num paper">{shown}</td><td class="num">{ours_cell}</td><td class="num diff">{diff}</td>'
        rows.append(f"<tr>{cells}</tr>")
    return (
        f"<h3>{html.escape(table.id)}: {html.escape(table.title)}</h3>"
        f'<p class="sub">{html.escape(table.ref)}. Paper values as printed (its 95% CI in parentheses where given).</p>'
        f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'
    )


def write_page(paper: Paper, scale: Scale, results: Results, out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    verdicts = check_claims(paper, results)
    finished = sum(len(r.metrics) for r in results.values())
    failed = sum(len(r.failures) for r in results.values())
    tables = "".join(_table_html(paper, t, results) for t in paper.tables)
    figures = []
    for fig in paper.figures:
        name = re.sub(r"[^a-z0-9]+", "-", fig.id.lower()).strip("-") + ".png"
        fig.draw(results, out_dir / name)
        figures.append(f'<figure><img src="{name}" alt="{html.escape(fig.id)}"><figcaption><b>{html.escape(fig.id)}</b> (redrawn from our runs): {html.escape(fig.caption)}</figcaption></figure>')
    claim_rows = "".join(
        f'<tr><td class="{"ok" if v.reproduced else "no"}">{"✔ reproduced" if v.reproduced else "✘ not reproduced"}</td>'
        f'<td class="claim">{html.escape(c.text)}<br><span class="why">{html.escape(c.ref)}; verdict stable at {html.escape(c.stable_at)} scale</span></td>'
        f'<td>{html.escape(v.measured)}{f"<br><span class=why>{html.escape(v.explanation)}</span>" if v.explanation else ""}</td></tr>'
        for c, v in verdicts
    )
    reproduced = sum(v.reproduced for _, v in verdicts)
    choices = "".join(f"<li>{html.escape(c)}</li>" for c in paper.choices)
    scales = "".join(
        f"<li>{'<b>' if s == scale else ''}<code>{s}</code>: {html.escape(t)}{'</b> (this page)' if s == scale else ''}</li>"
        for s, t in paper.scales.items()
    )
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    page = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(paper.name)}: reproduction of seed {html.escape(paper.seed)}</title>
<style>{CSS}{_EXTRA_CSS}</style>
</head>
<body>
<p class="sub"><a href="../index.html">all papers</a></p>
<h1>{html.escape(paper.name)}</h1>
<p><i>{html.escape(paper.title)}</i> — {html.escape(paper.citation)}</p>
<p class="sub">ccarena {html.escape(_core.__version__)}, scale <code>{scale}</code>, generated {stamp}: {finished} runs
finished, {failed} failed; {reproduced} of {len(verdicts)} claims reproduced.</p>
{f'<p><b>Note.</b> {html.escape(paper.note)}</p>' if paper.note else ""}
<h2>Setup</h2>
<p>{html.escape(paper.setup)}</p>
<p>Choices where the paper is silent:</p><ul>{choices}</ul>
<p>Scales:</p><ul>{scales}</ul>
<h2>Claims</h2>
<table><thead><tr><th>verdict</th><th>the paper says</th><th>we measured</th></tr></thead><tbody>{claim_rows}</tbody></table>
<h2>Tables: the paper's numbers beside ours</h2>
{tables}
{"<h2>Figures</h2>" + "".join(figures) if figures else ""}
{"".join(section(scale, out_dir) for section in paper.sections)}
</body>
</html>
"""
    index = out_dir / "index.html"
    index.write_text(page, encoding="utf-8")
    summary = {"name": paper.name, "seed": paper.seed, "title": paper.title, "scale": scale,
               "claims": len(verdicts), "reproduced": reproduced}
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return index


def write_index(out_dir: Path) -> Path:
    """``out_dir/index.html``: every paper page under ``out_dir`` with its claims score."""
    entries = []
    for summary in sorted(out_dir.glob("*/summary.json")):
        entries.append((summary.parent.name, json.loads(summary.read_text(encoding="utf-8"))))
    rows = "".join(
        f'<tr><td><a href="{html.escape(d)}/index.html">{html.escape(s["name"])}</a></td>'
        f'<td>seed {html.escape(s["seed"])}</td><td>{html.escape(s["title"])}</td><td><code>{html.escape(s["scale"])}</code></td>'
        f'<td class=num>{s["reproduced"]} / {s["claims"]}</td></tr>'
        for d, s in entries
    )
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>ccarena: seed paper reproductions</title>
<style>{CSS}{_EXTRA_CSS}</style></head><body>
<h1>Seed paper reproductions</h1>
<p class="sub">ccarena {html.escape(_core.__version__)}. Each page: the paper's setup, its tables beside ours, its
figures redrawn from our runs and its claims checked (<code>docs/reproducing.md</code>).</p>
<table><thead><tr><th>name</th><th>seed</th><th>title</th><th>scale</th><th>claims reproduced</th></tr></thead><tbody>{rows}</tbody></table>
</body></html>
"""
    out_dir.mkdir(parents=True, exist_ok=True)
    index = out_dir / "index.html"
    index.write_text(page, encoding="utf-8")
    return index
