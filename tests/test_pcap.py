"""Packet captures (``--pcap``): files a real dissector reads, with the simulator's counts."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
from collections import Counter
from pathlib import Path

import dpkt
import pytest
from click.testing import CliRunner

import ccarena
from ccarena.cli import app
from ccarena.errors import ArgumentError

# Two TCP flows (the first loses its 41st segment once) and a UDP flow that stops at 2 s, all
# finished well before the end so every packet that crossed the bottleneck was delivered.
SCENARIO = """
name = "pcap"
duration = "6s"
sample_interval = "1s"
[topology]
kind = "dumbbell"
bottleneck_rate = "20Mbps"
bottleneck_delay = "5ms"
queue = { kind = "droptail", limit = "200pkt" }
loss = { kind = "drop_list", flow = 0, packets = [41] }
[[flows]]
count = 2
cc = "cubic"
rtt = "30ms"
app = { kind = "file", size = "600KB" }
[[flows]]
protocol = "udp"
app = { kind = "cbr", rate = "1Mbps", packet_size = "1000B" }
rtt = "30ms"
stop = "2s"
"""


def read(path: Path) -> list[tuple[float, dpkt.ip.IP]]:
    with path.open("rb") as f:
        return [(ts, dpkt.ip.IP(buf)) for ts, buf in dpkt.pcap.Reader(f)]


def checksum_ok(header: bytes) -> bool:
    s = sum(int.from_bytes(header[i : i + 2], "big") for i in range(0, len(header), 2))
    while s > 0xFFFF:
        s = (s & 0xFFFF) + (s >> 16)
    return s == 0xFFFF


@pytest.fixture(scope="module")
def capture(tmp_path_factory: pytest.TempPathFactory) -> tuple[ccarena.RunResult, Path]:
    out = tmp_path_factory.mktemp("pcap")
    result = ccarena.run(SCENARIO, pcap=out, pcap_snaplen=2000)
    return result, out


def test_one_file_per_bottleneck_direction_by_default(capture: tuple[ccarena.RunResult, Path]) -> None:
    _, out = capture
    assert sorted(p.name for p in out.iterdir()) == ["bottleneck.pcap", "bottleneck_rev.pcap"]


def test_data_packets_per_flow_match_the_simulators_counters(capture: tuple[ccarena.RunResult, Path]) -> None:
    result, out = capture
    packets = read(out / "bottleneck.pcap")
    tcp = Counter(ip.data.sport for _, ip in packets if isinstance(ip.data, dpkt.tcp.TCP) and len(ip.data.data) > 0)
    udp = Counter(ip.data.sport for _, ip in packets if isinstance(ip.data, dpkt.udp.UDP))
    flows = result.flows.set_index("flow_id")
    # Sender ports are 10000 + flow id; every packet that crossed the bottleneck was delivered.
    assert tcp == {10_000: flows.loc[0, "delivered_pkts"], 10_001: flows.loc[1, "delivered_pkts"]}
    assert udp == {10_002: flows.loc[2, "delivered_pkts"]}
    # The UDP flow stopped at 2 s.
    assert max(ts for ts, ip in packets if isinstance(ip.data, dpkt.udp.UDP)) < 2.1


def test_sequence_numbers_rise_and_the_one_retransmission_is_where_the_run_had_it(capture: tuple[ccarena.RunResult, Path]) -> None:
    result, out = capture
    seqs: dict[int, list[int]] = {}
    times = [ts for ts, _ in read(out / "bottleneck.pcap")]
    assert times == sorted(times), "timestamps are simulated time, in order"
    for _, ip in read(out / "bottleneck.pcap"):
        if isinstance(ip.data, dpkt.tcp.TCP) and ip.data.data:
            seqs.setdefault(ip.data.sport, []).append(ip.data.seq)
    repeats = {port: sum(1 for i, s in enumerate(v) if s <= max(v[:i], default=-1)) for port, v in seqs.items()}
    flows = result.flows.set_index("flow_id")
    assert flows.loc[0, "retransmitted_pkts"] == 1 and flows.loc[1, "retransmitted_pkts"] == 0
    assert repeats == {10_000: 1, 10_001: 0}
    # The retransmitted segment is the 41st: bytes 1 + 40·1448 onwards.
    resent = [s for i, s in enumerate(seqs[10_000]) if s <= max(seqs[10_000][:i], default=-1)]
    assert resent == [1 + 40 * 1448]


def test_headers_and_checksums_are_well_formed(capture: tuple[ccarena.RunResult, Path]) -> None:
    _, out = capture
    for name in ("bottleneck.pcap", "bottleneck_rev.pcap"):
        for _, ip in read(out / name):
            raw = bytes(ip)
            assert checksum_ok(raw[:20]), "IPv4 header checksum"
            assert ip.len == len(raw), "the snap length covers the whole packet here"
            src, dst = socket.inet_ntoa(ip.src), socket.inet_ntoa(ip.dst)
            assert src.startswith("10.") and dst.startswith("10.")
            pseudo = ip.src + ip.dst + bytes([0, ip.p]) + (ip.len - 20).to_bytes(2, "big")
            assert checksum_ok(pseudo + raw[20:] + (b"\0" if len(raw) % 2 else b"")), f"{name}: transport checksum"


def test_ip_identification_counts_each_files_own_packets(capture: tuple[ccarena.RunResult, Path]) -> None:
    _, out = capture
    for name in ("bottleneck.pcap", "bottleneck_rev.pcap"):
        ids = [ip.id for _, ip in read(out / name)]
        assert len(ids) > 100
        assert ids == [(i + 1) & 0xFFFF for i in range(len(ids))], f"{name}: IP ids in capture order"


def test_handshake_timestamps_and_sack_appear_on_the_wire(capture: tuple[ccarena.RunResult, Path]) -> None:
    _, out = capture
    fwd = [ip.data for _, ip in read(out / "bottleneck.pcap") if isinstance(ip.data, dpkt.tcp.TCP)]
    rev = [ip.data for _, ip in read(out / "bottleneck_rev.pcap") if isinstance(ip.data, dpkt.tcp.TCP)]
    assert fwd[0].flags & dpkt.tcp.TH_SYN and not fwd[0].flags & dpkt.tcp.TH_ACK
    assert any(t.flags & dpkt.tcp.TH_SYN and t.flags & dpkt.tcp.TH_ACK for t in rev)
    opts = [dict(dpkt.tcp.parse_opts(t.opts)) for t in rev if not t.flags & dpkt.tcp.TH_SYN]
    assert all(dpkt.tcp.TCP_OPT_TIMESTAMP in o for o in opts), "the Linux profile's timestamps"
    assert any(dpkt.tcp.TCP_OPT_SACK in o for o in opts), "the loss is reported by SACK"


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed (Debian package tshark)")
def test_wireshark_finds_nothing_malformed_and_no_bad_checksum(capture: tuple[ccarena.RunResult, Path]) -> None:
    _, out = capture
    for name in ("bottleneck.pcap", "bottleneck_rev.pcap"):
        flags = ["-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE"]
        bad = "_ws.malformed || ip.checksum.status == 0 || tcp.checksum.status == 0 || udp.checksum.status == 0"
        r = subprocess.run(["tshark", "-r", str(out / name), *flags, "-Y", bad], capture_output=True, text=True, check=True)
        assert r.stdout.strip() == "", r.stdout[:2000]
        # The capture is taken where the link delivers: the dropped original never shows, so
        # Wireshark sees a gap, then the retransmission filling it "out of order".
        for flag in ("tcp.analysis.lost_segment", "tcp.analysis.out_of_order || tcp.analysis.retransmission"):
            r = subprocess.run(["tshark", "-r", str(out / name), "-Y", flag], capture_output=True, text=True, check=True)
            assert len(r.stdout.splitlines()) == (1 if name == "bottleneck.pcap" else 0), f"{name}: {flag}"


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed (Debian package tshark)")
def test_dccp_and_source_quench_packets_dissect(tmp_path: Path) -> None:
    scenario = Path(__file__).resolve().parent.parent / "scenarios" / "seed004-six-routers.toml"
    result = ccarena.run(scenario, overrides=["duration=10s"], pcap=tmp_path / "sq")
    files = list((tmp_path / "sq").glob("*.pcap"))
    assert files, "the graph's links are captured when it has no bottleneck link"
    icmp = 0
    for f in files:
        r = subprocess.run(["tshark", "-r", str(f), "-Y", "icmp.type == 4"], capture_output=True, text=True, check=True)
        icmp += len(r.stdout.splitlines())
        bad = subprocess.run(["tshark", "-r", str(f), "-Y", "_ws.malformed"], capture_output=True, text=True, check=True)
        assert bad.stdout.strip() == "", f"{f.name}: {bad.stdout[:500]}"
    assert 0 < icmp and result.flows["sq_sent_pkts"].sum() > 0
    dccp = ccarena.run(Path(__file__).resolve().parent.parent / "scenarios" / "ccid2-vs-cubic.toml", overrides=["duration=3s", "warmup=0s"], pcap=tmp_path / "dccp")
    assert dccp.flows["protocol"].eq("dccp").any()
    f = tmp_path / "dccp" / "bottleneck.pcap"
    r = subprocess.run(["tshark", "-r", str(f), "-Y", "dccp && !_ws.malformed && !_ws.expert.severity >= error"], capture_output=True, text=True, check=True)
    assert len(r.stdout.splitlines()) > 100
    bad = subprocess.run(["tshark", "-r", str(f), "-Y", "_ws.malformed || _ws.expert.severity >= error"], capture_output=True, text=True, check=True)
    assert bad.stdout.strip() == "", bad.stdout[:1000]


def test_capturing_changes_no_result_and_is_off_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    plain = ccarena.run(SCENARIO)
    assert list(tmp_path.iterdir()) == []
    captured = ccarena.run(SCENARIO, pcap=tmp_path / "c")
    without_engine = [{k: v for k, v in json.loads(r.to_json()).items() if k != "engine"} for r in (plain, captured)]
    assert without_engine[0] == without_engine[1]


def test_bad_capture_options_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(ArgumentError, match=r'pcap_links: no link named "nope" in this scenario: expected one of .*bottleneck_rev'):
        ccarena.run(SCENARIO, pcap=tmp_path, pcap_links=["nope"])
    with pytest.raises(ArgumentError, match="need pcap"):
        ccarena.run(SCENARIO, pcap_links=["bottleneck"])
    with pytest.raises(ArgumentError, match="pcap_snaplen: 0 is not a snap length"):
        ccarena.run(SCENARIO, pcap=tmp_path, pcap_snaplen=0)
    scenario = tmp_path / "pcap.toml"
    scenario.write_text(SCENARIO)
    result = CliRunner().invoke(app, ["run", str(scenario), "--pcap", str(tmp_path / "x"), "--pcap-links", "bottleneck,nope"])
    assert result.exit_code == 2
    assert result.stderr.strip().count("\n") == 0 and "nope" in result.stderr
