"""What the running kernel can do, and the refusal of scenarios it cannot run.

Each refusal is one :class:`TestbedError` line naming the scenario field, its value and why the
kernel cannot do it. Algorithms are checked against ``net.ipv4.tcp_available_congestion_control``
and queue disciplines by a trial ``tc qdisc add`` in a scratch namespace, so a kernel that has
more gets more.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from ccarena.errors import TestbedError

AVAILABLE_CC = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")
#: Tools the testbed calls (Debian packages iproute2, ethtool, iputils-ping).
TOOLS = ("ip", "tc", "ethtool", "ping")
#: Apps the traffic agent implements.
APPS = ("bulk", "file", "cbr")
#: Loss recoveries Linux offers: SACK, or NewReno when SACK is off (net.ipv4.tcp_sack=0).
RECOVERIES = ("sack", "newreno")
#: TCP behaviours the testbed leaves as the kernel has them: a flow must ask for Linux's own (the
#: `linux` stack profile's value), or the kernel would silently run something else. `timestamps`
#: and `recovery` are mapped (sysctls per namespace), the segment size follows from timestamps.
KERNEL_FIXED = (
    "handshake", "quickack", "rack_tlp", "prr", "rto", "head_retransmit_rearms_rto", "window_from_una",
    "initial_cwnd", "min_rto", "delayed_ack", "rcv_buf", "rwnd", "slow_start_after_idle",
)
#: Payload of a full segment on the testbed's 1500-byte MTU: 12 B less with the timestamp option.
KERNEL_MSS = {True: "1448B", False: "1460B"}


def require_privileges() -> None:
    """Root (CAP_NET_ADMIN and CAP_SYS_ADMIN to make namespaces) and the command-line tools."""
    if os.geteuid() != 0:
        raise TestbedError("the testbed needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN) to create network namespaces")
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        raise TestbedError(f"the testbed needs {', '.join(missing)} on PATH (Debian: apt-get install iproute2 ethtool iputils-ping)")


def available_algorithms() -> list[str]:
    try:
        return AVAILABLE_CC.read_text().split()
    except OSError:
        return []


def qdisc_available(kind: str) -> bool:
    """Whether this kernel can attach qdisc ``kind`` (a trial in a scratch namespace)."""
    from ccarena.testbed.netns import remove, run_prefix, sh

    scratch = run_prefix() + "probe"
    try:
        sh(["ip", "netns", "add", scratch])
        return sh(["tc", "qdisc", "add", "dev", "lo", "root", kind], netns=scratch, check=False).returncode == 0
    finally:
        remove([scratch])


def refuse_unsupported(doc: dict[str, Any]) -> None:
    """Raise a one-line TestbedError for the first thing in a validated scenario the kernel backend
    cannot reproduce."""
    from ccarena.peers.plan import default_cc_params  # here: peers.plan imports the testbed's units

    topo = doc["topology"]
    if topo["kind"] != "dumbbell":
        raise TestbedError(f"topology.kind: the testbed builds dumbbells only, not {topo['kind']!r}")
    queue = topo["queue"]
    if queue["kind"] != "droptail":
        why = "the testbed runs DropTail queues only"
        if not qdisc_available(queue["kind"]):
            why = f"this kernel has no {queue['kind']} qdisc"
        raise TestbedError(f"topology.queue.kind: {queue['kind']!r} cannot run on the testbed: {why}")
    if topo.get("loss"):
        raise TestbedError("topology.loss: artificial loss needs netem, which this kernel does not have")
    for key in ("schedule", "bottleneck_trace"):
        if topo.get(key):
            raise TestbedError(f"topology.{key}: links that follow a schedule or a trace are simulator-only; the testbed runs a fixed bottleneck")
    if doc.get("background"):
        raise TestbedError("background: aggregate background traffic is not supported by the testbed")
    algos = available_algorithms()
    for i, group in enumerate(doc["flows"]):
        where = f"flows[{i}]"
        proto = group["protocol"]
        if proto == "dccp":
            raise TestbedError(f"{where}.protocol: 'dccp' cannot run on the testbed: Linux removed DCCP (kernel 6.16)")
        app = group["app"]["kind"]
        if app not in APPS:
            raise TestbedError(f"{where}.app.kind: {app!r} is not supported by the testbed (allowed: {', '.join(APPS)})")
        if proto == "udp":
            if app != "cbr":
                raise TestbedError(f"{where}.app.kind: UDP flows on the testbed are 'cbr', not {app!r}")
            continue
        if group["cc"] not in algos:
            raise TestbedError(
                f"{where}.cc: {group['cc']!r} is not available in this kernel "
                f"(net.ipv4.tcp_available_congestion_control: {' '.join(algos)})"
            )
        if group.get("recovery", "sack") not in RECOVERIES:
            raise TestbedError(f"{where}.recovery: {group['recovery']!r} does not exist in Linux (allowed: sack, newreno)")
        if group.get("ecn") or group.get("source_quench"):
            raise TestbedError(f"{where}: ECN and Source Quench are not supported by the testbed")
        _refuse_other_tcp(group, where)
        stack = group.get("stack", "linux")
        if group.get("cc_params") and _linux_params(group["cc_params"]) != _linux_params(default_cc_params(group["cc"], stack)):
            raise TestbedError(f"{where}.cc_params: Linux's {group['cc']} takes no parameters per socket")


def _refuse_other_tcp(group: dict[str, Any], where: str) -> None:
    """A one-line TestbedError for a TCP behaviour the group asks for that this kernel's TCP
    does not have (a key its stack profile or the scenario set otherwise than Linux)."""
    from ccarena import api

    linux = api.validate({"duration": "1s", "topology": {"kind": "dumbbell", "bottleneck_rate": "1Mbps", "bottleneck_delay": "1ms"},
                          "flows": [{"cc": "reno", "stack": "linux"}]})["flows"][0]
    for key in KERNEL_FIXED:
        if group.get(key) != linux.get(key):
            stack = group.get("stack", "linux")
            origin = f" (stack = \"{stack}\" sets it)" if stack != "linux" else ""
            raise TestbedError(
                f"{where}.{key}: {group.get(key)!r}{origin} is not what this host's Linux TCP does ({linux.get(key)!r}); "
                "the testbed cannot change it"
            )
    mss = KERNEL_MSS[bool(group.get("timestamps"))]
    if group.get("mss") != mss:
        raise TestbedError(f"{where}.mss: {group.get('mss')!r}: the kernel's segments carry {mss} of payload "
                           f"{'with' if group.get('timestamps') else 'without'} timestamps; set mss = \"{mss}\"")


def _linux_params(params: dict[str, Any]) -> dict[str, Any]:
    """Parameters without Reno's reduction basis when it is Linux's own (cwnd halving)."""
    return {k: v for k, v in params.items() if not (k == "basis" and v in ("cwnd", "flight_size"))}

