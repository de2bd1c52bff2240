"""What independent fuzzing found, one test per finding, and a table of the public API against
arguments of the wrong kind: each call succeeds or raises a ccarena.Error, never anything else."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pandas as pd
import pytest
from click.testing import CliRunner

import ccarena
from ccarena import api, demo, metrics, scenario
from ccarena.cli import app
from ccarena.errors import ArgumentError, OutputError, ScenarioError, TestbedError

ROOT = Path(__file__).resolve().parents[1]
RENO = ROOT / "scenarios" / "reno-pair.toml"
BBR_VS_CUBIC = ROOT / "scenarios" / "bbr-vs-cubic.toml"
runner = CliRunner()


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in stderr, stderr[-2000:]
    return lines[0]


# --- 1. API misuse -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"series": "no"}, ArgumentError, "series: expected True or False, not 'no'"),
        ({"progress": 1}, ArgumentError, "progress: expected True or False, not 1"),
        ({"pcap": 123}, ArgumentError, "pcap: expected a directory path (a str or a Path), not int"),
        ({"pcap": b"dir"}, ArgumentError, "pcap: expected a directory path (a str or a Path), not bytes"),
        ({"pcap": "tmp", "pcap_links": [5]}, ArgumentError, "pcap_links: 5 is not a link name"),
        ({"algorithms": 5}, ArgumentError, "algorithms: expected a dict of names to CongestionControl subclasses, not int"),
        ({"overrides": ['flows[0].cc="py:..x"']}, ScenarioError, 'flows[0].cc: "py:..x" names no class: expected "py:module.Class"'),
        ({"overrides": ['flows[0].cc="py:os..path"']}, ScenarioError, '"py:os..path" names no class'),
        ({"overrides": ['flows[0].cc="py:a-b.C"']}, ScenarioError, '"py:a-b.C" names no class'),
    ],
)
def test_run_refuses_arguments_of_the_wrong_kind(kwargs: dict[str, Any], error: type, message: str, tmp_path: Path) -> None:
    if "pcap" in kwargs and kwargs["pcap"] == "tmp":
        kwargs["pcap"] = tmp_path / "captures"
    with pytest.raises(error) as info:
        ccarena.run(RENO, **kwargs)
    assert message in str(info.value) and "\n" not in str(info.value)
    assert not (tmp_path / "captures").exists()


def test_a_python_cc_module_that_fails_to_import_is_a_scenario_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "broken_cc.py").write_text("raise ValueError('half-written module')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ScenarioError, match=r"importing 'broken_cc' failed: ValueError: half-written module"):
        ccarena.run(RENO, overrides=['flows[0].cc="py:broken_cc.Mine"'])


def test_an_empty_pcap_directory_is_refused_instead_of_the_current_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ArgumentError, match="pcap: the directory name is empty"):
        ccarena.run(RENO, pcap="")
    res = runner.invoke(app, ["run", str(RENO), "--pcap", ""])
    assert res.exit_code == 2 and "'--pcap': the path is empty" in one_line(res.stderr)
    assert os.listdir(tmp_path) == []


def test_a_binary_experiment_file_is_not_a_toml_file() -> None:
    with pytest.raises(ccarena.ExperimentError, match=r"^/bin/ls: not a TOML file \(not UTF-8 text\)"):
        ccarena.Experiment.from_toml("/bin/ls")


# --- 2. nesting ---------------------------------------------------------------------------------


def test_a_deeply_nested_set_value_is_one_line_naming_the_limit() -> None:
    deep = "x=" + "[" * 5000 + "]" * 5000
    with pytest.raises(ScenarioError, match="override x: arrays or tables nested 5000 deep; at most 64 levels"):
        ccarena.validate(RENO, overrides=[deep])
    res = runner.invoke(app, ["validate", str(RENO), "--set", deep])
    assert res.exit_code == 2 and "nested 5000 deep; at most 64" in one_line(res.stderr)
    # 64 levels are allowed (the core then refuses the unknown key), 65 are not
    with pytest.raises(ScenarioError, match="unknown"):
        ccarena.validate(RENO, overrides=["x=" + "[" * 64 + "]" * 64])
    with pytest.raises(ScenarioError, match="nested 65 deep"):
        ccarena.validate(RENO, overrides=["x=" + "[" * 65 + "]" * 65])


def test_brackets_in_strings_and_comments_do_not_count_as_nesting() -> None:
    text = RENO.read_text()
    assert 'name = "reno-pair"' in text
    odd = text.replace(
        'name = "reno-pair"',
        'name = "' + "[" * 65 + '"\n'
        "# a comment {{{{" + "{" * 70 + "\n"
        "description = '''" + "[{" * 40 + "''''\n"  # a multi-line literal string ending in a quote
        'note = """ \\""" ' + "[" * 70 + '"""\n',
    )
    assert scenario.nesting_depth(odd) <= 2  # [[flows]] is two brackets deep
    assert scenario.load(odd)["name"] == "[" * 65
    with pytest.raises(ScenarioError, match="unknown"):  # parsed; the core refuses the extra keys only
        ccarena.validate(odd)


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("a = [[1], [2]]", 2),
        ('a = "]]]" \n b = [[[ "[" ]]]', 3),
        ("a = 'x\\' \n b = [1]", 1),  # no escapes in a literal string: it ends at the second quote
        ('a = "x\\"[[" \n b = []', 1),
        ("a = {b = {c = [1]}} # [[[[", 3),
        ("[[a]]\n[[a.b]]", 2),
    ],
)
def test_nesting_depth_tokenises_toml(text: str, depth: int) -> None:
    assert scenario.nesting_depth(text) == depth


