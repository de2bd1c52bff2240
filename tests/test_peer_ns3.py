"""The ns-3 peer backend (ccarena.peers.ns3): refusals, and the same scenario on ns-3.37 and in
the simulator. Skipped where the installed ns-3.37 (libns3-dev) or the compiler is missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ccarena import api, metrics
from ccarena.errors import PeerError
from ccarena.peers import ns3

REASON = ns3.available()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"ns-3 peer: {REASON}")

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
RENO_PAIR = SCENARIOS / "reno-pair.toml"
# ns-2's TCP profile, with what ns-3 cannot run otherwise: it always opens with a handshake, and
# it sends while the pipe is below cwnd outside fast recovery too.
NS2 = ('stack="ns2"', "flows[0].handshake=true", "flows[0].window_from_una=false")
SHORT = ('duration="20s"', 'warmup="5s"')


@pytest.mark.parametrize(
    "scenario, overrides, key",
    [
        (RENO_PAIR, (), "flows[0].rack_tlp: ns-3.37 has no RACK-TLP"),
        (RENO_PAIR, ('stack="ns2"',), "flows[0].handshake = false: ns-3 always opens with a three-way handshake"),
        (RENO_PAIR, (*NS2, 'flows[0].cc="fast"'), "flows[0].cc: 'fast' is not in ns-3 (ns-3.37 has: bbr, bic"),
        (RENO_PAIR, (*NS2, "flows[0].cc_params.beta=0.7"), "flows[0].cc_params.beta: 0.7 is not reno's default 0.5"),
        (RENO_PAIR, (*NS2, 'flows[0].recovery="reno"'), "flows[0].recovery: 'reno' is not in ns-3"),
        (RENO_PAIR, (*NS2, "flows[0].delayed_ack=true", "flows[0].quickack=true"), "flows[0].quickack: ns-3 has no quick-ACK"),
        (RENO_PAIR, ('stack="ns2"', "flows[0].handshake=true"), "flows[0].window_from_una = true"),
        (RENO_PAIR, (*NS2, 'flows[0].stop="10s"'), "flows[0].stop: ns-3's TCP cannot go quiet"),
        (RENO_PAIR, (*NS2, 'topology.queue={kind="red",limit="100pkt",variant="ns2"}', 'topology.loss={kind="bernoulli",p=0.01}'),
         "link bottleneck: loss on a RED link"),
        (RENO_PAIR, (*NS2, 'topology.queue={kind="red",limit="100pkt"}'), "link bottleneck: ns-3's RedQueueDisc is ns-2's RED"),
        (SCENARIOS / "ccid2-vs-cubic.toml", (), "flows[0].protocol: 'dccp' is not in ns-3"),
    ],
)
def test_refusals_name_the_key_in_one_line(scenario, overrides, key):
    with pytest.raises(PeerError) as err:
        ns3.program(scenario, overrides=overrides)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(key), message


def test_program_maps_reno_by_its_reduction_basis():
    prog = json.loads(ns3.program(RENO_PAIR, overrides=(*NS2, *SHORT)))
    assert [f["ns3"]["congestion_ops"] for f in prog["flows"]] == ["ns3::TcpLinuxReno"] * 2  # halves cwnd
    assert prog["flows"][0]["ns3"]["recovery"] == "ns3::TcpClassicRecovery"
    assert prog["flows"][0]["tcp"]["sack"] is True
    rfc = json.loads(ns3.program(RENO_PAIR, overrides=('stack="rfc"', "flows[0].handshake=true", 'flows[0].rto="rfc6298"',
                                                   "flows[0].head_retransmit_rearms_rto=false", *SHORT)))
    assert rfc["flows"][0]["ns3"]["congestion_ops"] == "ns3::TcpNewReno"  # halves FlightSize (RFC 5681)


def test_driver_is_cached_by_source_hash():
    exe = ns3.driver()
    assert exe.name == "ccarena-ns3" and len(exe.parent.name) == 16
    assert ns3.driver() == exe


@pytest.fixture(scope="module")
def reno_pair():
    overrides = (*NS2, *SHORT)
    peer = ns3.run(RENO_PAIR, overrides=overrides)
    sim = api.run(api.prepare(RENO_PAIR, overrides=overrides))
    return peer, sim


def test_reno_pair_matches_the_simulator(reno_pair):
    peer, sim = reno_pair
    assert peer.meta["backend"] == "ns3" and peer.meta["peer"]["version"] == "ns-3.37"
    gp_peer, gp_sim = peer.flows.goodput_bps, sim.flows.goodput_bps
    assert abs(gp_peer.sum() - gp_sim.sum()) <= 0.03 * gp_sim.sum(), (list(gp_peer), list(gp_sim))
    assert abs(metrics.jain_index(gp_peer) - metrics.jain_index(gp_sim)) <= 0.02, (list(gp_peer), list(gp_sim))


def test_reno_pair_tables_conserve(reno_pair):
    peer, _ = reno_pair
    flows, links = peer.flows, peer.links.set_index("link")
    wire = 1460 + 40
    # every data packet of these bulk flows is full-sized; the bottleneck also carries the
    # handshakes (a SYN and an ACK per flow), and a window of data is between it and the sinks
    delivered_wire = float((flows.delivered_pkts * wire).sum())
    assert abs(links.loc["bottleneck", "tx_bytes"] - delivered_wire) <= 0.005 * delivered_wire
    assert (flows.sent_bytes == flows.sent_pkts * wire).all()
    assert (flows.goodput_bytes <= flows.sent_pkts * 1460).all()
    in_flight = flows.sent_pkts - flows.delivered_pkts - flows.dropped_pkts
    assert ((in_flight >= 0) & (in_flight <= 200)).all(), list(in_flight)
    # the links' drops are the flows' data packets, and handshake packets (a lost SYN)
    assert 0 <= links.dropped_pkts.sum() - flows.dropped_pkts.sum() <= 2 * len(flows)
    assert (flows.retransmitted_pkts > 0).all() and (flows.fast_recoveries > 0).all()
    assert 0 < links.loc["bottleneck", "mean_queue_pkts"] <= 34
    assert links.loc["bottleneck", "max_queue_pkts"] <= 34  # limit counts the packets waiting


def test_red_with_ecn_runs():
    overrides = (*NS2, 'duration="10s"', 'warmup="3s"', "flows[0].ecn=true",
                 'topology.queue={kind="red",limit="100pkt",min_th=5,max_th=15,max_p=0.1,wq=0.002,ecn=true,variant="ns2"}')
    peer = ns3.run(RENO_PAIR, overrides=overrides)
    bottleneck = peer.links.set_index("link").loc["bottleneck"]
    assert bottleneck.meas_tx_bytes * 8 / 7 > 0.85 * 10e6
    assert 1 < bottleneck.mean_queue_pkts < 15  # RED keeps the average between its thresholds
    assert bottleneck.max_queue_pkts < 100
    assert (peer.flows.goodput_bps > 1e6).all()


def test_westwood_is_westwood_plus():
    """TcpWestwood is Westwood (a bandwidth sample per ACK) in ns-3.37 unless told otherwise; the
    driver is told Westwood+ (a sample per RTT, Linux tcp_westwood.c), and the run lists what
    ns-3's Westwood+ still does differently. (Hybla's 25 ms: the next test, by its growth.)"""
    prog = json.loads(ns3.program(RENO_PAIR, overrides=(*NS2, 'flows[0].cc="westwood"')))
    assert {f["ns3"]["congestion_attributes"]["ns3::TcpWestwood::ProtocolType"] for f in prog["flows"]} == {"WestwoodPlus"}
    assert any(d.startswith("westwood: TcpWestwood sets ssthresh") for d in ns3._differences(prog))


def test_hybla_s_slow_start_grows_as_its_reference_rtt_says(tmp_path: Path):
    """Hybla's slow start adds 2^rho - 1 segments per ACK, rho = RTT / RTT0: at 100 ms and
    RTT0 = 25 ms the window grows 16-fold per RTT (4-fold with ns-3's own 50 ms). One flow on a
    1 Gbit/s path with a 20000-packet buffer, 0.45 s: three RTTs of slow start after the
    handshake from the ns2 stack's 2 segments, 2 x 16^3 = 8192 (2 x 4^3 = 128 with 50 ms).
    Without timestamps ns-3.37's TcpHybla never recomputes rho (measured: it doubled per RTT,
    a peak of 2 x 2^3 = 16, as Reno), so such a run is refused."""
    scenario = tmp_path / "hybla.toml"
    text = ('name = "hybla"\nduration = "0.45s"\nstack = "ns2"\nsample_interval = "50ms"\n'
            '[topology]\nkind = "dumbbell"\nbottleneck_rate = "1Gbps"\nbottleneck_delay = "40ms"\n'
            'queue = { kind = "droptail", limit = "20000pkt" }\n'
            '[[flows]]\ncc = "hybla"\nrtt = "100ms"\nhandshake = true\nwindow_from_una = false\n')
    scenario.write_text(text + 'timestamps = true\nmss = "1448B"\n')
    assert float(ns3.run(scenario).flow_series.cwnd_pkts.max()) == 8192
    scenario.write_text(text)
    with pytest.raises(PeerError, match=r"^flows\[0\]\.timestamps = false: ns-3.37's TcpHybla never computes rho "
                        r"without timestamps and grows as Reno; set timestamps = true$"):
        ns3.run(scenario)


def test_a_run_whose_simulated_time_stops_is_stopped_with_the_instant_it_reached(monkeypatch):
    """ns-3.37 itself loops at one seed of YeAH under random loss: past 137.5 s of simulated time
    one SendPendingData call retransmits the same segment forever (seen in gdb). The backend sees
    the driver's heartbeat stop and ends the run, naming the instant, instead of waiting for the
    whole run's limit (2010 s here). The limits are shortened for the test."""
    from ccarena.fidelity import rows

    row = next(r for r in rows("yeah") if r.case.name == "random-loss")
    monkeypatch.setattr(ns3, "_timeout_s", lambda prog, seconds=None: 600.0 if seconds is None else 8.0)
    with pytest.raises(PeerError, match=r"^ns-3 did not finish yeah random-loss: its simulated time stopped at "
                                        r"137\.5 s of 200 s for 8 s \(a loop inside one ns-3 event\)$"):
        ns3.run(row.scenario("ns3"), seed=2)


