"""The Linux kernel backend (docs/testbed.md): rate and RTT accuracy, two real algorithms side by
side, cleanup on every way a run can end, and refusals of what the kernel cannot do.

Needs root, network namespaces and iproute2/ethtool/ping;
skipped with the reason otherwise.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ccarena import api
from ccarena.errors import TestbedError

REPO = Path(__file__).resolve().parent.parent


def _unavailable() -> str | None:
    if os.geteuid() != 0:
        return "the kernel testbed needs root"
    for tool in ("ip", "tc", "ethtool", "ping"):
        if shutil.which(tool) is None:
            return f"the kernel testbed needs {tool}"
    if subprocess.run(["ip", "netns", "add", "ccarena-tb-probe-test"], capture_output=True).returncode != 0:
        return "cannot create network namespaces here"
    subprocess.run(["ip", "netns", "del", "ccarena-tb-probe-test"], capture_output=True)
    return None


pytestmark = pytest.mark.skipif(bool(_unavailable()), reason=_unavailable() or "")

ONE_CUBIC = """
name = "one-cubic"
duration = "8s"
warmup = "3s"
sample_interval = "500ms"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
queue = { kind = "droptail", limit = "68pkt" }
[[flows]]
protocol = "tcp"
cc = "cubic"
rtt = "40ms"
"""

CUBIC_RENO = """
name = "cubic-reno"
duration = "6s"
warmup = "1s"
sample_interval = "250ms"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
queue = { kind = "droptail", limit = "50pkt" }
[[flows]]
name = "cubic"
cc = "cubic"
rtt = "40ms"
[[flows]]
name = "reno"
cc = "reno"
rtt = "40ms"
start = "0.5s"
"""


def _mine(pid: int | None = None) -> list[str]:
    """Testbed namespaces of runner ``pid`` (this process by default)."""
    from ccarena.testbed.netns import PREFIX, namespaces

    return [ns for ns in namespaces() if ns.startswith(f"{PREFIX}{pid or os.getpid()}-")]


#: A host stop longer than this (the delay line's worst lateness) can cost a flow throughput even
#: through ONE_CUBIC's two-BDP buffer (81 ms of sending; about 45 ms right after a loss).
HOST_STALL_S = 0.010
#: Many shorter stops cost it too. On a quiet host the line's 99th percentile of lateness is
#: 0.10-0.14 ms; runs 3-6 % short in noisy hours had 0.35-2.7 ms (worst 6.8-8.9 ms).
HOST_NOISE_P99_S = 0.00025


def _run_past_host_stalls(run: Callable[[], Any], falls_short: Callable[[Any], bool]) -> Any:
    """A testbed result, run again (up to three runs) while it ``falls_short`` after its delay line
    was over ``HOST_STALL_S`` late once or over ``HOST_NOISE_P99_S`` late for a hundredth of its
    frames: such a run measures the host, not the testbed. Skips, with the lateness, if every run
    did; a run that falls short on a punctual line is returned for the test to fail on."""
    stalls = []
    for _ in range(3):
        result = run()
        line = result.meta["testbed"]["delayline"]
        worst_late_s = max(d["lateness_max_s"] for d in line.values())
        worst_p99_s = max(d["lateness_p99_s"] for d in line.values())
        if not falls_short(result) or (worst_late_s <= HOST_STALL_S and worst_p99_s <= HOST_NOISE_P99_S):
            return result
        stalls.append(f"the line up to {worst_late_s * 1e3:.1f} ms late ({worst_p99_s * 1e3:.2f} ms at the 99th percentile)")
    pytest.skip("the host stopped the delay line in every run: " + "; ".join(stalls))


def test_one_cubic_flow_reaches_the_tcp_maximum_of_the_rate() -> None:
    """One CUBIC flow keeps a 10 Mbit/s bottleneck busy through a buffer of two BDPs (68 packets
    for 33): after a loss its window (0.7 × 101 packets) still exceeds the BDP, so even the extra
    losses a host stall's burst brings leave the link busy. Pausing the delay line for 20-40 ms
    three times a run cost a one-BDP buffer about 1 % of goodput and this one nothing.

    A virtual machine's host can stop it for much longer (one CI run in many, through the one-BDP
    buffer: 7 % short, four recoveries for the usual three), or stop it often for a few ms. Such a
    run measures the host, not the testbed, and the delay line shows it: a run that falls short
    after its line was over ``HOST_STALL_S`` late once, or over ``HOST_NOISE_P99_S`` late for a
    hundredth of its frames, is run again (``_run_past_host_stalls``)."""
    from ccarena import testbed

    # The linux stack has timestamps: 1448 B of payload per 1500 B on the wire, the TCP maximum.
    tcp_max = 10e6 * 1448 / 1500
    result = _run_past_host_stalls(
        lambda: testbed.run(ONE_CUBIC),
        lambda r: abs(r.flows.iloc[0]["goodput_bps"] - tcp_max) / tcp_max >= 0.02,
    )
    flow = result.flows.iloc[0]
    line = result.meta["testbed"]["delayline"]
    error = abs(flow["goodput_bps"] - tcp_max) / tcp_max
    # On failure, say what the flow and the delay line went through; a string, which pytest prints
    # whole (it cuts a dict's repr short).
    story = json.dumps({
        "goodput_bps": float(flow["goodput_bps"]),
        **{k: int(flow[k]) for k in ("timeouts", "fast_recoveries", "retransmitted_pkts")},
        "delayline": line,
        "tcp_counters": result.meta["testbed"]["tcp_counters"],
    })
    assert error < 0.02, story
    assert abs(flow["goodput_bytes"] / flow["delivered_pkts"] - 1448) < 1
    assert abs(flow["delivered_bytes"] / flow["delivered_pkts"] - 1500) < 1
    # The rate limit counts IP bytes (tc's Ethernet header taken off): busy link ≈ 100% utilised.
    assert 0.97 < float(result.links.set_index("link").loc["bottleneck", "utilisation"]) < 1.02
    assert line["forward"]["packets"] > 3000 and line["forward"]["socket_drops"] == 0
    # Every frame is timed by the kernel's receive stamp, not by when the line read it.
    assert line["forward"]["unstamped"] == 0 and line["reverse"]["unstamped"] == 0
    assert _mine() == []


def test_timestamps_follow_the_flow_s_key() -> None:
    """Without timestamps full segments carry 1460 B, 12 more than with them (the option's 12
    bytes), and the tables count 40 B of headers per segment, not 52."""
    from ccarena import testbed

    overrides = ["duration=3s", "warmup=1s", "flows[0].timestamps=false", 'flows[0].mss="1460B"']
    flow = testbed.run(ONE_CUBIC, overrides=overrides).flows.iloc[0]
    assert abs(flow["goodput_bytes"] / flow["delivered_pkts"] - 1460) < 1
    assert abs(flow["delivered_bytes"] / flow["delivered_pkts"] - 1500) < 1
    assert abs(flow["sent_bytes"] / flow["sent_pkts"] - 1500) < 1


def _ping_rtt_ms(ps_per_byte: tuple[int, int], ping_args: list[str]) -> tuple[float, float, str]:
    """Min and median RTT of ten pings across a 10 Mbit/s dumbbell whose delay line holds 20 ms
    each way and serialises at ``ps_per_byte``, and ping's output. The median, not the mean: on
    a virtual machine one ping in a few dozen comes back several milliseconds late (most likely
    the guest kept off its CPU by its host), which says nothing of the delay line's delay."""
    from ccarena.testbed.netns import Dumbbell, sh
    from ccarena.testbed.runner import delay_line, stop_delay_line

    net = Dumbbell(flows=1, rate_bps=10e6, queue_limit=34, queue_unit="pkt")
    try:
        net.build()
        with delay_line(net, 20_000, Path("/dev/null"), ps_per_byte) as line:
            sh(["ping", "-c", "1", "-W", "3", net.receiver_ip(0)], netns=net.sender(0))  # ARP first
            out = sh(["ping", "-c", "10", "-i", "0.1", *ping_args, net.receiver_ip(0)], netns=net.sender(0)).stdout
            stop_delay_line(line)
    finally:
        net.teardown()
    rtts = sorted(float(t) for t in re.findall(r"time=([\d.]+) ms", out))
    assert len(rtts) == 10, out
    return rtts[0], statistics.median(rtts), out


