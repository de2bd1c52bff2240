"""The plots of congestion-control research on real small runs: the data each draws is the data
of the result (the delay_quantiles table, the flows table, the packet capture), the accessors
``result.plot.<kind>()``, rate units on the axes, colours per flow, and ``_repr_html_``."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import dpkt
import numpy as np
import pytest
from matplotlib.collections import PathCollection
from matplotlib.figure import Figure
from matplotlib.patches import Ellipse

import ccarena
from ccarena import plots
from ccarena.errors import ArgumentError
from ccarena.plots.sequence import sender_port

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

# Two algorithms with different numbers of flows, a UDP flow first (no window, its own colour),
# and background traffic (not in delay_quantiles).
MIXED = """
name = "mixed <kinds>"
duration = "4s"
warmup = "1s"
seed = 3
sample_interval = "200ms"
[topology]
kind = "dumbbell"
bottleneck_rate = "12Mbps"
bottleneck_delay = "10ms"
queue = { kind = "droptail", limit = "60pkt" }
[[flows]]
name = "voice"
protocol = "udp"
app = { kind = "cbr", rate = "500kbps", packet_size = "500B" }
[[flows]]
name = "reno"
count = 2
cc = "reno"
start = { uniform = ["0s", "0.5s"] }
[[flows]]
name = "cubic"
cc = "cubic"
[[background]]
load = 0.1
mix = { udp = 1.0 }
"""

# Finite transfers of two sizes and a web user (no completion time of its own).
FILES = """
name = "files"
duration = "8s"
seed = 2
[topology]
kind = "dumbbell"
bottleneck_rate = "20Mbps"
bottleneck_delay = "5ms"
[[flows]]
name = "small"
count = 3
cc = "reno"
start = { uniform = ["0s", "2s"] }
app = { kind = "file", size = "150KB" }
[[flows]]
name = "large"
count = 2
cc = "cubic"
app = { kind = "file", size = "1MB" }
[[flows]]
name = "web"
app = { kind = "web" }
"""

# Flow 0 loses three given segments on the bottleneck; flow 1 nothing; a UDP flow.
CAPTURED = """
name = "captured"
duration = "6s"
sample_interval = "1s"
[topology]
kind = "dumbbell"
bottleneck_rate = "20Mbps"
bottleneck_delay = "5ms"
queue = { kind = "droptail", limit = "200pkt" }
loss = { kind = "drop_list", flow = 0, packets = [41, 90, 150] }
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


@pytest.fixture(scope="module")
def mixed() -> ccarena.RunResult:
    return ccarena.run(MIXED)


@pytest.fixture(scope="module")
def files() -> ccarena.RunResult:
    return ccarena.run(FILES)


@pytest.fixture(scope="module")
def captured(tmp_path_factory: pytest.TempPathFactory) -> ccarena.RunResult:
    return ccarena.run(CAPTURED, pcap=tmp_path_factory.mktemp("cap") / "pcap")


def _scale_of(label: str) -> float:
    """What a rate axis divides by, from the unit its label names."""
    for unit, scale in (("Gbit/s", 1e9), ("Mbit/s", 1e6), ("kbit/s", 1e3), ("bit/s", 1.0)):
        if f"({unit}" in label:
            return scale
    raise AssertionError(f"no rate unit in {label!r}")


# --- the delay_quantiles table ------------------------------------------------------------------


def test_delay_quantiles_hold_each_main_flow_at_201_levels(mixed: ccarena.RunResult) -> None:
    dq = mixed.delay_quantiles
    assert list(dq.columns) == ["flow_id", "q", "delay_s"]
    main = mixed.main_flows["flow_id"].tolist()
    assert sorted(set(dq["flow_id"])) == main and len(mixed.flows) > len(main), "main flows only, not the background"
    levels = np.arange(201) / 200
    for fid in main:
        part = dq[dq["flow_id"] == fid]
        assert part["q"].tolist() == levels.tolist()
        d = part["delay_s"].to_numpy()
        assert np.all(np.diff(d) >= 0), f"flow {fid}: monotone in q"
        row = mixed.flows.set_index("flow_id").loc[fid]
        # Within the histogram's resolution (1/128; equal in fact: the same reading of it).
        for q, col in ((0.5, "delay_p50_s"), (0.95, "delay_p95_s"), (0.99, "delay_p99_s")):
            assert abs(d[int(q * 200)] - row[col]) <= row[col] / 128
        assert abs(d[200] - row["delay_max_s"]) <= row["delay_max_s"] / 128
        assert abs(d[0] - row["delay_min_s"]) <= row["delay_min_s"] / 128
        assert row["delay_min_s"] <= d[0] and d[200] <= row["delay_max_s"]


