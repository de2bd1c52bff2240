"""Paper reproductions: the transcribed data has the paper's shape, every paper runs at smoke scale
and its page shows every table and every claim's measurement (verdicts only from quick scale on),
and a reproduction ends with its claims tally."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ccarena import ExperimentError
from ccarena.papers import dccp_voip, e1_testbed, fast_dccp, highspeed_tcp, paper, papers, sqm_response
from ccarena.papers.reproduce import Tally, run_paper, total_line

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"


def test_five_seed_papers_are_listed_in_seed_order() -> None:
    names = list(papers())
    assert names == ["dccp-voip", "e1-testbed", "fast-dccp", "highspeed-tcp", "sqm-response"]
    with pytest.raises(ExperimentError, match="no paper 'nope'"):
        paper("nope")


def test_grid_durations_key_rows_in_whole_milliseconds() -> None:
    from ccarena.papers.model import duration_ms

    assert [duration_ms(v) for v in ("25ms", "0.2s", "100000us", "1min")] == [25, 200, 100, 60000]
    with pytest.raises(ValueError, match="unit"):
        duration_ms("25")


def test_dccp_voip_tables_have_the_printed_shape() -> None:
    # Tables 1-6: each pair of protocols at 25, 50 and 100 ms, five metrics, each with a CI
    assert sorted(dccp_voip.TABLES) == [1, 2, 3, 4, 5, 6]
    for n, table in dccp_voip.TABLES.items():
        frame = table.frame()
        assert frame.shape == (6, 2 + 5), n
        assert sorted(set(frame["rtt_ms"])) == [25, 50, 100]
        assert set(frame["protocol"]) == set(dccp_voip.PAIRS[n])
        assert set(table.ci) == set(table.rows)
    t1 = dccp_voip.TABLES[1].rows
    assert t1[(25, "DCCP CCID2")]["delivery_pct"] == 98.25 and t1[(100, "CUBIC")]["dropped_pkts"] == 1557.43
    # delivery in percent, delays in seconds, throughput in kbit/s: sane ranges for every cell
    for table in dccp_voip.TABLES.values():
        for values in table.rows.values():
            assert 89 < values["delivery_pct"] <= 100 and 0 < values["delay_s"] < 1 and 1 < values["throughput_kbps"] < 40


def test_sqm_response_table_1_matches_its_own_gains() -> None:
    # the paper's gains (24% shorter, 30.5% faster) follow from the transcribed cells
    rows = sqm_response.TABLE_1.rows
    shorter = 1 - rows[("with",)]["duration_s"] / rows[("without",)]["duration_s"]
    faster = rows[("with",)]["rate_kbps"] / rows[("without",)]["rate_kbps"] - 1
    assert shorter == pytest.approx(0.24, abs=0.005) and faster == pytest.approx(0.305, abs=0.001)
    util = sqm_response.UTILISATION.rows
    assert util[("with",)]["r1_r2_kbps"] / util[("without",)]["r1_r2_kbps"] - 1 == pytest.approx(0.1869, abs=0.0001)


def test_e1_testbed_jain_values_are_indices() -> None:
    frame = e1_testbed.JAIN.frame()
    assert frame.shape == (4, 3) and frame["jain"].between(0.5, 1.0).all()


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the seed papers are not next to this checkout")
def test_transcribed_numbers_appear_in_the_papers() -> None:
    """Every number of a transcribed table is printed in its paper (decimal comma or point; a
    value in seconds may be printed in milliseconds)."""
    texts = {p.name[:3]: p.read_text(encoding="utf-8") for p in SEEDS.glob("*.txt")}
    for pap in papers().values():
        raw = texts[pap.seed]
        text = raw + "\n" + raw.replace(".", "").replace(",", ".")  # decimal points, or commas
        for table in pap.tables:
            for values in table.rows.values():
                for v in values.values():
                    shown = [f"{x:.4f}".rstrip("0").rstrip(".") for x in (v, v * 1000)]
                    found = any(re.search(rf"(?<![\d.]){re.escape(x)}0*(?![\d])", text) for x in shown)
                    assert found, f"{pap.name} {table.id}: {v}"


def test_highspeed_tcp_tables_have_the_printed_shape() -> None:
    # Tabela 4.1: 7 protocols × 3 loads; 4.2: 7 × 3 rows of (mean, cv, Jain); 4.3: 8 protocols + 2 Jain rows
    assert highspeed_tcp.TABLE_4_1.frame().shape == (7, 4)
    t42 = highspeed_tcp.TABLE_4_2.frame()
    assert t42.shape == (21, 5) and t42["jain"].between(0.7, 1).all()
    t43 = highspeed_tcp.TABLE_4_3.frame()
    assert t43.shape == (10, 4) and list(t43["protocol"][-2:]) == ["Jain", "Jain*"]
    assert {p for (p,) in highspeed_tcp.TABLE_4_1.rows} == set(highspeed_tcp.ALGORITHMS)
    # Tabela 4.4: 7 protocols and their mean; 90 and 180 ms groups at three loads; its "Média" row
    # is the mean of the protocols' rows, as printed
    t44 = highspeed_tcp.TABLE_4_4.frame()
    assert t44.shape == (8, 7)
    assert t44.iloc[:7, 1:].mean().to_numpy() == pytest.approx(t44.iloc[7, 1:].to_numpy(dtype=float), abs=0.01)
    # Tabela 4.5: the same shape; its "Média" row is also the protocols' mean
    t45 = highspeed_tcp.TABLE_4_5.frame()
    assert t45.shape == (8, 7)
    assert t45.iloc[:7, 1:].mean().to_numpy() == pytest.approx(t45.iloc[7, 1:].to_numpy(dtype=float), abs=0.01)


def test_fast_dccp_tables_have_the_printed_shape() -> None:
    for table in (fast_dccp.TABLE_I, fast_dccp.TABLE_II):
        frame = table.frame()
        assert frame.shape == (2, 4) and list(frame["connection"]) == ["TCP-1", "TCP-2"]
        # the paper's point: Reno keeps less against FAST DCCP (TCP-2) than against Reno (TCP-1)
        assert (frame.iloc[1, 1:] < frame.iloc[0, 1:]).all()


SMOKE_SAYS = "smoke scale checks that the reproduction runs; it cannot check claims — use quick or full"


@pytest.mark.parametrize("name", ["dccp-voip", "e1-testbed", "fast-dccp", "highspeed-tcp", "sqm-response"])
def test_smoke_scale_writes_a_page_with_every_table_and_every_claim_without_a_verdict(name: str, tmp_path: Path) -> None:
    from markupsafe import escape

    pap = paper(name)
    tally = run_paper(pap, "smoke", tmp_path / name, jobs=2, progress=False)
    page = tally.page.read_text(encoding="utf-8")
    for table in pap.tables:
        assert f"{table.id}:" in page
    # Smoke runs are too short and too few to test a claim: each is shown, with what was
    # measured, but nothing reads as a verdict, and the page says why.
    assert not re.findall(r"✔|✘|claims reproduced", page)
    assert page.count("not checked at smoke scale") == len(pap.claims)
    assert all(escape(claim.text) in page for claim in pap.claims)
    assert str(escape(SMOKE_SAYS)) in page
    assert tally.reproduced is None and tally.claims == len(pap.claims)
    summary = json.loads((tmp_path / name / "summary.json").read_text(encoding="utf-8"))
    assert summary["scale"] == "smoke" and summary["reproduced"] is None and summary["claims"] == len(pap.claims)
    for fig in pap.figures:
        assert fig.id in page
    assert all(p.stat().st_size > 5_000 for p in (tmp_path / name).glob("*.png"))
    if name == "e1-testbed":  # the kernel half: a kernel-vs-simulator table, or the reason it was skipped
        assert "On the Linux kernel" in page and ("<th>kernel</th>" in page or "Skipped:" in page)


def test_only_quick_and_full_check_claims() -> None:
    from ccarena.papers.model import Claim, Verdict, checks_claims

    assert [s for s in ("smoke", "quick", "full") if checks_claims(s)] == ["quick", "full"]
    with pytest.raises(ValueError, match="stable_at 'smoke': a scale that checks claims is one of quick, full"):
        Claim("c", "text", "§1", lambda _results: Verdict(True, ""), stable_at="smoke")


def test_the_tally_says_how_many_claims_were_reproduced_or_why_none_were_checked() -> None:
    page = Path("out/sqm-response/index.html")
    checked = Tally("sqm-response", "quick", page, claims=4, reproduced=3, finished=40, failed=0)
    assert checked.line() == f"sqm-response: 3 of 4 claims reproduced, 1 not (see {page})"
    broken = Tally("fast-dccp", "full", page, claims=5, reproduced=5, finished=348, failed=2)
    assert broken.line() == f"fast-dccp: 5 of 5 claims reproduced, 0 not; 2 of 350 runs failed (see {page})"
    assert total_line([checked, broken]) == "total: 8 of 9 claims reproduced, 1 not (2 papers, 390 runs, 2 failed)"
    smoke = Tally("sqm-response", "smoke", page, claims=4, reproduced=None, finished=4, failed=0)
    assert smoke.line() == f"sqm-response: 4 claims not checked at smoke scale (see {page})"
    assert total_line([smoke]) == f"total: {SMOKE_SAYS} (1 paper, 4 runs, 0 failed)"


def test_a_small_reproduction_ends_with_its_claims_tally(tiny_text: str, tmp_path: Path) -> None:
    # A paper of one tiny experiment and two claims, one that holds and one that cannot.
    import dataclasses

    from ccarena.experiment import Experiment
    from ccarena.papers.model import Claim, Verdict

    def goodput(results):  # type: ignore[no-untyped-def]
        return float(results["tiny"].runs["goodput_bytes"].sum())

    claims = (
        Claim("moves", "Bytes get through.", "§1", lambda r: Verdict(goodput(r) > 0, f"{goodput(r):.0f} B"), "quick"),
        Claim("free", "Nothing is ever delivered.", "§2", lambda r: Verdict(goodput(r) == 0, f"{goodput(r):.0f} B")),
    )
    fake = dataclasses.replace(
        paper("sqm-response"), name="tiny-paper", claims=claims, tables=(), figures=(), series=(), sections=(),
        experiments=lambda scale: {"tiny": Experiment(tiny_text, replications=2, name="tiny")},
    )
    tally = run_paper(fake, "quick", tmp_path / "tiny-paper", jobs=1, progress=False)
    assert tally.line() == f"tiny-paper: 1 of 2 claims reproduced, 1 not (see {tmp_path / 'tiny-paper' / 'index.html'})"
    page = tally.page.read_text(encoding="utf-8")
    assert page.count("✔ reproduced") == 1 and page.count("✘ not reproduced") == 1 and "1 of 2 claims reproduced, 1 not" in page
    assert total_line([tally]) == "total: 1 of 2 claims reproduced, 1 not (1 paper, 2 runs, 0 failed)"


def test_the_cli_offers_every_scale_a_paper_knows() -> None:
    # The command line lists the scales itself, so that `--help` need not load pandas.
    from typing import get_args

    from ccarena.cli_reproduce import SCALES
    from ccarena.papers.model import Scale

    assert SCALES == get_args(Scale)


@pytest.mark.parametrize("scale", ["smoke", "quick", "full"])
def test_every_run_of_every_scale_is_a_valid_scenario(scale: str) -> None:
    # Smoke runs only a corner of each grid: the points of the larger scales (a group switched
    # from TCP to DCCP, a capacity of 10 Gbit/s) must validate too.
    import ccarena

    for pap in map(paper, papers()):
        for _name, exp in pap.experiments(scale).items():
            for spec in exp.runs()[:: max(1, len(exp.runs()) // 200)]:
                ccarena.validate(spec.scenario)


#: The verdicts at `quick` of the claims marked stable there (True = reproduced). A ✘ here is a
#: documented discrepancy, explained on the paper's page; a change of any verdict fails the test.
QUICK_VERDICTS = {
    "sqm-response": {"shorter-transfer": True, "faster-rate": True, "fast-notification": True},
    "dccp-voip": {
        "t1-dropped_pkts-cubic": True, "t1-delivery_pct-ccid2": True, "t2-delivery_pct-ctcp": True,
        "t3-throughput_kbps-ccid2": False, "t4-ccid3-below-ccid2": True, "ccid3-falls-with-rtt": True,
        "ccid3-delivers": True,
    },
    "e1-testbed": {"inter-fairness": False, "rtt-fairness": False, "cubic-rtt": True},
    "highspeed-tcp": {"delay-hurts": True},
    "fast-dccp": {
        "scales-with-capacity": True, "dccp-does-not": False, "scales-with-connections": True,
        "not-reno-compatible": True, "less-compatible-than-dccp": True,
    },
}


def verdict(page: str, claim_text: str) -> bool:
    """The verdict printed on a paper's page for a claim: the last one before its text."""
    from markupsafe import escape  # as the page's template escapes it

    before = page.split(escape(claim_text))[0]
    return before.rfind("✔ reproduced") > before.rfind("✘ not reproduced")