def test_idle_rtt_matches_the_configured_rtt() -> None:
    rtt_min, rtt_median, out = _ping_rtt_ms((0, 0), [])
    assert 40.0 <= rtt_min and rtt_median < 41.0, out


def test_the_delay_line_adds_the_bottleneck_transmission_time() -> None:
    """HTB releases a packet at the start of its slot and the veth delivers it at once; a 10 Mbit/s
    link delivers a 1500-byte packet's last bit 1.2 ms later, and so must the testbed."""
    from ccarena.testbed.runner import serialisation_ps_per_byte

    links = api.run(ONE_CUBIC, overrides=["duration=1s", "warmup=0s"]).links
    assert serialisation_ps_per_byte(links) == (800_000, 800_000)
    # 1472 bytes of ICMP payload: 1500-byte IP packets both ways, 1.2 ms each at 10 Mbit/s.
    rtt_min, rtt_median, out = _ping_rtt_ms((800_000, 800_000), ["-s", "1472"])
    assert 42.4 <= rtt_min and rtt_median < 43.4, out


# Ten 1500-byte datagrams as fast as a sender can write them, after the link has been idle.
BURST = """
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(10):
    s.sendto(bytes(1472), (sys.argv[1], 9))
"""


def test_a_burst_into_a_two_packet_queue_delivers_three_packets() -> None:
    """A link with a 2-packet DropTail buffer takes one packet onto the wire and queues two; the
    other seven of a back-to-back burst are dropped. HTB with tc's default bucket (more than one
    packet) let two out together, and the delay line's serialiser held the second: four got
    through, the buffer was one packet larger than the scenario's."""
    from ccarena.testbed.netns import Dumbbell, sh
    from ccarena.testbed.runner import delay_line, stop_delay_line

    net = Dumbbell(flows=1, rate_bps=10e6, queue_limit=2, queue_unit="pkt")

    def fifo() -> dict[str, int]:
        qdiscs = json.loads(sh(["tc", "-s", "-j", "qdisc", "show", "dev", "bn"], netns=net.ns("r1")).stdout)
        return next(q for q in qdiscs if not q.get("root"))

    try:
        net.build()
        with delay_line(net, 1_000, Path("/dev/null"), (800_000, 800_000)) as line:
            sh(["ping", "-c", "1", "-W", "3", net.receiver_ip(0)], netns=net.sender(0))  # ARP first
            time.sleep(0.1)
            before = fifo()
            sh([sys.executable, "-c", BURST, net.receiver_ip(0)], netns=net.sender(0))
            time.sleep(0.1)
            after = fifo()
            stop_delay_line(line)
    finally:
        net.teardown()
    # Drops, not packets sent, are counted: the FIFO may also carry an ARP packet.
    assert after["drops"] - before["drops"] == 7


