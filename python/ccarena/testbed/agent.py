"""Traffic endpoints run inside the testbed's namespaces: ``python agent.py send|recv JSON``.

A standalone script (standard library only, no ccarena import) so it starts fast in each
namespace. Both ends share the clock (namespaces share CLOCK_REALTIME): times in the spec are
offsets from ``t0``, an epoch time chosen by the runner.

- ``recv``: accepts one TCP connection (or binds a UDP port), counts payload bytes per sample
  interval until ``t0 + duration`` and writes ``{"bytes": [...], "total": n, "first_s", "last_s"}``.
- ``send``: waits until ``t0 + start``, opens a TCP connection with ``TCP_CONGESTION`` set (or a
  UDP socket), runs the app (``bulk``, ``file``, ``cbr``) until ``t0 + duration`` and samples
  ``TCP_INFO`` once per interval; writes ``{"samples": [...], "final": {...}, "completion_s"}``.
"""

from __future__ import annotations

import json
import socket
import struct
import sys
import threading
import time
from typing import Any

#: Bytes handed to send() at a time by bulk apps.
CHUNK = 1 << 16

# struct tcp_info field offsets (include/uapi/linux/tcp.h): name -> (offset, struct format).
TCP_INFO_FIELDS = {
    "ca_state": (1, "B"),
    "snd_mss": (16, "I"),
    "rtt_us": (68, "I"),
    "snd_ssthresh": (76, "I"),
    "snd_cwnd": (80, "I"),
    "total_retrans": (100, "I"),
    "bytes_acked": (120, "Q"),
    "data_segs_out": (156, "I"),
    "delivery_rate": (160, "Q"),
    "bytes_sent": (200, "Q"),
    "bytes_retrans": (208, "Q"),
}
TCP_INFO_LEN = 232
#: tcp_info's "infinite" ssthresh (TCP_INFINITE_SSTHRESH in include/net/tcp.h).
INFINITE_SSTHRESH = 0x7FFFFFFF


def tcp_info(sock: socket.socket) -> dict[str, int]:
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, TCP_INFO_LEN)
    raw = raw.ljust(TCP_INFO_LEN, b"\0")
    return {name: struct.unpack_from("=" + fmt, raw, off)[0] for name, (off, fmt) in TCP_INFO_FIELDS.items()}


def sleep_until(t: float) -> None:
    delay = t - time.time()
    if delay > 0:
        time.sleep(delay)


def receive(spec: dict[str, Any]) -> dict[str, Any]:
    t0, interval, end = spec["t0"], spec["interval"], spec["t0"] + spec["duration"]
    bins = [0] * max(1, int(round(spec["duration"] / interval)))
    total, first, last = 0, None, None
    if spec["protocol"] == "udp":
        conn = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        conn.bind(("0.0.0.0", spec["port"]))
        listener = None
    else:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("0.0.0.0", spec["port"]))
        listener.listen(1)
        print("ready", flush=True)
        listener.settimeout(max(0.1, end - time.time()))
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            return {"bytes": bins, "total": 0, "first_s": None, "last_s": None}
    if listener is None:
        print("ready", flush=True)
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    while True:
        left = end - time.time()
        if left <= 0:
            break
        conn.settimeout(left)
        try:
            data = conn.recv(CHUNK)
        except TimeoutError:
            break
        now = time.time() - t0
        if not data:
            if spec["protocol"] == "tcp":
                break
            continue
        n = len(data)
        total += n
        first = now if first is None else first
        last = now
        bins[min(len(bins) - 1, int(now / interval))] += n
    conn.close()
    return {"bytes": bins, "total": total, "first_s": first, "last_s": last}


def _sampler(sock: socket.socket, spec: dict[str, Any], samples: list[dict[str, Any]], stop: threading.Event) -> None:
    t0, interval = spec["t0"], spec["interval"]
    k = int((time.time() - t0) / interval) + 1
    while not stop.is_set():
        stop.wait(max(0.0, t0 + k * interval - time.time()))
        try:
            info = tcp_info(sock)
        except OSError:
            return
        info["time_s"] = round(k * interval, 9)
        samples.append(info)
        k += 1


def send(spec: dict[str, Any]) -> dict[str, Any]:
    app = spec["app"]
    t0, end = spec["t0"], spec["t0"] + min(spec["duration"], app.get("stop_s", float("inf")))
    sleep_until(t0 + spec["start"])
    if spec["protocol"] == "udp":
        return send_udp(spec, app, end)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, spec["cc"].encode())
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8 << 20)
    sock.connect((spec["dst"], spec["port"]))
    samples: list[dict[str, Any]] = []
    stop = threading.Event()
    sampler = threading.Thread(target=_sampler, args=(sock, spec, samples, stop), daemon=True)
    sampler.start()
    completion = None
    try:
        if app["kind"] == "cbr":
            send_paced(sock, app, end)
        else:
            remaining = app.get("size_bytes") if app["kind"] == "file" else None
            chunk = b"\0" * CHUNK
            while time.time() < end and (remaining is None or remaining > 0):
                sock.settimeout(max(0.01, end - time.time()))
                part = chunk if remaining is None else chunk[: min(CHUNK, remaining)]
                try:
                    n = sock.send(part)
                except TimeoutError:
                    break
                if remaining is not None:
                    remaining -= n
            if remaining == 0:
                # A file is complete when its last byte is acknowledged.
                while time.time() < end and tcp_info(sock)["bytes_acked"] < app["size_bytes"]:
                    time.sleep(0.001)
                if tcp_info(sock)["bytes_acked"] >= app["size_bytes"]:
                    completion = time.time() - t0 - spec["start"]
    except OSError:
        pass  # the receiver closed at the end of the run
    final = tcp_info(sock)
    stop.set()
    sampler.join()
    sock.close()
    return {"samples": samples, "final": final, "completion_s": completion}


def send_paced(sock: socket.socket, app: dict[str, Any], end: float) -> int:
    """Send ``packet_size`` bytes every ``packet_size * 8 / rate`` seconds until ``end``."""
    size, gap = app["packet_size"], app["packet_size"] * 8.0 / app["rate_bps"]
    payload = b"\0" * size
    sent, next_t = 0, time.time()
    while next_t < end:
        sleep_until(next_t)
        sock.send(payload)
        sent += 1
        next_t += gap
    return sent


def send_udp(spec: dict[str, Any], app: dict[str, Any], end: float) -> dict[str, Any]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.connect((spec["dst"], spec["port"]))
    sent = 0
    try:
        sent = send_paced(sock, app, end)
    except OSError:
        pass
    sock.close()
    return {"samples": [], "final": {"data_segs_out": sent, "bytes_sent": sent * app["packet_size"], "snd_mss": app["packet_size"]}, "completion_s": None}


def main() -> None:
    mode, spec = sys.argv[1], json.loads(sys.argv[2])
    result = receive(spec) if mode == "recv" else send(spec)
    with open(spec["out"], "w", encoding="utf-8") as fh:
        json.dump(result, fh)


if __name__ == "__main__":
    main()