def test_delay_quantiles_come_without_series_too(tiny_text: str) -> None:
    with_series, without = ccarena.run(tiny_text), ccarena.run(tiny_text, series=False)
    assert without.flow_series.empty and len(without.delay_quantiles) == 2 * 201
    assert without.delay_quantiles.equals(with_series.delay_quantiles)


def test_a_peer_result_has_the_table_without_rows_and_the_cdf_says_why() -> None:
    from ccarena.api import plan
    from ccarena.peers.results import build

    p = plan(MIXED)
    counters = {"sent_pkts": 10, "sent_bytes": 15000, "retransmitted_pkts": 0, "delivered_pkts": 10, "goodput_bytes": 14000,
                "dropped_pkts": 0}
    raw = {
        "wall_s": 0.1,
        "flows": [{"id": int(f), "final": counters, "series": {}} for f in p.main_flows["flow_id"]],
        "links": [{"name": "bottleneck", "final": {"tx_pkts": 40, "tx_bytes": 60000, "dropped_pkts": 0},
                   "series": {"t_s": [4.0], "tx_pkts": [40], "tx_bytes": [60000], "dropped_pkts": [0], "queue_pkts": [0.0]}}],
    }
    peer = build(p, raw, backend="ns2", facts={})
    assert list(peer.delay_quantiles.columns) == ["flow_id", "q", "delay_s"] and peer.delay_quantiles.empty
    with pytest.raises(ArgumentError, match="ns2 backend does not measure one-way delays"):
        peer.plot.delay_cdf()


# --- throughput against delay -------------------------------------------------------------------


def _scatter_points(where: Any) -> dict[str, np.ndarray]:
    """Label → points of the labelled scatters of a Figure's first axes, or of an axes."""
    ax = where.axes[0] if isinstance(where, Figure) else where
    return {c.get_label(): np.asarray(c.get_offsets()) for c in ax.collections if isinstance(c, PathCollection)}


def test_throughput_delay_draws_each_flow_at_its_goodput_and_p95(mixed: ccarena.RunResult) -> None:
    fig = mixed.plot.throughput_delay()
    ax = fig.axes[0]
    assert ax.xaxis_inverted(), "better (less delay) is to the right, as Pantheon draws it"
    scale = _scale_of(ax.get_ylabel())
    drawn = _scatter_points(fig)
    flows = mixed.main_flows
    algorithms = {"udp": flows[flows["protocol"] == "udp"], "reno": flows[flows["cc"] == "reno"], "cubic": flows[flows["cc"] == "cubic"]}
    assert set(drawn) == set(algorithms)
    for name, part in algorithms.items():
        want = np.column_stack([part["delay_p95_s"] * 1e3, part["goodput_bps"] / scale])
        assert np.allclose(drawn[name], want, rtol=0, atol=1e-12), name
    markers = {c.get_label(): c.get_paths()[0].vertices.tobytes() for c in ax.collections}
    assert len(set(markers.values())) == 3, "one marker per algorithm"


def test_throughput_delay_per_algorithm_is_the_mean_of_its_flows(mixed: ccarena.RunResult) -> None:
    points = plots.throughput_delay_points(mixed, per="algorithm").set_index("algorithm")
    reno = mixed.main_flows[mixed.main_flows["cc"] == "reno"]
    assert points.loc["reno", "goodput_bps"] == pytest.approx(reno["goodput_bps"].mean())
    assert points.loc["reno", "delay_p95_s"] == pytest.approx(reno["delay_p95_s"].mean())
    fig = mixed.plot.throughput_delay(per="algorithm")
    drawn = _scatter_points(fig)
    scale = _scale_of(fig.axes[0].get_ylabel())
    assert drawn["reno"].ravel().tolist() == pytest.approx([points.loc["reno", "delay_p95_s"] * 1e3, points.loc["reno", "goodput_bps"] / scale])


