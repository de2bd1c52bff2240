"""Network namespaces for one testbed run: the only module that creates or removes anything.

A dumbbell becomes one namespace per host and router::

    snd<i> ── r1 ══(HTB rate + FIFO)══ dl ══ r2 ── rcv<i>
                                    (delay line)

``r1`` and ``r2`` are routers (IPv4 forwarding); ``dl`` has no addresses and runs the delay
line, which copies Ethernet frames between its two interfaces. The bottleneck's rate limit and
DropTail queue sit on ``r1``'s egress towards ``dl`` (forward) and on ``r2``'s egress towards
``dl`` (reverse). Every name starts with ``ccarena-tb-<pid>-<tag>-`` so concurrent runs never
collide and leftovers of a killed runner (whose pid is gone) are found by :func:`leftovers`.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field

from ccarena.errors import TestbedError

#: Every namespace the testbed creates starts with this.
PREFIX = "ccarena-tb-"
#: Ethernet header counted by tc but not by the simulator's IP-level rates (IEEE 802.3).
ETH_HEADER = 14
#: Hosts get one /24 each out of 10.1.0.0/16 and 10.2.0.0/16.
MAX_FLOWS = 250
#: Sending time HTB's token bucket may bank, seconds: enough for the lateness of its own timer
#: (p99 23-31 µs measured at 10 Mbit/s, docs/testbed.md), far less than a packet's transmission.
#: tc's default bucket (1600 B at 10 Mbit/s) holds more than a 1500-byte packet, so after any idle
#: moment HTB let two packets out together and stayed one packet ahead of the link the delay line
#: models: the line's serialiser became a hidden one-packet queue behind the FIFO.
HTB_BUCKET_S = 25e-6
#: Largest bucket, bytes: a tenth of a 1500-byte packet, so HTB never releases a packet more
#: than a tenth of its transmission time early, whatever the rate.
HTB_BUCKET_MAX = 150


def sh(args: Sequence[str], *, check: bool = True, netns: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run a command (inside ``netns`` if given); a failure is a one-line TestbedError."""
    full = ["ip", "netns", "exec", netns, *args] if netns else list(args)
    proc = subprocess.run(full, capture_output=True, text=True)
    if check and proc.returncode != 0:
        msg = (proc.stderr or proc.stdout).strip().splitlines()
        raise TestbedError(f"`{' '.join(args)}` failed: {msg[-1] if msg else f'exit {proc.returncode}'}")
    return proc


def run_prefix() -> str:
    """This run's name prefix: the runner's pid (to tell live runs from leftovers) and a random tag."""
    return f"{PREFIX}{os.getpid()}-{secrets.token_hex(2)}-"


def _pid_of(ns: str) -> int | None:
    parts = ns[len(PREFIX):].split("-", 1)
    return int(parts[0]) if parts and parts[0].isdigit() else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def namespaces() -> list[str]:
    """Every namespace on the machine whose name starts with :data:`PREFIX`."""
    out = sh(["ip", "netns", "list"], check=False).stdout
    return sorted(line.split()[0] for line in out.splitlines() if line.startswith(PREFIX))


def leftovers(include_live: bool = False) -> list[str]:
    """Testbed namespaces whose runner is gone (all of them with ``include_live``)."""
    found = namespaces()
    if include_live:
        return found
    return [ns for ns in found if (pid := _pid_of(ns)) is None or not _alive(pid)]


def remove(names: Sequence[str]) -> None:
    """Kill every process inside each namespace, then delete it. Never raises for a missing one."""
    for ns in names:
        pids = sh(["ip", "netns", "pids", ns], check=False).stdout.split()
        for pid in pids:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        sh(["ip", "netns", "del", ns], check=False)


