"""The Python API: ``run`` a scenario, ``validate`` one, and the ``RunResult`` it returns.

The binding (``ccarena._core``) takes a scenario as JSON text and returns raw columns; this module
adds what is derived (rates, ratios, utilisation, fairness) with the formulas of
:mod:`ccarena.metrics`, so the core stays a recorder of facts (see ``docs/results.md``).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import numpy as np
import pandas as pd

from ccarena import _core, _format, metrics
from ccarena import scenario as _scenario
from ccarena.errors import ArgumentError, OutputError, ScenarioError
from ccarena.scenario import ScenarioSource

if TYPE_CHECKING:
    from ccarena.cc import CongestionControl

__all__ = ["run", "validate", "prepare", "topology", "algorithms", "Algorithm", "RunResult", "ScenarioError", "JainOver"]

JainOver = Literal["flow", "group"]

#: Keys of each flow in the JSON summary (SCENARIO.md, "Output contract"), in order.
FLOW_SUMMARY_KEYS = (
    "id",
    "group",
    "protocol",
    "cc",
    "stack",
    "start_s",
    "rtt_base_s",
    "sent_pkts",
    "delivered_pkts",
    "dropped_pkts",
    "retransmitted_pkts",
    "throughput_bps",
    "goodput_bps",
    "delivery_ratio",
    "mean_delay_s",
    "completion_s",
)
#: Keys of each link in the JSON summary.
LINK_SUMMARY_KEYS = ("name", "utilisation", "dropped_pkts", "mean_queue_pkts")
#: Keys of each background group in the JSON summary (present only with ``[[background]]``).
BACKGROUND_SUMMARY_KEYS = ("group", "protocol", "app", "flows", "throughput_bps", "goodput_bps", "dropped_pkts", "retransmitted_pkts")


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
        doc["seed"] = seed
    return doc


def validate(scenario: ScenarioSource, *, overrides: Iterable[str] = ()) -> dict[str, Any]:
    """Check a scenario without running it; return it normalised by the core (defaults filled in,
    every flow group expanded). Raises :class:`ScenarioError` with the path of the bad field."""
    doc = prepare(scenario, overrides=overrides)
    return _core.validate(_scenario.to_json(doc))


def topology(scenario: ScenarioSource, *, overrides: Iterable[str] = ()) -> dict[str, Any]:
    """The network a scenario builds, as data: ``{"name", "kind", "nodes": [{"name", "role"}],
    "links": [{"name", "src", "dst", "rate_bps", "delay_s", "queue"}], "flows": [{"id", "group",
    "role", "src", "dst"}]}``, links listed per direction. Raises :class:`ScenarioError`."""
    doc = prepare(scenario, overrides=overrides)
    return _core.topology(_scenario.to_json(doc))


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

    doc = prepare(scenario, overrides=overrides, seed=seed)
    cc_factory = _cc.factory_for(doc, algorithms)
    text = _scenario.to_json(doc)
    if pcap is None and (pcap_links is not None or pcap_snaplen is not None):
        raise ArgumentError("pcap_links and pcap_snaplen need pcap: the directory the captures go to")
    if pcap_snaplen is not None and (isinstance(pcap_snaplen, bool) or not isinstance(pcap_snaplen, int) or not 1 <= pcap_snaplen <= 262_144):
        raise ArgumentError(f"pcap_snaplen: {pcap_snaplen!r} is not a snap length: expected bytes from 1 to 262144")
    if isinstance(pcap_links, str):
        raise ArgumentError(f"pcap_links: expected a list of link names, not the string {pcap_links!r}")
    pcap_dir = os.fspath(pcap) if pcap is not None else None
    links = list(pcap_links) if pcap_links is not None else None
    if not progress:
        return RunResult(_core.run(text, None, series, pcap_dir, links, pcap_snaplen, cc_factory))
    bar = ProgressBar(str(doc.get("name", "run")))
    try:
        raw = _core.run(text, bar.update, series, pcap_dir, links, pcap_snaplen, cc_factory)
    finally:
        bar.close()
    return RunResult(raw)


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
    if str(directory).strip() == "":
        raise OutputError("output directory: the name is empty")
    out = Path(directory)
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out}: exists and is not a directory")
    parent = out.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise OutputError(f"{out}: {parent} is a file, not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"{out}: no permission to write in {parent}")
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


def _frame(columns: Mapping[str, Any]) -> pd.DataFrame:
    return pd.DataFrame({k: v for k, v in columns.items()})


def _jsonable(value: Any) -> Any:
    """numpy scalars → Python; NaN → None (JSON has no NaN)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