def test_throughput_delay_over_runs_draws_each_algorithm_s_mean_and_ellipse(tiny_text: str) -> None:
    runs = {f"seed {s}": ccarena.run(tiny_text, seed=s, overrides=["flows[0].start={uniform=['0s','1s']}"]) for s in (1, 2, 3)}
    fig = plots.plot_throughput_delay(runs, per="algorithm")
    points = plots.throughput_delay_points(runs, per="algorithm")
    assert len(points) == 3 and set(points["run"]) == set(runs)
    ellipses = [p for p in fig.axes[0].patches if isinstance(p, Ellipse)]
    assert len(ellipses) == 1
    scale = _scale_of(fig.axes[0].get_ylabel())
    cx, cy = ellipses[0].center
    assert (cx, cy) == pytest.approx((points["delay_p95_s"].mean() * 1e3, points["goodput_bps"].mean() / scale))
    assert _scatter_points(fig)["reno"].ravel().tolist() == pytest.approx([cx, cy])


@pytest.fixture(scope="module")
def experiment(tmp_path_factory: pytest.TempPathFactory) -> ccarena.ExperimentResult:
    """2 algorithms × 2 rates × 2 replications of the tiny dumbbell, start times drawn per seed."""
    from conftest import TINY_SCENARIO

    exp = ccarena.Experiment(TINY_SCENARIO, grid={"flows[0].cc": ["reno", "cubic"], "topology.bottleneck_rate": ["10Mbps", "20Mbps"]},
                             replications=2, overrides=["duration=2s", "flows[0].start={uniform=['0s','1s']}"])
    return exp.run(store=tmp_path_factory.mktemp("exp") / "store", jobs=1)


def test_an_experiment_s_throughput_delay_groups_by_algorithm_and_the_other_keys(tmp_path: Path, experiment: ccarena.ExperimentResult) -> None:
    res = experiment
    points = plots.throughput_delay_points(res, per="algorithm")
    assert len(points) == 2 * 2 * 2 and list(points.columns[:2]) == ["algorithm", "topology.bottleneck_rate"]
    fig = res.plot.throughput_delay(f"{tmp_path}/td/")
    assert (tmp_path / "td" / "throughput_delay.png").read_bytes().startswith(PNG_MAGIC)
    assert len([p for p in fig.axes[0].patches if isinstance(p, Ellipse)]) == 4
    sweep = res.plot.sweep("goodput_bps", tmp_path)
    assert (tmp_path / "goodput_bps.png").is_file()
    ax = sweep.axes[0]
    assert ax.get_xlabel() == "topology.bottleneck_rate" and ax.get_ylabel() == "goodput (Mbit/s)"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["reno", "cubic"]
    html = res._repr_html_()
    assert "flows[0].cc" in html and "reno, cubic" in html and "<table>" in html and "8 finished" in html


def test_an_experiment_s_throughput_delay_has_a_panel_per_swept_value(tmp_path: Path, experiment: ccarena.ExperimentResult) -> None:
    fig = plots.plot_throughput_delay_sweep(experiment, "topology.bottleneck_rate", tmp_path)
    assert (tmp_path / "throughput_delay.png").read_bytes().startswith(PNG_MAGIC)
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title(loc="left") for ax in panels] == ["topology.bottleneck_rate = 10Mbps", "topology.bottleneck_rate = 20Mbps"]
    points = plots.throughput_delay_points(experiment, per="algorithm", by=["topology.bottleneck_rate"])
    scale = _scale_of(panels[0].get_ylabel())
    for ax, rate in zip(panels, ("10Mbps", "20Mbps")):
        assert ax.xaxis_inverted()
        ellipses = [p for p in ax.patches if isinstance(p, Ellipse)]
        assert len(ellipses) == 2, "one per algorithm: its two replications"
        for algorithm in ("reno", "cubic"):
            runs = points[(points["algorithm"] == algorithm) & (points["topology.bottleneck_rate"] == rate)]
            mean = _scatter_points(ax)[algorithm].ravel()
            assert mean.tolist() == pytest.approx([runs["delay_p95_s"].mean() * 1e3, runs["goodput_bps"].mean() / scale])
    legend = fig.legends[0]
    assert sorted(t.get_text() for t in legend.get_texts()) == ["cubic", "reno"]
    with pytest.raises(ArgumentError, match="is not a varied key"):
        plots.plot_throughput_delay_sweep(experiment, "duration")


# --- delay CDF ----------------------------------------------------------------------------------


