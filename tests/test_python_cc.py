"""Congestion controls written in Python (``ccarena.CongestionControl``)."""

from __future__ import annotations

import math
import sys
import traceback
from pathlib import Path

import pytest

import ccarena
from ccarena.errors import ArgumentError, ScenarioError

SCENARIO = """
name = "pycc"
duration = "8s"
warmup = "2s"
sample_interval = "500ms"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
queue = { kind = "droptail", limit = "30pkt" }
[[flows]]
count = 2
cc = "CC"
rtt = { uniform = ["30ms", "60ms"] }
start = { uniform = ["0s", "1s"] }
"""


class PyReno(ccarena.CongestionControl):
    """Reno as the built-in one runs it under the Linux stack (docs/python.md)."""

    def __init__(self, beta: float = 0.5) -> None:
        self.beta = beta

    def on_ack(self, st: ccarena.CcState, acked: int, rtt: float | None, now: float) -> None:
        used = min(float(acked), max(st.ssthresh - st.cwnd, 0.0))  # slow start up to ssthresh
        st.cwnd += used
        left = acked - min(math.ceil(used), acked)
        if left:
            st.cwnd += left / max(st.cwnd, 1.0)  # congestion avoidance: +1 per window

    def on_congestion(self, st: ccarena.CcState, kind: str, flight_size: int, now: float) -> None:
        st.ssthresh = max(self.beta * st.cwnd, 2.0)


def run(cc: str, **kw: object) -> ccarena.RunResult:
    return ccarena.run(SCENARIO.replace("CC", cc), **kw)  # type: ignore[arg-type]


def test_reno_in_python_gives_the_built_in_renos_results_bit_for_bit() -> None:
    builtin = run("reno")
    python = run("pyreno", algorithms={"pyreno": PyReno})
    assert python.flows["cc"].tolist() == ["py:pyreno", "py:pyreno"]
    assert builtin.flows["retransmitted_pkts"].sum() > 10, "losses happened: the reduction was exercised"
    cols = ["sent_pkts", "delivered_pkts", "dropped_pkts", "retransmitted_pkts", "goodput_bytes", "timeouts", "fast_recoveries"]
    assert builtin.flows[cols].equals(python.flows[cols])
    assert builtin.flow_series["cwnd_pkts"].equals(python.flow_series["cwnd_pkts"])


def test_a_class_named_by_module_path_needs_no_registration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my_cc.py").write_text(
        "import ccarena\n"
        "class Aimd(ccarena.CongestionControl):\n"
        "    def __init__(self, a=1.0):\n"
        "        self.a = a\n"
        "    def on_ack(self, st, acked, rtt, now):\n"
        "        st.cwnd += self.a * acked / st.cwnd\n"
        "    def on_congestion(self, st, kind, flight, now):\n"
        "        st.ssthresh = max(st.cwnd / 2, 2)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    slow = ccarena.run(SCENARIO.replace('cc = "CC"', 'cc = "py:my_cc.Aimd"\ncc_params = { a = 0.1 }'))
    fast = ccarena.run(SCENARIO.replace('cc = "CC"', 'cc = "py:my_cc.Aimd"\ncc_params = { a = 4.0 }'))
    assert slow.flows["cc_params"][0] == '{"a":0.1}'
    assert fast.flows["dropped_pkts"].sum() > slow.flows["dropped_pkts"].sum()
    sys.modules.pop("my_cc", None)


def test_an_exception_in_user_code_surfaces_with_the_users_traceback() -> None:
    class Broken(PyReno):
        def on_congestion(self, st: ccarena.CcState, kind: str, flight_size: int, now: float) -> None:
            raise ZeroDivisionError("my bug")

    with pytest.raises(ZeroDivisionError, match="my bug") as info:
        run("broken", algorithms={"broken": Broken})
    frames = [f.name for f in traceback.extract_tb(info.value.__traceback__)]
    assert "on_congestion" in frames


