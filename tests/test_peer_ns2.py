"""The ns-2 backend against ns-2.35 itself (Debian package ``ns2``): every example scenario is run
or refused in one line, and like-for-like runs agree with the simulator within the fidelity
tolerances of docs/peers.md. Skipped where ns-2 is not installed (`make peers` installs it)."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

import ccarena
from ccarena.errors import PeerError
from ccarena.peers import ns2

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(ns2.available() is not None, reason=ns2.available() or "")
SHORT = ['duration="3s"', 'warmup="0s"']
#: A refusal names the scenario key it is about, then says why.
REFUSAL = re.compile(r"^(flows\[\d+\](\.[a-z_.]+)?|topology(\.[a-z_]+)*|background|jitter|link \S+): \S")
EXAMPLES = sorted(p for p in (REPO / "scenarios").glob("**/*.toml") if "experiments" not in p.parts)


def _pair(path: str | Path, overrides: list[str]) -> tuple[ccarena.RunResult, ccarena.RunResult]:
    return ccarena.run(path, overrides=overrides), ns2.run(path, overrides=overrides)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: str(p.relative_to(REPO / "scenarios")))
def test_every_example_runs_on_ns2_or_is_refused_in_one_line(path: Path) -> None:
    for overrides in ([], ['stack="ns2"', "jitter=false"]):
        try:
            text = ns2.script(path, overrides=[*SHORT, *overrides])
        except PeerError as exc:
            message = str(exc)
            assert "\n" not in message and REFUSAL.match(message), message
            continue
        result = ns2.run(path, overrides=[*SHORT, *overrides])
        assert text.startswith("# ccarena: generated for ns-2.35")
        assert result.meta["backend"] == "ns2"
        assert float(result.links.set_index("link")["tx_bytes"].sum()) > 0


def test_reno_pair_under_the_ns2_stack_matches_ns2() -> None:
    sim, peer = _pair(REPO / "scenarios" / "reno-pair.toml", ['stack="ns2"', 'duration="30s"', 'warmup="5s"'])
    total = float(sim.main_flows["goodput_bps"].sum())
    assert abs(float(peer.main_flows["goodput_bps"].sum()) - total) / total < 0.03
    assert abs(peer.jain() - sim.jain()) < 0.02
    links = peer.links.set_index("link")
    assert abs(links.loc["bottleneck", "utilisation"] - sim.links.set_index("link").loc["bottleneck", "utilisation"]) < 0.03
    # Conservation on ns-2's own counters: what the bottleneck carried is what the flows sent, less drops upstream (none).
    flows = peer.main_flows
    assert float(flows["goodput_bytes"].sum()) <= float(flows["sent_bytes"].sum())
    assert (flows["timeouts"] >= 0).all() and (flows["fast_recoveries"] > 0).all()
    series = peer.flow_series
    assert series["cwnd_pkts"].notna().all() and len(series) == 2 * 300


def test_tcp_linux_cubic_fills_the_link_as_in_the_simulator() -> None:
    """One CUBIC flow of Linux 2.6.22 (ns-2's TCP-Linux `select_ca cubic`) on the E1 line."""
    sim, peer = _pair(REPO / "scenarios" / "e1-cubic-vs-reno.toml",
                      ['stack="ns2"', 'flows[0].cc="cubic@linux-2.6.22"', 'flows[1].start="100s"', 'duration="40s"', 'warmup="10s"'])
    cubic = lambda r: float(r.main_flows.set_index("group").loc["cubic", "goodput_bps"])  # noqa: E731
    assert abs(cubic(peer) - cubic(sim)) / cubic(sim) < 0.03
    assert peer.flow_series.groupby("flow_id")["cwnd_pkts"].max().iloc[0] > 10


def test_udp_cbr_beside_reno_matches_ns2() -> None:
    sim, peer = _pair(REPO / "scenarios" / "cbr-vs-reno.toml", ['stack="ns2"', "jitter=false", 'duration="20s"'])
    for group in ("cbr", "reno"):
        s, p = (float(r.main_flows.set_index("group").loc[group, "goodput_bps"]) for r in (sim, peer))
        assert abs(p - s) / s < 0.03, group
    cbr = peer.main_flows.set_index("group").loc["cbr"]
    # 625 datagrams a second (5 Mbit/s of 1000 B), one more at the instant the run ends
    assert abs(cbr["sent_pkts"] - 20 * 625) <= 1 and math.isnan(cbr["timeouts"])


def test_ns2_s_red_matches_the_simulator_s_ns2_variant() -> None:
    """RED's parameters reach ns-2 (thresholds 5..15, max_p 0.1, gentle, avpkt, wait_), and
    ns-2's RED agrees with the simulator's `variant = "ns2"`."""
    queue = 'topology.queue={kind="red",limit="100pkt",variant="ns2",mean_pktsize="500B"}'
    overrides = ['stack="ns2"', queue, 'duration="40s"']
    text = ns2.script(REPO / "scenarios" / "reno-pair.toml", overrides=overrides)
    for line in ("$q set thresh_ 5.0", "$q set maxthresh_ 15.0", "$q set linterm_ 10.0", "$q set gentle_ true",
                 "$q set q_weight_ 0.002", "$q set mean_pktsize_ 500", "$q set wait_ true"):
        assert line in text
    sim, peer = _pair(REPO / "scenarios" / "reno-pair.toml", overrides)
    s, p = (r.links.set_index("link").loc["bottleneck"] for r in (sim, peer))
    assert 3 < p["mean_queue_pkts"] < 15
    assert abs(p["utilisation"] - s["utilisation"]) / s["utilisation"] < 0.03
    assert abs(p["meas_dropped_pkts"] - s["meas_dropped_pkts"]) <= max(10, 0.25 * s["meas_dropped_pkts"])


def test_the_paper_s_red_is_refused_with_the_variant_to_set() -> None:
    with pytest.raises(PeerError) as info:
        ns2.script(REPO / "scenarios" / "reno-pair.toml", overrides=['stack="ns2"', 'topology.queue={kind="red",limit="100pkt"}'])
    assert str(info.value).startswith("link bottleneck: ns-2's RED acts early only when more than one packet waits")
    assert 'set the queue\'s variant = "ns2"' in str(info.value)


def test_random_loss_goes_through_an_error_model() -> None:
    sim, peer = _pair(REPO / "scenarios" / "random-loss.toml", ['stack="ns2"', 'duration="30s"'])
    # 1 % Bernoulli loss: the drops are the error model's, at the rate asked for.
    flow = peer.main_flows.iloc[0]
    assert abs(flow["dropped_pkts"] / flow["sent_pkts"] - 0.01) < 0.003
    s, p = float(sim.main_flows["goodput_bps"].sum()), float(peer.main_flows["goodput_bps"].sum())
    assert abs(p - s) / s < 0.10


def test_a_file_transfer_reports_its_completion_time() -> None:
    overrides = ['stack="ns2"', 'flows[0].count=1', 'flows[0].app={kind="file",size="1MB"}', 'flows[0].start="0s"', 'duration="10s"', 'warmup="0s"']
    sim, peer = _pair(REPO / "scenarios" / "reno-pair.toml", overrides)
    s, p = (float(r.main_flows["completion_s"].iloc[0]) for r in (sim, peer))
    # 1 MB at 10 Mbit/s takes 0.8 s of sending. Both lose ~70 segments at the end of slow start;
    # ns-2's SACK agent then resends them more slowly (its pipe counter falls by one per
    # duplicate ACK), so it finishes later (docs/fidelity.md).
    assert 0.8 < s < p < 2.0


def test_compare_cli_puts_ns2_beside_the_simulator() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "ccarena", "compare", str(REPO / "scenarios" / "reno-pair.toml"), "--with", "sim,ns2",
         "-n", "2", "--set", "stack=ns2", "--set", "duration=10s", "--set", "warmup=2s", "--json"],
        capture_output=True, text=True, timeout=300,
    )
    assert out.returncode == 0, out.stderr
    import json

    doc = json.loads(out.stdout)
    assert set(doc["backends"]) == {"sim", "ns2"} and doc["reference"] == "sim"
    assert all(len(b["runs"]) == 2 and all(w > 0 for w in b["wall_s"]) for b in doc["backends"].values())
    jain = next(m for m in doc["metrics"] if m["metric"] == "Jain's index")
    assert all(0.5 < v <= 1 for v in jain["values"]["ns2"])


