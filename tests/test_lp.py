"""TCP-LP (Linux tcp_lp.c) backs off on the one-way delay before loss: alone it never fills the
buffer (Reno there drops), and beside Reno it takes at most a tenth of the link (Reno in its place
takes half). A Reno window rule without the early-congestion test would do neither."""

from __future__ import annotations

import pytest

import ccarena

SCENARIO = """
name = "lp"
duration = "60s"
warmup = "20s"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
queue = { kind = "droptail", limit = "300pkt" }
[[flows]]
name = "background"
cc = "lp"
rtt = "40ms"
delayed_ack = false
[[flows]]
name = "foreground"
cc = "reno"
rtt = "40ms"
start = "10s"
delayed_ack = false
"""


def _run(tmp_path, *overrides: str) -> ccarena.RunResult:
    path = tmp_path / "lp.toml"
    path.write_text(SCENARIO)
    return ccarena.run(path, overrides=list(overrides))


@pytest.mark.parametrize(("cc", "queued"), [("lp", (0.0, 2.0)), ("reno", (100.0, 300.0))])
def test_alone_it_backs_off_before_the_buffer_fills(tmp_path, cc: str, queued: tuple[float, float]) -> None:
    link = _run(tmp_path, "flows[1].start=60s", f"flows[0].cc={cc}").links.set_index("link").loc["bottleneck"]
    # Measured: TCP-LP 0.3 packets queued and no drop; Reno fills the 300-packet buffer.
    assert queued[0] <= link.mean_queue_pkts <= queued[1]
    assert (link.dropped_pkts == 0) == (cc == "lp")


@pytest.mark.parametrize(("cc", "share"), [("lp", (0.0, 0.10)), ("reno", (0.40, 0.60))])
def test_beside_reno_it_yields_where_reno_would_take_half(tmp_path, cc: str, share: tuple[float, float]) -> None:
    goodput = _run(tmp_path, f"flows[0].cc={cc}").flows.set_index("group").goodput_bps
    # Measured: TCP-LP 0.074 of the two flows' goodput, Reno in its place 0.47.
    assert share[0] <= goodput["background"] / goodput.sum() <= share[1]


def test_an_lp_flow_has_timestamps_and_refuses_them_off(tmp_path) -> None:
    path = tmp_path / "lp.toml"
    path.write_text(SCENARIO)
    assert ccarena.validate(path)["flows"][0]["timestamps"] is True
    with pytest.raises(ccarena.ScenarioError, match=r'^flows\[0\]\.timestamps: false is not possible with cc = "lp"'):
        ccarena.validate(path, overrides=["flows[0].timestamps=false"])
