"""The fidelity suite: its verdict logic on hand-made values, and `ccarena fidelity` writing the
pages from real ns-2 runs (skipped where ns-2 is not installed)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from ccarena.fidelity import rows
from ccarena.fidelity.causes import cause
from ccarena.fidelity.run import RowResult, within
from ccarena.fidelity.suite import PEER_CC_KEYS, PEER_TCP_KEYS, TOLERANCES
from ccarena.peers import ns2

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(("metric", "value", "reference", "ok"), [
    ("aggregate goodput", 9.70e6, 9.99e6, True),    # 2.9 %
    ("aggregate goodput", 9.60e6, 9.99e6, False),   # 3.9 %
    ("Jain's index", 0.951, 1.0, True),
    ("Jain's index", 0.949, 1.0, False),
    ("drops", 19.0, 10.0, True),                    # 90 % but within 10 packets
    ("drops", 160.0, 120.0, False),                 # 33 %
    ("retransmissions", 149.0, 120.0, True),        # 24 %
    ("share", math.nan, 0.5, None),                 # not measured: not compared
])
def test_tolerances_are_the_stated_ones(metric: str, value: float, reference: float, ok: bool | None) -> None:
    assert within(metric, value, reference) is ok


def test_a_row_is_judged_against_the_simulator_on_the_peer_s_own_version() -> None:
    row = RowResult(rows("reno")[0])
    ref = dict.fromkeys(TOLERANCES, 1.0)
    row.values = {"sim:ns3": ref, "ns3": {**ref, "Jain's index": 0.9}, "sim:ns2": ref, "ns2": ref}
    assert row.verdict("ns2") == (True, [])
    assert row.verdict("ns3") == (False, ["Jain's index"])
    assert row.verdict("kernel") is None


def test_every_peer_version_differs_only_in_the_keys_it_needs() -> None:
    for row in rows():
        base = row.case.build(row.cc)
        for peer, keys in PEER_TCP_KEYS.items():
            doc = row.scenario(peer)
            for g, group in enumerate(doc["flows"]):
                extra = PEER_CC_KEYS.get(peer, {}).get(group["cc"], {})
                expected = {**base["flows"][g], **({**keys, **extra} if group["protocol"] == "tcp" else {})}
                assert group == expected
    names = {(r.cc, r.case.name) for r in rows()}
    assert ("reno", "vs-reno") not in names and ("ccid2", "random-loss") not in names and ("bbr", "red") not in names


@pytest.mark.skipif(ns2.available() is not None, reason=ns2.available() or "")
def test_the_command_writes_the_three_pages(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "ccarena", "fidelity", "--only", "one-flow", "--backends", "ns2",
                          "--duration", "5s", "-n", "1", "-o", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    data = json.loads((tmp_path / "fidelity.json").read_text())
    ran = {r["cc"] for r in data["rows"] if "ns2" in r["values"]}
    refused = {r["cc"] for r in data["rows"] if "ns2" in r["skipped"]}
    assert {"reno", "cubic@linux-2.6.22", "bic", "vegas"} <= ran and {"bbr", "cubic"} <= refused
    page = (tmp_path / "fidelity.md").read_text()
    assert "| reno | one-flow |" in page and "## Rows no peer runs" not in page.split("## Rows")[0]
    assert "bbr / one-flow: ns-2.35: flows[0].cc: 'bbr' is not in ns-2.35" in page
    html = (tmp_path / "fidelity.html").read_text()
    assert html.startswith("<!doctype html>") and "reno" in html


def test_unknown_names_are_refused_in_one_line() -> None:
    for args, message in ((["--only", "nope"], "error: --only: 'nope' is no algorithm or case of the suite"),
                          (["--only", "reno,nope"], "error: --only: 'nope' is no algorithm or case of the suite"),
                          (["--backends", "ns9"], "error: --backends: unknown backend 'ns9' (allowed: sim, ns2, ns3, kernel)"),
                          (["--merge"], "error: --merge: name the rows to re-run with --only (without it the whole suite is run and written)")):
        out = subprocess.run([sys.executable, "-m", "ccarena", "fidelity", *args], capture_output=True, text=True, timeout=60)
        assert out.returncode == 2 and out.stderr.strip() == message


def test_the_committed_page_is_the_current_suite_s() -> None:
    """docs/fidelity.md is regenerated, not written: its rows and tolerances are the suite's
    (regenerate with `ccarena fidelity -o docs` after changing the suite)."""
    data = json.loads((REPO / "docs" / "fidelity.json").read_text())
    assert [r["row"] for r in data["rows"]] == [r.key for r in rows()]
    page = (REPO / "docs" / "fidelity.md").read_text()
    from ccarena.fidelity.page import _tolerance_text

    for line in _tolerance_text():
        assert f"- {line}" in page


def test_merging_re_run_rows_keeps_every_other_row_as_it_was(tmp_path: Path) -> None:
    """`--merge` puts re-run rows in place of the table's own and reads the others back unchanged;
    a table run otherwise, or one that lacks a row, is refused in one line."""
    from ccarena.errors import ScenarioError
    from ccarena.fidelity import merge_base, merged

    table = json.loads((REPO / "docs" / "fidelity.json").read_text())
    (tmp_path / "fidelity.json").write_text(json.dumps(table))
    meta = {"replications": table["meta"]["replications"], "duration": None}
    target = rows("reno")[0]
    kept = merge_base(tmp_path, meta, [target.key], ["sim", "ns2", "ns3"])
    fresh = RowResult(target, values={"ns2": dict.fromkeys(TOLERANCES, 2.0)})
    out = merged(kept, [fresh])
    assert [r.row.key for r in out] == [r.key for r in rows()]
    assert out[[r.row.key for r in out].index(target.key)] is fresh
    assert [r.to_dict() for r in out if r is not fresh] == [r for r in table["rows"] if r["row"] != target.key]

    refusals = [
        ({**meta, "replications": 2}, ["sim", "ns2", "ns3"], "was run with replications = 5, this run with 2: run both alike"),
        (meta, ["sim", "ns2"], "compares with ns2, ns3, this run with ns2: run both alike"),
    ]
    for bad_meta, peers, message in refusals:
        with pytest.raises(ScenarioError, match=f"^--merge: .*fidelity.json {message}$"):
            merge_base(tmp_path, bad_meta, [], peers)
    table["rows"] = [r for r in table["rows"] if r["row"] != target.key]
    (tmp_path / "fidelity.json").write_text(json.dumps(table))
    with pytest.raises(ScenarioError, match=r"has no row 'reno / one-flow': re-run it too \(--only reno\)$"):
        merge_base(tmp_path, meta, [], ["sim", "ns2", "ns3"])
    assert merge_base(tmp_path, meta, [target.key], ["sim", "ns2", "ns3"])


def _with_runs(jain_sim: list[float], jain_peer: list[float]) -> RowResult:
    row = RowResult(rows("reno")[1])
    base = dict.fromkeys(TOLERANCES, 1.0)
    row.runs = {"sim:ns2": [{**base, "Jain's index": j} for j in jain_sim], "ns2": [{**base, "Jain's index": j} for j in jain_peer]}
    row.values = {k: {**base, "Jain's index": sum(r["Jain's index"] for r in runs) / len(runs)} for k, runs in row.runs.items()}
    return row


def test_a_difference_within_the_seeds_spread_is_named_as_such_and_a_real_one_is_not() -> None:
    noisy = _with_runs([0.99, 0.90, 0.97, 0.85, 0.99], [0.80, 0.97, 0.88, 0.96, 0.83])
    assert noisy.verdict("ns2") == (False, ["Jain's index"])
    sentence = cause("ns2", noisy, ["Jain's index"])
    assert sentence.startswith("within seed-to-seed variation over 5 seeds: Jain's index 0.850..0.990 on ccarena, "
                               "0.800..0.970 on ns-2.35 (Welch's t-test p = 0.")
    apart = _with_runs([0.99, 0.98, 0.99, 0.99, 0.98], [0.80, 0.82, 0.81, 0.79, 0.83])
    assert cause("ns2", apart, ["Jain's index"]).endswith("the cause is not yet known.")
    too_few = _with_runs([0.99, 0.90], [0.80, 0.97])
    assert cause("ns2", too_few, ["Jain's index"]).endswith("the cause is not yet known.")


def test_only_takes_several_names() -> None:
    both = rows("ledbat,two-flows")
    assert {r.key for r in rows("ledbat")} <= {r.key for r in both}
    assert {r.key for r in rows("two-flows")} <= {r.key for r in both}
    assert len(both) == len({r.key for r in both}), "a row matched twice is run once"