def test_the_delay_cdf_of_a_flow_is_its_quantiles(mixed: ccarena.RunResult) -> None:
    fig = mixed.plot.delay_cdf()
    lines = {line.get_label(): line for line in fig.axes[0].get_lines()}
    dq = mixed.delay_quantiles
    labels = {int(r.flow_id): f"{r.group} #{int(r.flow_id)}" for r in mixed.main_flows.itertuples()}
    assert set(lines) == set(labels.values())
    for fid, name in labels.items():
        part = dq[dq["flow_id"] == fid]
        assert lines[name].get_xdata().tolist() == (part["delay_s"] * 1e3).tolist()
        assert lines[name].get_ydata().tolist() == part["q"].tolist()


def test_pooled_cdf_weighs_each_flow_by_its_packets() -> None:
    q = np.array([0.0, 0.5, 1.0])
    xs, cdf = plots.pooled_cdf([(q, np.array([1.0, 2.0, 3.0])), (q, np.array([4.0, 5.0, 6.0]))], [3.0, 1.0])
    assert xs.tolist() == [1, 2, 3, 4, 5, 6]
    # Below the second flow's delays only the first counts (weight 3 of 4).
    assert cdf.tolist() == pytest.approx([0.0, 0.375, 0.75, 0.75, 0.875, 1.0])


def test_the_delay_cdf_per_algorithm_of_one_flow_is_that_flow_s(mixed: ccarena.RunResult) -> None:
    fig = mixed.plot.delay_cdf(per="algorithm", log=True)
    lines = {line.get_label(): line for line in fig.axes[0].get_lines()}
    assert set(lines) == {"cubic (1 flow)", "reno (2 flows)", "udp (1 flow)"}
    assert fig.axes[0].get_xscale() == "log"
    cubic = mixed.delay_quantiles[mixed.delay_quantiles["flow_id"] == int(mixed.main_flows.loc[mixed.main_flows["cc"] == "cubic", "flow_id"].iloc[0])]
    x = lines["cubic (1 flow)"].get_xdata()
    assert set(x.tolist()) == set((cubic["delay_s"] * 1e3).tolist())
    assert lines["reno (2 flows)"].get_ydata()[-1] == pytest.approx(1.0)


def test_an_experiment_keeps_each_run_s_delay_quantiles(experiment: ccarena.ExperimentResult) -> None:
    dq = experiment.delay_quantiles()
    assert list(dq.columns[-3:]) == ["flow_id", "q", "delay_s"] and "flows[0].cc" in dq.columns
    assert sorted(dq["run_id"].unique()) == sorted(experiment.metrics["run_id"])
    assert (dq.groupby(["run_id", "flow_id"]).size() == 201).all()
    # the stored table is the run's: its scenario, as the store records it, run again gives it
    key = experiment.plan[0]["key"]
    again = ccarena.run(experiment.store.run_info(key)["scenario"]).delay_quantiles
    stored = dq[dq["run_id"] == key][["flow_id", "q", "delay_s"]].reset_index(drop=True)
    assert stored.equals(again)


def test_an_experiment_s_delay_cdf_pools_each_grid_point_s_packets(tmp_path: Path, experiment: ccarena.ExperimentResult) -> None:
    fig = experiment.plot.delay_cdf(tmp_path)
    assert (tmp_path / "delay_cdf.png").read_bytes().startswith(PNG_MAGIC)
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title(loc="left") for ax in panels] == ["topology.bottleneck_rate = 10Mbps", "topology.bottleneck_rate = 20Mbps"]
    dq = experiment.delay_quantiles()
    runs = experiment.runs.set_index(["run_id", "flow_id"])["delay_count"]
    for ax, rate in zip(panels, ("10Mbps", "20Mbps")):
        lines = {line.get_label(): line for line in ax.get_lines()}
        assert set(lines) == {"reno", "cubic"}, "a line per algorithm, the report's choice of lines"
        for cc, line in lines.items():
            part = dq[(dq["topology.bottleneck_rate"] == rate) & (dq["flows[0].cc"] == cc)]
            flows = list(part.groupby(["run_id", "flow_id"]))
            assert len(flows) == 2 * 2, "two flows in each of two replications"
            xs, cdf = plots.pooled_cdf([(p["q"].to_numpy(), p["delay_s"].to_numpy()) for _, p in flows],
                                       [float(runs[key]) for key, _ in flows])
            x, y = line.get_xdata(), line.get_ydata()
            assert x[0] == pytest.approx(part["delay_s"].min() * 1e3) and y[0] == 0.0
            assert y[-1] == pytest.approx(1.0) and x[-1] == pytest.approx(part["delay_s"].max() * 1e3)
            assert y[1:].tolist() == pytest.approx(cdf.tolist()) and x[1:].tolist() == pytest.approx((xs * 1e3).tolist())
    assert fig.legends[0].get_title().get_text() == "flows[0].cc"
    log = plots.plot_delay_cdf_sweep(experiment, None, ["flows[0].cc", "topology.bottleneck_rate"], log=True)
    assert len([ax for ax in log.axes if ax.get_visible()]) == 1 and log.axes[0].get_xscale() == "log"
    assert {line.get_label() for line in log.axes[0].get_lines()} == {"reno, 10Mbps", "reno, 20Mbps", "cubic, 10Mbps", "cubic, 20Mbps"}
    with pytest.raises(ArgumentError, match="'rtt' is not a varied key"):
        experiment.plot.delay_cdf(x="rtt")