def test_dotted_keys_nesting_too_deep_are_refused_with_the_limit() -> None:
    with pytest.raises(ScenarioError, match="nested more than 64 deep; at most 64 levels"):
        ccarena.validate("x." * 100 + "y = 1")


# --- 3. output paths of plots -----------------------------------------------------------------


@pytest.fixture(scope="module")
def result() -> ccarena.RunResult:
    return ccarena.run(RENO, overrides=["duration=2s", "warmup=0s"])


@pytest.mark.parametrize(
    ("plot", "name"),
    [("plot_goodput", "goodput.png"), ("plot_cwnd", "cwnd.png"), ("plot_queue", "queue.png"), ("plot_cwnd_grid", "cwnd.png")],
)
def test_a_plot_into_a_directory_goes_inside_it(result: ccarena.RunResult, tmp_path: Path, plot: str, name: str) -> None:
    from ccarena import plots

    out = tmp_path / "out"
    out.mkdir()
    arg: Any = {"one": result} if plot == "plot_cwnd_grid" else result
    getattr(plots, plot)(arg, out)
    assert os.listdir(tmp_path) == ["out"] and os.listdir(out) == [name]
    getattr(plots, plot)(arg, f"{tmp_path}/new/")  # a trailing slash names a directory too
    assert os.listdir(tmp_path / "new") == [name]


def test_plot_sweep_into_a_directory_is_named_after_the_metric(tmp_path: Path) -> None:
    from ccarena import plots

    plots.plot_sweep(SWEEP_SUMMARY, "cc", "goodput_bps", ["rate"], tmp_path)
    assert os.listdir(tmp_path) == ["goodput_bps.png"]


def test_unwritable_plot_paths_are_output_errors_naming_them(result: ccarena.RunResult, tmp_path: Path) -> None:
    from ccarena import plots

    a_file = tmp_path / "afile"
    a_file.write_text("x")
    with pytest.raises(OutputError, match=f"cannot write {a_file}/x.png: {a_file} is a file, not a directory"):
        plots.plot_goodput(result, a_file / "x.png")
    with pytest.raises(OutputError, match="cannot write /proc/ccarena-x.png"):
        plots.plot_cwnd(result, "/proc/ccarena-x.png")
    with pytest.raises(OutputError, match="plot file: the file name is empty"):
        plots.plot_queue(result, "")


