"""RunResult, plots and the HTML report on a synthetic raw result (see conftest.synthetic_raw)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from ccarena import RunResult, plots
from ccarena.demo import DemoRun, cwnd_by_algorithm, parse_header
from ccarena.report import write_report

FLOW_KEYS = {
    "flow_id", "group", "protocol", "cc", "stack", "start_s", "rtt_base_s", "sent_pkts", "delivered_pkts", "dropped_pkts",
    "retransmitted_pkts", "throughput_bps", "goodput_bps", "delivery_ratio", "delay_mean_s", "completion_s",
}
LINK_KEYS = {"link", "utilisation", "dropped_pkts", "mean_queue_pkts"}
#: The old names the summary keeps beside the new ones until the aliases go (docs/results.md).
OLD_FLOW_KEYS = {"id": "flow_id", "mean_delay_s": "delay_mean_s"}
OLD_LINK_KEYS = {"name": "link"}
TOP_KEYS = {"name", "seed", "duration_s", "flows", "links", "jain", "engine"}
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_derived_flow_columns(raw: dict[str, Any]) -> None:
    flows = RunResult(raw).flows
    # meas_sent_bytes·8 / (duration − meas_start): 1e6·8/8, 5e5·8/8, 1e6·8/4
    assert flows["throughput_bps"].tolist() == pytest.approx([1_000_000.0, 500_000.0, 2_000_000.0])
    # meas_goodput_bytes·8 / (duration − meas_start): 8e5·8/8, 4e5·8/8, 6e5·8/4
    assert flows["goodput_bps"].tolist() == pytest.approx([800_000.0, 400_000.0, 1_200_000.0])
    assert flows["delivery_ratio"].tolist() == pytest.approx([0.9, 1.0, 1.0])
    assert "mean_delay_s" not in flows.columns  # the core's delay_mean_s, no derived twin


def test_link_utilisation(raw: dict[str, Any]) -> None:
    links = RunResult(raw).links
    # 9e6 B·8 / (1e7 bit/s · 8 s) = 0.9; 1e5·8 / 8e7 = 0.01
    assert links["utilisation"].tolist() == pytest.approx([0.9, 0.01])


def test_delivery_ratio_is_one_for_a_flow_that_sent_nothing(raw: dict[str, Any]) -> None:
    raw["flows"]["sent_pkts"][2] = 0
    raw["flows"]["delivered_pkts"][2] = 0
    assert RunResult(raw).flows["delivery_ratio"][2] == 1.0


def test_jain_over_flows_and_groups(raw: dict[str, Any]) -> None:
    r = RunResult(raw)
    # goodputs 0.8, 0.4, 1.2 Mbit/s → 2.4² / (3 · 2.24) = 6/7
    assert r.jain("flow") == pytest.approx(6 / 7)
    # group a = 0.8 + 0.4 = 1.2, group b = 1.2 → 1
    assert r.jain("group") == pytest.approx(1.0)
    assert r.summary(jain_over="group")["jain"] == pytest.approx(1.0)
    with pytest.raises(ValueError):
        r.jain("link")  # type: ignore[arg-type]


def test_jain_leaves_out_flows_without_a_measured_window(raw: dict[str, Any]) -> None:
    raw["flows"]["meas_start_s"][2] = 10.0  # starts at the end of the run: goodput NaN
    r = RunResult(raw)
    assert math.isnan(r.flows["goodput_bps"][2])
    assert r.jain() == pytest.approx(0.9)  # 1.2² / (2 · 0.8)


def test_summary_follows_the_output_contract(raw: dict[str, Any]) -> None:
    s = RunResult(raw).summary()
    assert set(s) == TOP_KEYS
    assert (s["name"], s["seed"], s["duration_s"]) == ("synthetic", 3, 10.0)
    assert all(set(f) == FLOW_KEYS | set(OLD_FLOW_KEYS) for f in s["flows"])
    assert all(set(link) == LINK_KEYS | set(OLD_LINK_KEYS) for link in s["links"])
    assert all(f[old] == f[new] for f in s["flows"] for old, new in OLD_FLOW_KEYS.items())
    assert s["engine"] == {"events": 12345, "wall_s": 0.5}
    assert [f["completion_s"] for f in s["flows"]] == [None, 7.5, None]  # NaN → null
    assert s["links"][0] == {"link": "bottleneck", "utilisation": pytest.approx(0.9), "dropped_pkts": 10,
                             "mean_queue_pkts": 20.5, "name": "bottleneck"}
    text = json.dumps(s, allow_nan=False)  # strict JSON, plain Python types
    assert json.loads(text)["flows"][0]["flow_id"] == 0


def test_to_parquet_writes_four_tables_and_the_summary(raw: dict[str, Any], tmp_path: Path) -> None:
    out = RunResult(raw).to_parquet(tmp_path / "run")
    for name in ("flows", "flow_series", "links", "link_series"):
        assert (out / f"{name}.parquet").is_file()
    flows = pd.read_parquet(out / "flows.parquet")
    assert flows["goodput_bps"].tolist() == pytest.approx([800_000.0, 400_000.0, 1_200_000.0])
    assert len(pd.read_parquet(out / "flow_series.parquet")) == 12
    assert set(json.loads((out / "summary.json").read_text())) == TOP_KEYS


def test_repr_is_a_short_table(raw: dict[str, Any]) -> None:
    text = repr(RunResult(raw))
    assert text.startswith("RunResult('synthetic', seed=3")
    assert "800.00 kbit/s" in text and "1.20 Mbit/s" in text
    assert "Jain" in text


def test_bottleneck_defaults_to_the_named_link_or_the_busiest(raw: dict[str, Any]) -> None:
    assert RunResult(raw).bottleneck() == "bottleneck"
    raw["links"]["link"] = ["A->B", "B->A"]
    raw["link_series"]["link"] = ["A->B"] * 4 + ["B->A"] * 4
    assert RunResult(raw).bottleneck() == "A->B"


def test_goodput_series_divides_by_the_interval(raw: dict[str, Any]) -> None:
    gs = plots.goodput_series(RunResult(raw))
    # 250 000 B · (flow + 1) · 8 / 2.5 s
    assert gs[gs["flow_id"] == 1]["goodput_bps"].tolist() == pytest.approx([1_600_000.0] * 4)
    raw["flow_series"]["goodput_bytes"][4:8] = [0, 500_000, 1_000_000, 1_000_000]  # flow 1
    binned = plots.goodput_series(RunResult(raw), bin_samples=3)
    f1 = binned[binned["flow_id"] == 1]
    # bins (2.5, 5, 7.5) and (10): 1.5e6 B · 8 / 7.5 s, 1e6 B · 8 / 2.5 s
    assert f1["t_s"].tolist() == [7.5, 10.0]
    assert f1["goodput_bps"].tolist() == pytest.approx([1_600_000.0, 3_200_000.0])


def test_plots_write_pngs(raw: dict[str, Any], tmp_path: Path) -> None:
    r = RunResult(raw)
    for fn, name in ((plots.plot_goodput, "g.png"), (plots.plot_cwnd, "c.png"), (plots.plot_queue, "q.png")):
        fig = fn(r, tmp_path / name)
        assert fig is not None
        assert (tmp_path / name).read_bytes().startswith(PNG_MAGIC)
    fig = plots.plot_cwnd(r)  # no path: the figure is returned for further use
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels == ["a #0", "a #1"]  # the UDP flow has no window
    with pytest.raises(ValueError, match="no link named"):
        plots.plot_queue(r, link="nowhere")


def test_plots_overlay_several_runs(raw: dict[str, Any], tmp_path: Path) -> None:
    runs = {"one": RunResult(raw), "two": RunResult(raw)}
    fig = plots.plot_goodput(runs)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels[:2] == ["one: a #0", "one: a #1"] and len(labels) == 6


def test_report_html_from_synthetic_results(raw: dict[str, Any], tmp_path: Path) -> None:
    sc = parse_header("x.toml", "# A <title>\n#\n# Some text & more.\n#\n# variant v1: seed=1\nname = 'x'\n")
    single = parse_header("y.toml", "# Plain\nname = 'y'\n")
    runs = [DemoRun(sc, {"v1": RunResult(raw), "v2": RunResult(raw)}), DemoRun(single, {"": RunResult(raw)})]
    index = write_report(runs, tmp_path / "report", title="test report")
    page = index.read_text()
    assert page.startswith("<!DOCTYPE html>")
    assert "A &lt;title&gt;" in page and "Some text &amp; more." in page  # escaped
    assert 'src="x/goodput.png"' in page and 'src="y/queue.png"' in page
    assert "<th>variant</th>" in page and "<td>v1</td>" in page and "800.00 kbit/s" in page
    for png in ("x/goodput.png", "x/cwnd.png", "x/queue.png", "y/goodput.png"):
        assert (tmp_path / "report" / png).read_bytes().startswith(PNG_MAGIC)
    assert (tmp_path / "report" / "x" / "v1" / "flows.parquet").is_file()
    assert (tmp_path / "report" / "y" / "summary.json").is_file()


def test_cwnd_by_algorithm_draws_one_line_per_algorithm(tmp_path: Path) -> None:
    scenario = {
        "duration": "3s",
        "topology": {"kind": "dumbbell", "bottleneck_rate": "10Mbps", "bottleneck_delay": "10ms"},
        "flows": [{"cc": "reno"}],
    }
    fig = cwnd_by_algorithm(scenario, ["reno", "newreno"], tmp_path / "cwnd.png")
    assert (tmp_path / "cwnd.png").is_file()
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert len(labels) == 2 and labels[0].startswith("reno") and labels[1].startswith("newreno")


def test_cwnd_grid_draws_one_panel_per_run(raw: dict[str, Any], tmp_path: Path) -> None:
    runs = {f"run{i}": RunResult(raw) for i in range(5)}
    fig = plots.plot_cwnd_grid(runs, tmp_path / "grid.png")
    assert (tmp_path / "grid.png").is_file()
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title(loc="left") for ax in visible] == list(runs)


def test_plots_keep_the_users_matplotlib_backend(raw: dict[str, Any], tmp_path: Path) -> None:
    # A notebook's backend stays its own: importing the plots and drawing into a file change nothing.
    probe = (
        "import matplotlib\n"
        "matplotlib.use('svg')\n"
        "import ccarena.plots, ccarena.report, ccarena.experiment.report, ccarena.papers.reproduce\n"
        "print(matplotlib.get_backend())\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "svg"
    fig = plots.plot_goodput(RunResult(raw), tmp_path / "g.png")
    assert fig.canvas.manager is None  # not a pyplot figure: no backend was asked for one
