"""Human-readable numbers and plain-text tables, shared by the CLI, ``RunResult.__repr__`` and the
HTML report."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ccarena.api import JainOver, RunResult

_RATE_UNITS = ((1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s"), (1.0, "bit/s"))


def is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def rate(bps: Any) -> str:
    """``4870000.0`` → ``"4.87 Mbit/s"``; NaN → ``"-"``."""
    if is_missing(bps):
        return "-"
    v = float(bps)
    for scale, unit in _RATE_UNITS:
        if abs(v) >= scale * 0.9995:
            return f"{v / scale:.2f} {unit}"
    return f"{v:.2f} bit/s"


def ms(seconds: Any) -> str:
    """``0.0413`` → ``"41.3"`` (milliseconds, no unit); NaN → ``"-"``."""
    if is_missing(seconds):
        return "-"
    return f"{float(seconds) * 1e3:.1f}"


def secs(seconds: Any) -> str:
    """``12.5`` → ``"12.50 s"``; NaN → ``"-"``."""
    if is_missing(seconds):
        return "-"
    return f"{float(seconds):.2f} s"


def counted(n: int, noun: str) -> str:
    """``1, "flow"`` → ``"1 flow"``; ``2, "flow"`` → ``"2 flows"`` (nouns with a plain plural)."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def span(seconds: float) -> str:
    """A length of time in the unit a reader takes in at a glance: ``0.04`` → ``"0.04 s"``,
    ``75`` → ``"75 s"``, ``930`` → ``"15.5 min"``, ``61596`` → ``"17.1 h"``."""
    if seconds < 10:
        return f"{seconds:.2f} s"
    if seconds < 100:
        return f"{seconds:.0f} s"
    if seconds < 100 * 60:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def ratio(x: Any, digits: int = 4) -> str:
    if is_missing(x):
        return "-"
    return f"{float(x):.{digits}f}"


def percent(x: Any) -> str:
    if is_missing(x):
        return "-"
    return f"{float(x) * 100:.1f}%"


def count(x: Any) -> str:
    if is_missing(x):
        return "-"
    return f"{int(x)}"


def number(x: Any) -> str:
    if is_missing(x):
        return "-"
    return f"{float(x):.1f}"


def text_table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool] | None = None) -> str:
    """A plain aligned table: header, a dashed rule, one line per row. ``right[i]`` right-aligns
    column ``i`` (numbers); by default every column is left-aligned. A row shorter than the
    headers ends in a note that spans the remaining columns (``all 5 runs failed``): it is
    written from its column on and does not widen that column."""
    if right is None:
        right = [False] * len(headers)
    widths = [len(h) for h in headers]
    for row in rows:
        aligned = row if len(row) >= len(headers) else row[:-1]
        for i, cell in enumerate(aligned):
            widths[i] = max(widths[i], len(cell))

    def line(cells: Sequence[str]) -> str:
        parts = [c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right)]
        if len(cells) < len(headers):
            parts[-1] = cells[-1]
        return "  ".join(parts).rstrip()

    out = [line(headers), "  ".join("-" * w for w in widths)]
    out.extend(line(row) for row in rows)
    return "\n".join(out)


# Tables of a run, as (headers, rows, right-aligned flags): used by the CLI, repr and the report.
Table = tuple[list[str], list[list[str]], list[bool]]
#: A table's rows as dicts, column name to value (``RunResult``'s ``_main_flow_records`` and the
#: like: no pandas needed to print them).
Records = Sequence[Mapping[str, Any]]


def has_completion(flows: Records) -> bool:
    return any(not is_missing(rec.get("completion_s")) for rec in flows)


def _cc_label(rec: Mapping[str, Any]) -> str:
    cc = rec.get("cc") or rec.get("protocol", "")  # UDP: no congestion control
    return f"{cc}/{rec['recovery']}" if rec.get("recovery") else str(cc)


def flow_table(flows: Records, completion: bool | None = None) -> Table:
    """One row per flow (derived columns included, as in ``RunResult.flows``). The
    completion-time column is shown if ``completion``, by default if any flow has one."""
    headers = ["id", "group", "cc/recovery", "goodput", "throughput", "drops", "retx", "RTOs", "delivery", "delay ms"]
    with_completion = has_completion(flows) if completion is None else completion
    if with_completion:
        headers.append("completion")
    rows = []
    for rec in flows:
        row = [
            count(rec["flow_id"]),
            str(rec.get("group", "")),
            _cc_label(rec),
            rate(rec.get("goodput_bps")),
            rate(rec.get("throughput_bps")),
            count(rec.get("dropped_pkts")),
            count(rec.get("retransmitted_pkts")),
            count(rec.get("timeouts")),
            ratio(rec.get("delivery_ratio")),
            ms(rec.get("delay_mean_s")),
        ]
        if with_completion:
            row.append(secs(rec.get("completion_s")))
        rows.append(row)
    right = [True, False, False] + [True] * (len(headers) - 3)
    return headers, rows, right


