"""Links that follow a schedule or a delivery trace (docs/topologies.md, "Variable links"):
what a flow sees is what the schedule or the trace offers, when it offers it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ccarena
from ccarena import examples
from ccarena.errors import PeerError, ScenarioError
from ccarena.peers import plan as peer_plan

REPO = Path(__file__).resolve().parent.parent
TRACES = REPO / "scenarios" / "traces"
#: The constant trace's rate: 5 opportunities of 1504 bytes every 6 ms.
CONSTANT_BPS = 5 * 1504 * 8 / 0.006


def _dumbbell(link: str, cc: str = "cubic", duration: str = "20s") -> str:
    return f"""
name = "varying"
duration = "{duration}"
warmup = "2s"
sample_interval = "500ms"
[topology]
kind = "dumbbell"
{link}
bottleneck_delay = "20ms"
queue = {{ kind = "droptail", limit = "100pkt" }}
[[flows]]
cc = "{cc}"
"""


def _bottleneck(r: ccarena.RunResult) -> dict[str, float]:
    return r.links.set_index("link").loc["bottleneck"].to_dict()


@pytest.mark.parametrize("cc", ["cubic", "bbr"])
def test_a_constant_trace_gives_what_a_link_of_its_rate_gives(cc: str) -> None:
    trace = ccarena.run(_dumbbell(f'bottleneck_trace = "{TRACES / "constant-10mbps.trace"}"', cc))
    fixed = ccarena.run(_dumbbell(f'bottleneck_rate = "{round(CONSTANT_BPS)}bps"', cc))
    assert _bottleneck(trace)["rate_bps"] == pytest.approx(CONSTANT_BPS, abs=1)
    goodput = [float(r.flows["goodput_bps"].iloc[0]) for r in (trace, fixed)]
    assert goodput[0] == pytest.approx(goodput[1], rel=0.01)


def test_a_rate_drop_is_seen_at_its_instant_and_an_outage_sends_nothing() -> None:
    r = ccarena.run(REPO / "scenarios" / "rate-drop.toml")
    s = r.link_series[r.link_series["link"] == "bottleneck"]
    mbps = dict(zip(np.round(s["t_s"], 3), s["tx_bytes"] * 8 / 0.5 / 1e6))
    # The interval ending at 10 s still runs at 20 Mbit/s, the next one at 5 Mbit/s.
    assert mbps[10.0] == pytest.approx(20, rel=0.01)
    assert mbps[10.5] == pytest.approx(5, rel=0.01)
    assert mbps[15.5] == 0
    # What the window offered: 20 Mbit/s for 10 s, 5 for 5, none for 0.5, 20 for 4.5.
    b = _bottleneck(r)
    assert b["meas_rate_bps"] == pytest.approx((20 * 10 + 5 * 5 + 20 * 4.5) / 20 * 1e6)
    assert b["utilisation"] <= 1
    # The loss from 15.5 s on is random loss of the link, not of its queue.
    assert b["dropped_pkts"] > 0


def test_a_cellular_trace_s_goodput_is_its_capacity_times_the_utilisation() -> None:
    r = ccarena.run(REPO / "scenarios" / "cellular-trace.toml")
    b = _bottleneck(r)
    lines = np.loadtxt(TRACES / "cellular.trace")
    assert b["rate_bps"] == pytest.approx(len(lines) * 1504 * 8 / 30, rel=1e-6)
    # The window's capacity, counted from the trace's lines in (2 s, 30 s].
    in_window = np.count_nonzero((lines > 2000) & (lines <= 30000))
    assert b["meas_rate_bps"] == pytest.approx(in_window * 1504 * 8 / 28, rel=1e-9)
    goodput = float(r.flows["goodput_bps"].iloc[0])
    # A 100-packet buffer keeps CUBIC's queue from running dry but through the outages.
    assert 0.9 < b["utilisation"] <= 1
    assert goodput == pytest.approx(b["utilisation"] * b["meas_rate_bps"], rel=0.06)


def test_a_schedule_with_random_loss_is_deterministic_and_seeded() -> None:
    path = REPO / "scenarios" / "rate-drop.toml"
    a, b = ccarena.run(path), ccarena.run(path)
    other = ccarena.run(path, seed=2)
    assert a.flows.equals(b.flows) and a.links.equals(b.links)
    # The losses are drawn from the seed's stream: another seed loses other packets.
    assert float(a.flows["goodput_bps"].iloc[0]) != float(other.flows["goodput_bps"].iloc[0])


def test_a_trace_file_is_found_beside_the_scenario(tmp_path: Path) -> None:
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "slow.trace").write_text("5\n10\n")
    scenario = tmp_path / "s.toml"
    scenario.write_text(_dumbbell('bottleneck_trace = "t/slow.trace"', duration="5s"))
    r = ccarena.run(scenario)
    assert _bottleneck(r)["rate_bps"] == pytest.approx(2 * 1504 * 8 / 0.01, abs=1)
    # The normalised scenario holds the lines, so it runs without the file.
    assert r.meta["scenario"]["topology"]["bottleneck_trace"] == [5, 10]


def test_a_copied_example_brings_its_trace(tmp_path: Path) -> None:
    written = examples.copy("cellular-trace", tmp_path)
    assert written == [tmp_path / "cellular-trace.toml", tmp_path / "traces" / "cellular.trace"]
    r = ccarena.run(tmp_path / "cellular-trace.toml", overrides=['duration="3s"', 'warmup="1s"'])
    assert _bottleneck(r)["rate_bps"] == pytest.approx(8.7e6, rel=0.01)


@pytest.mark.parametrize(
    ("link", "expected"),
    [
        ('bottleneck_trace = "no/such.trace"', "topology.bottleneck_trace: cannot read trace file"),
        ('bottleneck_trace = [3, 1]', "topology.bottleneck_trace: line 2: 1 ms comes before the line above (3 ms)"),
        ('bottleneck_rate = "1Mbps"\nschedule = [{ at = "1s", rate = "-2Mbps" }]', "topology.schedule[0].rate:"),
        ('bottleneck_rate = "1Mbps"\nschedule = [{ at = "1s", rate = "0bps" }]', "topology.schedule[0].rate: 0bps for good"),
    ],
)
def test_bad_schedules_and_traces_are_one_line(link: str, expected: str) -> None:
    with pytest.raises(ScenarioError) as info:
        ccarena.run(_dumbbell(link, duration="3s"))
    assert str(info.value).startswith(expected) and "\n" not in str(info.value), str(info.value)


@pytest.mark.parametrize("peer", ["ns-2", "ns-3"])
@pytest.mark.parametrize("scenario", ["rate-drop.toml", "cellular-trace.toml"])
def test_the_peers_refuse_varying_links_in_one_line(peer: str, scenario: str) -> None:
    with pytest.raises(PeerError) as info:
        peer_plan.build(REPO / "scenarios" / scenario, peer=peer)
    message = str(info.value)
    assert message.startswith(("topology.schedule: ", "topology.bottleneck_trace: ")), message
    assert f"{peer} runs fixed links" in message


def test_the_topology_says_which_links_vary() -> None:
    from ccarena import api, topology

    desc = api.topology(REPO / "scenarios" / "cellular-trace.toml")
    varies = {lk["name"]: lk["varies"] for lk in desc["links"]}
    assert varies["bottleneck"] == varies["bottleneck_rev"] == "trace"
    assert varies["src0->left"] is None
    assert "8.70 Mbit/s (trace mean)" in topology.text_summary(desc)
    assert "(schedule)" in topology.text_summary(api.topology(REPO / "scenarios" / "rate-drop.toml"))
