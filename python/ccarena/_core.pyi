"""Type stubs for the compiled simulator core (crates/py). Checked by ``mypy.stubtest``.

The binding is deliberately thin: a scenario crosses the boundary once as JSON text, the run
happens in Rust with the GIL released, and results come back as plain columns: a dict of NumPy
arrays (numbers: int64 counters, float64 quantities) and lists (text, and columns without rows).
"""

import os
from collections.abc import Callable
from typing import Any, final

# PyO3 lists everything the module adds in __all__.
__all__ = [
    "__version__", "validate", "run", "algorithms", "topology", "delayline", "plan", "duration_s", "rate_bps", "size_bytes", "queue_limit",
    "CcState",
]

__version__: str

def validate(scenario_json: str, cc_factory: Callable[[str, dict[str, Any], int], tuple[Any, dict[str, bool]]] | None = None) -> dict[str, Any]:
    """Parse and validate a scenario given as JSON text; return it normalised (every default
    filled in, groups kept as groups) as a dict that is itself a valid scenario. Raises
    ccarena.errors.ScenarioError. ``cc_factory`` makes the flows' Python congestion controls, as
    for :func:`run` (``py:`` names are refused without it)."""

def run(
    scenario_json: str,
    progress: Callable[[float, float], None] | None = None,
    series: bool = True,
    pcap_dir: str | os.PathLike[str] | None = None,
    pcap_links: list[str] | None = None,
    pcap_snaplen: int | None = None,
    cc_factory: Callable[[str, dict[str, Any], int], tuple[Any, dict[str, bool]]] | None = None,
    progress_every_s: float = 0.5,
) -> dict[str, Any]:
    """Run a scenario given as JSON text. ``progress``, if given, is called with the fraction of
    simulated time done (0..1) and the simulated seconds done, at most once per
    ``progress_every_s`` of wall time (0: at every report of the engine, one per 262,144 steps of
    work: events taken from its queue and packet hops).
    ``series=False`` returns ``flow_series`` and ``link_series`` with their columns but no rows
    (for callers that need only the per-flow and per-link summaries: no Python objects are built
    for the samples). ``pcap_dir`` writes one pcap file per captured link direction there
    (``pcap_links`` by name, default the bottleneck links; ``pcap_snaplen`` bytes per packet,
    default its headers). ``cc_factory(name, params, flow)`` makes the Python congestion control
    of a flow whose ``cc`` is ``"py:name"`` (``ccarena.cc.Factory``); an exception a callback
    raises stops the run and is raised here.

    Returns a dict with keys:
      ``meta``        dict: name, seed, duration_s, warmup_s, sample_interval_s, version, scenario (normalised dict)
      ``engine``      dict: events, wall_s, packets_forwarded, peak_packets, warmup_wall_s
      ``flows``       dict of equal-length columns, one row per flow
      ``flow_series`` dict of columns, one row per flow x sample interval
      ``links``       dict of columns, one row per link direction
      ``link_series`` dict of columns, one row per link direction x sample interval
      ``delay_quantiles`` dict of columns (flow, q, delay_s), one row per main flow x level q
    Raises ccarena.errors.ScenarioError, or ccarena.errors.SimulationError when the run stalls
    (simulated time stops advancing) or the core fails."""

def algorithms() -> list[dict[str, Any]]:
    """Every congestion control available, as dicts with keys ``protocol``, ``name``,
    ``description``, ``params`` (parameter name -> default value) and ``presets`` (list of
    (preset name, source) pairs, selectable as ``cc = "name@preset"``)."""

def topology(scenario_json: str) -> dict[str, Any]:
    """The network a scenario given as JSON text builds: a dict with ``name``, ``kind`` (the
    topology kind), ``nodes`` (list of ``{"name", "role"}``, role ``"router"``, ``"host"`` or
    ``"node"``), ``links`` (one ``{"name", "src", "dst", "rate_bps", "delay_s", "queue"}`` per
    direction) and ``flows`` (``{"id", "group", "role", "src", "dst"}``). Raises ccarena.errors.ScenarioError."""

def delayline(argv: list[str]) -> int:
    """Run the testbed's delay line (crates/delayline) with ``argv`` until SIGTERM or SIGINT and
    return its exit status (2 for bad arguments, 1 when an interface or socket fails). Replaces
    the process's SIGTERM/SIGINT handlers: call it only in a process of its own
    (``python -m ccarena.testbed.delayline``). Linux only."""

def plan(scenario_json: str) -> dict[str, Any]:
    """How a scenario given as JSON text expands, without running it: a dict with keys
      ``meta``     dict: as ``run``'s
      ``flows``    dict of columns, one row per flow (main and background): the first columns of
                   ``run``'s ``flows`` (flow_id, group, protocol, cc, cc_params, recovery, stack, app,
                   role, src, dst, start_s, rtt_base_s), with the same values
      ``links``    dict of columns, one row per link direction: the first columns of ``run``'s
                   ``links`` (link, src, dst, rate_bps, delay_s, queue)
      ``columns``  dict: table name (flows, flow_series, links, link_series, delay_quantiles) -> the names of
                   every column of that table of ``run``'s result, in order
    Raises ccarena.errors.ScenarioError where ``run`` would."""

# Quantities as scenarios write them, read by the core's own readers (units and limits): each
# raises ccarena.errors.ScenarioError (a ValueError) with the message a scenario would give.

def duration_s(text: str) -> float:
    """A duration (``"600s"``, ``"250ms"``, ``"2min"``) in seconds."""

def rate_bps(text: str) -> float:
    """A rate (``"10Mbps"``, ``"1Gbps"``) in bit/s."""

def size_bytes(text: str) -> int:
    """A size (``"1500B"``, ``"64KB"``) in bytes."""

def queue_limit(text: str) -> tuple[int, str]:
    """A queue limit (``"100pkt"``, ``"150KB"``) as its number and unit, ``"pkt"`` or ``"B"``."""


@final
class CcState:
    """The window state a Python congestion control sees (``ccarena.CongestionControl``)."""

    cwnd: float
    ssthresh: float
    @property
    def srtt(self) -> float | None: ...
    @property
    def min_rtt(self) -> float | None: ...
    @property
    def in_flight(self) -> int: ...
    @property
    def mss(self) -> int: ...
    @property
    def snd_una(self) -> int: ...
    @property
    def snd_nxt(self) -> int: ...
    @property
    def delivered(self) -> int: ...
    def in_slow_start(self) -> bool: ...
