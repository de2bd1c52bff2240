"""The built network as data and drawings (``ccarena topology``), and background flows kept apart
from the main flows in results."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

import ccarena
from ccarena import api
from ccarena import topology as topo
from ccarena.cli import app

REPO = Path(__file__).resolve().parent.parent
SCENARIOS = REPO / "scenarios"

PARKING = """
name = "pl"
duration = "2s"
[topology]
kind = "parking_lot"
hops = 3
hop_rate = ["10Mbps", "5Mbps", "10Mbps"]
hop_delay = "10ms"
[[flows]]
path = "all"
[[flows]]
path = "hop:2"
rtt = "60ms"
[[background]]
load = 0.3
mix = { udp = 1.0 }
"""


def test_parking_lot_description_lists_routers_hops_and_hosts() -> None:
    desc = api.topology(PARKING)
    roles = {n["name"]: n["role"] for n in desc["nodes"]}
    assert desc["kind"] == "parking_lot"
    assert [n for n, r in roles.items() if r == "router"] == ["R0", "R1", "R2", "R3"]
    links = {lk["name"]: lk for lk in desc["links"]}
    assert (links["hop2"]["src"], links["hop2"]["dst"], links["hop2"]["rate_bps"]) == ("R1", "R2", 5e6)
    assert links["hop2_rev"]["src"] == "R2"
    # The cross flow's hosts hang from R1 and R2; 2 * (2 * access + 10 ms) = 60 ms.
    assert links["src1->R1"]["delay_s"] == pytest.approx(0.010)
    assert links["R2->dst1"]["delay_s"] == pytest.approx(0.010)
    # One background aggregate per hop, on hosts of its own.
    assert {"bg0_hop1_a", "bg0_hop2_b", "bg0_hop3_a"} <= set(roles)
    bg = [f for f in desc["flows"] if f["role"] == "background"]
    assert {f["src"] for f in bg} == {"bg0_hop1_a", "bg0_hop2_a", "bg0_hop3_a"}


def test_duplex_links_merge_the_two_directions() -> None:
    desc = api.topology(PARKING)
    merged = topo.duplex_links(desc)
    assert len(merged) * 2 == len(desc["links"])
    hop2 = next(lk for lk in merged if set(lk["names"]) == {"hop2", "hop2_rev"})
    assert (hop2["a"], hop2["b"], hop2["rate_bps"]) == ("R1", "R2", 5e6)


def test_layout_places_every_node_apart_with_hosts_near_their_router() -> None:
    for path in (SCENARIOS / "seed000-lan-ring.toml", SCENARIOS / "web-background.toml"):
        desc = api.topology(path)
        pos = topo.layout(desc)
        assert set(pos) == {n["name"] for n in desc["nodes"]}
        points = sorted(pos.values())
        assert all(math.dist(a, b) > 0.05 for a, b in zip(points, points[1:])), path.name
        roles = {n["name"]: n["role"] for n in desc["nodes"]}
        for link in desc["links"]:
            if roles[link["src"]] == "host":
                assert math.dist(pos[link["src"]], pos[link["dst"]]) < 2.5


def test_lan_ring_routers_sit_on_a_circle_in_order() -> None:
    desc = api.topology(SCENARIOS / "seed000-lan-ring.toml")
    pos = topo.layout(desc)
    angles = [math.atan2(pos[f"R{i}"][1], pos[f"R{i}"][0]) for i in range(1, 5)]
    radii = {round(math.hypot(*pos[f"R{i}"]), 9) for i in range(1, 5)}
    assert len(radii) == 1
    # Clockwise from the top: R1 at 90°, R2 at 0°, R3 at -90°, R4 at 180°.
    assert [round(math.degrees(a)) % 360 for a in angles] == [90, 0, 270, 180]


@pytest.mark.parametrize("name", ["seed003-parking-lot", "seed000-lan-ring", "web-background"])
def test_cli_draws_a_png(tmp_path: Path, name: str) -> None:
    out = tmp_path / f"{name}.png"
    result = CliRunner().invoke(app, ["topology", str(SCENARIOS / f"{name}.toml"), "--png", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == f"wrote {out}"
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


def test_cli_lists_the_links_without_png_and_applies_overrides() -> None:
    path = str(SCENARIOS / "seed000-lan-ring.toml")
    result = CliRunner().invoke(app, ["topology", path, "--set", "topology.ring_delay=100ms"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("seed000-lan-ring (lan_ring): 100 nodes (96 hosts)")
    ring = [lk for lk in lines if lk.startswith("R")]
    assert len(ring) == 4 and all("1.00 Mbit/s" in lk and "100.0" in lk and "300pkt" in lk for lk in ring)
    assert lines[-1] == "+ 96 host links"


def test_cli_topology_reports_a_bad_scenario_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(PARKING.replace('path = "hop:2"', 'path = "hop:9"'))
    result = CliRunner().invoke(app, ["topology", str(bad), "--png", str(tmp_path / "x.png")])
    assert result.exit_code == 2
    assert result.stderr.startswith('error: flows[1].path: "hop:9" is not a path')
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x.png").exists()


BACKGROUND = """
name = "bg"
duration = "6s"
warmup = "1s"
[topology]
kind = "dumbbell"
bottleneck_rate = "20Mbps"
bottleneck_delay = "10ms"
[[flows]]
count = 2
cc = "reno"
[[background]]
load = 0.4
mix = { udp = 0.5, web = 0.5 }
"""


def test_background_flows_are_reported_apart_from_the_main_flows() -> None:
    r = ccarena.run(BACKGROUND)
    assert list(r.main_flows["flow_id"]) == [0, 1]
    assert set(r.flows["role"]) == {"main", "background"}
    summary = r.summary()
    assert [f["flow_id"] for f in summary["flows"]] == [0, 1]
    # Jain's index covers only the two main flows.
    g = r.main_flows["goodput_bps"].to_numpy()
    assert summary["jain"] == pytest.approx(g.sum() ** 2 / (2 * (g**2).sum()))
    groups = {b["group"]: b for b in summary["background"]}
    assert set(groups) == {"background:udp", "background:web"}
    # UDP sources offer 20% of 20 Mbit/s on the wire, exactly, over the measured window.
    assert groups["background:udp"]["throughput_bps"] == pytest.approx(4e6, rel=0.01)
    assert groups["background:udp"]["flows"] == 20
    json.loads(r.to_json())  # strict JSON
    # Background sources keep totals but no time series.
    assert set(r.flow_series["flow_id"]) == {0, 1}


def test_summary_has_no_background_key_without_background(tiny_text: str) -> None:
    assert "background" not in ccarena.run(tiny_text).summary()
