"""The Python API: ``run`` a scenario, ``validate`` one, ``plan`` one (how it expands, without
running it), and the ``RunResult`` a run returns.

The binding (``ccarena._core``) takes a scenario as JSON text and returns raw columns; this module
adds what is derived (rates, ratios, utilisation, fairness) with the formulas of
:mod:`ccarena.metrics`, so the core stays a recorder of facts (see ``docs/results.md``).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from ccarena import _core, _format
from ccarena import scenario as _scenario
from ccarena.errors import ArgumentError, OutputError, ScenarioError
from ccarena.scenario import ScenarioSource

if TYPE_CHECKING:
    import pandas as pd

    from ccarena.cc import CongestionControl
    from ccarena.plots import RunPlots

__all__ = ["run", "validate", "prepare", "topology", "plan", "algorithms", "Algorithm", "Plan", "RunResult", "ScenarioError", "JainOver"]

JainOver = Literal["flow", "group"]


class Algorithm(NamedTuple):
    """A congestion control the core provides."""

    protocol: str
    name: str
    description: str
    #: Parameter name -> default value (set them with ``cc_params``).
    params: dict[str, Any]
    #: (preset, source) pairs, selectable as ``cc = "name@preset"``.
    presets: list[tuple[str, str]]


def algorithms() -> list[Algorithm]:
    """Every congestion control available, with its parameters' defaults and its presets."""
    return [Algorithm(**row) for row in _core.algorithms()]


def prepare(
    scenario: ScenarioSource,
    *,
    overrides: Iterable[str] = (),
    seed: int | None = None,
) -> dict[str, Any]:
    """Load a scenario and apply ``overrides`` (``KEY=VALUE`` strings) and ``seed``; no validation."""
    if isinstance(overrides, str):
        overrides = [overrides]
    doc = _scenario.apply_overrides(_scenario.load(scenario), overrides)
    if seed is not None:
        doc["seed"] = _scenario.check_seed(seed)
    return doc


def validate(
    scenario: ScenarioSource, *, overrides: Iterable[str] = (), algorithms: Mapping[str, type[CongestionControl]] | None = None
) -> dict[str, Any]:
    """Check a scenario without running it; return it normalised by the core (defaults filled in,
    every flow group expanded). Raises :class:`ScenarioError` with the path of the bad field.
    Congestion controls written in Python (``algorithms``, ``py:module.Class``) are imported and
    made, one per flow, as :func:`run` would."""
    from ccarena import cc as _cc

    doc = prepare(scenario, overrides=overrides)
    cc_factory = _cc.factory_for(doc, algorithms, _folder_of(scenario))
    return _core.validate(_scenario.to_json(doc), cc_factory)


def _folder_of(scenario: ScenarioSource) -> list[str]:
    """The folder of a scenario given as a file: where ``py:module.Class`` modules are looked
    for after the current directory (:func:`ccarena.cc.resolve`)."""
    if isinstance(scenario, (str, os.PathLike)) and not (isinstance(scenario, str) and "\n" in scenario):
        path = Path(scenario)
        if path.is_file():
            return [str(path.resolve().parent)]
    return []


def topology(scenario: ScenarioSource, *, overrides: Iterable[str] = ()) -> dict[str, Any]:
    """The network a scenario builds, as data: ``{"name", "kind", "nodes": [{"name", "role"}],
    "links": [{"name", "src", "dst", "rate_bps", "delay_s", "queue", "varies"}], "flows": [{"id",
    "group", "role", "src", "dst"}]}``, links listed per direction (``varies``: ``"schedule"``,
    ``"trace"`` or None). Raises :class:`ScenarioError`."""
    doc = prepare(scenario, overrides=overrides)
    return _core.topology(_scenario.to_json(doc))


def plan(scenario: ScenarioSource, *, overrides: Iterable[str] = (), seed: int | None = None) -> Plan:
    """How a scenario expands, without running it: what a run of it would report before its first
    packet (flows with their endpoints, start times, base RTTs and resolved options; link
    directions; ``meta``). Backends that run the scenario elsewhere build on it. Takes the
    arguments of :func:`run`; raises :class:`ScenarioError` where :func:`run` would."""
    doc = prepare(scenario, overrides=overrides, seed=seed)
    return Plan(_core.plan(_scenario.to_json(doc)))