# --- 4. misleading messages ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("duration=1979-05-27", 'duration: 1979-05-27 is a TOML date or time; dates are not allowed (durations are strings like "10s")'),
        ("flows[0].start=07:32:00", "flows[0].start: 07:32:00 is a TOML date or time; dates are not allowed (durations are strings like \"10s\")"),
        ("topology.loss.at=1979-05-27T07:32:00Z", "topology.loss.at: 1979-05-27T07:32:00+00:00 is a TOML date or time; dates are not allowed (durations are strings like \"10s\")"),
        ("seed=18446744073709551616", "seed: 18446744073709551616 is not a seed: expected an integer in 0..18446744073709551615 (2^64-1)"),
        ("seed=-1", "seed: -1 is not a seed: expected an integer in 0..18446744073709551615 (2^64-1)"),
        ("seed=1.5", "seed: 1.5 is not a seed: expected an integer in 0..18446744073709551615 (2^64-1)"),
        ("flows[0].count=18446744073709551616", "flows[0].count: 18446744073709551616 is out of range: integers must lie in -2^63..2^64-1"),
    ],
)
def test_messages_name_the_field_and_what_is_allowed(override: str, message: str) -> None:
    with pytest.raises(ScenarioError) as info:
        ccarena.validate(RENO, overrides=[override])
    assert str(info.value) == message
    res = runner.invoke(app, ["validate", str(RENO), "--set", override])
    assert res.exit_code == 2 and one_line(res.stderr) == f"error: {message}"


def test_the_largest_seed_runs_and_one_more_is_refused_in_words() -> None:
    assert ccarena.validate(RENO, overrides=[f"seed={2**64 - 1}"])["seed"] == 2**64 - 1
    for seed in (2**64, -1, True, "7"):
        with pytest.raises(ScenarioError, match=r"is not a seed: expected an integer in 0\.\.18446744073709551615"):
            ccarena.run(RENO, seed=seed)  # type: ignore[arg-type]
    res = runner.invoke(app, ["run", str(RENO), "--seed", str(2**64)])
    assert res.exit_code == 2 and "expected an integer in 0..18446744073709551615" in one_line(res.stderr)


# --- 5. exit codes of unwritable outputs ----------------------------------------------------------


def test_topology_png_below_a_file_names_the_file_and_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("afile").write_text("x")
    res = runner.invoke(app, ["topology", str(RENO), "--png", "afile/x.png"])
    assert res.exit_code == 2 and one_line(res.stderr) == "error: cannot write afile/x.png: afile is a file, not a directory"
    res = runner.invoke(app, ["topology", str(RENO), "--png", "/proc/ccarena-x.png"])
    assert res.exit_code == 2 and one_line(res.stderr).startswith("error: cannot write /proc/ccarena-x.png: ")
    res = runner.invoke(app, ["topology", str(RENO), "--png", ""])
    assert res.exit_code == 2 and "the path is empty" in one_line(res.stderr)
    assert os.listdir(tmp_path) == ["afile"]


def test_an_os_error_escaping_a_command_exits_2_naming_the_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ccarena import cli

    a_file = tmp_path / "afile"
    a_file.write_text("x")
    below = a_file / "x.csv"
    assert cli._os_error_line(NotADirectoryError(20, "Not a directory", str(below))) == f"{below}: {a_file} is not a directory"
    assert cli._os_error_line(PermissionError(13, "Permission denied", "/x")) == "/x: Permission denied"

    def unwritable(*_: Any, **__: Any) -> None:
        raise PermissionError(13, "Permission denied", "/root/out.png")

    monkeypatch.setattr("ccarena.topology.draw", unwritable)
    res = runner.invoke(app, ["topology", str(RENO), "--png", str(tmp_path / "t.png")])
    assert res.exit_code == 2 and one_line(res.stderr) == "error: /root/out.png: Permission denied"