def check_quick_verdicts(name: str, tmp_path: Path) -> None:
    pap = paper(name)
    page = run_paper(pap, "quick", tmp_path / name, jobs=2, progress=False).page.read_text(encoding="utf-8")
    stable = {c.id: verdict(page, c.text) for c in pap.claims if c.stable_at == "quick"}
    assert stable == QUICK_VERDICTS[name]


def test_quick_scale_gives_the_recorded_verdicts_of_the_claims_stable_there(tmp_path: Path) -> None:
    # sqm-response's quick scale takes seconds: it runs with every `make test`.
    check_quick_verdicts("sqm-response", tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["dccp-voip", "e1-testbed", "fast-dccp", "highspeed-tcp"])
def test_quick_scale_verdicts_of_the_longer_papers(name: str, tmp_path: Path) -> None:
    # Minutes each (highspeed-tcp about 25): `pytest -m slow`.
    check_quick_verdicts(name, tmp_path)


def test_cli_list_dry_run_and_errors(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "ccarena.cli", "reproduce", *args], capture_output=True, text=True, timeout=300, env=env)

    listed = cli("--list")
    assert listed.returncode == 0 and "sqm-response" in listed.stdout and "004" in listed.stdout
    for _ in range(2):  # the second from the cache: the same numbers
        dry = cli("sqm-response", "--scale", "smoke", "--dry-run")
        assert dry.returncode == 0, dry.stderr
        lines = dry.stdout.strip().splitlines()
        assert re.fullmatch(r"sqm-response at scale smoke: 4 runs, about \d\.\d\d s of CPU \(\d\.\d\d s on \d+ cores\)", lines[0]), lines
        assert re.fullmatch(r"  ftp: 2 runs, about \d\.\d\d s of CPU", lines[1]), lines
        assert re.fullmatch(r"total: 4 runs, about 0\.00 CPU-hours \(\d\.\d\d s of CPU\) at scale smoke: about \d\.\d\d s on \d+ cores", lines[3]), lines
        assert lines[4].startswith("4 of 4 grid points priced by the cost model")
        if _ == 0:
            first = lines
    assert lines == first
    assert cli("sqm-response", "--calibrate").returncode == 2
    bad = cli("nope", "-o", str(tmp_path))
    assert bad.returncode == 2 and "no paper 'nope'" in bad.stderr
    assert cli("sqm-response", "--scale", "huge").returncode == 2