def run(
    scenario: ScenarioSource,
    *,
    overrides: Iterable[str] = (),
    seed: int | None = None,
    progress: bool = False,
    series: bool = True,
    pcap: str | os.PathLike[str] | None = None,
    pcap_links: Sequence[str] | None = None,
    pcap_snaplen: int | None = None,
    algorithms: Mapping[str, type[CongestionControl]] | None = None,
) -> RunResult:
    """Run one simulation.

    ``scenario`` is a path to a TOML file, TOML text or a dict; ``overrides`` are ``KEY=VALUE``
    edits applied first (``["flows[0].cc=newreno", "duration=10s"]``); ``seed`` replaces the
    scenario's seed. With ``progress=True`` a progress bar is drawn on stderr. ``series=False``
    leaves ``flow_series`` and ``link_series`` empty (their columns, no rows): faster and smaller
    when only the per-flow and per-link results matter. The simulation runs in Rust without
    holding the GIL. Raises :class:`ScenarioError` for an invalid scenario.

    ``pcap`` names a directory for packet captures: one pcap file per link direction in
    ``pcap_links`` (default: the links named ``bottleneck…``, or all), packets as they arrive at
    the link's far end, timestamps in simulated time, headers only unless ``pcap_snaplen`` asks
    for more (docs/pcap.md). Raises :class:`ArgumentError` for an unknown link name and
    :class:`OutputError` if a file cannot be written.

    ``algorithms`` registers congestion controls written in Python (:class:`ccarena.CongestionControl`
    subclasses) under names a flow group's ``cc`` may use; ``cc = "py:module.Class"`` needs no
    registration. An exception raised by their code stops the run and is raised here.
    """
    from ccarena import cc as _cc

    # The arguments are checked before the scenario: the core would raise TypeError for them.
    _check_flag(series, "series")
    _check_flag(progress, "progress")
    pcap_dir, links = _check_pcap(pcap, pcap_links, pcap_snaplen)
    doc = prepare(scenario, overrides=overrides, seed=seed)
    cc_factory = _cc.factory_for(doc, algorithms, _folder_of(scenario))
    text = _scenario.to_json(doc)
    if not progress:
        return RunResult(_core.run(text, None, series, pcap_dir, links, pcap_snaplen, cc_factory), pcap_dir=pcap_dir)
    bar = ProgressBar(str(doc.get("name", "run")))
    try:
        raw = _core.run(text, bar.update, series, pcap_dir, links, pcap_snaplen, cc_factory)
    finally:
        bar.close()
    return RunResult(raw, pcap_dir=pcap_dir)


def _check_flag(value: Any, name: str) -> None:
    if not isinstance(value, bool):
        raise ArgumentError(f"{name}: expected True or False, not {_short(value)}")


