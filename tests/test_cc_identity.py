"""A congestion control's name as the core parses it: the flows table's ``cc_algorithm`` and the
code that reads it (Reno's share, the peer plan, the fidelity suite's labels)."""

from __future__ import annotations

import math
from typing import Any

import ccarena
from ccarena.experiment.worker import run_metrics
from ccarena.fidelity.suite import _label
from ccarena.peers.plan import _flow, split_preset


def scenario(*flows: dict[str, Any]) -> dict[str, Any]:
    return {
        "duration": "2s",
        "topology": {"kind": "dumbbell", "bottleneck_rate": "10Mbps", "bottleneck_delay": "5ms"},
        "flows": list(flows),
    }


class Aimd(ccarena.CongestionControl):
    def on_ack(self, st: ccarena.CcState, acked: int, rtt: float | None, now: float) -> None:
        st.cwnd += acked / max(st.cwnd, 1.0)

    def on_congestion(self, st: ccarena.CcState, kind: str, flight_size: int, now: float) -> None:
        st.ssthresh = max(st.cwnd / 2, 2.0)


def test_cc_algorithm_is_the_registry_name_without_preset_or_alias() -> None:
    cbr = {"kind": "cbr", "rate": "1Mbps", "packet_size": "1000B"}
    res = ccarena.run(
        scenario({"cc": "reno"}, {"cc": "newreno"}, {"cc": "cubic"}, {"cc": "cubic@linux-2.6.22"}, {"cc": "aimd"},
                 {"protocol": "dccp", "cc": "fast_tfrc"}, {"protocol": "udp", "app": cbr}),
        series=False, algorithms={"aimd": Aimd},
    )
    flows = res.flows
    assert flows["cc"].tolist() == ["reno", "newreno", "cubic", "cubic@linux-2.6.22", "py:aimd", "fast_tfrc", ""]
    assert flows["cc_algorithm"].tolist() == ["reno", "reno", "cubic", "cubic", "py:aimd", "fast_tfrc", ""]
    assert list(flows.columns[3:5]) == ["cc", "cc_algorithm"]
    assert "cc_algorithm" not in res.summary()["flows"][0], "the JSON summary keeps its keys"


def test_newreno_flows_count_as_reno_in_renos_share() -> None:
    against_cubic = run_metrics(ccarena.run(scenario({"cc": "newreno"}, {"cc": "cubic"}), series=False))
    assert 0.0 < against_cubic["reno_share"] < 1.0
    only_reno = run_metrics(ccarena.run(scenario({"cc": "reno"}, {"cc": "newreno"}), series=False))
    assert math.isnan(only_reno["reno_share"]), "Reno against Reno shares with no other algorithm"


def test_the_peer_plan_names_the_algorithm_and_the_preset() -> None:
    res = ccarena.run(scenario({"cc": "newreno"}, {"cc": "cubic@linux-2.6.22"}), series=False)
    rows = res.flows.to_dict("records")
    group = {"app": {"kind": "bulk"}, "mss": "1460B", "initial_cwnd": 10, "min_rto": "200ms"}
    plan = [_flow(row, group, f"flows[{i}]", 2.0) for i, row in enumerate(rows)]
    assert [(f["cc"], f["cc_base"], f["cc_preset"]) for f in plan] == [
        ("newreno", "reno", None), ("cubic@linux-2.6.22", "cubic", "linux-2.6.22")]


def test_one_split_of_a_name_before_any_run() -> None:
    assert split_preset("cubic@linux-2.6.22") == ("cubic", "linux-2.6.22")
    assert split_preset("newreno") == ("newreno", None)
    assert [_label(cc) for cc in ("scalable@linux-2.6.22", "reno")] == ["scalable", "reno"]
