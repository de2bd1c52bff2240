"""One testbed run: build the dumbbell, start the delay line and the traffic, sample the queues,
tear everything down (always), and return a :class:`~ccarena.api.RunResult`."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ccarena.errors import TestbedError
from ccarena.testbed import checks, mib, results, units
from ccarena.testbed.netns import MAX_FLOWS, Dumbbell, sh

AGENT = Path(__file__).with_name("agent.py")
#: Seconds between the start of the processes and the run's time zero (they all start by then).
LEAD_S = 1.0
#: Runs whose delay line released a packet later than this are flagged (meta["testbed"]).
LATENESS_LIMIT_S = 1e-3
#: The delay line (ccarena/testbed/delayline.py: the extension module carries it).
DELAYLINE = (sys.executable, "-m", "ccarena.testbed.delayline")
#: First receiver port; flow i listens on BASE_PORT + i.
BASE_PORT = 5201


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """Turn SIGTERM into KeyboardInterrupt while a run is up, so `finally` blocks tear it down."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    old = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def run(
    scenario: Any,
    *,
    overrides: Iterable[str] = (),
    seed: int | None = None,
    progress: bool = False,
) -> Any:
    """Run a dumbbell scenario on this machine's Linux TCP in network namespaces.

    Takes the same arguments as :func:`ccarena.run`; returns a ``RunResult`` with the simulator's
    tables (columns the kernel cannot provide are NaN, see docs/testbed.md). Raises
    :class:`TestbedError` when the scenario or the machine cannot do it. Everything the run
    creates is removed on return, on an exception, on Ctrl-C and on SIGTERM.
    """
    from ccarena import api

    checks.require_privileges()
    # The simulator expands flow groups (counts, random starts and RTTs from the seed) and names
    # the links; the testbed runs exactly that plan.
    plan = api.plan(scenario, overrides=overrides, seed=seed)
    valid = plan.meta["scenario"]
    checks.refuse_unsupported(valid)
    flows = plan.main_flows.reset_index(drop=True)
    if len(flows) > MAX_FLOWS:
        raise TestbedError(f"flows: {len(flows)} flows, the testbed runs at most {MAX_FLOWS}")
    refuse_late_starts(flows.to_dict("records"), float(plan.meta["duration_s"]))
    rtts = sorted(set(round(float(r), 9) for r in flows["rtt_base_s"]))
    if len(rtts) > 1:
        raise TestbedError(f"flows.rtt: the testbed's delay line has one delay per direction, the flows have RTTs {rtts} s")
    bottleneck = plan.links.set_index("link").loc["bottleneck"]
    limit, unit = units.queue_limit(valid["topology"]["queue"]["limit"], "topology.queue.limit")
    group_of = _group_of_each_flow(valid["flows"])
    apps = [_app_spec(valid["flows"][g], f"flows[{g}]") for g in group_of]
    timestamps = [bool(valid["flows"][g].get("timestamps")) for g in group_of]
    net = Dumbbell(flows=len(flows), rate_bps=float(bottleneck["rate_bps"]), queue_limit=limit, queue_unit=unit)
    started = time.time()
    with _sigterm_as_interrupt(), tempfile.TemporaryDirectory(prefix="ccarena-tb-") as tmp:
        try:
            net.build()
            raw = _traffic(net, flows, apps, timestamps, plan.meta, rtts[0], serialisation_ps_per_byte(plan.links), Path(tmp), progress)
        finally:
            net.teardown()
    raw["wall_s"] = time.time() - started
    return results.build(plan, flows, raw, lateness_limit_s=LATENESS_LIMIT_S)