class RunResult:
    """The outcome of one run: four tidy tables, metadata and a JSON-ready summary.

    Attributes (pandas DataFrames, columns documented in ``docs/results.md``):

    - ``flows``: one row per flow, with the derived columns ``throughput_bps``, ``goodput_bps``,
      ``delivery_ratio`` and ``mean_delay_s``;
    - ``flow_series``: one row per flow × sample interval;
    - ``links``: one row per link direction, with the derived ``utilisation``;
    - ``link_series``: one row per link direction × sample interval;

    and the dicts ``meta`` (name, seed, duration_s, warmup_s, sample_interval_s, version,
    scenario) and ``engine`` (events, wall_s, packets_forwarded, peak_packets).
    """

    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.meta: dict[str, Any] = dict(raw["meta"])
        self.engine: dict[str, Any] = dict(raw["engine"])
        self.flows: pd.DataFrame = _add_flow_metrics(_frame(raw["flows"]), float(self.meta["duration_s"]))
        self.flow_series: pd.DataFrame = _frame(raw["flow_series"])
        self.links: pd.DataFrame = _add_link_metrics(_frame(raw["links"]))
        self.link_series: pd.DataFrame = _frame(raw["link_series"])

    @property
    def name(self) -> str:
        return str(self.meta.get("name", ""))

    @property
    def main_flows(self) -> pd.DataFrame:
        """The scenario's ``[[flows]]`` (``role == "main"``): what Jain's index, the summary's
        ``flows`` and the tables cover. ``flows`` also holds the ``[[background]]`` sources."""
        if "role" not in self.flows:
            return self.flows
        return self.flows[self.flows["role"] != "background"]

    def background(self) -> pd.DataFrame:
        """One row per background group (e.g. ``background:web``): its number of sources, the
        aggregate ``throughput_bps`` (wire bytes sent: the offered load) and ``goodput_bps``, both
        over the whole measured window ``duration − warmup`` (sources start at different times,
        so their own rates do not add up), and its drops and retransmissions. Empty without
        ``[[background]]``."""
        cols = list(BACKGROUND_SUMMARY_KEYS)
        if "role" not in self.flows:
            return pd.DataFrame(columns=cols)
        bg = self.flows[self.flows["role"] == "background"]
        if bg.empty:
            return pd.DataFrame(columns=cols)
        out = bg.groupby("group", sort=False).agg(
            protocol=("protocol", "first"),
            app=("app", "first"),
            flows=("id", "size"),
            sent=("meas_sent_bytes", "sum"),
            good=("meas_goodput_bytes", "sum"),
            dropped_pkts=("dropped_pkts", "sum"),
            retransmitted_pkts=("retransmitted_pkts", "sum"),
        ).reset_index()
        window = float(self.meta["duration_s"]) - float(self.meta.get("warmup_s", 0.0))
        out["throughput_bps"] = metrics.throughput_bps(out["sent"].to_numpy(dtype=float), window)
        out["goodput_bps"] = metrics.goodput_bps(out["good"].to_numpy(dtype=float), window)
        return out[cols]

    def jain(self, over: JainOver = "flow") -> float:
        """Jain's index over the goodput of each main flow, or (``over="group"``) of each group's
        total. Background sources are left out, as are flows without a measured window (started
        at the very end, goodput NaN)."""
        flows = self.main_flows
        measured = flows[flows["goodput_bps"].notna()]
        if over == "flow":
            return metrics.jain_index(measured["goodput_bps"].to_numpy(dtype=float))
        if over == "group":
            per_group = measured.groupby("group", sort=False)["goodput_bps"].sum()
            return metrics.jain_index(per_group.to_numpy(dtype=float))
        raise ArgumentError(f"jain: over must be 'flow' or 'group', not {over!r}")

    def summary(self, jain_over: JainOver = "flow") -> dict[str, Any]:
        """The JSON contract of SCENARIO.md ("Output contract"): name, seed, duration_s, flows,
        links, jain, engine. NaN values are ``None``. Link ``dropped_pkts`` covers the whole run,
        like the flows' counters."""
        flows = [
            {k: _jsonable(rec.get(k)) for k in FLOW_SUMMARY_KEYS} for rec in self.main_flows.to_dict("records")
        ]
        links = [
            {k: _jsonable(rec.get(k)) for k in LINK_SUMMARY_KEYS} for rec in self.links.to_dict("records")
        ]
        out: dict[str, Any] = {
            "name": _jsonable(self.meta.get("name")),
            "seed": _jsonable(self.meta.get("seed")),
            "duration_s": _jsonable(float(self.meta["duration_s"])),
            "flows": flows,
            "links": links,
            "jain": _jsonable(self.jain(jain_over)),
            "engine": {"events": _jsonable(self.engine.get("events")), "wall_s": _jsonable(self.engine.get("wall_s"))},
        }
        bg = self.background()
        if not bg.empty:
            out["background"] = [
                {k: _jsonable(rec.get(k)) for k in BACKGROUND_SUMMARY_KEYS} for rec in bg.to_dict("records")
            ]
        return out

    def to_json(self, jain_over: JainOver = "flow", indent: int | None = 2) -> str:
        """The summary as JSON text (strict JSON: no NaN)."""
        return json.dumps(self.summary(jain_over), indent=indent, allow_nan=False)

    def to_parquet(self, directory: str | Path, jain_over: JainOver = "flow", *, plots: bool = False) -> Path:
        """Write ``flows.parquet``, ``flow_series.parquet``, ``links.parquet``,
        ``link_series.parquet`` and ``summary.json`` (and with ``plots`` the PNG plots
        ``goodput.png``, ``cwnd.png``, ``queue.png``) into ``directory``, created if needed.

        The files are written into a temporary sibling directory renamed into place at the end,
        so an interrupted write never leaves a directory that looks complete; an existing
        ``directory`` is replaced. Raises :class:`OutputError` naming the path it cannot write.
        """
        with output_directory(directory) as tmp:
            for name in ("flows", "flow_series", "links", "link_series"):
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
        names = self.links["name"].astype(str)
        if (names == "bottleneck").any():
            return "bottleneck"
        idx = self.links["utilisation"].fillna(-1.0).to_numpy(dtype=float).argmax()
        return str(names.iloc[int(idx)])

    def __repr__(self) -> str:
        head = (
            f"RunResult({self.name!r}, seed={self.meta.get('seed')}, "
            f"duration={float(self.meta['duration_s']):g}s, {len(self.main_flows)} flows"
            f"{f' (+{len(self.flows) - len(self.main_flows)} background)' if len(self.flows) > len(self.main_flows) else ''}, "
            f"{len(self.links)} links, {self.engine.get('events', 0)} events in "
            f"{float(self.engine.get('wall_s', 0.0)):.2f}s wall)"
        )
        headers, rows, right = _format.flow_table(self.main_flows)
        more = ""
        if len(rows) > 10:
            more = f"\n... {len(rows) - 10} more flows"
            rows = rows[:10]
        return f"{head}\n{_format.text_table(headers, rows, right)}{more}\nJain (goodput): {_format.ratio(self.jain())}"


