"""What `ccarena results`, `sweep` and `report` show a person: values in units, short run ids,
chosen columns, one sentence for an empty table, a note for grid points without values, and
every metric of the store reachable on the report page, with its figures per grid point."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import ccarena
from ccarena import Experiment, _format, open_store
from ccarena.cli import app
from ccarena.experiment.report import panel_axes, short_keys, write_report
from ccarena.experiment.result import RUN_METRICS
from ccarena.experiment.store import Store
from ccarena.experiment.tables import grid_table, interval_text

ROOT = Path(__file__).resolve().parents[1]
RENO_PAIR = ROOT / "scenarios" / "reno-pair.toml"
SHORT = ["duration=4s", "warmup=1s"]
KEYS = ["flows[0].cc", "topology.bottleneck_rate"]

runner = CliRunner()


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2 algorithms × 3 rates × 2 replications: the -3Mbps points fail, and the runs of
    cubic at 20Mbps are taken out of the store again, as if the sweep had been cut short."""
    root = tmp_path_factory.mktemp("pages")
    grid = {"flows[0].cc": ["reno", "cubic"], "topology.bottleneck_rate": ["10Mbps", "-3Mbps", "20Mbps"]}
    res = Experiment(RENO_PAIR, grid=grid, replications=2, overrides=SHORT, name="pages").run(root, jobs=1)
    for row in res.plan:
        if row["params"] == {"flows[0].cc": "cubic", "topology.bottleneck_rate": "20Mbps"}:
            shutil.rmtree(root / "runs" / row["key"])
    return root


@pytest.fixture(scope="module")
def res(store: Path) -> ccarena.ExperimentResult:
    return open_store(store)


def results(*args: str) -> tuple[int, list[str], str]:
    out = runner.invoke(app, ["results", *args])
    return out.exit_code, out.stdout.splitlines(), out.stderr


def test_results_shows_the_run_the_keys_and_the_main_flow_metrics(store: Path, res: ccarena.ExperimentResult) -> None:
    code, lines, err = results(str(store))
    assert code == 0, err
    assert lines[0].split() == [
        "run_id", "replication", *KEYS, "flow_id", "group", "goodput_bps", "throughput_bps", "dropped_pkts", "retransmitted_pkts", "delay_mean_s",
    ]
    rows = lines[2:]
    assert len(rows) == len(res.runs) == 2 * 6  # every row: 6 finished runs × 2 flows
    assert all(re.fullmatch(r"[0-9a-f]{8}", row.split()[0]) for row in rows)
    assert {row.split()[0] for row in rows} == {k[:8] for k in res.runs["run_id"]}
    assert all(" Mbit/s" in row and row.endswith(" ms") for row in rows)


@pytest.mark.parametrize(
    ("table", "columns"),
    [
        ("metrics", ["goodput_bps", "utilisation", "jain", "dropped_pkts", "mean_queue_pkts"]),
        ("links", ["link", "rate_bps", "utilisation", "dropped_pkts", "mean_queue_pkts", "max_queue_pkts"]),
        ("failures", ["error"]),
    ],
)
def test_each_table_shows_its_main_columns(store: Path, table: str, columns: list[str]) -> None:
    code, lines, err = results(str(store), "--table", table)
    assert code == 0, err
    assert lines[0].split() == ["run_id", "replication", *KEYS, *columns]


def test_summary_gives_each_point_and_metric_in_the_means_unit(store: Path, res: ccarena.ExperimentResult) -> None:
    code, lines, err = results(str(store), "--table", "summary")
    assert code == 0, err
    assert lines[0].split() == [*KEYS, "metric", "n", "mean", "ci_low", "ci_high"]
    assert len(lines) == 2 + 3 * len(RUN_METRICS)  # the three points with finished runs
    goodput = next(line for line in lines if " goodput_bps " in line)
    assert goodput.count("Mbit/s") == 3 and "e+06" not in goodput


def test_columns_choose_what_is_shown_and_all_shows_everything(store: Path, res: ccarena.ExperimentResult) -> None:
    code, lines, _ = results(str(store), "--columns", "run_id,delay_p95_s,goodput_bps")
    assert code == 0 and lines[0].split() == ["run_id", "delay_p95_s", "goodput_bps"]
    code, lines, _ = results(str(store), "--table", "metrics", "-c", "all")
    assert code == 0 and lines[0].split() == list(res.metrics.columns)


def test_an_unknown_column_is_one_line_listing_the_columns(store: Path) -> None:
    code, lines, err = results(str(store), "--columns", "run_id,goodput")
    assert code == 2 and lines == []
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("error: --columns: the runs table has no column 'goodput'; its columns: run_id, point,")
    assert "goodput_bps" in err