def test_cli_ends_a_smoke_reproduction_with_what_it_could_not_check(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "ccarena.cli", "reproduce", "sqm-response", "--scale", "smoke", "-o", str(tmp_path), "--no-progress"],
        capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        f"sqm-response: 4 claims not checked at smoke scale (see {tmp_path / 'sqm-response' / 'index.html'})",
        f"total: {SMOKE_SAYS} (1 paper, 4 runs, 0 failed)",
    ]
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "not checked at smoke scale" in index and "/ 4" not in index


def test_cpu_times_read_in_seconds_minutes_or_hours() -> None:
    from ccarena._format import span

    assert [span(x) for x in (0.042, 75, 930, 61_596)] == ["0.04 s", "75 s", "15.5 min", "17.1 h"]


def test_sqm_response_gives_no_gain_where_a_smoke_run_ends_before_the_transfer(tmp_path: Path) -> None:
    # 30 s smoke runs end before the 5 MB transfer does: no duration, no rate, so no gain; the
    # page says why instead of printing "+nan%"
    page = run_paper(paper("sqm-response"), "smoke", tmp_path, jobs=2, progress=False).page.read_text(encoding="utf-8")
    assert not re.search(r"\bnan\b", page, re.I)
    for measured in ("5 MB transfer time with – s, without – s", "mean transfer rate with – kbit/s, without – kbit/s"):
        assert f"{measured}, no gain: the 5 MB transfer did not finish within the run with or without SQM-Response" in page
    assert re.search(r"R1→R2 rate with [\d,]+ kbit/s, without [\d,]+ kbit/s: [+-]\d+\.\d%", page)


def test_sqm_response_names_the_side_without_a_value(monkeypatch: pytest.MonkeyPatch) -> None:
    from ccarena.papers.model import Estimate

    def means(with_s: float, without_s: float) -> None:
        est = {("with",): {"duration_s": Estimate.of([with_s])}, ("without",): {"duration_s": Estimate.of([without_s])}}
        monkeypatch.setattr(sqm_response, "ours", lambda _results, _table: est)

    means(58.0, float("nan"))
    assert sqm_response._gain({}, sqm_response.TABLE_1, "duration_s", True)[2] == (
        "with 58.00 s, without – s, no gain: the 5 MB transfer did not finish within the run without SQM-Response")
    means(58.0, 76.0)
    assert sqm_response._gain({}, sqm_response.TABLE_1, "duration_s", True)[2] == "with 58.00 s, without 76.00 s: +23.7%"