def test_a_campaign_delay_cdf_says_when_the_store_keeps_no_delays(tmp_path: Path, experiment: ccarena.ExperimentResult) -> None:
    import shutil

    from ccarena.experiment.store import Store

    shutil.copytree(experiment.store.root, tmp_path / "store")
    store = Store(tmp_path / "store")
    for row in experiment.plan:  # as a version that did not keep the table wrote them
        info = {k: v for k, v in store.run_info(row["key"]).items() if k not in ("files", "checksum")}
        store.write_run(row["key"], {t: store.read_table(row["key"], t) for t in ("flows", "links")}, info)
    old = ccarena.open_store(tmp_path / "store")
    assert old.delay_quantiles().empty and list(old.delay_quantiles().columns[-3:]) == ["flow_id", "q", "delay_s"]
    with pytest.raises(ArgumentError, match="keeps no delay distribution.*ccarena sweep --force"):
        old.plot.delay_cdf()


# --- flow completion times ----------------------------------------------------------------------


def test_completion_times_come_from_the_flows_table_and_sizes_from_the_scenario(files: ccarena.RunResult) -> None:
    done = plots.flow_completion(files)
    flows = files.flows.set_index("flow_id")
    assert done["flow_id"].tolist() == [0, 1, 2, 3, 4], "the web user has no completion time"
    assert done["completion_s"].tolist() == flows.loc[done["flow_id"], "completion_s"].tolist()
    assert done["size_bytes"].tolist() == [150_000.0] * 3 + [1_000_000.0] * 2
    fig = files.plot.fct()
    cdf_ax, size_ax = fig.axes
    steps = {line.get_label(): line for line in cdf_ax.get_lines()}
    reno = np.sort(done.loc[done["algorithm"] == "reno", "completion_s"].to_numpy())
    assert steps["reno (3)"].get_xdata().tolist() == [0.0, *reno.tolist()]
    assert steps["reno (3)"].get_ydata().tolist() == pytest.approx([0, 1 / 3, 2 / 3, 1])
    assert size_ax.get_xlabel() == "transfer size (MB)"
    dots = {c.get_label(): np.asarray(c.get_offsets()) for c in size_ax.collections}
    cubic = done.loc[done["algorithm"] == "cubic", "completion_s"].tolist()
    assert dots["cubic (2)"].ravel().tolist() == pytest.approx([v for t in cubic for v in (1.0, t)])


def test_a_run_without_finished_transfers_has_no_completion_plot(mixed: ccarena.RunResult) -> None:
    with pytest.raises(ArgumentError, match="no flow completed a transfer .*web and ftp sources keep no time per object"):
        mixed.plot.fct()


# --- sequence plots -----------------------------------------------------------------------------


def _resent_in_capture(path: Path, flow: int) -> int:
    """Data segments of ``flow`` on the link starting at or below a sequence number already seen
    (as tests/test_pcap.py counts them)."""
    seqs = []
    with path.open("rb") as f:
        for _, buf in dpkt.pcap.Reader(f):
            ip = dpkt.ip.IP(buf)
            tcp = ip.data
            if isinstance(tcp, dpkt.tcp.TCP) and tcp.sport == sender_port(flow) and ip.len - 4 * ip.hl - 4 * tcp.off > 0:
                seqs.append(tcp.seq)
    return sum(1 for i, s in enumerate(seqs) if s <= max(seqs[:i], default=-1))


