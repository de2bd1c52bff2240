"""LEDBAT (RFC 6817) does what a scavenger must: alone, its queueing delay settles at the 100-ms
target with the link full; beside Reno it takes at most a tenth of the link (Reno in its place
takes half). A window rule that did not read the one-way delay against its minimum would do
neither."""

from __future__ import annotations

import pytest

import ccarena

SCENARIO = """
name = "ledbat"
duration = "60s"
warmup = "20s"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
queue = { kind = "droptail", limit = "300pkt" }
[[flows]]
name = "background"
cc = "ledbat"
rtt = "40ms"
[[flows]]
name = "foreground"
cc = "reno"
rtt = "40ms"
start = "10s"
"""
PACKET_S = 1500 * 8 / 10e6  # one 1500-byte packet's serialisation at 10 Mbit/s


def _run(tmp_path, *overrides: str) -> ccarena.RunResult:
    path = tmp_path / "ledbat.toml"
    path.write_text(SCENARIO)
    return ccarena.run(path, overrides=list(overrides))


def test_alone_the_queueing_delay_settles_at_the_target_with_the_link_full(tmp_path) -> None:
    r = _run(tmp_path, "flows[1].start=60s")
    link = r.links.set_index("link").loc["bottleneck"]
    # Measured: 86.7 packets, 104 ms (the delays are whole milliseconds of two clocks); 0.99996.
    assert link.mean_queue_pkts * PACKET_S == pytest.approx(0.100, abs=0.010)
    assert link.utilisation > 0.99


@pytest.mark.parametrize(("cc", "share"), [("ledbat", (0.0, 0.10)), ("reno", (0.40, 0.60))])
def test_beside_reno_it_yields_where_reno_would_take_half(tmp_path, cc: str, share: tuple[float, float]) -> None:
    r = _run(tmp_path, f"flows[0].cc={cc}")
    goodput = r.flows.set_index("group").goodput_bps
    # Measured: LEDBAT 0.062 of the two flows' goodput, Reno in its place 0.49.
    assert share[0] <= goodput["background"] / goodput.sum() <= share[1]


def test_a_ledbat_flow_has_timestamps_and_refuses_them_off(tmp_path) -> None:
    path = tmp_path / "ledbat.toml"
    path.write_text(SCENARIO)
    assert ccarena.validate(path, overrides=['stack="ns2"'])["flows"][0]["timestamps"] is True
    with pytest.raises(ccarena.ScenarioError, match=r'^flows\[0\]\.timestamps: false is not possible with cc = "ledbat"'):
        ccarena.validate(path, overrides=["flows[0].timestamps=false"])