def test_no_interface_of_the_testbed_has_an_ipv6_address() -> None:
    """Only IPv4 crosses the bottleneck: a new interface with IPv6 on sends neighbour-discovery and
    MLD packets in its first seconds, which can take a place in a small FIFO mid-run (the burst
    test above once counted 8 drops for 7)."""
    from ccarena.testbed.netns import Dumbbell, sh

    net = Dumbbell(flows=1, rate_bps=10e6, queue_limit=2, queue_unit="pkt")
    try:
        net.build()
        for ns in net.created:
            assert sh(["ip", "-6", "addr", "show"], netns=ns).stdout.strip() == "", ns
    finally:
        net.teardown()


def test_cubic_and_reno_both_get_throughput_in_the_simulator_s_tables() -> None:
    from ccarena import testbed

    # Two flows through a one-BDP buffer: a host stall's burst costs goodput (see
    # test_one_cubic_flow_reaches_the_tcp_maximum_of_the_rate), so such a run is run again.
    least = 0.9 * 10e6 * 1448 / 1500
    kernel = _run_past_host_stalls(lambda: testbed.run(CUBIC_RENO), lambda r: r.flows["goodput_bps"].sum() <= least)
    sim = api.run(CUBIC_RENO)
    for table in ("flows", "flow_series", "links", "link_series"):
        assert list(getattr(kernel, table).columns) == list(getattr(sim, table).columns), table
    flows = kernel.flows.set_index("group")
    assert list(flows["cc"]) == ["cubic", "reno"]
    for group in ("cubic", "reno"):
        assert flows.loc[group, "goodput_bps"] > 1e6, flows.loc[group]
    total = float(flows["goodput_bps"].sum())
    assert least < total < 10e6
    # TCP_INFO samples: cwnd and RTT of every flow at every interval after its start.
    series = kernel.flow_series[kernel.flow_series["t_s"] > 1.0]
    assert series["cwnd_pkts"].notna().all() and (series["srtt_s"] >= 0.04).all()
    summary = kernel.summary()
    assert [f["cc"] for f in summary["flows"]] == ["cubic", "reno"]
    # Each flow's own TcpExt counters: its sender's timeouts and recoveries, its receiver's delayed ACKs.
    assert (flows["timeouts"] >= 0).all() and (flows["fast_recoveries"] >= 0).all()
    counters = kernel.meta["testbed"]["tcp_counters"]
    assert len(counters) == 2 and all("DelayedACKs" in c["receiver"] and "TCPTimeouts" in c["sender"] for c in counters)
    if flows["retransmitted_pkts"].sum() > 0:
        repairs = flows["timeouts"].sum() + flows["fast_recoveries"].sum() + sum(c["sender"]["TCPLossProbes"] for c in counters)
        assert repairs > 0
    assert _mine() == []