def test_the_sequence_plot_marks_each_retransmission_captured_on_the_link(captured: ccarena.RunResult) -> None:
    assert captured.pcap_dir is not None
    flows = captured.flows.set_index("flow_id")
    assert flows.loc[0, "retransmitted_pkts"] == 3 and flows.loc[1, "retransmitted_pkts"] == 0
    for fid in (0, 1):
        fig = captured.plot.sequence(flow=fid)
        drawn = _scatter_points(fig)
        resent = next(v for k, v in drawn.items() if k.startswith("retransmission"))
        assert len(resent) == flows.loc[fid, "retransmitted_pkts"] == _resent_in_capture(captured.pcap_dir / "bottleneck.pcap", fid)
        segments = next(v for k, v in drawn.items() if k == "data segment")
        assert len(segments) + len(resent) == flows.loc[fid, "delivered_pkts"], "every data packet crossed the bottleneck"
        acks = [line for line in fig.axes[0].get_lines() if line.get_label().startswith("cumulative ACK")]
        assert len(acks) == 1 and "bottleneck_rev" in acks[0].get_label()
        assert fig.axes[0].get_ylabel() == "sequence (kB)"
        # The capture numbers ACKs in whole segments (docs/pcap.md): the last covers the file's short tail.
        assert 600.0 <= max(acks[0].get_ydata()) < 600.0 + 1.448, "the last ACK covers the file"


def test_the_sequence_trace_reads_the_capture(captured: ccarena.RunResult) -> None:
    trace = plots.read_sequence(captured.pcap_dir, flow=0)
    assert trace.link == "bottleneck" and trace.ack_link == "bottleneck_rev"
    resent = trace.data[trace.data["retransmission"]]
    assert resent["seq_bytes"].tolist() == [40 * 1448, 89 * 1448, 149 * 1448], "the 41st, 90th and 151st segments"
    assert trace.data["payload_bytes"].sum() == 600_000, "each byte once: the dropped originals never reach the far end"
    assert trace.acks["ack_bytes"].is_monotonic_increasing and 600_000 <= trace.acks["ack_bytes"].iloc[-1] < 600_000 + 1448
    fig = plots.plot_sequence(captured.pcap_dir, flow=0, unit="segments")
    assert fig.axes[0].get_ylabel() == "sequence (segments)"
    resent_dots = next(v for k, v in _scatter_points(fig).items() if k.startswith("retransmission"))
    assert resent_dots[:, 1].tolist() == [41, 90, 150], "each at its last byte, in segments"


def test_sequence_plots_refuse_what_they_cannot_draw(captured: ccarena.RunResult, mixed: ccarena.RunResult, tmp_path: Path) -> None:
    with pytest.raises(ArgumentError, match=r"was run without packet captures: run it with ccarena.run\(..., pcap=DIR\)"):
        mixed.plot.sequence()
    with pytest.raises(ArgumentError, match="flow 2 is udp; sequence plots read TCP segments"):
        captured.plot.sequence(flow=2)
    with pytest.raises(ArgumentError, match="no capture of 'left->src0' .*captured: bottleneck, bottleneck_rev"):
        captured.plot.sequence(link="left->src0")
    with pytest.raises(ArgumentError, match="is not a directory of captures"):
        plots.plot_sequence(tmp_path / "nowhere")
    with pytest.raises(ArgumentError, match="no TCP data of flow 7"):
        plots.plot_sequence(captured.pcap_dir, flow=7)
    with pytest.raises(ArgumentError, match="unit: expected one of 'bytes', 'segments'"):
        captured.plot.sequence(unit="packets")


# --- accessors, units, colours, notebooks -------------------------------------------------------


@pytest.mark.parametrize(("kind", "name"), [("goodput", "goodput.png"), ("cwnd", "cwnd.png"), ("queue", "queue.png"),
                                            ("throughput_delay", "throughput_delay.png"), ("delay_cdf", "delay_cdf.png")])
def test_each_accessor_returns_the_figure_and_saves_it_under_its_name(mixed: ccarena.RunResult, tmp_path: Path, kind: str, name: str) -> None:
    fig = getattr(mixed.plot, kind)()
    assert isinstance(fig, Figure) and fig.canvas.manager is None
    getattr(mixed.plot, kind)(tmp_path)
    assert (tmp_path / name).read_bytes().startswith(PNG_MAGIC)