def refuse_late_starts(flows: Iterable[Mapping[str, Any]], duration_s: float) -> None:
    """Refuse a flow (``flow_id``, ``group``, ``start_s`` of the plan's flow table) that starts at or
    after the end of the run: its sender would start after the receiver has gone and die with
    "connection refused". The simulator just records such a flow as having sent nothing."""
    for flow in flows:
        start = float(flow["start_s"])
        if start >= duration_s:
            name = f"flow {int(flow['flow_id'])}" + (f" ({flow['group']})" if flow.get("group") else "")
            raise TestbedError(
                f"flows: {name} starts at {start:g} s, not before the end of the run at {duration_s:g} s "
                "(the duration): the testbed cannot run it; lengthen the duration or start the flow earlier"
            )


def _spawn(net: Dumbbell, ns: str, args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(["ip", "netns", "exec", ns, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_ready(proc: subprocess.Popen[str], what: str) -> None:
    line = proc.stdout.readline() if proc.stdout else ""
    if line.strip() != "ready":
        err = proc.stderr.read().strip().splitlines() if proc.stderr else []
        raise TestbedError(f"{what} did not start: {err[-1] if err else 'no output'}")


def serialisation_ps_per_byte(links: Any) -> tuple[int, int]:
    """Picoseconds per IP byte the delay line adds as transmission time, forward and reverse: the
    bottleneck's, which HTB does not impose (it releases a packet at the start of its slot and
    the veth delivers it at once; see crates/delayline/src/serialiser.rs)."""
    rate = links.set_index("link")["rate_bps"]
    return round(8e12 / float(rate["bottleneck"])), round(8e12 / float(rate["bottleneck_rev"]))


def _traffic(
    net: Dumbbell, flows: Any, apps: list[dict[str, Any]], timestamps: list[bool], meta: dict[str, Any], rtt_s: float,
    ps_per_byte: tuple[int, int], tmp: Path, progress: bool,
) -> dict[str, Any]:
    duration, interval = float(meta["duration_s"]), float(meta["sample_interval_s"])
    one_way_us = int(round(rtt_s / 2 * 1e6))
    traffic: list[subprocess.Popen[str]] = []
    with delay_line(net, one_way_us, tmp / "delayline.json", ps_per_byte) as line:
        try:
            for i in range(len(flows)):
                # Learn the neighbours' MAC addresses before time zero (ARP would cross the delay line).
                sh(["ping", "-c", "1", "-W", "3", net.receiver_ip(i)], netns=net.sender(i))
            t0 = time.time() + LEAD_S
            for i, flow in flows.iterrows():
                spec = {"t0": t0, "duration": duration, "interval": interval, "port": BASE_PORT + i, "protocol": flow["protocol"]}
                # RFC 7323 timestamps as the flow's stack has them (`linux`: on, 1448-byte segments;
                # `ns2` and `rfc`: off, 1460), at both ends: Linux uses them only if both offer them.
                for host in (net.receiver(i), net.sender(i)):
                    sh(["sysctl", "-qw", f"net.ipv4.tcp_timestamps={int(timestamps[i])}"], netns=host)
                recv = _spawn(net, net.receiver(i), [sys.executable, str(AGENT), "recv", json.dumps({**spec, "out": str(tmp / f"recv{i}.json")})])
                traffic.append(recv)
                _wait_ready(recv, f"flow {i}'s receiver")
                if flow.get("recovery") == "newreno":
                    sh(["sysctl", "-qw", "net.ipv4.tcp_sack=0"], netns=net.sender(i))
                send_spec = {**spec, "dst": net.receiver_ip(i), "cc": flow["cc"], "start": float(flow["start_s"]),
                             "app": apps[i], "out": str(tmp / f"send{i}.json")}
                traffic.append(_spawn(net, net.sender(i), [sys.executable, str(AGENT), "send", json.dumps(send_spec)]))
            queues = _sample_queues(net, t0, duration, interval, progress)
            for proc in traffic:
                _, err = proc.communicate(timeout=30)
                if proc.returncode != 0:
                    lines = err.strip().splitlines()
                    raise TestbedError(f"a traffic process of the run failed: {lines[-1] if lines else proc.returncode}")
            counters = [{"sender": mib.tcp_ext(net.sender(i)), "receiver": mib.tcp_ext(net.receiver(i))} for i in range(len(flows))]
        finally:
            for proc in traffic:
                _reap(proc)
        stop_delay_line(line)
    return {
        "t0": t0,
        "senders": [json.loads((tmp / f"send{i}.json").read_text()) for i in range(len(flows))],
        "receivers": [json.loads((tmp / f"recv{i}.json").read_text()) for i in range(len(flows))],
        "queues": queues,
        "counters": counters,
        "timestamps": timestamps,
        "delayline": json.loads((tmp / "delayline.json").read_text()),
    }


@contextmanager
def delay_line(
    net: Dumbbell, one_way_us: int, stats: Path, ps_per_byte: tuple[int, int] = (0, 0)
) -> Iterator[subprocess.Popen[str]]:
    """The delay line running in ``net``'s ``dl`` namespace, the same delay both ways, with the
    bottleneck's transmission time per byte forward and reverse; killed on exit if still running
    (processes started inside it are the caller's, see :func:`_traffic`)."""
    delays = [str(one_way_us), str(one_way_us)]
    proc = _spawn(net, net.ns("dl"), [*DELAYLINE, "left", "right", *delays, str(stats), *map(str, ps_per_byte)])
    try:
        _wait_ready(proc, "the delay line")
        yield proc
    finally:
        _reap(proc)


def _reap(proc: subprocess.Popen[str]) -> None:
    """Kill ``proc`` if it still runs, wait for it and close its pipes."""
    if proc.poll() is None:
        proc.kill()
    proc.communicate()


def stop_delay_line(proc: subprocess.Popen[str]) -> None:
    """Stop the line cleanly so it writes its lateness statistics."""
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=10)


def _app_spec(group: dict[str, Any], where: str) -> dict[str, Any]:
    app = dict(group["app"])
    if group.get("stop") is not None:
        # The flow's `stop`: its sender goes quiet then (the agent ends its sending loop).
        app["stop_s"] = units.seconds(group["stop"], f"{where}.stop")
    if app["kind"] == "file":
        app["size_bytes"] = units.size_bytes(app["size"], f"{where}.app.size")
    if app["kind"] == "cbr":
        app["rate_bps"] = units.rate_bps(app["rate"], f"{where}.app.rate")
        app["packet_size"] = units.size_bytes(app["packet_size"], f"{where}.app.packet_size")
    return app


def _group_of_each_flow(groups: list[dict[str, Any]]) -> list[int]:
    """Index of the ``[[flows]]`` group of each main flow, in flow-id order (groups expand in order)."""
    return [g for g, group in enumerate(groups) for _ in range(int(group.get("count", 1)))]


def _sample_queues(net: Dumbbell, t0: float, duration: float, interval: float, progress: bool) -> list[dict[str, Any]]:
    """``tc -s`` of both bottleneck directions once per interval until the end of the run."""
    samples = []
    n = int(round(duration / interval))
    for k in range(1, n + 1):
        due = t0 + k * interval
        delay = due - time.time()
        if delay > 0:
            time.sleep(delay)
        row: dict[str, Any] = {"t_s": round(k * interval, 9)}
        for link, router in (("bottleneck", "r1"), ("bottleneck_rev", "r2")):
            stats = json.loads(sh(["tc", "-s", "-j", "qdisc", "show", "dev", "bn"], netns=net.ns(router)).stdout)
            root = next(q for q in stats if q.get("root"))
            fifo = next(q for q in stats if not q.get("root"))
            row[link] = {"tx_pkts": root["packets"], "tx_bytes": root["bytes"], "dropped_pkts": fifo["drops"],
                         "queue_pkts": fifo["qlen"], "queue_bytes": fifo["backlog"]}
        samples.append(row)
        if progress:
            sys.stderr.write(f"\rtestbed {k * interval:7.1f}/{duration:g} s")
            sys.stderr.flush()
    if progress:
        sys.stderr.write("\n")
    return samples