def test_an_exception_inside_a_run_leaves_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    from ccarena import testbed
    from ccarena.testbed import runner

    def boom(*args: object, **kwargs: object) -> None:
        assert _mine(), "the network should be up when sampling starts"
        raise RuntimeError("boom")

    monkeypatch.setattr(runner, "_sample_queues", boom)
    with pytest.raises(RuntimeError, match="boom"):
        testbed.run(ONE_CUBIC)
    assert _mine() == []


def _start_runner(duration: str) -> subprocess.Popen[bytes]:
    code = f"import ccarena.testbed as t; t.run({ONE_CUBIC!r}, overrides=['duration={duration}', 'warmup=0s'])"
    return subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE)


def _wait_for_namespaces(pid: int, count: int) -> list[str]:
    deadline = time.time() + 20
    while time.time() < deadline:
        found = _mine(pid)
        if len(found) >= count:
            return found
        time.sleep(0.1)
    raise AssertionError(f"runner {pid} never built its network")


def test_sigterm_tears_the_run_down() -> None:
    proc = _start_runner("30s")
    _wait_for_namespaces(proc.pid, 5)
    time.sleep(1.5)  # traffic running
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode != 0 and b"KeyboardInterrupt" in err
    assert _mine(proc.pid) == []


def test_sigkill_leftovers_are_removed_by_testbed_cleanup() -> None:
    proc = _start_runner("30s")
    _wait_for_namespaces(proc.pid, 5)
    time.sleep(1.5)
    proc.kill()
    proc.communicate()
    assert len(_mine(proc.pid)) == 5  # r1, dl, r2, sender, receiver: killed runs leave them
    out = subprocess.run([sys.executable, "-m", "ccarena.cli", "testbed", "cleanup"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert _mine(proc.pid) == []
    assert "removed 5 namespaces" in out.stdout


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        ("flows[0].protocol=dccp", r"flows\[0\]\.protocol: 'dccp' .*Linux removed DCCP"),
        ("flows[0].cc=vegas", r"flows\[0\]\.cc: 'vegas' is not available in this kernel"),
        ("topology.queue={kind='red',limit='100pkt',min_th=5,max_th=15,max_p=0.1,wq=0.002}",
         r"topology\.queue\.kind: 'red' cannot run on the testbed"),
        # The linux stack's cubic is Linux's (cubic@linux-6); other values cannot be set per socket.
        ("flows[0].cc_params={beta=0.5}", r"flows\[0\]\.cc_params: Linux's cubic takes no parameters per socket"),
        # Another stack's TCP behaviours are not the kernel's: refused, not silently run as Linux.
        ('flows[0].stack="ns2"', r"flows\[0\]\.handshake: False \(stack = \"ns2\" sets it\) is not what this host's Linux TCP does"),
        ("flows[0].initial_cwnd=2", r"flows\[0\]\.initial_cwnd: 2\.0 is not what this host's Linux TCP does \(10\.0\)"),
        ("flows[0].timestamps=false", r"flows\[0\]\.mss: '1448B': the kernel's segments carry 1460B of payload without timestamps"),
    ],
)
def test_refusals_are_one_line(override: str, expected: str) -> None:
    from ccarena import testbed

    if override.endswith("vegas") and "vegas" in Path("/proc/sys/net/ipv4/tcp_available_congestion_control").read_text():
        pytest.skip("this kernel has vegas")
    doc = api.prepare(ONE_CUBIC, overrides=[override])
    if "dccp" in override:
        doc["flows"][0]["cc"] = "ccid2"
    with pytest.raises(TestbedError, match=expected) as info:
        testbed.run(doc)
    assert "\n" not in str(info.value)
    assert _mine() == []