def _add_flow_metrics(flows: pd.DataFrame, duration_s: float) -> pd.DataFrame:
    if flows.empty and "meas_start_s" not in flows:
        for col in ("throughput_bps", "goodput_bps", "delivery_ratio", "mean_delay_s"):
            flows[col] = pd.Series(dtype=float)
        return flows
    active_s = duration_s - flows["meas_start_s"].to_numpy(dtype=float)
    flows["throughput_bps"] = metrics.throughput_bps(flows["meas_sent_bytes"].to_numpy(dtype=float), active_s)
    flows["goodput_bps"] = metrics.goodput_bps(flows["meas_goodput_bytes"].to_numpy(dtype=float), active_s)
    flows["delivery_ratio"] = metrics.delivery_ratio(
        flows["delivered_pkts"].to_numpy(dtype=float), flows["sent_pkts"].to_numpy(dtype=float)
    )
    flows["mean_delay_s"] = flows["delay_mean_s"].astype(float)
    return flows


def _add_link_metrics(links: pd.DataFrame) -> pd.DataFrame:
    if links.empty and "meas_tx_bytes" not in links:
        links["utilisation"] = pd.Series(dtype=float)
        return links
    links["utilisation"] = metrics.utilisation(
        links["meas_tx_bytes"].to_numpy(dtype=float),
        links["rate_bps"].to_numpy(dtype=float),
        links["meas_duration_s"].to_numpy(dtype=float),
    )
    return links