def _short(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _check_pcap(
    pcap: Any, pcap_links: Any, pcap_snaplen: Any
) -> tuple[str | None, list[str] | None]:
    """``run``'s capture arguments as the core takes them (a directory name, link names), or
    :class:`ArgumentError` naming the bad one."""
    if pcap is None:
        if pcap_links is not None or pcap_snaplen is not None:
            raise ArgumentError("pcap_links and pcap_snaplen need pcap: the directory the captures go to")
        return None, None
    pcap_dir = _path_text(pcap, "pcap", "directory")
    if not pcap_dir.strip():
        # An empty name would write the captures into the current directory.
        raise ArgumentError("pcap: the directory name is empty (give the directory the captures go to)")
    if pcap_snaplen is not None and (isinstance(pcap_snaplen, bool) or not isinstance(pcap_snaplen, int) or not 1 <= pcap_snaplen <= 262_144):
        raise ArgumentError(f"pcap_snaplen: {_short(pcap_snaplen)} is not a snap length: expected bytes from 1 to 262144")
    if pcap_links is None:
        return pcap_dir, None
    if isinstance(pcap_links, str):
        raise ArgumentError(f"pcap_links: expected a list of link names, not the string {pcap_links!r}")
    if not isinstance(pcap_links, Iterable) or isinstance(pcap_links, (bytes, Mapping)):
        raise ArgumentError(f"pcap_links: expected a list of link names, not {type(pcap_links).__name__}")
    links = list(pcap_links)
    for name in links:
        if not isinstance(name, str):
            raise ArgumentError(f"pcap_links: {_short(name)} is not a link name (a string)")
    return pcap_dir, links


class ProgressBar:
    """A rich progress bar on stderr for one run: simulated time against wall time, with the
    time left. Fed fractions 0..1 by the core's callback; never breaks a run."""

    def __init__(self, label: str) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            TextColumn("{task.fields[simulated]} simulated"),
            TimeElapsedColumn(),
            TextColumn("left"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=False,
        )
        self._task = self._progress.add_task(label, total=1.0, simulated="0.0 s")
        self._progress.start()

    def update(self, fraction: float, simulated_s: float) -> None:
        try:
            f = min(max(float(fraction), 0.0), 1.0)
            self._progress.update(self._task, completed=f, simulated=f"{simulated_s:.1f} s")
        except Exception:  # noqa: BLE001 - a progress bar must never break a run
            pass

    def close(self) -> None:
        self._progress.stop()


def check_output_dir(directory: str | Path) -> Path:
    """Refuse, before any work, an output directory that cannot be written: an empty name, an
    existing file, a path under a file, a parent without write permission."""
    if not isinstance(directory, (str, os.PathLike)):
        raise ArgumentError(f"output directory: expected a path (a str or a Path), not {type(directory).__name__}")
    if str(os.fspath(directory)).strip() == "":
        raise OutputError("output directory: the name is empty")
    out = Path(directory)
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out}: exists and is not a directory")
    _check_writable_below(out, f"{out}:")
    return out


def _check_writable_below(out: Path, lead: str) -> None:
    """Refuse ``out`` if its nearest existing ancestor is not a directory we may write in."""
    ancestor = out.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise OutputError(f"{lead} {ancestor} is a file, not a directory")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise OutputError(f"{lead} no permission to write in {ancestor}")


def _path_text(value: Any, what: str, kind: str) -> str:
    """``value`` as a text path (a str or an ``os.PathLike`` of str), or :class:`ArgumentError`."""
    text = os.fspath(value) if isinstance(value, (str, os.PathLike)) else value
    if not isinstance(text, str):
        raise ArgumentError(f"{what}: expected a {kind} path (a str or a Path), not {type(text).__name__}")
    return text


def check_output_file(path: Any, default_name: str, what: str = "output file") -> Path:
    """Where to write an output file named by the user, refused before any work with one line
    (:class:`OutputError`) if it cannot be written: an empty name, a path below a regular file,
    a directory without write permission. An existing directory, or a name ending in ``/``,
    means ``default_name`` inside it (``out`` → ``out/goodput.png``), never a file beside it."""
    text = _path_text(path, what, "file")
    if not text.strip():
        raise OutputError(f"{what}: the file name is empty")
    out = Path(text)
    if out.is_dir() or text.endswith(("/", os.sep)):
        out = out / default_name
    _check_writable_below(out, f"cannot write {out}:")
    return out


def write_figure(fig: Any, path: Any, default_name: str) -> Path:
    """Save a matplotlib figure as a PNG at ``path`` (see :func:`check_output_file` for the
    rule on directories), creating missing parent directories; close it. Raises
    :class:`OutputError` naming the file and the system's reason if it cannot be written."""
    import matplotlib.pyplot as plt

    out = check_output_file(path, default_name, "plot file")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out)
    except OSError as exc:
        raise OutputError(f"cannot write {out}: {exc.strerror or exc}") from None
    finally:
        plt.close(fig)
    return out