def test_cli_refusal_is_one_error_line(tmp_path: Path) -> None:
    scenario = tmp_path / "x.toml"
    scenario.write_text(ONE_CUBIC)
    out = subprocess.run(
        [sys.executable, "-m", "ccarena.cli", "testbed", "run", str(scenario), "--set", "topology.kind=parking_lot"],
        capture_output=True, text=True,
    )
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("error: ")


def test_udp_cbr_keeps_its_rate_beside_reno() -> None:
    from ccarena import testbed

    def cbr_short(result: Any) -> bool:
        return bool(abs(result.flows.set_index("group").loc["cbr", "goodput_bps"] - 5e6) / 5e6 >= 0.05)

    # A host stall bursts the delay line into the 34-packet queue, which then drops CBR too.
    result = _run_past_host_stalls(
        lambda: testbed.run(REPO / "scenarios" / "cbr-vs-reno.toml", overrides=["duration=5s", "warmup=1s", "jitter=false"]),
        cbr_short,
    )
    flows = result.flows.set_index("group")
    # CBR at 5 Mbit/s of 1000 B datagrams: unresponsive, it keeps its rate; Reno gets what is left.
    assert abs(flows.loc["cbr", "goodput_bps"] - 5e6) / 5e6 < 0.05
    assert 0.9 < flows.loc["cbr", "delivery_ratio"] <= 1.0
    assert 2e6 < flows.loc["reno", "goodput_bps"] < 5e6
    assert _mine() == []


def test_compare_prints_both_backends_and_writes_the_plots(tmp_path: Path) -> None:
    scenario = tmp_path / "cubic-reno.toml"
    scenario.write_text(CUBIC_RENO)
    out = subprocess.run(
        [sys.executable, "-m", "ccarena.cli", "compare", str(scenario), "--with", "sim,kernel", "--replications", "1", "--set", "duration=4s",
         "-o", str(tmp_path / "cmp")],
        capture_output=True, text=True,
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split() == ["metric", "sim", "(n=1)", "kernel", "(n=1)", "kernel", "vs", "sim"]
    for metric in ("goodput flow 0 (cubic)", "share reno", "Jain's index", "bottleneck utilisation", "mean queue (pkt)",
                   "retransmission timeouts", "fast recoveries"):
        assert any(line.startswith(metric) for line in lines), metric
    utilisation = [float(v) for v in next(line for line in lines if line.startswith("bottleneck utilisation")).split()[2:4]]
    assert 0.9 < utilisation[0] < 1.02
    # The kernel's figure measures the host too when the host stopped the delay line; the table
    # says so under it, and then only its range is checked.
    stalled = any(line.startswith("kernel: run 1's delay line released a packet") for line in lines)
    assert (0 < utilisation[1] < 1.02) if stalled else (0.9 < utilisation[1] < 1.02), out.stdout
    assert (tmp_path / "cmp" / "compare-cwnd.png").stat().st_size > 0
    assert (tmp_path / "cmp" / "compare-goodput.png").stat().st_size > 0