def test_compare_lists_a_backend_that_refuses_the_scenario() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "ccarena", "compare", str(REPO / "scenarios" / "reno-pair.toml"), "--with", "sim,ns2",
         "-n", "1", "--set", "duration=2s", "--set", "warmup=0s", "-o", "/tmp/ccarena-test-compare"],
        capture_output=True, text=True, timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert "ns2: not run: flows[0].rack_tlp: ns-2's agents have no RACK-TLP" in out.stdout
    assert "like for like: ns-2 runs ns-2's TCP profile: --set stack=ns2 (docs/peers.md)" in out.stdout


def test_an_idle_restart_ns2_does_differently_is_refused() -> None:
    with pytest.raises(PeerError) as info:
        ns2.script(REPO / "scenarios" / "seed000-lan-ring.toml", overrides=['flows[0].cc="ccid2@ns2"'])
    assert str(info.value).startswith("flows[1].slow_start_after_idle: ns-2 restarts an idle window at one segment")
    text = ns2.script(REPO / "scenarios" / "seed000-lan-ring.toml", overrides=['flows[0].cc="ccid2@ns2"', "flows[1].slow_start_after_idle=false"])
    assert "set slow_start_restart_ false" in text


def test_a_single_backend_that_refuses_is_an_error_line() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "ccarena", "compare", str(REPO / "scenarios" / "bbr-vs-cubic.toml"), "--with", "ns2", "-n", "1"],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 2
    assert out.stderr.strip().splitlines()[-1:] == ["error: flows[0].cc: 'bbr' is not in ns-2.35 (its stock agents and TCP-Linux's "
                                               "Linux 2.6.22 modules: reno, cubic@linux-2.6.22, scalable@linux-2.6.22, bic, "
                                               "highspeed, htcp, hybla, illinois@linux-2.6.22, vegas, veno, westwood, yeah, lp)"]