def test_an_empty_table_is_one_sentence(tmp_path: Path, store: Path) -> None:
    failing = Experiment(RENO_PAIR, grid={"topology.bottleneck_rate": ["-3Mbps"]}, replications=2, overrides=SHORT, name="broken")
    failing.run(tmp_path, jobs=1)
    for table in ("runs", "links", "metrics", "summary"):
        code, lines, err = results(str(tmp_path), "--table", table)
        assert code == 0, err
        assert lines == ["no runs stored yet: 2 failed (ccarena results STORE --table failures)"]
    ok = Experiment(RENO_PAIR, grid={"flows[0].cc": ["reno"]}, replications=1, overrides=SHORT, name="fine")
    ok.run(tmp_path / "ok", jobs=1)
    assert results(str(tmp_path / "ok"), "--table", "failures")[1] == ["no failed runs"]


def test_limit_says_how_many_rows_are_left(store: Path) -> None:
    code, lines, _ = results(str(store), "--limit", "3")
    assert code == 0 and len(lines) == 2 + 3 + 1
    assert lines[-1] == "... 9 more rows (12 in all; without --limit to see every one)"


def test_exports_stay_raw_and_complete(store: Path, res: ccarena.ExperimentResult) -> None:
    out = runner.invoke(app, ["results", str(store), "--format", "csv"])
    assert out.exit_code == 0
    back = pd.read_csv(io.StringIO(out.stdout))
    assert list(back.columns) == list(res.runs.columns) and set(back["run_id"]) == set(res.runs["run_id"])
    assert back["goodput_bps"].tolist() == pytest.approx(res.runs["goodput_bps"].tolist())
    code, _, err = results(str(store), "--format", "csv", "--limit", "2")
    assert code == 2 and "--limit: only for --format table" in err


def test_grid_points_without_values_say_why(res: ccarena.ExperimentResult) -> None:
    headers, rows, _ = grid_table(res, ["goodput_bps", "jain"])
    assert headers == [*KEYS, "n", "goodput_bps", "jain"]
    by_point = {tuple(r[:2]): r[2:] for r in rows}
    assert by_point[("reno", "-3Mbps")] == ["0/2", "no values: both runs failed"]
    assert by_point[("cubic", "20Mbps")] == ["0/2", "no values: not run yet"]
    assert by_point[("reno", "10Mbps")][0] == "2" and by_point[("reno", "10Mbps")][1].endswith(" Mbit/s")
    text = _format.text_table(headers, rows)
    assert "cubic        20Mbps                    0/2  no values: not run yet" in text


def test_text_table_notes_span_the_columns_they_replace() -> None:
    rows = [["x", "2", "1.00", "3"], ["y", "0", "no values: not run yet"]]
    text = _format.text_table(["a", "n", "value", "more"], rows, [False, True, True, True])
    assert text.splitlines() == ["a  n  value  more", "-  -  -----  ----", "x  2   1.00     3", "y  0  no values: not run yet"]


@pytest.mark.parametrize(
    ("metric", "mean", "low", "high", "text"),
    [
        ("goodput_bps", 9.651047e6, 9.650732e6, 9.651362e6, "9.65 ± 0.00032 Mbit/s"),  # narrow: the mean keeps its 2 decimals
        ("goodput_bps", 43.17e6, 39.43e6, 46.91e6, "43.2 ± 3.7 Mbit/s"),  # wide: the mean is rounded to the interval
        ("goodput_bps", 950e3, 900e3, 1000e3, "950 ± 50 kbit/s"),
        ("delay_mean_s", 0.0458, 0.0442, 0.0474, "45.8 ± 1.6 ms"),
        ("convergence_s", 6.57, 0.0, 16.39, "6.6 −6.6 +9.8 s"),
        ("jain", 0.9711, 0.9034, 1.0, "0.971 −0.068 +0.029"),
        ("dropped_pkts", 278.0, 278.0, 278.0, "278.0 ± 0"),
        ("jain", 0.5, float("nan"), float("nan"), "0.5000"),
        ("jain", float("nan"), float("nan"), float("nan"), "-"),
    ],
)
def test_interval_text_is_in_the_means_unit_with_two_significant_digits(
    metric: str, mean: float, low: float, high: float, text: str
) -> None:
    assert interval_text(metric, mean, low, high) == text


def test_short_keys_drop_the_table_unless_two_would_clash() -> None:
    assert short_keys(["flows[0].cc", "topology.queue.limit", "duration"]) == ["cc", "queue.limit", "duration"]
    assert short_keys(["flows[0].cc", "flows[1].cc", "flows[0].rtt"]) == ["flows[0].cc", "flows[1].cc", "rtt"]