@dataclass
class Dumbbell:
    """The namespaces and links of one run; :meth:`build` creates them, :meth:`teardown` removes them."""

    flows: int
    rate_bps: float
    queue_limit: int
    queue_unit: str  # "pkt" or "B"
    prefix: str = field(default_factory=run_prefix)
    created: list[str] = field(default_factory=list)

    def ns(self, role: str) -> str:
        return self.prefix + role

    def sender(self, i: int) -> str:
        return self.ns(f"snd{i}")

    def receiver(self, i: int) -> str:
        return self.ns(f"rcv{i}")

    @staticmethod
    def receiver_ip(i: int) -> str:
        return f"10.2.{i}.2"  # one /24 per host: at most MAX_FLOWS flows

    @staticmethod
    def sender_ip(i: int) -> str:
        return f"10.1.{i}.2"

    def build(self) -> None:
        try:
            self._build()
        except BaseException:
            self.teardown()
            raise

    def _add_ns(self, role: str) -> str:
        name = self.ns(role)
        sh(["ip", "netns", "add", name])
        self.created.append(name)
        # IPv4 only: with IPv6 on, a new interface sends neighbour-discovery and MLD packets in its
        # first seconds, which can take a place in a small bottleneck FIFO in the middle of a run.
        # (A kernel booted without IPv6 has no such settings, and nothing to turn off.)
        if os.path.exists("/proc/sys/net/ipv6"):
            for scope in ("all", "default"):
                sh(["sysctl", "-qw", f"net.ipv6.conf.{scope}.disable_ipv6=1"], netns=name)
        sh(["ip", "link", "set", "lo", "up"], netns=name)
        return name

    def _veth(self, ns_a: str, if_a: str, ns_b: str, if_b: str) -> None:
        sh(["ip", "-n", ns_a, "link", "add", "name", if_a, "type", "veth", "peer", "name", if_b, "netns", ns_b])
        for ns, dev in ((ns_a, if_a), (ns_b, if_b)):
            # One packet per skb everywhere, so queue limits and drops count MTU-sized packets; checksums
            # computed in software, so the frames the delay line copies carry complete ones.
            sh(["ethtool", "-K", dev, "tx", "off", "tso", "off", "gso", "off", "gro", "off"], netns=ns)
            sh(["ip", "-n", ns, "link", "set", "dev", dev, "up"])

    def _build(self) -> None:
        r1, dl, r2 = self._add_ns("r1"), self._add_ns("dl"), self._add_ns("r2")
        for r in (r1, r2):
            sh(["sysctl", "-qw", "net.ipv4.ip_forward=1"], netns=r)
        self._veth(r1, "bn", dl, "left")
        self._veth(dl, "right", r2, "bn")
        sh(["ip", "-n", r1, "addr", "add", "10.0.0.1/30", "dev", "bn"])
        sh(["ip", "-n", r2, "addr", "add", "10.0.0.2/30", "dev", "bn"])
        sh(["ip", "-n", r1, "route", "add", "10.2.0.0/16", "via", "10.0.0.2"])
        sh(["ip", "-n", r2, "route", "add", "10.1.0.0/16", "via", "10.0.0.1"])
        for r in (r1, r2):
            self._bottleneck(r)
        for i in range(self.flows):
            for side, router, ip in (("snd", r1, self.sender_ip(i)), ("rcv", r2, self.receiver_ip(i))):
                host = self._add_ns(f"{side}{i}")
                self._veth(host, "eth0", router, f"{side}{i}")
                net = ip.rsplit(".", 1)[0]
                sh(["ip", "-n", host, "addr", "add", f"{ip}/24", "dev", "eth0"])
                sh(["ip", "-n", host, "route", "add", "default", "via", f"{net}.1"])
                sh(["ip", "-n", router, "addr", "add", f"{net}.1/24", "dev", f"{side}{i}"])

    def htb_bucket_bytes(self) -> int:
        """HTB's burst and cburst, bytes: :data:`HTB_BUCKET_S` of sending, at most
        :data:`HTB_BUCKET_MAX`, at least one byte."""
        return max(1, min(HTB_BUCKET_MAX, int(self.rate_bps * HTB_BUCKET_S / 8)))

    def _bottleneck(self, router: str) -> None:
        """HTB at the bottleneck rate (tc's 14-byte Ethernet header taken off by a size table, so
        the rate counts IP bytes like the simulator's) over a pfifo/bfifo DropTail queue. Its
        bucket is a fraction of a packet, so it releases each packet when the link would have
        sent the one before: the FIFO holds everything that waits, as a link's buffer does."""
        dev = ["dev", "bn"]
        bucket = f"{self.htb_bucket_bytes()}b"
        sh(["tc", "qdisc", "add", *dev, "root", "handle", "1:", "stab", "overhead", str(-ETH_HEADER),
            "htb", "default", "1"], netns=router)
        sh(["tc", "class", "add", *dev, "parent", "1:", "classid", "1:1", "htb",
            "rate", f"{int(self.rate_bps)}bit", "ceil", f"{int(self.rate_bps)}bit",
            "burst", bucket, "cburst", bucket], netns=router)
        fifo = "pfifo" if self.queue_unit == "pkt" else "bfifo"
        sh(["tc", "qdisc", "add", *dev, "parent", "1:1", "handle", "10:", fifo, "limit", str(self.queue_limit)],
           netns=router)

    def teardown(self) -> None:
        remove(list(reversed(self.created)))
        self.created.clear()
