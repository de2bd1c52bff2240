"""Drawings and listings of the network a scenario builds (``ccarena topology``).

The core describes the built network (:func:`ccarena.api.topology`: nodes with a role, one entry
per link direction, the flows' end nodes); this module merges the two directions of each link,
places the nodes with a simple layout chosen by topology kind, and draws them with matplotlib:

- routers (squares) in a row (dumbbell, parking lot) or on a circle (LAN ring, graph);
- hosts (dots) fanned out around the router they hang from, away from the centre; on a parking
  lot's middle routers senders go above and receivers below; background hosts are orange;
- every link labelled with its rate and one-way delay (host links only while there are few).
"""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ccarena import _format
from ccarena.errors import ArgumentError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["duplex_links", "layout", "draw", "text_summary"]

#: Above this many host links their labels are left out (they would cover the drawing).
MAX_HOST_LABELS = 12
#: Above this many hosts their names are left out.
MAX_HOST_NAMES = 40


def duplex_links(desc: dict[str, Any]) -> list[dict[str, Any]]:
    """Links with both directions merged: ``{"a", "b", "names", "rate_bps", "delay_s", "queue",
    "varies"}``
    (the direction listed first gives the values; a direction differing in rate or delay is kept
    apart)."""
    _check_desc(desc)
    merged: dict[tuple[str, str, float, float], dict[str, Any]] = {}
    for link in desc["links"]:
        a, b = sorted((str(link["src"]), str(link["dst"])))
        key = (a, b, float(link["rate_bps"]), float(link["delay_s"]))
        if key in merged:
            merged[key]["names"].append(str(link["name"]))
        else:
            merged[key] = {
                "a": a,
                "b": b,
                "names": [str(link["name"])],
                "rate_bps": float(link["rate_bps"]),
                "delay_s": float(link["delay_s"]),
                "queue": str(link["queue"]),
                "varies": link.get("varies"),
            }
    return list(merged.values())


def _check_desc(desc: Any) -> None:
    """A network description as :func:`ccarena.api.topology` returns it, or :class:`ArgumentError`."""
    if not isinstance(desc, dict) or not isinstance(desc.get("nodes"), list) or not isinstance(desc.get("links"), list):
        raise ArgumentError(
            f"desc: expected the network description of ccarena.api.topology() (a dict with nodes and links), "
            f"not {type(desc).__name__}"
        )


def _router_index(name: str) -> int:
    digits = "".join(ch for ch in name if ch.isdigit())
    return int(digits) if digits else 0