def test_results_and_report_to_unwritable_paths_exit_2_naming_them(tmp_path: Path, tiny_text: str) -> None:
    (tmp_path / "tiny.toml").write_text(tiny_text.replace('duration = "3s"', 'duration = "1s"'))
    (tmp_path / "exp.toml").write_text('[experiment]\nbase = "tiny.toml"\n[experiment.grid]\n"flows[0].cc" = ["reno"]\n')
    store = tmp_path / "store"
    assert runner.invoke(app, ["sweep", str(tmp_path / "exp.toml"), "-o", str(store), "-j", "1"]).exit_code == 0
    a_file = tmp_path / "afile"
    a_file.write_text("x")
    for args in (["results", str(store), "-o", str(a_file / "x.csv")], ["report", str(store), "-o", str(a_file / "r")]):
        res = runner.invoke(app, args)
        assert res.exit_code == 2 and one_line(res.stderr) == f"error: {args[-1]}: {a_file} is not a directory"
    res = runner.invoke(app, ["results", str(store), "-o", "/proc/ccarena-x.csv"])
    assert res.exit_code == 2 and one_line(res.stderr).startswith("error: /proc/ccarena-x.csv: ")


# --- 6. flows starting after the end of the run ---------------------------------------------------


def test_the_testbed_refuses_a_flow_starting_after_the_end_before_setting_anything_up() -> None:
    from ccarena.testbed.runner import refuse_late_starts

    plan = ccarena.run(BBR_VS_CUBIC, overrides=["duration=10s"])  # the plan the testbed checks
    flows = plan.main_flows.to_dict("records")
    with pytest.raises(TestbedError) as info:
        refuse_late_starts(flows, float(plan.meta["duration_s"]))
    assert str(info.value).startswith("flows: flow 1 (cubic) starts at 20 s, not before the end of the run at 10 s")
    refuse_late_starts(flows, 40.0)  # the scenario as written is fine
    with pytest.raises(TestbedError, match="starts at 40 s, not before the end of the run at 40 s"):
        refuse_late_starts([{"flow_id": 0, "group": "g", "start_s": 40.0}], 40.0)


def test_the_simulator_records_a_flow_that_never_started_as_sending_nothing() -> None:
    res = ccarena.run(BBR_VS_CUBIC, overrides=["duration=10s"])
    late = res.flows[res.flows["group"] == "cubic"].iloc[0]
    assert late["start_s"] == 20.0 and late["sent_pkts"] == 0 and late["delivered_pkts"] == 0
    assert math.isnan(late["goodput_bps"])


# --- the table: every public callable against wrong types ----------------------------------------

BAD: list[tuple[str, Any]] = [
    ("None", None), ("zero", 0), ("minus1", -1), ("huge", 2**70), ("str", "bogus"),
    ("bytes", b"x\xff"), ("list", [1]), ("dict", {"a": 1}), ("nan", math.nan),
]

SWEEP_SUMMARY = pd.DataFrame(
    {"point": [0, 1], "cc": ["reno", "cubic"], "rate": ["10Mbps", "10Mbps"], "metric": ["goodput_bps"] * 2,
     "n": [3, 3], "mean": [1.0, 2.0], "sd": [0.1, 0.1], "ci_low": [0.9, 1.9], "ci_high": [1.1, 2.1]}
)

TINY = ["duration=1s", "warmup=0s"]
Env = SimpleNamespace


def _plots() -> Any:
    from ccarena import plots

    return plots


def _topo() -> Any:
    from ccarena import topology

    return topology