@contextmanager
def output_directory(directory: str | Path) -> Iterator[Path]:
    """Yield a fresh temporary directory beside ``directory`` and rename it to ``directory`` when
    the block succeeds (replacing an older one); remove it if the block fails or is interrupted."""
    out = check_output_dir(directory)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.parent / f".{out.name}.tmp-{uuid.uuid4().hex[:12]}"
        tmp.mkdir()
    except OSError as exc:
        raise OutputError(f"{out}: cannot create it ({exc.strerror or exc})") from None
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    try:
        if out.exists():
            old = out.parent / f".{out.name}.old-{uuid.uuid4().hex[:12]}"
            os.rename(out, old)
            os.rename(tmp, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(tmp, out)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise OutputError(f"{out}: cannot write it ({exc.strerror or exc})") from None


def _frame(columns: Mapping[str, Any], table: str) -> pd.DataFrame:
    """A result table as a DataFrame that still reads its renamed columns by their old names
    (:mod:`ccarena._aliases`)."""
    import pandas as pd

    from ccarena import _aliases

    return _aliases.aliased(pd.DataFrame({k: v for k, v in columns.items()}), table)


def _main(flows: pd.DataFrame) -> pd.DataFrame:
    """The scenario's ``[[flows]]`` of a flow table (``role == "main"``), not its ``[[background]]`` sources."""
    if "role" not in flows:
        return flows
    return flows[flows["role"] != "background"]


class Plan:
    """A scenario as the simulator would run it (:func:`plan`).

    - ``meta``: as a run's (:class:`RunResult`), the normalised scenario in ``meta["scenario"]``;
    - ``flows``: one row per flow (main and background), the first columns of a run's ``flows``
      (``flow_id`` … ``rtt_base_s``) with the values a run reports;
    - ``links``: one row per link direction, the first columns of a run's ``links`` (``link``,
      ``src``, ``dst``, ``rate_bps``, ``delay_s``, ``queue``);
    - ``columns``: table name → every column of that table as the core records it in a run, in
      order (:class:`RunResult` adds the derived ones).
    """

    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.meta: dict[str, Any] = dict(raw["meta"])
        self.columns: dict[str, list[str]] = {table: list(names) for table, names in raw["columns"].items()}
        self._tables = {"flows": raw["flows"], "links": raw["links"]}

    @functools.cached_property
    def flows(self) -> pd.DataFrame:
        return _frame(self._tables["flows"], "flows")

    @functools.cached_property
    def links(self) -> pd.DataFrame:
        return _frame(self._tables["links"], "links")

    @property
    def main_flows(self) -> pd.DataFrame:
        """The scenario's ``[[flows]]``, without the ``[[background]]`` sources."""
        return _main(self.flows)


class RunResult:
    """The outcome of one run: four tidy tables, metadata and a JSON-ready summary.

    Attributes (pandas DataFrames, columns documented in ``docs/results.md``):

    - ``flows``: one row per flow, with the derived columns ``throughput_bps``, ``goodput_bps``
      and ``delivery_ratio``;
    - ``flow_series``: one row per flow × sample interval;
    - ``links``: one row per link direction, with the derived ``utilisation``;
    - ``link_series``: one row per link direction × sample interval;
    - ``delay_quantiles``: one row per main flow × level q = 0, 0.005, …, 1: the q-quantile of its
      one-way delays (empty where a backend does not measure them);

    ``plot``, the run's plots as methods (``result.plot.goodput()``: :class:`ccarena.plots.RunPlots`);
    ``pcap_dir``, where its packet captures are (``None`` without ``pcap=``); and the dicts
    ``meta`` (name, seed, duration_s, warmup_s, sample_interval_s, version, scenario) and
    ``engine`` (events, wall_s, packets_forwarded, peak_packets, warmup_wall_s: the wall seconds
    up to the end of the warm-up).
    """

    def __init__(self, raw: Mapping[str, Any], *, pcap_dir: str | os.PathLike[str] | None = None) -> None:
        if not isinstance(raw, Mapping):
            raise ArgumentError(f"RunResult: expected the raw result of a run (ccarena.run returns one), not {type(raw).__name__}")
        missing = [k for k in ("meta", "engine", "flows", "links", "flow_series", "link_series") if k not in raw]
        if missing:
            raise ArgumentError(f"RunResult: expected the raw result of a run (ccarena.run returns one), missing {missing[0]!r}")
        self.meta: dict[str, Any] = dict(raw["meta"])
        self.engine: dict[str, Any] = dict(raw["engine"])
        # Plain columns (NumPy arrays, lists of text: the summary needs nothing else); DataFrames
        # are built on first use. The columns' module loads with the first result, so that
        # `validate` and `topology` start without it.
        from ccarena import _columns

        self._flow_cols = _columns.flow_columns(raw["flows"], float(self.meta["duration_s"]))
        self._link_cols = _columns.link_columns(raw["links"])
        self._series = {"flow_series": raw["flow_series"], "link_series": raw["link_series"]}
        self._delay_quantiles = raw.get("delay_quantiles") or dict.fromkeys(("flow_id", "q", "delay_s"), [])
        self.pcap_dir: Path | None = Path(pcap_dir) if pcap_dir is not None else None

    @functools.cached_property
    def flows(self) -> pd.DataFrame:
        return _frame(self._flow_cols, "flows")

    @functools.cached_property
    def flow_series(self) -> pd.DataFrame:
        return _frame(self._series["flow_series"], "flow_series")

    @functools.cached_property
    def links(self) -> pd.DataFrame:
        return _frame(self._link_cols, "links")

    @functools.cached_property
    def link_series(self) -> pd.DataFrame:
        return _frame(self._series["link_series"], "link_series")

    @functools.cached_property
    def delay_quantiles(self) -> pd.DataFrame:
        return _frame(self._delay_quantiles, "delay_quantiles")

    @property
    def plot(self) -> RunPlots:
        from ccarena.plots import RunPlots

        return RunPlots(self)

    def _repr_html_(self) -> str:
        from ccarena import _notebook

        return _notebook.run_html(self)

    @property
    def name(self) -> str:
        return str(self.meta.get("name", ""))

    @property
    def main_flows(self) -> pd.DataFrame:
        """The scenario's ``[[flows]]`` (``role == "main"``): what Jain's index, the summary's
        ``flows`` and the tables cover. ``flows`` also holds the ``[[background]]`` sources."""
        return _main(self.flows)

    def background(self) -> pd.DataFrame:
        """One row per background group (e.g. ``background:web``): its number of sources, the
        aggregate ``throughput_bps`` (wire bytes sent: the offered load) and ``goodput_bps``, both
        over the whole measured window ``duration − warmup`` (sources start at different times,
        so their own rates do not add up), and its drops and retransmissions. Empty without
        ``[[background]]``."""
        import pandas as pd

        from ccarena._columns import BACKGROUND_SUMMARY_KEYS

        return pd.DataFrame(self._background_records(), columns=list(BACKGROUND_SUMMARY_KEYS))

    def _main_flow_records(self) -> list[dict[str, Any]]:
        """``main_flows`` as dicts, for the text tables (``_format``): no pandas needed."""
        from ccarena import _columns

        return _columns.records(self._flow_cols, _columns.main_rows(self._flow_cols))

    def _link_records(self) -> list[dict[str, Any]]:
        """``links`` as dicts, for the text tables."""
        from ccarena import _columns

        return _columns.records(self._link_cols, range(len(self._link_cols.get("link", ()))))

    def _background_records(self) -> list[dict[str, Any]]:
        """``background()`` as dicts, for the text tables."""
        from ccarena import _columns

        return _columns.background_rows(self._flow_cols, self.meta)

    def jain(self, over: JainOver = "flow") -> float:
        """Jain's index over the goodput of each main flow, or (``over="group"``) of each group's
        total. Background sources are left out, as are flows without a measured window (started
        at the very end, goodput NaN)."""
        if over not in ("flow", "group"):
            raise ArgumentError(f"jain: over must be 'flow' or 'group', not {over!r}")
        from ccarena import _columns

        return _columns.jain(self._flow_cols, over)


    def summary(self, jain_over: JainOver = "flow") -> dict[str, Any]:
        """The JSON contract of SCENARIO.md ("Output contract"): name, seed, duration_s, flows,
        links, jain, engine. NaN values are ``None``. Link ``dropped_pkts`` covers the whole run,
        like the flows' counters."""
        if jain_over not in ("flow", "group"):
            raise ArgumentError(f"jain: over must be 'flow' or 'group', not {jain_over!r}")
        from ccarena import _columns

        return _columns.summary(self._flow_cols, self._link_cols, self.meta, self.engine, jain_over)

    def to_json(self, jain_over: JainOver = "flow", indent: int | None = 2) -> str:
        """The summary as JSON text (strict JSON: no NaN)."""
        if indent is not None and (isinstance(indent, bool) or not isinstance(indent, int) or not 0 <= indent <= 64):
            raise ArgumentError(f"indent: expected None or a number of spaces from 0 to 64, not {_short(indent)}")
        return json.dumps(self.summary(jain_over), indent=indent, allow_nan=False)

    def to_parquet(self, directory: str | Path, jain_over: JainOver = "flow", *, plots: bool = False) -> Path:
        """Write ``flows.parquet``, ``flow_series.parquet``, ``links.parquet``,
        ``link_series.parquet``, ``delay_quantiles.parquet`` and ``summary.json`` (and with ``plots`` the PNG plots
        ``goodput.png``, ``cwnd.png``, ``queue.png``) into ``directory``, created if needed.

        The files are written into a temporary sibling directory renamed into place at the end,
        so an interrupted write never leaves a directory that looks complete; an existing
        ``directory`` is replaced. Raises :class:`OutputError` naming the path it cannot write.
        """
        if not isinstance(directory, (str, os.PathLike)):
            raise ArgumentError(f"directory: expected a directory path (a str or a Path), not {type(directory).__name__}")
        _check_flag(plots, "plots")
        if jain_over not in ("flow", "group"):  # before anything is written
            raise ArgumentError(f"jain: over must be 'flow' or 'group', not {jain_over!r}")
        with output_directory(directory) as tmp:
            for name in ("flows", "flow_series", "links", "link_series", "delay_quantiles"):
                getattr(self, name).to_parquet(tmp / f"{name}.parquet", index=False)
            (tmp / "summary.json").write_text(self.to_json(jain_over) + "\n", encoding="utf-8")
            if plots:
                from ccarena import plots as _plots

                _plots.plot_goodput(self, tmp / "goodput.png")
                _plots.plot_cwnd(self, tmp / "cwnd.png")
                _plots.plot_queue(self, tmp / "queue.png")
        return Path(directory)

    def bottleneck(self) -> str | None:
        """The link to show queue plots for: ``"bottleneck"`` if there is one, else the most
        utilised link direction."""
        if self.links.empty:
            return None
        names = self.links["link"].astype(str)
        if (names == "bottleneck").any():
            return "bottleneck"
        idx = self.links["utilisation"].fillna(-1.0).to_numpy(dtype=float).argmax()
        return str(names.iloc[int(idx)])

    def __repr__(self) -> str:
        main = self._main_flow_records()
        background = len(self._flow_cols.get("flow_id", ())) - len(main)
        head = (
            f"RunResult({self.name!r}, seed={self.meta.get('seed')}, "
            f"duration={float(self.meta['duration_s']):g}s, {len(main)} flows"
            f"{f' (+{background} background)' if background else ''}, "
            f"{len(self._link_cols.get('link', ()))} links, {self.engine.get('events', 0)} events in "
            f"{float(self.engine.get('wall_s', 0.0)):.2f}s wall)"
        )
        headers, rows, right = _format.flow_table(main)
        more = ""
        if len(rows) > 10:
            more = f"\n... {len(rows) - 10} more flows"
            rows = rows[:10]
        return f"{head}\n{_format.text_table(headers, rows, right)}{more}\nJain (goodput): {_format.ratio(self.jain())}"