def layout(desc: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """Position of every node (see the module notes)."""
    _check_desc(desc)
    roles = {str(n["name"]): str(n["role"]) for n in desc["nodes"]}
    kind = str(desc.get("kind", ""))
    cores = [n for n, r in roles.items() if r != "host"]
    pos: dict[str, tuple[float, float]] = {}
    if kind in ("dumbbell", "parking_lot"):
        ordered = sorted(cores, key=lambda n: (n != "left", _router_index(n)))
        for i, name in enumerate(ordered):
            pos[name] = (3.0 * i, 0.0)
    else:
        ordered = sorted(cores, key=_router_index) if kind == "lan_ring" else cores
        radius = max(2.0, 0.6 * len(ordered))
        for i, name in enumerate(ordered):
            angle = math.pi / 2 - 2 * math.pi * i / max(1, len(ordered))
            pos[name] = (radius * math.cos(angle), radius * math.sin(angle))
    # Hosts hang from one core node each.
    attached: dict[str, list[str]] = defaultdict(list)
    for link in desc["links"]:
        src, dst = str(link["src"]), str(link["dst"])
        if roles.get(src) == "host" and roles.get(dst) != "host" and src not in attached[dst]:
            attached[dst].append(src)
    cx = sum(p[0] for p in pos.values()) / max(1, len(pos))
    cy = sum(p[1] for p in pos.values()) / max(1, len(pos))
    ends = {ordered[0], ordered[-1]} if ordered else set()
    for core, hosts in attached.items():
        x0, y0 = pos[core]
        if kind == "parking_lot" and core not in ends:
            ordered_hosts = sorted(hosts, key=_router_index)
            fans = [(ordered_hosts[0::2], math.pi / 2), (ordered_hosts[1::2], -math.pi / 2)]
        else:
            dx, dy = x0 - cx, y0 - cy
            base = math.atan2(dy, dx) if math.hypot(dx, dy) > 1e-9 else math.pi / 2
            fans = [(hosts, base)]
        for fan, base in fans:
            n = len(fan)
            spread = min(math.radians(140), math.radians(25) * max(0, n - 1))
            dist = 1.6 + 0.02 * n
            angles = [base + (spread * (j / (n - 1) - 0.5) if n > 1 else 0.0) for j in range(n)]
            # Hosts in name order from top to bottom (left to right when the fan points down/up).
            angles.sort(key=lambda a: (-round(math.sin(a), 9), math.cos(a)))
            for host, angle in zip(sorted(fan, key=lambda h: (_router_index(h), h)), angles):
                pos[host] = (x0 + dist * math.cos(angle), y0 + dist * math.sin(angle))
    # Anything unattached (a host with no link) goes below, in a row.
    for i, name in enumerate(n for n in roles if n not in pos):
        pos[name] = (float(i), -3.0)
    return pos


def _rate(link: dict[str, Any]) -> str:
    """The link's rate, and what it follows if it varies: the first step's rate of a schedule, the
    long-run rate of a trace."""
    rate = _format.rate(link["rate_bps"])
    return {"schedule": f"{rate} (schedule)", "trace": f"{rate} (trace mean)"}.get(link.get("varies") or "", rate)


def _label(link: dict[str, Any]) -> str:
    return f"{_rate(link)}\n{_format.ms(link['delay_s'])} ms"


def draw(desc: dict[str, Any], path: str | Path | None = None) -> Figure:
    """Draws the network of ``desc`` (from :func:`ccarena.api.topology`); with ``path`` also
    writes a PNG there and closes the figure. A ``path`` that is a directory (or ends in ``/``)
    gets ``topology.png`` inside it; one that cannot be written raises :class:`OutputError`."""
    _check_desc(desc)
    if path is not None:
        from ccarena.api import check_output_file

        check_output_file(path, "topology.png", "topology drawing")  # before drawing
    # matplotlib (Agg: no display) loads here, for drawings only: the text listing needs none.
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    roles = {str(n["name"]): str(n["role"]) for n in desc["nodes"]}
    pos = layout(desc)
    links = duplex_links(desc)
    hosts = [n for n, r in roles.items() if r == "host"]
    host_links = [lk for lk in links if "host" in (roles.get(lk["a"]), roles.get(lk["b"]))]
    xs = [p[0] for p in pos.values()] or [0.0]
    ys = [p[1] for p in pos.values()] or [0.0]
    width = min(16.0, max(7.0, 1.3 * (max(xs) - min(xs) + 3)))
    height = min(12.0, max(4.5, 1.3 * (max(ys) - min(ys) + 3)))
    fig, ax = plt.subplots(figsize=(width, height), dpi=100, layout="constrained")
    for link in links:
        (xa, ya), (xb, yb) = pos[link["a"]], pos[link["b"]]
        is_host = link in host_links
        ax.plot([xa, xb], [ya, yb], color="#9aa5b1" if is_host else "#1f3b57", lw=1.0 if is_host else 2.2, zorder=1)
        if not is_host or len(host_links) <= MAX_HOST_LABELS:
            ax.text((xa + xb) / 2, (ya + yb) / 2, _label(link), fontsize=7 if is_host else 8, ha="center", va="center",
                    zorder=3, bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.85})
    for name, role in roles.items():
        x, y = pos[name]
        if role == "host":
            color = "#e8833a" if name.startswith("bg") else "#5b6b7b"
            ax.scatter([x], [y], s=40, color=color, zorder=2)
            if len(hosts) <= MAX_HOST_NAMES:
                ax.text(x, y - 0.28, name, fontsize=7, ha="center", va="top", zorder=4)
        else:
            ax.scatter([x], [y], s=110 * max(4, len(name)), marker="s", color="#2b6cb0", zorder=2)
            ax.text(x, y, name, fontsize=7, ha="center", va="center", color="white", zorder=4, fontweight="bold")
    n_main = sum(1 for f in desc.get("flows", []) if f.get("role") != "background")
    n_bg = len(desc.get("flows", [])) - n_main
    flows = _format.counted(n_main, "flow") + (f" + {n_bg} background sources" if n_bg else "")
    ax.set_title(f"{desc.get('name', '')} — {desc.get('kind', '')}: {len(roles)} nodes, {len(links)} links, {flows}", fontsize=10)
    legend = [
        Line2D([], [], ls="", marker="s", ms=9, color="#2b6cb0", label="router / node"),
        Line2D([], [], ls="", marker="o", ms=6, color="#5b6b7b", label="host of a main flow"),
    ]
    if any(n.startswith("bg") for n in hosts):
        legend.append(Line2D([], [], ls="", marker="o", ms=6, color="#e8833a", label="background host"))
    ax.legend(handles=legend, loc="lower left", fontsize="small", frameon=False)
    if host_links and len(host_links) > MAX_HOST_LABELS:
        kinds = sorted({(lk["rate_bps"], lk["delay_s"]) for lk in host_links})
        shown = "; ".join(f"{_format.rate(r)}, {_format.ms(d)} ms" for r, d in kinds[:4]) + ("; ..." if len(kinds) > 4 else "")
        ax.text(0.99, 0.01, f"{len(host_links)} host links: {shown}", transform=ax.transAxes, ha="right", va="bottom", fontsize="small")
    ax.set_aspect("equal", adjustable="datalim")
    ax.margins(0.12)
    ax.axis("off")
    if path is not None:
        from ccarena.api import write_figure

        write_figure(fig, path, "topology.png")
    return fig


def text_summary(desc: dict[str, Any]) -> str:
    """The links between non-host nodes (and a count of host links) as a plain table."""
    _check_desc(desc)
    roles = {str(n["name"]): str(n["role"]) for n in desc["nodes"]}
    links = duplex_links(desc)
    core = [lk for lk in links if roles.get(lk["a"]) != "host" and roles.get(lk["b"]) != "host"]
    rows = [[f"{lk['a']} -- {lk['b']}", _rate(lk), _format.ms(lk["delay_s"]), lk["queue"]] for lk in core]
    n_hosts = sum(1 for r in roles.values() if r == "host")
    head = f"{desc.get('name', '')} ({desc.get('kind', '')}): {len(roles)} nodes ({n_hosts} hosts), {len(links)} links"
    table = _format.text_table(["link", "rate", "delay ms", "queue"], rows, [False, True, True, False])
    tail = f"+ {len(links) - len(core)} host links" if len(links) > len(core) else ""
    return "\n".join(x for x in (head, table, tail) if x)
