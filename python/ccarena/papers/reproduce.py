"""Running a paper's experiments into a store and writing its page: the paper's tables beside
ours, its figures redrawn from our runs, and its claims checked."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from ccarena import _core
from ccarena.errors import ExperimentError
from ccarena.papers.model import Paper, Results, Scale, Verdict, fmt
from ccarena.report.render import generated_stamp, write_html

if TYPE_CHECKING:
    from ccarena.experiment import Experiment
    from ccarena.experiment.definition import RunSpec

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


def write_page(paper: Paper, scale: Scale, results: Results, out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    verdicts = check_claims(paper, results)
    tables = [_table_view(paper, t, results) for t in paper.tables]
    figures = []
    for fig in paper.figures:
        name = re.sub(r"[^a-z0-9]+", "-", fig.id.lower()).strip("-") + ".png"
        fig.draw(results, out_dir / name)
        figures.append((name, fig))
    # A paper's own sections come as HTML from its module, which escapes what it prints.
    sections = [Markup(section(scale, out_dir)) for section in paper.sections]
    reproduced = sum(v.reproduced for _, v in verdicts)
    index = write_html(
        out_dir / "index.html",
        "paper.html",
        paper=paper,
        scale=scale,
        version=_core.__version__,
        generated=generated_stamp(),
        finished=sum(len(r.metrics) for r in results.values()),
        failed=sum(len(r.failures) for r in results.values()),
        reproduced=reproduced,
        verdicts=verdicts,
        tables=tables,
        figures=figures,
        sections=sections,
    )
    summary = {"name": paper.name, "seed": paper.seed, "title": paper.title, "scale": scale,
               "claims": len(verdicts), "reproduced": reproduced}
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return index


def write_index(out_dir: Path) -> Path:
    """``out_dir/index.html``: every paper page under ``out_dir`` with its claims score."""
    entries = []
    for summary in sorted(out_dir.glob("*/summary.json")):
        entries.append((summary.parent.name, json.loads(summary.read_text(encoding="utf-8"))))
    out_dir.mkdir(parents=True, exist_ok=True)
    return write_html(out_dir / "index.html", "papers_index.html", version=_core.__version__, entries=entries)
