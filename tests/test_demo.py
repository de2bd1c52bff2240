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
