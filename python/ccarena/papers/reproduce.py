"""Running a paper's experiments into a store and writing its page: the paper's tables beside
ours, its figures redrawn from our runs, and its claims checked."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from ccarena import _core
from ccarena._format import counted
from ccarena.papers.model import Paper, Results, Scale, Verdict, checks_claims, fmt, unchecked_reason
from ccarena.report.render import generated_stamp, write_html

if TYPE_CHECKING:
    from ccarena.experiment import Experiment
    from ccarena.experiment.definition import RunSpec


@dataclass(frozen=True)
class Tally:
    """What one paper's reproduction came to, as its ``summary.json`` records it: its claims
    and, at a scale that checks claims, how many were reproduced (None at one that does not)."""

    name: str
    scale: Scale
    page: Path
    claims: int
    reproduced: int | None
    finished: int
    failed: int

    @property
    def not_reproduced(self) -> int | None:
        return None if self.reproduced is None else self.claims - self.reproduced

    def line(self) -> str:
        """``sqm-response: 3 of 4 claims reproduced, 1 not (see PAGE)``, or that the scale
        checks no claims; failed runs are named."""
        if self.reproduced is None:
            told = f"{counted(self.claims, 'claim')} not checked at {self.scale} scale"
        else:
            told = f"{self.reproduced} of {counted(self.claims, 'claim')} reproduced, {self.not_reproduced} not"
        runs = self.finished + self.failed
        failed = f"; {self.failed} of {counted(runs, 'run')} failed" if self.failed else ""
        return f"{self.name}: {told}{failed} (see {self.page})"

    def summary(self) -> dict[str, Any]:
        return {"claims": self.claims, "reproduced": self.reproduced, "not_reproduced": self.not_reproduced,
                "runs_finished": self.finished, "runs_failed": self.failed, "page": str(self.page)}


def total_line(tallies: Sequence[Tally]) -> str:
    """The tallies of several papers added up, in one line."""
    papers = counted(len(tallies), "paper")
    runs, failed = sum(t.finished + t.failed for t in tallies), sum(t.failed for t in tallies)
    ran = f"{counted(runs, 'run')}, {failed} failed"
    checked = [t for t in tallies if t.reproduced is not None]
    parts = []
    if checked:
        claims, reproduced = sum(t.claims for t in checked), sum(t.reproduced or 0 for t in checked)
        parts.append(f"{reproduced} of {counted(claims, 'claim')} reproduced, {claims - reproduced} not")
    for scale in dict.fromkeys(t.scale for t in tallies if t.reproduced is None):
        parts.append(unchecked_reason(scale))
    return f"total: {'; '.join(parts)} ({papers}, {ran})"


def run_paper(
    paper: Paper,
    scale: Scale,
    out_dir: Path,
    *,
    jobs: int | None = None,
    executor: str = "local",
    scheduler: str | None = None,
    progress: bool | None = None,
) -> Tally:
    """Run every experiment of ``paper`` at ``scale`` through the store ``out_dir/store`` (so an
    interrupted reproduction resumes) and write ``out_dir/index.html``; returns its tally."""
    from ccarena.experiment.campaign import run_campaigns

    experiments = paper.experiments(scale)
    # One pool for all of them: no core idles at the end of each experiment
    # waiting for its slowest run.
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


def check_claims(paper: Paper, results: Results) -> list[tuple[Any, Verdict]]:
    """Every claim with its verdict; a check that cannot be computed is a verdict too. (At a
    scale that checks no claims the page shows only what the verdicts measured.)"""
    out = []
    for claim in paper.claims:
        try:
            verdict = claim.check(results)
        except (KeyError, IndexError, ValueError, ZeroDivisionError) as exc:
            verdict = Verdict(False, "not measurable from these runs", f"{type(exc).__name__}: {exc}")
        out.append((claim, verdict))
    return out


def _table_view(paper: Paper, table: Any, results: Results) -> dict[str, Any]:
    """A paper's table with ours beside it, as ``paper.html`` prints it: per row its key and, per
    column, the paper's value, our mean ± half the 95% CI, and ours − paper."""
    estimates = paper.ours(results, table)
    rows = []
    for key, values in table.rows.items():
        ours_row = estimates.get(key, {})
        cells = []
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
            cells.append((shown, ours_cell, diff))
        rows.append(([str(k) for k in key], cells))
    return {
        "id": table.id,
        "title": table.title,
        "ref": table.ref,
        "index": table.index,
        "columns": [(col, table.units.get(col, "")) for col in table.columns],
        "rows": rows,
    }


def write_page(paper: Paper, scale: Scale, results: Results, out_dir: Path) -> Tally:
    """``out_dir/index.html`` and ``out_dir/summary.json`` for ``paper`` from ``results``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    verdicts = check_claims(paper, results)
    checked = checks_claims(scale)
    tables = [_table_view(paper, t, results) for t in paper.tables]
    figures = []
    for fig in paper.figures:
        name = re.sub(r"[^a-z0-9]+", "-", fig.id.lower()).strip("-") + ".png"
        fig.draw(results, out_dir / name)
        figures.append((name, fig))
    # A paper's own sections come as HTML from its module, which escapes what it prints.
    sections = [Markup(section(scale, out_dir)) for section in paper.sections]
    tally = Tally(
        name=paper.name, scale=scale, page=out_dir / "index.html", claims=len(verdicts),
        reproduced=sum(v.reproduced for _, v in verdicts) if checked else None,
        finished=sum(len(r.metrics) for r in results.values()), failed=sum(len(r.failures) for r in results.values()),
    )
    write_html(
        tally.page,
        "paper.html",
        paper=paper,
        scale=scale,
        version=_core.__version__,
        generated=generated_stamp(),
        tally=tally,
        unchecked=None if checked else unchecked_reason(scale),
        verdicts=verdicts,
        tables=tables,
        figures=figures,
        sections=sections,
    )
    summary = {"name": paper.name, "seed": paper.seed, "title": paper.title, "scale": scale, **tally.summary()}
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return tally


def write_index(out_dir: Path) -> Path:
    """``out_dir/index.html``: every paper page under ``out_dir`` with its claims score, or why
    its scale gives none."""
    entries = []
    for summary in sorted(out_dir.glob("*/summary.json")):
        s = json.loads(summary.read_text(encoding="utf-8"))
        unchecked = unchecked_reason(s["scale"]) if s.get("reproduced") is None else None
        entries.append((summary.parent.name, s, unchecked))
    out_dir.mkdir(parents=True, exist_ok=True)
    return write_html(out_dir / "index.html", "papers_index.html", version=_core.__version__, entries=entries)