DCTCP = """
name = "dctcp"
duration = "5s"
warmup = "1s"
stack = "ns2"
[topology]
kind = "dumbbell"
bottleneck_rate = "100Mbps"
bottleneck_delay = "1ms"
queue = { kind = "droptail", limit = "100pkt", ecn_threshold = "10pkt" }
[[flows]]
count = 2
cc = "dctcp"
rtt = "4ms"
handshake = true
window_from_una = false
"""


def test_dctcp_on_a_step_marking_queue_matches_ns3_s_tcpdctcp(tmp_path: Path):
    path = tmp_path / "dctcp.toml"
    path.write_text(DCTCP)
    prog = json.loads(ns3.program(path))
    assert prog["flows"][0]["ns3"]["congestion_ops"] == "ns3::TcpDctcp"
    assert prog["links"][0]["queue"]["ecn_threshold"] == {"limit": 10, "unit": "pkt"}
    sim, peer = api.run(path), ns3.run(path)
    s, p = (r.links.set_index("link").loc["bottleneck"] for r in (sim, peer))
    # Measured: both full with no drop, the queue at 8.68 and 8.47 packets, 0.263 and 0.267 of
    # the packets marked.
    for link in (s, p):
        assert link["utilisation"] > 0.99 and link["dropped_pkts"] == 0
    assert abs(p["mean_queue_pkts"] - s["mean_queue_pkts"]) < 0.1 * s["mean_queue_pkts"]
    assert abs(p["marked_pkts"] / p["tx_pkts"] - s["marked_pkts"] / s["tx_pkts"]) < 0.2 * s["marked_pkts"] / s["tx_pkts"]