def test_report_page_reaches_every_metric_and_notes_points_without_values(res: ccarena.ExperimentResult, tmp_path: Path) -> None:
    page = write_report(res, tmp_path / "report").read_text()
    summary = res.summary()
    with_values = [m for m in RUN_METRICS if summary[summary["metric"] == m]["mean"].notna().any()]
    assert with_values and len(with_values) < len(RUN_METRICS)  # jain_inter etc. are undefined here
    for m in with_values:  # a column of the first table or of the "more metrics" ones
        assert f'<th class="num" title="{m}: ' in page, m
    without = page[page.index("No value at any grid point"):]
    for m in RUN_METRICS:
        if m not in with_values:
            assert f"<code>{m}</code>" in without.split("</p>")[0], m
    assert "<details><summary>More metrics" in page
    for key in KEYS:
        assert f'<th title="{key}">' in page
    assert page.count('<td class="note" colspan="5">no values: both runs failed</td>') == 2
    assert page.count('<td class="note" colspan="5">no values: not run yet</td>') == 1
    assert re.search(r">[0-9.]+ ±\u00a0[0-9.]+\u00a0Mbit/s<", page)  # a number and its unit stay on one line


def _as_stored_without_delay_quantiles(store: Store, key: str) -> None:
    """Rewrite a stored run as a version that did not keep delay_quantiles wrote it."""
    info = {k: v for k, v in store.run_info(key).items() if k not in ("files", "checksum")}
    tables = {t: store.read_table(key, t) for t in ("flows", "links")}
    store.write_run(key, {t: df for t, df in tables.items() if df is not None}, info)


def test_report_page_shows_throughput_against_delay_and_the_delay_cdf(res: ccarena.ExperimentResult, tmp_path: Path) -> None:
    page = write_report(res, tmp_path / "report").read_text()
    for heading, png in (("Throughput and delay", "throughput_delay.png"), ("Delay distribution", "delay_cdf.png")):
        section = page[page.index(f"<h2>{heading}</h2>"):].split("<h2>")[1]
        assert f'<img src="{png}" alt="{heading} per grid point">' in section, heading
        assert "one panel per value of <code>topology.bottleneck_rate</code>" in section
        assert (tmp_path / "report" / png).read_bytes().startswith(b"\x89PNG")
    assert "a line per value of <code>flows[0].cc</code>" in page
    assert "Drawn from" not in page  # every finished run keeps its delays


def test_report_page_says_which_runs_keep_no_delay_distribution(store: Path, tmp_path: Path) -> None:
    shutil.copytree(store, tmp_path / "store")
    old = Store(tmp_path / "store")
    res = open_store(tmp_path / "store")
    keys = list(res.metrics["run_id"])
    for key in keys[:2]:
        _as_stored_without_delay_quantiles(old, key)
    page = write_report(open_store(tmp_path / "store"), tmp_path / "some").read_text()
    assert "Drawn from 4 of the 6 finished runs: the others have no delay distribution" in page
    for key in keys[2:]:
        _as_stored_without_delay_quantiles(old, key)
    page = write_report(open_store(tmp_path / "store"), tmp_path / "none").read_text()
    assert "<h2>Delay distribution</h2>\n<p class=\"sub\">Not drawn: no finished run has a delay distribution" in page
    assert "<code>ccarena sweep --force</code> recomputes them" in page
    assert not (tmp_path / "none" / "delay_cdf.png").exists()
    assert '<img src="throughput_delay.png"' in page  # drawn from the flows table, which every run has


def test_only_algorithms_varied_make_one_panel_with_a_line_each(tmp_path: Path) -> None:
    res = Experiment(RENO_PAIR, grid={"flows[0].cc": ["reno", "cubic"]}, replications=1, overrides=SHORT, name="algs").run(tmp_path, jobs=1)
    assert panel_axes(res) == (None, ["flows[0].cc"])
    fig = res.plot.delay_cdf()
    assert len([ax for ax in fig.axes if ax.get_visible()]) == 1
    assert {line.get_label() for line in fig.axes[0].get_lines()} == {"reno", "cubic"}
    page = write_report(res, tmp_path / "report").read_text()
    assert "summary plot, one panel: each algorithm" in page and "a colour per algorithm." in page
    assert '<img src="delay_cdf.png"' in page


def test_an_interval_of_rounding_noise_is_zero_and_two_digits_stay_two_at_a_power_of_ten() -> None:
    from ccarena.experiment.tables import interval_text

    # Three identical replications: their half-width is floating-point noise.
    assert interval_text("goodput_bps", 9.65e6, 9.65e6 - 3.7e-9, 9.65e6 + 3.7e-9) == "9.65 ± 0 Mbit/s"
    # Just under 10^-4 the width rounds up to it: two digits, not three.
    assert interval_text("jain", 0.5, 0.5 - 0.0000999999999, 0.5 + 0.0000999999999) == "0.5000 ± 0.00010"
    assert interval_text("goodput_bps", 9.65e6, 9.65e6 - 2700, 9.65e6 + 2700) == "9.65 ± 0.0027 Mbit/s"