def test_unknown_backend_is_refused() -> None:
    out = subprocess.run([sys.executable, "-m", "ccarena", "compare", str(REPO / "scenarios" / "reno-pair.toml"), "--with", "sim,ns4"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert out.stderr.strip() == "error: --with: unknown backend 'ns4' (allowed: sim, ns2, ns3, kernel)"


DCCP_BULK = {
    "name": "dccp-bulk", "duration": "30s", "warmup": "5s",
    "topology": {"kind": "dumbbell", "bottleneck_rate": "10Mbps", "bottleneck_delay": "10ms", "queue": {"kind": "droptail", "limit": "34pkt"}},
    "flows": [{"name": "dccp", "protocol": "dccp", "count": 2, "rtt": "40ms", "start": {"uniform": ["0s", "1s"]}, "app": {"kind": "bulk"}}],
}


@pytest.mark.parametrize(("cc", "params"), [("ccid2", {"cwnd_validation": False}), ("ccid3", {"profile": "rfc3448"})])
def test_dccp_bulk_pair_matches_ns2(cc: str, params: dict[str, object]) -> None:
    scenario = {**DCCP_BULK, "flows": [{**DCCP_BULK["flows"][0], "cc": cc, "cc_params": params}]}
    sim, peer = ccarena.run(scenario), ns2.run(scenario)
    total = float(sim.main_flows["goodput_bps"].sum())
    assert abs(float(peer.main_flows["goodput_bps"].sum()) - total) / total < 0.03
    assert abs(peer.jain() - sim.jain()) < 0.05
    column = "cwnd_pkts" if cc == "ccid2" else "rate_bps"
    assert peer.flow_series[column].notna().any()


def test_dccp_voip_against_ccid2_gets_the_simulator_s_rates() -> None:
    overrides = ['flows[1].cc_params={cwnd_validation=false}', 'flows[0].cc_params={profile="rfc3448"}', 'duration="100s"']
    sim, peer = _pair(REPO / "scenarios" / "ccid3-vs-ccid2.toml", overrides)
    # CCID 2 agrees within 1 %. ns-2's CCID 3 (with the packets' own s) delivers 8-12 % less
    # than ccarena's rfc3448 profile here (seeds 1-3: 29.0-29.4 against 31.5-32.9 kbit/s); the
    # cause is not yet known (docs/fidelity.md's DCCP rows run bulk transfers and agree).
    for group, tolerance in (("ccid2", 0.03), ("ccid3", 0.15)):
        s, p = (float(r.main_flows.groupby("group")["goodput_bps"].mean()[group]) for r in (sim, peer))
        assert abs(p - s) / s < tolerance, group


@pytest.mark.parametrize(("overrides", "expected"), [
    (["flows[0].cc_params={profile=\"rfc5348\"}"], "flows[0].cc_params.profile: ns-2's CCID 3 follows RFC 3448 (2003)"),
    (["flows[0].cc_params={profile=\"rfc3448\"}", "flows[1].cc_params={cwnd_validation=true}"],
     "flows[1].cc_params.cwnd_validation: ns-2's CCID 2 does not validate"),
    (["flows[0].cc=\"fast_tfrc\""], "flows[0].cc: 'fast_tfrc' is not in ns-2.35's DCCP"),
])
def test_dccp_refusals_name_the_parameter(overrides: list[str], expected: str) -> None:
    with pytest.raises(PeerError) as info:
        ns2.script(REPO / "scenarios" / "ccid3-vs-ccid2.toml", overrides=overrides)
    assert str(info.value).startswith(expected)


def test_byte_counters_that_wrap_at_2_gib_are_unwrapped() -> None:
    rows = [[1.0, 2.0**31 - 10], [2.0, -(2.0**31) + 5], [3.0, 100.0]]
    ns2._unwrap(rows, (1,))
    assert [r[1] for r in rows] == [2.0**31 - 10, 2.0**31 + 5, 2.0**32 + 100.0]


def test_a_gigabit_link_keeps_its_utilisation_past_2_gib() -> None:
    # 1 Gbit/s for 20 s carries 2.5 GB: past the 32-bit range of ns-2's byte counters.
    peer = ns2.run(REPO / "scenarios" / "bench" / "b1.toml", overrides=['stack="ns2"', 'duration="20s"'])
    bottleneck = peer.links.set_index("link").loc["bottleneck"]
    assert bottleneck["tx_bytes"] > 2**31 and 0.85 < bottleneck["utilisation"] <= 1.0


def test_an_experiment_runs_on_ns2_beside_the_simulator_in_one_store(tmp_path: Path) -> None:
    from ccarena import Experiment, open_store

    exp = Experiment(REPO / "scenarios" / "reno-pair.toml", {"flows[0].cc": ["reno", "cubic@linux-2.6.22"]}, name="cc",
                     overrides=['stack="ns2"', 'duration="10s"', 'warmup="2s"'])
    sim = exp.run(tmp_path / "store", progress=False, jobs=1)
    peer = exp.run(tmp_path / "store", progress=False, jobs=1, backend="ns2")
    for res in (sim, peer):
        assert len(res.metrics) == 2 and res.failures.empty
    # Both stay in the store, each under its own name, and are read back as they were.
    again = open_store(tmp_path / "store", "cc@ns2")
    assert sorted(again.metrics["run_id"]) == sorted(peer.metrics["run_id"])
    assert set(again.metrics["run_id"]).isdisjoint(set(sim.metrics["run_id"]))
    goodput = lambda r: float(r.runs["goodput_bps"].sum())  # noqa: E731
    assert abs(goodput(peer) - goodput(sim)) / goodput(sim) < 0.05


def test_an_experiment_on_ns2_records_its_refusals_as_failures(tmp_path: Path) -> None:
    from ccarena import Experiment

    exp = Experiment(REPO / "scenarios" / "reno-pair.toml", {"flows[0].cc": ["bbr"]}, name="bbr",
                     overrides=['duration="3s"', 'warmup="0s"'])
    res = exp.run(tmp_path / "store", progress=False, jobs=1, backend="ns2")
    failures = res.failures
    assert len(failures) == 1 and "PeerError: flows[0].cc: 'bbr' is not in ns-2.35" in failures["error"].iloc[0]


def test_ccid3_at_ns2_sends_voip_at_ns2_s_rate() -> None:
    """ns-2's CCID 3 computes and spaces with s = 500 B whatever its 160-byte VoIP packets carry
    (`s_s_`), which holds it near one packet per RTT: `ccid3@ns2` does the same. At 100 ms the
    paper's (seed 000) and ns-2's CCID 3 fall far below CCID 2; within 10 % of ns-2's rate."""
    overrides = ['flows[1].cc="ccid2@ns2"', 'flows[0].cc="ccid3@ns2"', 'duration="200s"']
    sim, peer = _pair(REPO / "scenarios" / "ccid3-vs-ccid2.toml", overrides)
    rates = [r.main_flows.groupby("group")["goodput_bps"].mean() for r in (sim, peer)]
    assert abs(rates[0]["ccid3"] - rates[1]["ccid3"]) / rates[1]["ccid3"] < 0.10
    # ccid2@ns2 (initial window 3, 1 s minimum RTO, 0.2 s ack delay): 29.5 against ns-2's 30.7 kbit/s.
    assert abs(rates[0]["ccid2"] - rates[1]["ccid2"]) / rates[1]["ccid2"] < 0.05
    assert rates[1]["ccid3"] < 0.6 * rates[1]["ccid2"] and rates[0]["ccid3"] < 0.6 * rates[0]["ccid2"]
    assert "$src(0) set s_s_ 500" in ns2.script(REPO / "scenarios" / "ccid3-vs-ccid2.toml", overrides=overrides)


def test_ns2_takes_the_simulator_s_routes_round_a_ring() -> None:
    """Both ways round seed 000's ring are two hops; the simulator sends the data clockwise and
    the ACKs on round (R3 → R4 → R1). ns-2's own routing would send the ACKs back the way the
    data came; the script installs the simulator's routes instead."""
    overrides = ['duration="20s"', 'warmup="5s"', 'flows[0].cc="ccid2@ns2"', "flows[0].count=1", "flows[1].count=1",
                 'flows[0].app={kind="bulk"}', 'flows[1].app={kind="bulk"}']
    sim, peer = _pair(REPO / "scenarios" / "seed000-lan-ring.toml", overrides)
    s, p = (r.links.set_index("link")["tx_pkts"] for r in (sim, peer))
    for ring in ("R1->R2", "R2->R3", "R3->R4", "R4->R1"):
        assert s[ring] > 1000 and abs(p[ring] - s[ring]) <= 0.02 * s[ring], ring
    assert p["R2->R1"] == s["R2->R1"] == 0


def test_voip_over_tcp_sends_each_message_as_one_segment() -> None:
    """ns-2's TCP agent rounds a message up to whole packetSize_ segments: with the MSS as its
    size, 160-byte VoIP messages went out as 1460-byte segments (nine times the load)."""
    overrides = ['duration="120s"', 'warmup="20s"', 'flows[0].cc="ccid2@ns2"', "flows[1].slow_start_after_idle=false"]
    sim, peer = _pair(REPO / "scenarios" / "seed000-lan-ring.toml", overrides)
    s, p = (r.main_flows.groupby("group")["goodput_bps"].mean()["cubic"] for r in (sim, peer))
    assert abs(p - s) / s < 0.10 and p < 40e3  # each flow offers about 31 kbit/s


def test_dctcp_and_step_marking_are_refused_naming_what_ns2_lacks() -> None:
    marking = 'topology.queue={kind="droptail",limit="100pkt",ecn_threshold="20pkt"}'
    with pytest.raises(PeerError, match=r"^link bottleneck: ecn_threshold \(step marking\) is not mapped to ns-2"):
        ns2.script(REPO / "scenarios" / "reno-pair.toml", overrides=['stack="ns2"', marking])
    with pytest.raises(PeerError, match=r"^flows\[0\]\.cc: 'dctcp' is not in ns-2\.35"):
        ns2.script(REPO / "scenarios" / "reno-pair.toml", overrides=['stack="ns2"', 'flows[0].cc="dctcp"'])


def test_tcp_lp_runs_though_its_module_prints_its_state_per_ack() -> None:
    # tcp_lp.c's pr_debug lines (and a blank line) come on ns-2's stdout between the records.
    overrides = ['stack="ns2"', 'flows[0].cc="lp"', 'duration="10s"', 'warmup="2s"']
    peer = ns2.run(REPO / "scenarios" / "reno-pair.toml", overrides=overrides)
    assert peer.main_flows["goodput_bps"].sum() > 0
    assert any(d.startswith("lp: tcp_lp.c estimates") for d in peer.meta["peer"]["differences"])
