"""The command line: user errors are one line on stderr with exit status 2; --json prints only
the output contract; -o writes tables and plots."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from ccarena.cli import app

ROOT = Path(__file__).resolve().parents[1]

runner = CliRunner()

FLOW_KEYS = {
    "flow_id", "group", "protocol", "cc", "stack", "start_s", "rtt_base_s", "sent_pkts", "delivered_pkts", "dropped_pkts",
    "retransmitted_pkts", "throughput_bps", "goodput_bps", "delivery_ratio", "delay_mean_s", "completion_s",
    "id", "mean_delay_s",  # the old names, kept beside flow_id and delay_mean_s until the aliases go
}


def _one_error_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got: {stderr!r}"
    assert lines[0].startswith("error: ")
    assert "Traceback" not in stderr
    return lines[0]


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (("[[flows]]", "[[flows]]\ncolour = \"blue\""), "colour"),  # unknown key
        (('bottleneck_rate = "10Mbps"', 'bottleneck_rate = "10Mbs"'), "bottleneck_rate"),  # bad unit
        (('bottleneck_rate = "10Mbps"', 'bottleneck_rate = "-5Mbps"'), "bottleneck_rate"),  # negative
        (('cc = "reno"', 'cc = "nosuchcc"'), "cc"),  # unknown algorithm
    ],
    ids=["unknown-key", "bad-unit", "negative-rate", "unknown-cc"],
)
@pytest.mark.parametrize("command", ["run", "validate"])
def test_invalid_scenarios_exit_2_with_one_line_naming_the_field(
    tmp_path: Path, tiny_text: str, edit: tuple[str, str], field: str, command: str
) -> None:
    path = tmp_path / "bad.toml"
    assert edit[0] in tiny_text
    path.write_text(tiny_text.replace(*edit))
    result = runner.invoke(app, [command, str(path)])
    assert result.exit_code == 2
    assert field in _one_error_line(result.stderr)
    assert result.stdout == ""


@pytest.mark.parametrize("command", ["run", "validate"])
def test_every_error_of_a_file_is_one_line_of_its_own(tmp_path: Path, tiny_text: str, command: str) -> None:
    """Mistakes in independent parts (top level, topology, two flow groups) are all reported,
    in file order, and a part with a mistake adds no errors about what it would have held."""
    path = tmp_path / "bad.toml"
    text = ("durtion = 1\n" + tiny_text).replace('bottleneck_rate = "10Mbps"', 'bottleneck_rate = "10Mbs"')
    path.write_text(text.replace('cc = "reno"', 'cc = "renoo"') + '\n[[flows]]\ncount = "x"\n')
    result = runner.invoke(app, [command, str(path)])
    assert result.exit_code == 2 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert [line.split(":")[1].strip() for line in lines] == ["durtion", "topology.bottleneck_rate", "flows[0].cc", "flows[1].count"], lines
    assert all(line.startswith("error: ") for line in lines)


def test_python_gets_every_error_of_a_scenario(tiny_text: str) -> None:
    import pickle

    import ccarena

    with pytest.raises(ccarena.ScenarioError) as info:
        ccarena.validate(tiny_text.replace('cc = "reno"', 'cc = "renoo"') + '\n[[flows]]\ncc = "cubic"\nmss = "0B"\n')
    assert [e.split(":")[0] for e in info.value.errors] == ["flows[0].cc", "flows[1].mss"]
    assert str(info.value) == "\n".join(info.value.errors)
    # A Dask worker's error reaches the client whole.
    again = pickle.loads(pickle.dumps(info.value))
    assert again.errors == info.value.errors and str(again) == str(info.value)
    # Raised from Python with one message, it is one error.
    assert ccarena.ScenarioError("x: bad").errors == ["x: bad"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["run", "does-not-exist.toml"], "does-not-exist.toml"),
        (["run", "{tiny}", "--no-such-option"], "--no-such-option"),
        (["run", "{tiny}", "--set", "flows[7].cc=reno"], "flows[7]"),
        (["run", "{tiny}", "--set", "noequals"], "KEY=VALUE"),
        (["run", "{tiny}", "--set", "topology.bottleneck_rate=10Mbs"], "bottleneck_rate"),
        (["run", "{tiny}", "--jain-over", "links"], "jain-over"),
        (["run", "{tiny}", "--seed", "abc"], "seed"),
        (["nosuchcommand"], "nosuchcommand"),
        (["bench", "--case", "nosuchcase"], "nosuchcase"),
        # refused before anything runs: stdout stays empty (below)
        (["reproduce", "dccp-voip", "--scale", "smoke", "--executor", "bogus"], "bogus"),
        (["sweep", "{tiny}", "--executor", "bogus"], "bogus"),
    ],
)
def test_bad_command_lines_exit_2_with_one_line(tiny_file: Path, args: list[str], needle: str) -> None:
    result = runner.invoke(app, [a.replace("{tiny}", str(tiny_file)) for a in args])
    assert result.exit_code == 2
    assert needle in _one_error_line(result.stderr)
    assert result.stdout == ""


def test_run_json_prints_only_the_contract(tiny_file: Path) -> None:
    result = runner.invoke(app, ["run", str(tiny_file), "--json", "--no-progress"])
    assert result.exit_code == 0, result.stderr
    s = json.loads(result.stdout)  # nothing but JSON on stdout
    assert set(s) == {"name", "seed", "duration_s", "flows", "links", "jain", "engine"}
    assert (s["name"], s["seed"], s["duration_s"]) == ("tiny", 7, 3.0)
    assert len(s["flows"]) == 2
    assert all(set(f) == FLOW_KEYS for f in s["flows"])
    assert all(set(link) == {"link", "utilisation", "dropped_pkts", "mean_queue_pkts", "name"} for link in s["links"])
    assert "bottleneck" in {link["link"] for link in s["links"]}
    assert set(s["engine"]) == {"events", "wall_s"}
    assert 0.0 < s["jain"] <= 1.0


def test_run_json_with_overrides_seed_and_group_jain(tiny_file: Path) -> None:
    result = runner.invoke(
        app,
        ["run", str(tiny_file), "--json", "--set", "flows[0].count=3", "-s", "duration=2s", "--seed", "11",
         "--jain-over", "group"],
    )
    assert result.exit_code == 0, result.stderr
    s = json.loads(result.stdout)
    assert (len(s["flows"]), s["seed"], s["duration_s"]) == (3, 11, 2.0)
    assert s["jain"] == pytest.approx(1.0)  # a single group is perfectly fair to itself


def test_run_prints_a_readable_table(tiny_file: Path) -> None:
    result = runner.invoke(app, ["run", str(tiny_file)])
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "goodput" in out and "bit/s" in out and "bottleneck" in out and "Jain" in out


def test_run_of_one_flow_prints_no_jain(tiny_file: Path) -> None:
    result = runner.invoke(app, ["run", str(tiny_file), "--set", "flows[0].count=1"])
    assert result.exit_code == 0, result.stderr
    assert "goodput" in result.stdout and "Jain" not in result.stdout  # one flow: nothing to compare


#: What the command imports only where a command needs it (BENCHMARKS.md, B3): pandas, pyarrow
#: and matplotlib for files and plots, NumPy for results (none for a command that runs nothing);
#: never typer or pydantic.
_HEAVY = ("numpy", "pandas", "pyarrow", "matplotlib", "scipy", "typer", "pydantic")


@pytest.mark.parametrize(
    ("args", "allowed"),
    [
        (["run", "FILE", "--json"], {"numpy"}),
        (["run", "FILE"], {"numpy"}),
        (["--help"], set()),
        (["validate", "FILE"], set()),
        (["topology", "FILE"], set()),
    ],
    ids=["run-json", "run-table", "help", "validate", "topology"],
)
def test_commands_import_only_what_they_need(tiny_file: Path, args: list[str], allowed: set[str]) -> None:
    argv = [str(tiny_file) if a == "FILE" else a for a in args]
    probe = (
        "import atexit, sys\n"
        f"atexit.register(lambda: print('loaded:', *sorted(m for m in {_HEAVY!r} if m in sys.modules), file=sys.stderr))\n"
        f"sys.argv = ['ccarena', *{argv!r}]\n"
        "from ccarena.cli import main\n"
        "main()\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    loaded = set(proc.stderr.strip().splitlines()[-1].split()[1:])
    assert loaded <= allowed, proc.stderr


def test_run_out_dir_writes_tables_summary_and_plots(tiny_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "results"
    result = runner.invoke(app, ["run", str(tiny_file), "-o", str(out), "--json"])
    assert result.exit_code == 0, result.stderr
    json.loads(result.stdout)
    for name in ("flows", "flow_series", "links", "link_series"):
        assert len(pd.read_parquet(out / f"{name}.parquet")) > 0
    assert json.loads((out / "summary.json").read_text())["name"] == "tiny"
    for png in ("goodput.png", "cwnd.png", "queue.png"):
        assert (out / png).read_bytes().startswith(b"\x89PNG")


def test_validate_prints_ok(tiny_file: Path) -> None:
    result = runner.invoke(app, ["validate", str(tiny_file)])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == "ok: tiny (2 flows, 3s)"
    result = runner.invoke(app, ["validate", str(tiny_file), "--set", "flows[0].count=5"])
    assert result.stdout.strip() == "ok: tiny (5 flows, 3s)"


def test_algorithms_lists_reno() -> None:
    result = runner.invoke(app, ["algorithms"])
    assert result.exit_code == 0
    assert "reno" in result.stdout.split()


def test_algorithms_with_params_shows_defaults() -> None:
    result = runner.invoke(app, ["algorithms", "--params"])
    assert result.exit_code == 0
    assert "cc_params.beta = 0.5" in result.stdout


@pytest.mark.parametrize("command", [[], ["run"], ["validate"], ["algorithms"], ["demo"], ["bench"], ["sweep"], ["reproduce"], ["testbed"], ["compare"]])
def test_help_everywhere(command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--help"])
    assert result.exit_code == 0
    assert "Usage" in result.stdout


@pytest.mark.parametrize(("command", "written"), [(["algorithms"], "[[flows]]"), (["sweep"], "[experiment]")])
def test_help_prints_toml_tables_as_written(command: list[str], written: str) -> None:
    # Help texts are plain text: a markup renderer would swallow TOML's bracketed table names.
    result = runner.invoke(app, [*command, "--help"])
    assert result.exit_code == 0
    assert written in result.stdout


def test_console_entry_point_in_a_real_process(tmp_path: Path, tiny_text: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(tiny_text.replace('"10Mbps"', '"10Mbs"'))
    proc = subprocess.run([sys.executable, "-m", "ccarena.cli", "run", str(path)], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "bottleneck_rate" in _one_error_line(proc.stderr)
    assert proc.stdout == ""


def test_progress_bar_shows_simulated_time_on_stderr_only() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "ccarena.cli", "run", str(ROOT / "scenarios" / "reno-pair.toml"), "--set", "duration=20s",
         "--json", "--progress"],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    json.loads(out.stdout)  # stdout holds the JSON alone
    assert "20.0 s simulated" in out.stderr and "reno-pair" in out.stderr


@pytest.mark.parametrize(("sig", "code", "word"), [("SIGINT", 130, "interrupted"), ("SIGTERM", 143, "terminated")])
def test_a_run_stops_within_a_second_of_a_signal_and_writes_nothing(tmp_path: Path, sig: str, code: int, word: str) -> None:
    import signal
    import time

    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "ccarena.cli", "run", str(ROOT / "scenarios" / "bench" / "b1.toml"), "--set", "duration=900s", "-o", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    time.sleep(2.0)  # past start-up: simulating
    sent = time.monotonic()
    proc.send_signal(getattr(signal, sig))
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code and time.monotonic() - sent < 2.0
    assert err.strip().splitlines()[-1] == f"error: {word}"
    assert list(tmp_path.iterdir()) == []  # no output directory, complete-looking or not


def test_run_lists_flows_one_by_one_up_to_forty_then_per_group(tiny_file: Path) -> None:
    from ccarena._format import FLOW_ROWS

    for count, one_by_one in ((FLOW_ROWS, True), (FLOW_ROWS + 1, False)):
        result = runner.invoke(app, ["run", str(tiny_file), "--set", f"flows[0].count={count}", "--set", "duration=1s"])
        assert result.exit_code == 0, result.stderr
        assert ("Flows (rates over each flow's measured window)" in result.stdout) is one_by_one
        assert (f"Flow groups ({count} flows; each flow's row with --json or -o DIR)" in result.stdout) is not one_by_one
