"""The ns-3 peer backend: the scenario's peer plan (:mod:`ccarena.peers.plan`) run by a small C++
program on the installed ns-3.37 (``ns3_driver/``, compiled once per source version into
``target/ns3-driver/<hash>/``), its measurements turned into the simulator's tables
(:mod:`ccarena.peers.results`).

Mapping (the driver's comments cite the ns-3 code each rests on):

- links: one PointToPointChannel per link direction (Delay), its sending device's DataRate; a
  drop-tail buffer is the device queue, which holds only the packets waiting (measured: a 12
  Mbit/s UDP flood into 10 Mbit/s gives the simulator's mean queue, 33.595 packets with
  ``limit = "34pkt"``, 18.595 with ``"20000B"``); RED is RedQueueDisc (MinTh, MaxTh, LInterm =
  1/max_p, QW, Gentle, UseEcn, Wait, UseHardDrop = false, MeanPktSize, LinkBandwidth) for
  RED's ``variant = "ns2"`` (ns-3's RED is ns-2's; the paper's variant is refused),
  with MaxSize and thresholds one less for the packet waiting in the 1-packet device queue;
  loss acts before the buffer, as the simulator's; routes are the simulator's (fewest hops,
  then lowest delay, then lowest link id), installed as static routes;
- bytes are IP bytes (mss + 40, + 12 with timestamps): the 2-byte PPP header is not counted;
- TCP: SegmentSize = mss, InitialCwnd, MinRto, DelAckCount (2 with delayed ACKs, else 1),
  DelAckTimeout, Timestamp, Sack (recovery "sack"; "newreno" runs Sack = false), UseEcn,
  RecoveryType TcpPrrRecovery with ``prr``, else TcpClassicRecovery; ssthresh unlimited; the
  receive buffer the scenario's window (rwnd, half of rcv_buf as Linux advertises, else 1 GiB);
  reno is TcpLinuxReno (ssthresh = cwnd / 2, the linux and ns2 stacks) or TcpNewReno
  (FlightSize / 2, RFC 5681, the rfc stack's ``basis = "flight_size"``); cubic, bic, highspeed,
  htcp, hybla, illinois, scalable, vegas, veno, westwood, yeah, bbr (paced) are TcpCubic ... TcpBbr
  with their ns-3 defaults, but Hybla's reference RTT (25 ms, Linux's) and Westwood+;
- apps: bulk and file (a sender that keeps the socket's buffer full, as BulkSendApplication),
  UDP cbr and onoff (OnOffApplication); goodput is the payload the receiving socket delivers.

Refused, one line naming the key: DCCP; a cc ns-3.37 lacks, a cc preset, cc_params off the
algorithm's defaults; tahoe/reno recovery; rack_tlp; quickack with delayed ACKs; hybla without
timestamps; handshake = false; rto = "linux"; head_retransmit_rearms_rto = true; window_from_una
= true; source_quench; stop on TCP; TCP apps other than bulk/file; a fractional initial window;
RED's variant "fj93"; loss on a RED link; RED with a byte limit or below 2 packets. What ns-3
does differently with no key to select it is listed in ``result.meta["peer"]["differences"]``.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ccarena.errors import PeerError
from ccarena.peers import plan as plan_mod

NAME = "ns3"
VERSION = "ns-3.37"
SOURCES = Path(__file__).with_name("ns3_driver")
INCLUDE = Path("/usr/include")
LIBS = ("core", "network", "internet", "point-to-point", "applications", "traffic-control")
COMPILE = ("g++", "-std=c++17", "-O2", "-o")
#: cc name -> ns-3.37 TcpCongestionOps (reno: see _congestion_ops).
CONGESTION_OPS = {
    "bbr": "ns3::TcpBbr", "bic": "ns3::TcpBic", "cubic": "ns3::TcpCubic", "dctcp": "ns3::TcpDctcp", "highspeed": "ns3::TcpHighSpeed",
    "htcp": "ns3::TcpHtcp", "hybla": "ns3::TcpHybla", "illinois": "ns3::TcpIllinois", "ledbat": "ns3::TcpLedbat", "lp": "ns3::TcpLp", "reno": "ns3::TcpLinuxReno",
    "scalable": "ns3::TcpScalable", "vegas": "ns3::TcpVegas", "veno": "ns3::TcpVeno", "westwood": "ns3::TcpWestwood",
    "yeah": "ns3::TcpYeah",
}
#: Attributes set (Config::SetDefault) where ns-3.37's defaults are not the algorithm's: Hybla's
#: reference RTT is 50 ms in ns-3, 25 ms in Linux `tcp_hybla.c` (our `rtt0_s`); TcpWestwood is
#: Westwood (a sample per ACK) unless told it is Westwood+ (a sample per RTT, Linux `tcp_westwood.c`).
CONGESTION_ATTRIBUTES = {
    "hybla": {"ns3::TcpHybla::RRTT": "25ms"},
    "westwood": {"ns3::TcpWestwood::ProtocolType": "WestwoodPlus"},
}
#: A bulk sender keeps this much in its socket (SndBufSize): above any window these runs reach.
SND_BUF = 1 << 28
#: RcvBufSize when the scenario sets no receive buffer (unlimited): 1 GiB, window scale 14.
RCV_BUF_UNLIMITED = 1 << 30
#: The SYN's timeout (ConnTimeout): the stack's initial RTO (docs/tcp.md).
SYN_RTO_S = {"linux": 1.0, "ns2": 3.0, "rfc": 1.0}
#: What ns-3.37 does differently from the simulator that no scenario key selects (always, and
#: when the scenario has RED, ECN-capable flows or UDP sources).
DIFFERENCES = (
    "PointToPointNetDevice serialises its 2-byte PPP header: a 1500-B packet takes 1502 B of link time (0.13 %)",
    "the fast retransmit does not restart the retransmission timer (only new ACKs and the first partial ACK do)",
    "a timeout at the 60 s RTO ceiling is not counted (timeouts are counted from the RTO doubling)",
)
RED_DIFFERENCES = (
    "RED: RedQueueDisc sees the queue disc, one packet less than the packets waiting (thresholds and MaxSize "
    "lowered by one to match), so it exempts arrivals that find at most 2 packets waiting where ns-2's RED "
    "exempts those that find at most 1",
)
PIE_DIFFERENCES = (
    "PIE: PieQueueDisc sees the queue disc, one packet less than the packets waiting (MaxSize lowered by one), "
    "so its sojourn times leave out the last packet's wait in the device queue and it exempts arrivals that "
    "find at most 3 packets waiting where the simulator exempts those that find at most 2",
)
ECN_DIFFERENCES = (
    "ECN: the reaction to ECN-Echo is ns-3's (EnterCwr: ssthresh from the congestion control, cwnd brought down "
    "by the recovery algorithm, no growth until the window sent before is acknowledged), not the stack profile's",
)
#: What ns-3.37's class does differently from the algorithm's Linux source, per cc.
CC_DIFFERENCES = {
    "lp": "lp: TcpLp lets slow start go on within the inference time (it gates only congestion avoidance; Linux "
          "gates both), tests its threshold with <= (Linux <) and uses the first ACK's delay at once",
    "ledbat": "ledbat: TcpLedbat caps cwnd at the flight size without ALLOWED_INCREASE, a loss sets ssthresh to half "
              "the flight size (TcpNewReno), and its base delay starts a new entry 60 s after the last, not each minute",
    "dctcp": "dctcp: TcpDctcp answers a loss as an ECN-Echo, ssthresh = (1 - alpha/2) cwnd (its GetSsThresh serves "
             "both), where RFC 8257 section 3.4 and Linux halve; and no floor of 2 segments",
    "westwood": "westwood: TcpWestwood sets ssthresh = max(2 segments, BW x RTTmin) at the loss, where Linux halves "
                "it then and brings cwnd and ssthresh to BW x RTTmin when the recovery ends; it filters the "
                "bandwidth with Tustin's filter (0.9), not Linux's two 7/8 averages",
}
UDP_DIFFERENCES = (
    "UDP cbr/onoff: OnOffApplication sends its first datagram one packet time after the start, and its "
    "talkspurts are exponential in time, not in packets",
)


def _differences(prog: dict[str, Any]) -> list[str]:
    out = list(DIFFERENCES)
    if any(link["queue"]["kind"] == "red" for link in prog["links"]):
        out += RED_DIFFERENCES
    if any(link["queue"]["kind"] == "pie" for link in prog["links"]):
        out += PIE_DIFFERENCES
    if any(f["tcp"] and f["tcp"]["ecn"] for f in prog["flows"]):
        out += ECN_DIFFERENCES
    if any(f["protocol"] == "udp" for f in prog["flows"]):
        out += UDP_DIFFERENCES
    out += [CC_DIFFERENCES[cc] for cc in sorted({f["cc_base"] for f in prog["flows"] if f["tcp"]}) if cc in CC_DIFFERENCES]
    return out


def available() -> str | None:
    """None if the ns-3 driver can be built and run here, else the one-line reason."""
    if shutil.which("g++") is None:
        return "g++ is not installed (apt-get install g++)"
    if not (INCLUDE / "ns3" / "core-module.h").exists():
        return "libns3-dev is not installed (apt-get install libns3-dev)"
    version = _installed_version()
    if version != VERSION:
        return f"{version or 'an unknown ns-3'} is installed; the ns-3 driver is written for {VERSION}"
    missing = [lib for lib in LIBS if not _library(lib)]
    if missing:
        return f"libns3-{missing[0]}.so is missing (apt-get install libns3-dev)"
    if not (INCLUDE / "nlohmann" / "json.hpp").exists():
        return "nlohmann-json3-dev is not installed (apt-get install nlohmann-json3-dev)"
    return None


def _installed_version() -> str | None:
    try:
        text = (INCLUDE / "ns3" / "version-defines.h").read_text()
    except OSError:
        return None
    nums = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "#define" and parts[1] in ("NS3_VERSION_MAJOR", "NS3_VERSION_MINOR"):
            nums[parts[1]] = parts[2]
    if len(nums) < 2:
        return None
    return f"ns-{nums['NS3_VERSION_MAJOR']}.{nums['NS3_VERSION_MINOR']}"


def _library(lib: str) -> bool:
    return any(Path(d).glob(f"libns3-{lib}.so*") for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib", "/usr/local/lib"))


def _cache_root() -> Path:
    root = Path(__file__).resolve().parents[3] / "target" / "ns3-driver"
    try:
        root.mkdir(parents=True, exist_ok=True)
        if os.access(root, os.W_OK):
            return root
    except OSError:
        pass
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ccarena" / "ns3-driver"
    cache.mkdir(parents=True, exist_ok=True)
    return cache


def driver() -> Path:
    """The compiled driver, built on first use into target/ns3-driver/<hash of the sources>/."""
    reason = available()
    if reason:
        raise PeerError(reason)
    sources = sorted(p for p in SOURCES.iterdir() if p.suffix in (".cc", ".h"))
    digest = hashlib.sha256()
    for path in sources:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    digest.update(" ".join(COMPILE + LIBS).encode())
    exe = _cache_root() / digest.hexdigest()[:16] / "ccarena-ns3"
    if exe.exists():
        return exe
    exe.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".ccarena-ns3.", dir=exe.parent)
    os.close(fd)
    cmd = [*COMPILE, tmp, *(str(p) for p in sources if p.suffix == ".cc"), *(f"-lns3-{lib}" for lib in LIBS)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            first = next((ln for ln in proc.stderr.splitlines() if "error" in ln), proc.stderr.strip()[:300])
            raise PeerError(f"the ns-3 driver does not compile: {first}")
        os.replace(tmp, exe)  # atomic: a concurrent build of the same sources gives the same file
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return exe


def _refuse_tcp(w: str, flow: dict[str, Any], group: dict[str, Any]) -> None:
    tcp = flow["tcp"]
    base = flow["cc_base"]
    if base not in CONGESTION_OPS:
        raise PeerError(f"{w}.cc: {flow['cc']!r} is not in ns-3 ({VERSION} has: {', '.join(sorted(CONGESTION_OPS))})")
    if flow["cc_preset"]:
        raise PeerError(f"{w}.cc: the preset {flow['cc']!r} is not in ns-3; {VERSION} has one {base} (ns3::{CONGESTION_OPS[base][5:]}): use cc = \"{base}\"")
    defaults = plan_mod.default_cc_params(group["cc"], group.get("stack", "linux"))
    for key, value in sorted((group.get("cc_params") or {}).items()):
        if key in defaults and defaults[key] != value:
            raise PeerError(f"{w}.cc_params.{key}: {value!r} is not {base}'s default {defaults[key]!r}; ns-3's "
                            f"{CONGESTION_OPS[base][5:]} is not set from cc_params: remove it to compare like with like")
    recovery = flow["recovery"]
    if recovery not in ("newreno", "sack"):
        raise PeerError(f"{w}.recovery: {recovery!r} is not in ns-3 (it has NewReno-style and SACK recovery only: "
                        "recovery = \"newreno\" runs Sack = false, \"sack\" Sack = true)")
    checks = (
        ("rack_tlp", group.get("rack_tlp"), f"{VERSION} has no RACK-TLP; set rack_tlp = false to compare like with like"),
        ("quickack", group.get("quickack") and tcp["delayed_ack"],
         "ns-3 has no quick-ACK mode (DelAckCount holds from the first segment); set quickack = false"),
        ("handshake = false", not tcp["handshake"], "ns-3 always opens with a three-way handshake; set handshake = true"),
        (f"rto = {group.get('rto')!r}", group.get("rto", "rfc6298") != "rfc6298",
         "ns-3 computes the timeout as max(SRTT + max(1 ms, 4 RTTVAR), MinRto) (RFC 6298); set rto = \"rfc6298\""),
        ("head_retransmit_rearms_rto = true", group.get("head_retransmit_rearms_rto"),
         "ns-3 restarts the timer only on new ACKs and the first partial ACK; set head_retransmit_rearms_rto = false"),
        ("window_from_una = true", group.get("window_from_una"),
         "ns-3 sends while the pipe (RFC 6675) is below cwnd in every state; set window_from_una = false"),
        # Measured (tests/test_peer_ns3.py): TcpHybla recomputes rho only when an ACK's RTT equals the
        # socket's minimum RTT, which without timestamps does not happen, so it would run as Reno.
        ("timestamps = false", base == "hybla" and not tcp["timestamps"],
         f"{VERSION}'s TcpHybla never computes rho without timestamps and grows as Reno; set timestamps = true"),
        ("source_quench", group.get("source_quench"), "ns-3's TCP does not react to ICMP Source Quench"),
        ("stop", flow["stop_s"] is not None, "ns-3's TCP cannot go quiet mid-connection (it sends what its buffer "
         "holds); remove stop from TCP flows"),
    )
    for key, refused, why in checks:
        if refused:
            raise PeerError(f"{w}.{key}: {why}")
    if flow["app"]["kind"] not in ("bulk", "file"):
        raise PeerError(f"{w}.app.kind: {flow['app']['kind']!r} over TCP is not mapped to ns-3 (bulk and file are)")
    if tcp["initial_cwnd"] != int(tcp["initial_cwnd"]) or tcp["initial_cwnd"] < 1:
        raise PeerError(f"{w}.initial_cwnd: {tcp['initial_cwnd']} is not a whole number of segments (ns-3's InitialCwnd)")
    if tcp["mss"] + tcp["header_bytes"] > 65000:
        raise PeerError(f"{w}.mss: {tcp['mss']} B is larger than the driver's 65000-B MTU")


def refuse(plan: dict[str, Any], valid: dict[str, Any]) -> None:
    """Raise :class:`PeerError` (one line naming the scenario key) for the first part of ``plan``
    that ns-3.37 cannot run as the scenario says."""
    if len(plan["nodes"]) > 4094:
        raise PeerError(f"topology: {len(plan['nodes'])} nodes; the ns-3 driver addresses at most 4094")
    ifaces: dict[str, int] = {}
    for link in plan["links"]:
        for end in (link["src"], link["dst"]):
            ifaces[end] = ifaces.get(end, 0) + 1
    busiest = max(ifaces.items(), key=lambda kv: kv[1], default=("", 0))
    if busiest[1] > 4094:
        raise PeerError(f"topology: node {busiest[0]} has {busiest[1]} link directions; the ns-3 driver addresses at most 4094")
    if len(plan["flows"]) > 48000:
        raise PeerError(f"flows: {len(plan['flows'])} flows; the ns-3 driver gives each its own port, at most 48000")
    for link in plan["links"]:
        q = link["queue"]
        if q["kind"] == "red":
            if q["variant"] != "ns2":
                raise PeerError(f"link {link['name']}: ns-3's RedQueueDisc is ns-2's RED (it acts early only when more than "
                                "one packet waits, restarts its count when the average crosses min_th); set the queue's "
                                "variant = \"ns2\" to compare like with like")
            if link["loss"]:
                raise PeerError(f"link {link['name']}: loss on a RED link is not mapped to ns-3 (it would act after "
                                "RedQueueDisc, the simulator's acts before the queue)")
            if q["unit"] != "pkt":
                raise PeerError(f"link {link['name']}: RED with a byte limit is not mapped to ns-3 (RedQueueDisc then "
                                "counts its thresholds in bytes); give the limit in packets")
            if q["limit"] < 2:
                raise PeerError(f"link {link['name']}: a RED limit below 2 packets is not mapped to ns-3")
        if q["kind"] == "pie":
            if link["loss"]:
                raise PeerError(f"link {link['name']}: loss on a PIE link is not mapped to ns-3 (it would act after "
                                "PieQueueDisc, the simulator's acts before the queue)")
            if q["unit"] != "pkt" or q["limit"] < 2:
                raise PeerError(f"link {link['name']}: PIE is mapped to ns-3 with a limit of at least 2 packets (the "
                                "device queue holds one of them); give the limit in packets")
    groups = valid["flows"]
    for flow in plan["flows"]:
        w = flow["where"]
        group = groups[int(w[len("flows["):-1])]
        if flow["protocol"] == "dccp":
            raise PeerError(f"{w}.protocol: 'dccp' is not in ns-3 ({VERSION} has no DCCP); use tcp or udp")
        if flow["protocol"] == "tcp":
            _refuse_tcp(w, flow, group)
        elif flow["protocol"] == "udp":
            if flow["app"]["kind"] not in ("cbr", "onoff"):
                raise PeerError(f"{w}.app.kind: {flow['app']['kind']!r} over UDP is not mapped to ns-3 (cbr and onoff are)")
        else:
            raise PeerError(f"{w}.protocol: {flow['protocol']!r} is not mapped to ns-3")


def _ns3_options(flow: dict[str, Any], group: dict[str, Any]) -> dict[str, Any]:
    """What the driver sets on a TCP flow's sockets beyond the plan's ``tcp`` dict."""
    tcp = flow["tcp"]
    ops = CONGESTION_OPS[flow["cc_base"]]
    if flow["cc_base"] == "reno" and flow["cc_params"].get("basis") == "flight_size":
        # TcpNewReno::GetSsThresh is max(2 SMSS, BytesInFlight / 2): RFC 5681 eq. (4), the `rfc`
        # stack's basis. TcpLinuxReno::GetSsThresh is max(2 SMSS, cWnd / 2) (Linux
        # tcp_reno_ssthresh): the `cwnd` basis of the linux and ns2 stacks.
        ops = "ns3::TcpNewReno"
    windows = [b for b in (tcp["rwnd_bytes"], tcp["rcv_buf_bytes"] and tcp["rcv_buf_bytes"] // 2) if b]
    return {
        "congestion_ops": ops,
        "congestion_attributes": CONGESTION_ATTRIBUTES.get(flow["cc_base"], {}),
        "recovery": "ns3::TcpPrrRecovery" if group.get("prr") else "ns3::TcpClassicRecovery",
        # ns-3 advertises its free receive buffer; Linux (the simulator's rcv_buf) half of it
        # (tcp_adv_win_scale = 1), rwnd is the window itself.
        "rcv_buf_bytes": min(windows) if windows else RCV_BUF_UNLIMITED,
        "snd_buf_bytes": SND_BUF,
        "syn_rto_s": SYN_RTO_S.get(str(flow["stack"]), 1.0),
        "pacing": flow["cc_base"] == "bbr",
    }


def _program(plan: dict[str, Any], valid: dict[str, Any]) -> dict[str, Any]:
    prog = json.loads(json.dumps(plan))
    for flow in prog["flows"]:
        group = valid["flows"][int(flow["where"][len("flows["):-1])]
        flow["ns3"] = _ns3_options(flow, group) if flow["protocol"] == "tcp" else None
    return prog


def _prepare(scenario: Any, overrides: Iterable[str], seed: int | None) -> tuple[dict[str, Any], Any, dict[str, Any]]:
    plan, sim_plan, valid = plan_mod.build(scenario, overrides=overrides, seed=seed, peer="ns-3")
    refuse(plan, valid)
    return _program(plan, valid), sim_plan, valid


def program(scenario: Any, *, overrides: Iterable[str] = (), seed: int | None = None) -> str:
    """The JSON the driver is given for ``scenario`` (the peer plan plus each TCP flow's ``ns3``
    options)."""
    prog, _, _ = _prepare(scenario, overrides, seed)
    return json.dumps(prog, indent=1, sort_keys=True)


def _timeout_s(prog: dict[str, Any], seconds: float | None = None) -> float:
    """Generous: ns-3 forwards some 10^6 packets per second here; a 500-B average packet on every
    link direction at full rate, at 10^5 per second, is the bound (for ``seconds`` of simulated
    time, by default the whole run)."""
    seconds = prog["duration_s"] if seconds is None else seconds
    pkts = sum(link["rate_bps"] for link in prog["links"]) * seconds / 8 / 500
    return max(120.0, pkts / 1e5)


def _run_watched(cmd: list[str], prog: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    """Run the driver, which prints the simulated time at every sample: a run whose simulated time
    stops advancing, after its first sample, for longer than one sample interval can take
    (measured: ns-3.37 retransmitting one segment forever inside one SendPendingData call) is
    stopped with the instant it reached."""
    limit, stall = _timeout_s(prog), _timeout_s(prog, prog["sample_interval_s"])
    lines: queue.SimpleQueue[str] = queue.SimpleQueue()
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        out, err = proc.stdout, proc.stderr
        errors: list[str] = []

        def forward() -> None:
            for line in out:
                lines.put(line)

        readers = [threading.Thread(target=forward, daemon=True),
                   threading.Thread(target=lambda: errors.extend(err), daemon=True)]
        for reader in readers:
            reader.start()
        t0 = time.monotonic()
        last, reached = None, 0.0  # the stall clock starts at the first heartbeat: building a large network may take long
        try:
            while proc.poll() is None:
                try:
                    reached = float(lines.get(timeout=0.2))
                    last = time.monotonic()
                except queue.Empty:
                    pass
                now = time.monotonic()
                why = (f" within {limit:.0f} s" if now - t0 > limit else
                       f": its simulated time stopped at {reached:g} s of {prog['duration_s']:g} s for {stall:.0f} s "
                       "(a loop inside one ns-3 event)" if last is not None and now - last > stall else None)
                if why:
                    raise PeerError(f"ns-3 did not finish {prog['name']}{why}")
        finally:
            if proc.poll() is None:  # stopped above, or by Ctrl-C: never leave the driver running
                proc.kill()
        for reader in readers:
            reader.join()
        return subprocess.CompletedProcess(cmd, proc.returncode, "", "".join(errors))


def run(scenario: Any, *, overrides: Iterable[str] = (), seed: int | None = None, progress: bool = False) -> Any:
    """Run ``scenario`` on ns-3.37: a :class:`~ccarena.api.RunResult` with backend "ns3"."""
    from ccarena.peers import results

    prog, sim_plan, _ = _prepare(scenario, overrides, seed)
    exe = driver()
    with tempfile.TemporaryDirectory(prefix="ccarena-ns3-") as tmp:
        plan_path, raw_path = Path(tmp) / "plan.json", Path(tmp) / "raw.json"
        plan_path.write_text(json.dumps(prog))
        if progress:
            print(f"ns-3: running {prog['name']} ({prog['duration_s']:g} s simulated)", file=sys.stderr)
        t0 = time.monotonic()
        proc = _run_watched([str(exe), str(plan_path), str(raw_path)], prog)
        elapsed = time.monotonic() - t0
        if proc.returncode != 0:
            lines = proc.stderr.strip().splitlines()
            raise PeerError(f"ns-3 failed on {prog['name']} (exit {proc.returncode}): {lines[-1] if lines else 'no message'}")
        raw = json.loads(raw_path.read_text())
    if progress:
        print(f"ns-3: done in {elapsed:.1f} s", file=sys.stderr)
    raw["wall_s"] = float(raw.get("wall_s", elapsed))
    facts = {"version": VERSION, "driver": exe.parent.name, "process_wall_s": elapsed,
             "congestion_ops": sorted({f["ns3"]["congestion_ops"] for f in prog["flows"] if f["ns3"]}),
             "differences": _differences(prog)}
    return results.build(sim_plan, raw, backend=NAME, facts=facts)


__all__ = ["NAME", "VERSION", "available", "driver", "program", "refuse", "run"]