LEDBAT = """
name = "ledbat"
duration = "30s"
warmup = "0s"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
queue = { kind = "droptail", limit = "300pkt" }
[[flows]]
cc = "ledbat"
rtt = "40ms"
"""


def test_tcpledbat_never_grows_its_window_in_congestion_avoidance(tmp_path: Path):
    # ns-3.37's TcpLedbat caps cwnd at the flight size before the ACK, without RFC 6817's
    # ALLOWED_INCREASE ("MUST be greater than 0"): below the target it may not grow, so its
    # window only ratchets down. Measured: 59 segments from 5 s to 30 s, 71 ms of RTT on a 40-ms
    # path (31 ms queued of the 100-ms target), where ccarena's window grows toward the target.
    path = tmp_path / "ledbat.toml"
    path.write_text(LEDBAT)
    r = ns3.run(path, overrides=NS2)
    after = r.flow_series[r.flow_series.t_s > 5.0]
    assert after.cwnd_pkts.diff().max() <= 0.0
    assert after.srtt_s.mean() < 0.040 + 0.100 / 2


def test_pie_holds_the_queue_ns3_s_pie_queue_disc_holds() -> None:
    overrides = ['duration="30s"', *NS2]
    path = SCENARIOS / "pie-four-reno.toml"
    prog = json.loads(ns3.program(path, overrides=overrides))
    q = prog["links"][0]["queue"]
    assert (q["kind"], q["target_s"], q["tupdate_s"], q["alpha"], q["beta"], q["max_burst_s"]) == ("pie", 0.015, 0.015, 0.125, 1.25, 0.15)
    sim, peer = api.run(path, overrides=overrides), ns3.run(path, overrides=overrides)
    s, p = (r.links.set_index("link").loc["bottleneck"] for r in (sim, peer))
    # Measured: 14.1 and 15.0 packets (ns-3's sojourn times leave out the device queue's packet,
    # so it holds about one more), both links full.
    assert abs(p["utilisation"] - s["utilisation"]) < 0.01
    assert abs(p["mean_queue_pkts"] - s["mean_queue_pkts"]) < 0.15 * s["mean_queue_pkts"]
    assert any(d.startswith("PIE: PieQueueDisc sees the queue disc") for d in peer.meta["peer"]["differences"])