def test_a_bad_window_is_a_clear_error() -> None:
    class Nan(PyReno):
        def on_ack(self, st: ccarena.CcState, acked: int, rtt: float | None, now: float) -> None:
            st.cwnd = float("nan")

    with pytest.raises(ValueError, match=r"py:nan\): on_ack set state.cwnd to NaN: expected a positive number of segments"):
        run("nan", algorithms={"nan": Nan})


def test_a_failing_constructor_is_raised_too() -> None:
    class NeedsArg(PyReno):
        def __init__(self, gain: float) -> None:
            super().__init__()

    with pytest.raises(TypeError, match="gain"):
        run("needs", algorithms={"needs": NeedsArg})


def test_bad_names_are_scenario_errors_naming_the_field() -> None:
    with pytest.raises(ScenarioError, match=r"flows\[0\].cc: \"py:no_such_module.X\": cannot import 'no_such_module'"):
        run("py:no_such_module.X")
    with pytest.raises(ScenarioError, match=r"flows\[0\].cc: \"py:math.pi\" is 3.14.*not a subclass of ccarena.CongestionControl"):
        run("py:math.pi")
    with pytest.raises(ScenarioError, match=r"flows\[0\].cc: \"py:lonely\" names no class"):
        run("py:lonely")
    with pytest.raises(ArgumentError, match=r"algorithms\['x'\]: .* is not a subclass"):
        run("x", algorithms={"x": int})  # type: ignore[dict-item]


def test_pacing_from_python_spaces_the_segments() -> None:
    class Paced(PyReno):
        def pacing_rate(self, st: ccarena.CcState) -> float | None:
            return 2e6

    r = ccarena.run(SCENARIO.replace("CC", "paced").replace("count = 2", "count = 1"), algorithms={"paced": Paced})
    goodput = float(r.flows["goodput_bps"][0])
    assert 1.7e6 < goodput < 2.0e6, goodput


def test_runs_are_deterministic() -> None:
    a = run("pyreno", algorithms={"pyreno": PyReno})
    b = run("pyreno", algorithms={"pyreno": PyReno})
    assert a.flows.equals(b.flows)


class FeedbackRecorder(PyReno):
    """Reno that records what every ACK's feedback says."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[int, bool, float | None]] = []

    def on_ack_feedback(self, st: ccarena.CcState, acked: int, ece: bool, one_way_delay: float | None, now: float) -> None:
        self.seen.append((acked, ece, one_way_delay))


def test_every_ack_s_feedback_reaches_python_with_marks_and_one_way_delays() -> None:
    made: list[FeedbackRecorder] = []

    class Recorder(FeedbackRecorder):
        def __init__(self) -> None:
            super().__init__()
            made.append(self)

    marking = 'topology.queue={kind="droptail",limit="30pkt",ecn_threshold="5pkt"}'
    r = run("rec", algorithms={"rec": Recorder}, overrides=[marking, "flows[0].ecn=true", "flows[0].timestamps=true"])
    for recorder, (_, flow) in zip(made, r.flows.iterrows()):
        # Every segment delivered is reported once, by the ACK that delivered it: all but those
        # whose ACKs are still on their way at the end, at most a window: the 30-packet buffer
        # and a BDP of at most 50 (measured: 4 and 21 short).
        assert 0 <= flow.delivered_pkts - sum(a for a, _, _ in recorder.seen) <= 80
        assert any(ece for _, ece, _ in recorder.seen), "the step queue marked and the receiver echoed"
        delays = [d for _, _, d in recorder.seen if d is not None]
        assert len(delays) == len(recorder.seen)
        # One way: at least half the flow's base RTT (symmetric paths), whole milliseconds.
        assert min(delays) >= flow.rtt_base_s / 2 - 0.001
        assert all(abs(d * 1000 - round(d * 1000)) < 1e-9 for d in delays)