def group_table(flows: Records) -> Table:
    """One row per flow group (``[[flows]]`` entry), in order of first appearance: how many
    flows, their total goodput, the mean, lowest and highest flow goodput, and sums of drops,
    retransmissions and timeouts with the mean of the flows' delays. The short form of
    :func:`flow_table` for runs with many flows."""
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for rec in flows:
        groups.setdefault(str(rec.get("group", "")), []).append(rec)
    headers = ["group", "cc/recovery", "flows", "goodput", "per flow", "lowest", "highest", "drops", "retx", "RTOs", "delay ms"]
    rows = []
    for name, recs in groups.items():
        goodputs = [float(r["goodput_bps"]) for r in recs if not is_missing(r.get("goodput_bps"))]
        delays = [float(r["delay_mean_s"]) for r in recs if not is_missing(r.get("delay_mean_s"))]

        def total(column: str, recs: list[Mapping[str, Any]] = recs) -> str:
            return count(sum(int(r[column]) for r in recs if not is_missing(r.get(column))))

        rows.append([
            name,
            ", ".join(dict.fromkeys(_cc_label(r) for r in recs)),
            count(len(recs)),
            rate(sum(goodputs) if goodputs else None),
            rate(sum(goodputs) / len(goodputs) if goodputs else None),
            rate(min(goodputs, default=None)),
            rate(max(goodputs, default=None)),
            total("dropped_pkts"),
            total("retransmitted_pkts"),
            total("timeouts"),
            ms(sum(delays) / len(delays) if delays else None),
        ])
    return headers, rows, [False, False] + [True] * (len(headers) - 2)


def background_table(groups: Records) -> Table:
    """One row per background group (``RunResult.background()``'s rows)."""
    headers = ["group", "sources", "offered (wire)", "goodput", "drops", "retx"]
    rows = [
        [
            str(rec["group"]),
            count(rec.get("flows")),
            rate(rec.get("throughput_bps")),
            rate(rec.get("goodput_bps")),
            count(rec.get("dropped_pkts")),
            count(rec.get("retransmitted_pkts")),
        ]
        for rec in groups
    ]
    return headers, rows, [False] + [True] * (len(headers) - 1)


def link_table(links: Records, limit: int | None = None) -> tuple[Table, int]:
    """Links sorted by utilisation (most used first, ties in their order, unknown last), at most
    ``limit`` of them; also returns how many were left out."""
    ordered = sorted(links, key=_most_utilised_first)
    left_out = 0
    if limit is not None and len(ordered) > limit:
        left_out = len(ordered) - limit
        ordered = ordered[:limit]
    headers = ["link", "rate", "utilisation", "drops", "mean queue pkt", "max queue pkt"]
    rows = [
        [
            str(rec["link"]),
            rate(rec.get("rate_bps")),
            percent(rec.get("utilisation")),
            count(rec.get("dropped_pkts")),
            number(rec.get("mean_queue_pkts")),
            count(rec.get("max_queue_pkts")),
        ]
        for rec in ordered
    ]
    return (headers, rows, [False] + [True] * (len(headers) - 1)), left_out


def _most_utilised_first(link: Mapping[str, Any]) -> tuple[bool, float]:
    u = link.get("utilisation")
    return (True, 0.0) if u is None or is_missing(u) else (False, -float(u))


#: Most flows ``ccarena run`` lists one by one; more are summed up per group.
FLOW_ROWS = 40


def report_text(result: RunResult, jain_over: JainOver) -> str:
    """What ``ccarena run`` prints: a line on the run, then its flows (per group beyond
    ``FLOW_ROWS``), background groups, most used links and Jain's index (when there are two
    flows or groups to compare), as plain-text tables."""
    eng = result.engine
    lines = [
        f"{result.name}: {float(result.meta['duration_s']):g} s simulated, seed {result.meta.get('seed')}, "
        f"{int(eng.get('events', 0)):,} events in {float(eng.get('wall_s', 0.0)):.2f} s",
        "",
    ]
    flows = result._main_flow_records()
    if len(flows) <= FLOW_ROWS:
        lines += ["Flows (rates over each flow's measured window)", text_table(*flow_table(flows)), ""]
    else:  # a table a person reads: one row per group, each flow in --json or -o
        lines += [f"Flow groups ({len(flows):,} flows; each flow's row with --json or -o DIR)", text_table(*group_table(flows)), ""]
    background = result._background_records()
    if background:
        lines += ["Background traffic (sums over each group's sources)", text_table(*background_table(background)), ""]
    (headers, rows, right), left_out = link_table(result._link_records(), limit=4)
    lines += ["Links (most utilised first)", text_table(headers, rows, right)]
    if left_out:
        lines.append(f"... {left_out} more link directions (see --json or -o)")
    if jain_shares(result._main_flow_records(), jain_over) > 1:
        what = "flow goodputs" if jain_over == "flow" else "group goodput totals"
        lines += ["", f"Jain's fairness index over {what}: {ratio(result.jain(jain_over))}"]
    return "\n".join(lines)


def jain_shares(flows: Records, over: JainOver) -> int:
    """How many goodputs Jain's index would compare: the main flows, or their groups. With one
    the index is 1 by definition and says nothing, so tables and pages leave it out."""
    if over == "flow":
        return len(flows)
    return len({str(rec.get("group", "")) for rec in flows})
