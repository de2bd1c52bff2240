"""Example scenarios, the bundled demo set and the demo report."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import ccarena
from ccarena.cli import app
from ccarena.demo import DEMO, demo_scenarios, parse_header, run_demo

REPO = Path(__file__).resolve().parent.parent
EXPERIMENTS = sorted((REPO / "scenarios" / "experiments").glob("*.toml"))
EXAMPLES = sorted(set((REPO / "scenarios").rglob("*.toml")) - set(EXPERIMENTS))


def test_header_gives_title_paragraphs_and_variants() -> None:
    text = """# The title
#
# First paragraph,
# continued.
#
# Second.
#
# variant a: flows[0].recovery=tahoe seed=2
# variant b-2: "name=two words"
name = "x"
# a comment after the header is not part of it
"""
    sc = parse_header("01-x.toml", text)
    assert sc.title == "The title"
    assert sc.paragraphs == ["First paragraph, continued.", "Second."]
    assert sc.variants == [("a", ["flows[0].recovery=tahoe", "seed=2"]), ("b-2", ["name=two words"])]
    assert sc.slug == "01-x"


def test_a_file_without_header_is_titled_by_its_name() -> None:
    sc = parse_header("plain.toml", 'name = "p"\n')
    assert (sc.title, sc.paragraphs, sc.variants) == ("plain.toml", [], [])


@pytest.mark.parametrize("path", EXAMPLES, ids=[str(p.relative_to(REPO)) for p in EXAMPLES])
def test_every_example_scenario_is_valid(path: Path) -> None:
    sc = parse_header(path.name, path.read_text())
    for _, overrides in sc.variants or [("", [])]:
        ccarena.validate(path, overrides=overrides)
    assert sc.paragraphs, f"{path.name}: explain the scenario in its leading comment"


@pytest.mark.parametrize("path", EXPERIMENTS, ids=[p.name for p in EXPERIMENTS])
def test_every_example_experiment_gives_valid_runs(path: Path) -> None:
    exp = ccarena.Experiment.from_toml(path)
    for spec in exp.runs():
        ccarena.validate(spec.scenario)
    assert parse_header(path.name, path.read_text()).paragraphs, f"{path.name}: explain it in its leading comment"


def test_demo_scenarios_have_titles() -> None:
    scs = demo_scenarios()
    assert [s.name.removesuffix(".toml") for s in scs] == list(DEMO)
    assert all(s.title and not s.title.endswith(".toml") for s in scs)


def test_quick_demo_writes_the_report(tmp_path: Path) -> None:
    index = run_demo(tmp_path / "demo", overrides=["duration=2s", "warmup=0s"])
    page = index.read_text()
    for sc in demo_scenarios():
        assert f'id="{sc.slug}"' in page
        for png in ("goodput", "cwnd", "queue"):
            assert (tmp_path / "demo" / sc.slug / f"{png}.png").is_file()


@pytest.mark.slow
def test_full_demo_from_the_command_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["demo", "-o", str(tmp_path / "demo")])
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "demo" / "index.html").is_file()


def test_per_algorithm_variants_cover_every_tcp_algorithm() -> None:
    sc = parse_header("w.toml", "# W\n#\n# text\n#\n# variants per algorithm: flows[0].cc\n")
    names = [a.name for a in ccarena.algorithms() if a.protocol == "tcp"]
    assert sc.variants == [(n, [f"flows[0].cc={n}"]) for n in names]
    assert "reno" in names


# --- the report page: long tables folded, many flows drawn by group, Jain only where it compares ---


def _section(tmp_path: Path, tiny_text: str, count: int, variants: str = "") -> str:
    from ccarena.demo import DemoRun
    from ccarena.report import render_section

    text = f"# {count} flows\n#\n# Reno flows on a tiny dumbbell.\n{variants}" + tiny_text.replace("count = 2", f"count = {count}")
    sc = parse_header("tiny.toml", text)
    results = {v: ccarena.run(text, overrides=o) for v, o in sc.variants or [("", [])]}
    return render_section(DemoRun(sc, results), tmp_path)


def test_a_many_flow_run_folds_its_flows_and_draws_groups(tmp_path: Path, tiny_text: str) -> None:
    html = _section(tmp_path, tiny_text, 12)
    # the group row is shown, the twelve flows wait in a <details>
    assert "<td>reno</td><td>reno/sack</td><td class=\"num\">12</td>" in html
    details = html[html.index("<details><summary>All 12 flows, one row each</summary>"):]
    assert details.split("</details>")[0].count("<tr>") == 1 + 12
    assert "moving average over 5 sample intervals (0.5 s)" in html  # the group figure's caption
    assert 'class="jain"' in html
    for png in ("goodput", "cwnd", "queue", "throughput_delay", "delay_cdf"):
        assert (tmp_path / "tiny" / f"{png}.png").stat().st_size > 10_000
        assert f'<img src="tiny/{png}.png"' in html
    assert "CDF of one-way delay per flow group: the packets its main flows delivered" in html
    assert "a colour and marker per algorithm." in html


def test_the_delay_figures_overlay_a_few_flows_and_one_group_per_variant(tmp_path: Path, tiny_text: str) -> None:
    two = _section(tmp_path / "two", tiny_text, 2)
    assert "packets delivered after the warm-up, a line per flow." in two
    # one group per run: a line per variant in one plot, and the variants' colours apart in throughput-delay
    variants = "#\n# variant a: seed=1\n# variant b: seed=2\n"
    html = _section(tmp_path / "variants", tiny_text, 12, variants)
    assert "CDF of one-way delay of each variant&#39;s main flows" in html
    assert "a colour and marker per algorithm and variant." in html
    for png in ("throughput_delay", "delay_cdf"):
        assert (tmp_path / "variants" / "tiny" / f"{png}.png").stat().st_size > 10_000


def test_throughput_delay_names_flows_by_group_where_a_run_has_several() -> None:
    from ccarena.report import figures

    text = (REPO / "scenarios" / "reno-rtt.toml").read_text()
    res = ccarena.run(text, overrides=["duration=3s", "warmup=1s"])
    names, what = figures.point_names({"": res})
    assert names[""].tolist() == ["rtt-40ms", "rtt-80ms"] and what == "flow group"
    names, what = figures.point_names({"a": res, "b": res})
    assert names["b"].tolist() == ["rtt-40ms, b", "rtt-80ms, b"] and what == "flow group and variant"
    fig = figures.throughput_delay({"": res})
    assert sorted(t.get_text() for t in fig.axes[0].get_legend().get_texts()) == ["rtt-40ms", "rtt-80ms"]


def test_a_run_without_one_way_delays_has_no_delay_figures(tmp_path: Path, tiny_text: str) -> None:
    from ccarena.demo import DemoRun
    from ccarena.report import render_section

    # the flows start too late to deliver data before the end: no delay is measured
    text = f"# Too late\n#\n# Nothing measured.\n{tiny_text}"
    sc = parse_header("tiny.toml", text)
    res = ccarena.run(text, overrides=["warmup=2.95s", "flows[0].start=2.96s"])
    assert res.delay_quantiles["delay_s"].isna().all()
    html = render_section(DemoRun(sc, {"": res}), tmp_path)
    assert "throughput_delay.png" not in html and "delay_cdf.png" not in html
    assert 'src="tiny/queue.png"' in html
    # beside a variant that measured delays, it is named under the CDF
    html = render_section(DemoRun(sc, {"early": ccarena.run(text), "late": res}), tmp_path / "two")
    assert 'src="tiny/delay_cdf.png"' in html and "Not shown: late, with no packet delivered after the warm-up." in html


def test_a_few_flows_are_shown_whole_and_one_flow_has_no_jain(tmp_path: Path, tiny_text: str) -> None:
    two = _section(tmp_path / "two", tiny_text, 2)
    assert "<details><summary>All" not in two and 'class="jain"' in two
    one = _section(tmp_path / "one", tiny_text, 1)
    assert "Jain" not in one
    variants = "#\n# variant a: seed=1\n# variant b: seed=2\n"
    assert "Jain" not in _section(tmp_path / "variants", tiny_text, 1, variants)


def test_a_long_table_of_single_flow_groups_shows_its_first_rows(tiny_text: str) -> None:
    from ccarena import _format
    from ccarena.report.html import ROWS_SHOWN, flow_block

    res = ccarena.run(tiny_text.replace("count = 2", "count = 1"))
    record = res._main_flow_records()[0]
    records = [{**record, "id": i, "group": f"g{i}"} for i in range(ROWS_SHOWN + 3)]
    block = flow_block(_format.flow_table(records), _format.group_table(records))
    assert len(block.shown[1]) == ROWS_SHOWN and block.rest is not None and len(block.rest[1]) == 3
    assert block.summary == "3 more flows"


def test_goodput_caption_explains_intervals_above_the_link_rate(tmp_path: Path) -> None:
    from ccarena.demo import DemoRun
    from ccarena.report import render_section

    # a burst of in-order delivery once the three losses are repaired, as the demo shows it
    text = (REPO / "scenarios" / "recovery-compare.toml").read_text()
    sc = parse_header("recovery-compare.toml", text)
    results = {v: ccarena.run(text, overrides=o) for v, o in sc.variants[:2]}
    html = render_section(DemoRun(sc, results), tmp_path)
    assert "above the 10.00 Mbit/s bottleneck: goodput counts payload delivered in order" in html