def test_the_accessors_give_the_functions_figures(files: ccarena.RunResult, captured: ccarena.RunResult, tmp_path: Path) -> None:
    files.plot.fct(tmp_path / "f.png")
    captured.plot.sequence(tmp_path, flow=1)
    assert (tmp_path / "f.png").is_file() and (tmp_path / "sequence.png").is_file()


def test_rates_are_drawn_in_a_unit_chosen_by_magnitude(tiny_text: str) -> None:
    # Samples of 1 s: over shorter ones, a repaired hole delivers a burst above the link's rate.
    slow = ccarena.run(tiny_text, overrides=["topology.bottleneck_rate=400kbps", "topology.queue.limit=10pkt", "sample_interval=1s"])
    ax = slow.plot.goodput().axes[0]
    assert ax.get_ylabel() == "goodput (kbit/s)"
    top = max(max(line.get_ydata()) for line in ax.get_lines())
    assert 100 < top < 450
    assert ccarena.run(tiny_text).plot.goodput().axes[0].get_ylabel() == "goodput (Mbit/s)"


def test_plot_sweep_puts_rates_in_a_unit_and_keeps_other_labels() -> None:
    import pandas as pd

    summary = pd.DataFrame({"cc": ["reno", "reno"], "rate": ["1G", "2G"], "metric": ["goodput_bps"] * 2,
                            "mean": [9.4e8, 1.8e9], "ci_low": [9.0e8, 1.7e9], "ci_high": [9.8e8, 1.9e9]})
    fig = plots.plot_sweep(summary, "rate", "goodput_bps", ["cc"], ylabel="aggregate goodput (bit/s)")
    ax = fig.axes[0]
    assert ax.get_ylabel() == "aggregate goodput (Gbit/s)"
    assert ax.get_lines()[0].get_ydata().tolist() == pytest.approx([0.94, 1.8])
    jain = summary.assign(metric="jain", mean=[0.9, 0.8], ci_low=[0.85, 0.7], ci_high=[0.95, 0.9])
    assert plots.plot_sweep(jain, "rate", "jain").axes[0].get_ylabel() == "jain"


def test_a_flow_keeps_its_colour_in_every_plot_and_on_every_backend(mixed: ccarena.RunResult) -> None:
    def colours(fig: Figure) -> dict[str, tuple[str, str]]:
        return {line.get_label(): (str(line.get_color()), str(line.get_linestyle())) for line in fig.axes[0].get_lines()}

    goodput, cwnd = colours(mixed.plot.goodput()), colours(mixed.plot.cwnd())
    assert "voice #0" in goodput and "voice #0" not in cwnd, "the UDP flow has no window"
    assert all(cwnd[k] == goodput[k] for k in cwnd), "the UDP flow missing does not shift the others' colours"
    both = colours(plots.plot_cwnd({"sim": mixed, "ns2": mixed}))
    for flow in cwnd:
        (c_sim, s_sim), (c_ns2, s_ns2) = both[f"sim: {flow}"], both[f"ns2: {flow}"]
        assert c_sim == c_ns2 == cwnd[flow][0] and s_sim != s_ns2


def test_compare_draws_the_backends_in_their_fixed_order(mixed: ccarena.RunResult, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ccarena.compare import Comparison

    seen: list[list[str]] = []
    monkeypatch.setattr(plots, "plot_cwnd", lambda runs, path: seen.append(list(runs)))
    monkeypatch.setattr(plots, "plot_goodput", lambda runs, path: seen.append(list(runs)))
    Comparison(runs={"kernel": [mixed], "sim": [mixed]}).plot(tmp_path)
    assert seen == [["sim", "kernel"], ["sim", "kernel"]], "the simulator is always the solid line"


def test_a_run_shows_in_a_notebook_as_an_escaped_summary(mixed: ccarena.RunResult) -> None:
    html = mixed._repr_html_()
    assert "<strong>mixed &lt;kinds&gt;</strong>: 4 s simulated, seed 3, 4 flows" in html
    for group in ("voice", "reno", "cubic"):
        assert f"<td>{group}</td>" in html
    assert ">utilisation</th>" in html and "<td>bottleneck</td>" in html and "Background traffic" in html
    assert "Jain" in html and math.isfinite(mixed.jain())