CALLS: dict[str, Callable[[Any, Env], Any]] = {
    "run(scenario)": lambda b, e: ccarena.run(b),
    "run(overrides)": lambda b, e: ccarena.run(RENO, overrides=b),
    "run(seed)": lambda b, e: ccarena.run(RENO, overrides=TINY, seed=b),
    "run(progress)": lambda b, e: ccarena.run(RENO, overrides=TINY, progress=b),
    "run(series)": lambda b, e: ccarena.run(RENO, overrides=TINY, series=b),
    "run(pcap)": lambda b, e: ccarena.run(RENO, overrides=TINY, pcap=b),
    "run(pcap_links)": lambda b, e: ccarena.run(RENO, overrides=TINY, pcap="cap", pcap_links=b),
    "run(pcap_snaplen)": lambda b, e: ccarena.run(RENO, overrides=TINY, pcap="cap", pcap_snaplen=b),
    "run(algorithms)": lambda b, e: ccarena.run(RENO, overrides=TINY, algorithms=b),
    "validate(scenario)": lambda b, e: ccarena.validate(b),
    "validate(overrides)": lambda b, e: ccarena.validate(RENO, overrides=b),
    "topology(scenario)": lambda b, e: api.topology(b),
    "topology(overrides)": lambda b, e: api.topology(RENO, overrides=b),
    "prepare(seed)": lambda b, e: api.prepare(RENO, seed=b),
    "scenario.load": lambda b, e: scenario.load(b),
    "scenario.apply_overrides(scenario)": lambda b, e: scenario.apply_overrides(b, []),
    "scenario.apply_overrides(overrides)": lambda b, e: scenario.apply_overrides({}, b),
    "scenario.parse_override_value": lambda b, e: scenario.parse_override_value(b),
    "scenario.parse_key": lambda b, e: scenario.parse_key(b),
    "scenario.set_key(doc)": lambda b, e: scenario.set_key(b, "a", 1),
    "scenario.set_key(key)": lambda b, e: scenario.set_key({}, b, 1),
    "scenario.to_json": lambda b, e: scenario.to_json(b),
    "scenario.to_json(value)": lambda b, e: scenario.to_json({"a": [b]}),
    "RunResult(raw)": lambda b, e: ccarena.RunResult(b),
    "RunResult.jain": lambda b, e: e.result.jain(b),
    "RunResult.summary": lambda b, e: e.result.summary(b),
    "RunResult.to_json(jain_over)": lambda b, e: e.result.to_json(b),
    "RunResult.to_json(indent)": lambda b, e: e.result.to_json(indent=b),
    "RunResult.to_parquet(directory)": lambda b, e: e.result.to_parquet(b),
    "RunResult.to_parquet(jain_over)": lambda b, e: e.result.to_parquet("pq", b),
    "RunResult.to_parquet(plots)": lambda b, e: e.result.to_parquet("pq", plots=b),
    "plot_goodput(result)": lambda b, e: _plots().plot_goodput(b),
    "plot_goodput(path)": lambda b, e: _plots().plot_goodput(e.result, b),
    "plot_goodput(max_points)": lambda b, e: _plots().plot_goodput(e.result, max_points=b),
    "plot_cwnd(result)": lambda b, e: _plots().plot_cwnd(b),
    "plot_cwnd(path)": lambda b, e: _plots().plot_cwnd(e.result, b),
    "plot_cwnd_grid(results)": lambda b, e: _plots().plot_cwnd_grid(b),
    "plot_cwnd_grid(path)": lambda b, e: _plots().plot_cwnd_grid({"r": e.result}, b),
    "plot_cwnd_grid(ncols)": lambda b, e: _plots().plot_cwnd_grid({"r": e.result}, ncols=b),
    "plot_queue(result)": lambda b, e: _plots().plot_queue(b),
    "plot_queue(path)": lambda b, e: _plots().plot_queue(e.result, b),
    "plot_queue(link)": lambda b, e: _plots().plot_queue(e.result, link=b),
    "plot_sweep(summary)": lambda b, e: _plots().plot_sweep(b, "cc", "goodput_bps"),
    "plot_sweep(x)": lambda b, e: _plots().plot_sweep(SWEEP_SUMMARY, b, "goodput_bps"),
    "plot_sweep(metric)": lambda b, e: _plots().plot_sweep(SWEEP_SUMMARY, "cc", b),
    "plot_sweep(lines)": lambda b, e: _plots().plot_sweep(SWEEP_SUMMARY, "cc", "goodput_bps", b),
    "plot_sweep(path)": lambda b, e: _plots().plot_sweep(SWEEP_SUMMARY, "cc", "goodput_bps", path=b),
    "goodput_series(result)": lambda b, e: _plots().goodput_series(b),
    "goodput_series(bin_samples)": lambda b, e: _plots().goodput_series(e.result, b),
    "cwnd_by_algorithm(scenario)": lambda b, e: demo.cwnd_by_algorithm(b, ["reno"], overrides=TINY),
    "cwnd_by_algorithm(algorithms)": lambda b, e: demo.cwnd_by_algorithm(RENO, b, overrides=TINY),
    "cwnd_by_algorithm(path)": lambda b, e: demo.cwnd_by_algorithm(RENO, ["reno"], b, overrides=TINY),
    "cwnd_by_algorithm(key)": lambda b, e: demo.cwnd_by_algorithm(RENO, ["reno"], key=b, overrides=TINY),
    "cwnd_by_algorithm(overrides)": lambda b, e: demo.cwnd_by_algorithm(RENO, ["reno"], overrides=b),
    "topology.draw(desc)": lambda b, e: _topo().draw(b),
    "topology.draw(path)": lambda b, e: _topo().draw(e.desc, b),
    "topology.text_summary": lambda b, e: _topo().text_summary(b),
    "topology.layout": lambda b, e: _topo().layout(b),
    "topology.duplex_links": lambda b, e: _topo().duplex_links(b),
    "metrics.jain_index": lambda b, e: metrics.jain_index(b),
    "metrics.coefficient_of_variation": lambda b, e: metrics.coefficient_of_variation(b),
    "metrics.mean_ci(x)": lambda b, e: metrics.mean_ci(b),
    "metrics.mean_ci(level)": lambda b, e: metrics.mean_ci([1.0, 2.0, 3.0], b),
    "metrics.percentile(q)": lambda b, e: metrics.percentile([1.0, 2.0], b),
    "metrics.goodput_bps": lambda b, e: metrics.goodput_bps(b, 1.0),
    "metrics.fair_share_bps": lambda b, e: metrics.fair_share_bps(1e6, b),
    "metrics.mathis_throughput_bps(p)": lambda b, e: metrics.mathis_throughput_bps(1448, 0.04, b),
    "metrics.jain_inter_protocol(labels)": lambda b, e: metrics.jain_inter_protocol([1.0, 2.0], b),
    "open_store": lambda b, e: ccarena.open_store(b),
    "Experiment.from_toml": lambda b, e: ccarena.Experiment.from_toml(b),
}

