"""The demo: run the bundled scenarios listed in ``DEMO`` and write an HTML report.

A demo scenario is an ordinary scenario file whose leading comment block explains it::

    # Two Reno flows share a bottleneck            <- first line: the title
    #
    # Two long-lived Reno flows with the same ...  <- then paragraphs (blank "#" lines separate)
    #
    # variant tahoe: flows[0].recovery=tahoe       <- optional: run once per variant, with these
    # variant sack: flows[0].recovery=sack            overrides, and show the runs side by side
    # variants per algorithm: flows[0].cc          <- or: one variant per TCP algorithm the
                                                      core provides, setting this key to its name

The header is plain TOML comments, so the file stays a valid scenario that ``ccarena run`` accepts.

:func:`cwnd_by_algorithm` runs one scenario per algorithm the same way, for a single plot.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ccarena.api import RunResult, algorithms, check_output_file, run
from ccarena.errors import ArgumentError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["DemoScenario", "parse_header", "bundled", "demo_scenarios", "run_demo", "cwnd_by_algorithm"]

_VARIANT = re.compile(r"^variant\s+([A-Za-z0-9_.\-]+)\s*:\s*(.*)$")
_PER_ALGORITHM = re.compile(r"^variants\s+per\s+algorithm\s*:\s*(\S+)$")


@dataclass
class DemoScenario:
    """A scenario file with its title, explanation and variants (name → overrides)."""

    name: str
    text: str
    title: str
    paragraphs: list[str] = field(default_factory=list)
    variants: list[tuple[str, list[str]]] = field(default_factory=list)

    @property
    def slug(self) -> str:
        return re.sub(r"[^A-Za-z0-9_\-]+", "-", self.name.removesuffix(".toml")).strip("-")


def parse_header(name: str, text: str) -> DemoScenario:
    """Read the leading ``#`` comment block of a scenario file (see the module docstring)."""
    lines: list[str] = []
    for raw in text.splitlines():
        stripped = raw.strip()
        if not stripped.startswith("#"):
            if stripped:
                break
            continue
        lines.append(stripped[1:].strip())
    title = ""
    paragraphs: list[str] = []
    variants: list[tuple[str, list[str]]] = []
    current: list[str] = []
    for line in lines:
        m = _VARIANT.match(line)
        if m:
            variants.append((m.group(1), shlex.split(m.group(2))))
            continue
        m = _PER_ALGORITHM.match(line)
        if m:
            variants.extend((name, [f"{m.group(1)}={name}"]) for name in _tcp_algorithms())
            continue
        if not title:
            title = line
            continue
        if line:
            current.append(line)
        elif current:
            paragraphs.append(" ".join(current))
            current = []
    if current:
        paragraphs.append(" ".join(current))
    return DemoScenario(name=name, text=text, title=title or name, paragraphs=paragraphs, variants=variants)


def _tcp_algorithms() -> list[str]:
    """The names of every TCP algorithm the core provides."""
    return [a.name for a in algorithms() if a.protocol == "tcp"]


def bundled(*parts: str) -> Traversable:
    """A file or folder under the package's ``scenarios/`` directory."""
    node = resources.files("ccarena").joinpath("scenarios")
    for p in parts:
        node = node.joinpath(p)
    return node


#: The main job of `make demo`, in report order: bundled scenarios (``scenarios/NAME.toml``).
DEMO = (
    "reno-pair",
    "reno-rtt",
    "recovery-compare",
    "random-loss",
    "cbr-vs-reno",
    "window-dynamics",
    "ccid2-vs-cubic",
    "ccid3-vs-ccid2",
    "seed000-lan-ring",
    "seed003-parking-lot",
    "seed004-six-routers",
    "web-background",
    "bbr-vs-cubic",
)


def demo_scenarios() -> list[DemoScenario]:
    """The demo scenarios, in report order."""
    files = [bundled(f"{name}.toml") for name in DEMO]
    return [parse_header(f.name, f.read_text(encoding="utf-8")) for f in files]


@dataclass
class DemoRun:
    """A demo scenario and its results: one per variant, or a single run under the key ``""``."""

    scenario: DemoScenario
    results: dict[str, RunResult]


def run_demo(out_dir: str | Path, *, overrides: Sequence[str] = (), progress: bool = False) -> Path:
    """Run every demo scenario and write ``out_dir/index.html`` (plus plots and data per scenario).
    ``overrides`` apply to every scenario after its variant's own (e.g. ``["duration=5s"]`` for a
    quick preview). Returns the path of the index page."""
    from ccarena.report import write_report

    runs: list[DemoRun] = []
    for sc in demo_scenarios():
        results: dict[str, RunResult] = {}
        for variant, variant_overrides in sc.variants or [("", [])]:
            results[variant] = run(sc.text, overrides=[*variant_overrides, *overrides], progress=progress)
        runs.append(DemoRun(sc, results))
    return write_report(runs, Path(out_dir), title="ccarena demo")


def cwnd_by_algorithm(
    scenario: Any,
    algorithms: Sequence[str] | None = None,
    path: str | Path | None = None,
    *,
    key: str = "flows[0].cc",
    overrides: Sequence[str] = (),
) -> Figure:
    """Run ``scenario`` once per congestion-control algorithm and plot the windows together
    (:func:`ccarena.plots.plot_cwnd_runs`).

    ``algorithms`` defaults to every TCP algorithm the core provides; each run sets ``key`` (by
    default the first flow group's ``cc``) to the algorithm's name, after ``overrides``.
    Example, the window dynamics of three algorithms on one bottleneck::

        from ccarena.demo import cwnd_by_algorithm
        cwnd_by_algorithm("scenarios/window-dynamics.toml", ["reno", "cubic", "htcp"], "cwnd.png")
    """
    from ccarena import plots

    if algorithms is not None and (isinstance(algorithms, (str, bytes)) or not isinstance(algorithms, Sequence)):
        raise ArgumentError(f"algorithms: expected a list of algorithm names, not {type(algorithms).__name__}")
    if not isinstance(key, str):
        raise ArgumentError(f"key: expected a key path like 'flows[0].cc', not {type(key).__name__}")
    if isinstance(overrides, (str, bytes)) or not isinstance(overrides, Sequence):
        raise ArgumentError(f'overrides: expected a list of "KEY=VALUE" strings, not {type(overrides).__name__}')
    names = list(algorithms) if algorithms is not None else _tcp_algorithms()
    for name in names:
        if not isinstance(name, str):
            raise ArgumentError(f"algorithms: {name!r:.40} is not an algorithm name (a string)")
    if not names:
        raise ArgumentError("algorithms: the list is empty")
    if path is not None:  # refused before the runs, not after them
        check_output_file(path, "cwnd.png", "plot file")
    results = {name: run(scenario, overrides=[*overrides, f"{key}={name}"]) for name in names}
    return plots.plot_cwnd_runs(results, path)
