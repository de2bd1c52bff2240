"""The sequence plot of one TCP flow, read from the packet captures of a run (``ccarena run
--pcap DIR``, docs/pcap.md): each data segment's sequence number against the time it reached the
far end of the captured link, retransmissions marked, and the cumulative ACK from the capture of
the reverse direction when there is one (tcptrace's time-sequence graph, without the window).

A segment counts as a retransmission when it starts below the highest byte already seen on the
link: a capture is taken where the link delivers, so a dropped original never shows and its
retransmission fills the hole later (Wireshark's "out of order"). The flows are told apart by
their ports (docs/pcap.md): sender port ``10000 + flow mod 50000``, receiver port 5201.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ccarena.errors import ArgumentError
from ccarena.plots import _common as c

if TYPE_CHECKING:
    from ccarena.api import RunResult

#: The receiver's TCP port in the captures (``crates/core/src/record/pcap/headers.rs``).
TCP_PORT = 5201
_SEQ_SPACE = 1 << 32


def capture_file(pcap_dir: str | os.PathLike[str], link: str) -> Path:
    """The file a run's capture of ``link`` is written to: the name with every character but
    letters, digits, ``-``, ``_`` and ``.`` replaced by ``_`` (``"A->B"`` → ``A__B.pcap``), as
    ``crates/core/src/record/pcap/mod.rs`` names it."""
    safe = "".join(ch if (ch.isascii() and ch.isalnum()) or ch in "-_." else "_" for ch in link)
    return Path(pcap_dir) / f"{safe}.pcap"


def sender_port(flow: int) -> int:
    return 10_000 + flow % 50_000


@dataclass(frozen=True)
class SequenceTrace:
    """What :func:`read_sequence` found of one flow.

    ``data``: one row per data segment in capture order: ``t_s``, ``seq_bytes`` (offset of its
    first byte in the flow's byte stream, 0-based), ``payload_bytes``, ``retransmission``.
    ``acks``: one row per ACK of the reverse capture: ``t_s``, ``ack_bytes`` (bytes acknowledged
    cumulatively); empty without ``ack_link``."""

    flow: int
    link: str
    ack_link: str | None
    data: pd.DataFrame
    acks: pd.DataFrame


def _unwrap(seq: np.ndarray) -> np.ndarray:
    """32-bit sequence numbers made monotone across wraps (flows of more than 4 GiB)."""
    if seq.size < 2:
        return seq
    step = np.diff(seq)
    wraps = np.cumsum((step < -_SEQ_SPACE // 2).astype(np.int64) - (step > _SEQ_SPACE // 2).astype(np.int64))
    return np.concatenate([seq[:1], seq[1:] + wraps * _SEQ_SPACE])


def _tcp_packets(path: Path, sport: int, dport: int) -> list[tuple[float, Any, int]]:
    """(time, TCP header, payload bytes) of the packets from ``sport`` to ``dport`` in ``path``.
    The payload length comes from the IP header: captures keep headers only by default."""
    import dpkt

    out = []
    try:
        with path.open("rb") as f:
            for ts, buf in dpkt.pcap.Reader(f):
                ip = dpkt.ip.IP(buf)
                tcp = ip.data
                if isinstance(tcp, dpkt.tcp.TCP) and tcp.sport == sport and tcp.dport == dport:
                    out.append((float(ts), tcp, ip.len - 4 * ip.hl - 4 * tcp.off))
    except (OSError, ValueError, dpkt.dpkt.Error) as exc:
        raise ArgumentError(f"{path}: cannot be read as a packet capture ({exc})") from None
    return out


def _reverse(link: str) -> str:
    """The other direction's name by the simulator's conventions: ``bottleneck`` ↔
    ``bottleneck_rev``, ``A->B`` ↔ ``B->A``."""
    if link.endswith("_rev"):
        return link.removesuffix("_rev")
    if "->" in link:
        a, b = link.split("->", 1)
        return f"{b}->{a}"
    return f"{link}_rev"


def read_sequence(pcap_dir: str | os.PathLike[str], flow: int = 0, link: str = "bottleneck",
                  ack_link: str | None = None) -> SequenceTrace:
    """Flow ``flow``'s data segments on ``link`` and, from ``ack_link``'s capture, its ACKs.
    ``ack_link`` defaults to the reverse direction's name (``bottleneck_rev``, ``B->A``) when that
    direction was captured; naming one that was not is an error."""
    if not isinstance(pcap_dir, (str, os.PathLike)) or not Path(pcap_dir).is_dir():
        raise ArgumentError(f"pcap_dir: {pcap_dir!r:.80} is not a directory of captures (ccarena run --pcap DIR writes one)")
    if isinstance(flow, bool) or not isinstance(flow, int) or flow < 0:
        raise ArgumentError(f"flow: expected a flow id (a whole number from 0), not {flow!r:.40}")
    for value, name in ((link, "link"), (ack_link, "ack_link")):
        if value is not None and not isinstance(value, str):
            raise ArgumentError(f"{name}: expected a link name (a string), not {type(value).__name__}")
    captured = sorted(p.stem for p in Path(pcap_dir).glob("*.pcap"))
    data_file = capture_file(pcap_dir, link)
    if not data_file.is_file():
        raise ArgumentError(f"link: no capture of {link!r} in {pcap_dir}; captured: {', '.join(captured) or 'nothing'}")
    if ack_link is None and capture_file(pcap_dir, _reverse(link)).is_file():
        ack_link = _reverse(link)
    elif ack_link is not None and not capture_file(pcap_dir, ack_link).is_file():
        raise ArgumentError(f"ack_link: no capture of {ack_link!r} in {pcap_dir}; captured: {', '.join(captured)}")
    port = sender_port(flow)
    segments = [(t, tcp.seq, n) for t, tcp, n in _tcp_packets(data_file, port, TCP_PORT) if n > 0]
    if not segments:
        raise ArgumentError(f"flow: no TCP data of flow {flow} (sender port {port}) in {data_file}: "
                            "sequence plots read TCP segments of flows that cross the captured link")
    t, seq, n = (np.array(col) for col in zip(*segments))
    start = _unwrap(seq.astype(np.int64)) - 1  # the SYN is sequence 0, the first byte 1
    end = start + n
    seen = np.concatenate([[-1], np.maximum.accumulate(end)[:-1]])
    data = pd.DataFrame({"t_s": t.astype(float), "seq_bytes": start, "payload_bytes": n.astype(np.int64),
                         "retransmission": start < seen})
    acks = pd.DataFrame({"t_s": pd.Series(dtype=float), "ack_bytes": pd.Series(dtype=np.int64)})
    if ack_link is not None:
        from dpkt.tcp import TH_ACK

        rows = [(ts, tcp.ack) for ts, tcp, _ in _tcp_packets(capture_file(pcap_dir, ack_link), TCP_PORT, port) if tcp.flags & TH_ACK]
        if rows:
            at, ack = (np.array(col) for col in zip(*rows))
            acks = pd.DataFrame({"t_s": at.astype(float), "ack_bytes": _unwrap(ack.astype(np.int64)) - 1})
    return SequenceTrace(flow=flow, link=link, ack_link=ack_link, data=data, acks=acks)


def _from_result(result: RunResult, flow: int, link: str | None, ack_link: str | None) -> SequenceTrace:
    """:func:`read_sequence` on the captures a run wrote (``ccarena.run(..., pcap=DIR)``)."""
    if result.pcap_dir is None:
        raise ArgumentError(f"sequence: {result.name!r} was run without packet captures: run it with "
                            "ccarena.run(..., pcap=DIR) (docs/pcap.md), or pass the directory to plots.plot_sequence")
    flows = result.flows.set_index("flow_id")
    if isinstance(flow, int) and not isinstance(flow, bool) and flow in flows.index and flows.loc[flow, "protocol"] != "tcp":
        raise ArgumentError(f"flow: flow {flow} is {flows.loc[flow, 'protocol']}; sequence plots read TCP segments")
    name = link if link is not None else result.bottleneck() or "bottleneck"
    if ack_link is None and isinstance(name, str):
        links = result.links.astype({"link": str})
        this = links[links["link"] == name]
        if not this.empty:
            back = links[(links["src"] == this["dst"].iloc[0]) & (links["dst"] == this["src"].iloc[0])]
            if not back.empty and capture_file(result.pcap_dir, str(back["link"].iloc[0])).is_file():
                ack_link = str(back["link"].iloc[0])
    return read_sequence(result.pcap_dir, flow, name, ack_link)


def _byte_unit(top: float) -> tuple[float, str]:
    for scale, unit in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if top >= scale:
            return scale, unit
    return 1.0, "bytes"


def plot_sequence(
    source: str | os.PathLike[str] | RunResult,
    flow: int = 0,
    link: str | None = None,
    path: str | Path | None = None,
    *,
    ack_link: str | None = None,
    unit: str = "bytes",
) -> Figure:
    """Sequence number against time for flow ``flow``'s data on ``link`` (default: the
    bottleneck), each segment a dot at the sequence number of its last byte, retransmissions as
    red crosses, and the cumulative ACK of the reverse direction as a line when it was captured.

    ``source`` is the capture directory (``ccarena run --pcap DIR``) or a RunResult made with
    ``ccarena.run(..., pcap=DIR)``. ``unit="segments"`` divides sequence numbers by the flow's
    largest segment (its MSS); ``"bytes"`` draws them in kB, MB or GB by magnitude."""
    from ccarena.api import RunResult

    unit = c.choice(unit, "unit", ("bytes", "segments"))
    c.check_path(path, "sequence.png")
    if isinstance(source, RunResult):
        trace = _from_result(source, flow, link, ack_link)
        where = source.name
    else:
        trace = read_sequence(source, flow, link if link is not None else "bottleneck", ack_link)
        where = str(source)
    data, acks = trace.data, trace.acks
    end = (data["seq_bytes"] + data["payload_bytes"]).to_numpy(dtype=float)
    if unit == "segments":
        scale, name = float(data["payload_bytes"].max()), "segments"
    else:
        scale, name = _byte_unit(float(end.max()))
    fig, ax = c.new_axes(f"Sequence of flow {trace.flow} at {trace.link} — {where}", f"sequence ({name})")
    new = ~data["retransmission"].to_numpy(dtype=bool)
    ax.scatter(data["t_s"][new], end[new] / scale, s=3, color="C0", label="data segment", zorder=2)
    resent = ~new
    ax.scatter(data["t_s"][resent], end[resent] / scale, s=28, marker="x", color="C3",
               label=f"retransmission ({int(resent.sum())})", zorder=3)
    if not acks.empty:
        ax.step(acks["t_s"], acks["ack_bytes"] / scale, where="post", lw=1.0, color="C2",
                label=f"cumulative ACK (at {trace.ack_link})", zorder=2.5)
    ax.set_ylim(bottom=0)
    return c.finish(fig, ax, path, "sequence.png")