def _cases() -> list[Any]:
    return [pytest.param(name, bad, id=f"{name}-{bad_id}") for name in CALLS for bad_id, bad in BAD]


@pytest.fixture(scope="module")
def env(result: ccarena.RunResult) -> Env:
    return Env(result=result, desc=api.topology(RENO))


@pytest.mark.parametrize(("name", "bad"), _cases())
def test_public_api_raises_only_ccarena_errors(name: str, bad: Any, env: Env, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # calls that succeed write their files here
    try:
        CALLS[name](bad, env)
    except ccarena.Error as exc:
        # A scenario's errors are one line each (ScenarioError.errors); any other error, one line.
        lines = exc.errors if isinstance(exc, ccarena.ScenarioError) else [str(exc)]
        assert lines and all(line and "\n" not in line for line in lines), repr(exc)
    finally:
        if "matplotlib.pyplot" in sys.modules:
            sys.modules["matplotlib.pyplot"].close("all")


@pytest.mark.parametrize("override", ["flows[0].count=-1", "flows[0].count=1.5", "flows[0].lan=-3", "flows[0].initial_cwnd=\"x\"", "flows[0].delayed_ack=3"])
def test_type_errors_say_what_is_allowed_not_the_rust_type(override: str) -> None:
    with pytest.raises(ccarena.ScenarioError) as exc:
        ccarena.validate(RENO, overrides=[override])
    message = str(exc.value)
    assert message.startswith(override.split("=")[0] + ": ") and "\n" not in message, message
    assert not any(t in message for t in ("u16", "u32", "u64", "usize", "f64", "floating point")), message
    assert "expected an integer from" in message or "expected a number" in message or "expected true or false" in message, message
