"""The RED example of docs/queues.md, run as printed: its figures are checked against the run."""

from __future__ import annotations

import re
from pathlib import Path

import ccarena

DOC = Path(__file__).resolve().parent.parent / "docs" / "queues.md"


def red_example() -> tuple[str, list[str]]:
    text = DOC.read_text()
    scenario = re.search(r'```toml\n(name = "red-twelve-reno".*?)```', text, re.S)
    commands = re.search(r"```sh\n(ccarena run red\.toml.*?)```", text, re.S)
    assert scenario and commands, "the RED example is missing from docs/queues.md"
    return scenario.group(1), commands.group(1).splitlines()


def printed(line: str) -> tuple[float, float]:
    """The mean queue and utilisation a command's comment promises."""
    m = re.search(r"≈ (\d+), (?:utilisation )?([\d.]+)", line)
    assert m, line
    return float(m.group(1)), float(m.group(2))


def test_the_red_example_gives_the_figures_the_page_prints() -> None:
    toml, (red_cmd, droptail_cmd) = red_example()
    override = re.search(r"--set '([^']+)'", droptail_cmd)
    assert override
    for cmd, overrides in ((red_cmd, []), (droptail_cmd, [override.group(1)])):
        queue, util = printed(cmd)
        bottleneck = ccarena.run(toml, overrides=overrides, series=False).links.set_index("link").loc["bottleneck"]
        # Rounded as printed: the mean queue to within 10 %, utilisation to the digits shown.
        assert abs(bottleneck["mean_queue_pkts"] - queue) <= 0.1 * queue, (cmd, bottleneck["mean_queue_pkts"])
        assert abs(bottleneck["utilisation"] - util) <= 0.005, (cmd, bottleneck["utilisation"])


def test_red_auto_parameters_are_resolved_per_link_as_ns2_does() -> None:
    text = DOC.read_text()
    queue = re.search(r"`queue = (\{ kind = \"red\", limit = \"100pkt\", wq = \"auto\".*?\})`", text)
    assert queue, "the automatic RED example is missing from docs/queues.md"
    r = ccarena.run(Path(__file__).resolve().parent.parent / "scenarios" / "reno-pair.toml", overrides=[f"topology.queue={queue.group(1)}", "duration=5s", "warmup=1s"], series=False)
    described = r.links.set_index("link").loc["bottleneck", "queue"]
    # 10 Mbit/s of 500-byte packets: C = 2500/s, min_th = 5 ms · C / 2 = 6.25, max_th = 18.75;
    # RTT = max(0.1, 3 · (10 ms + 0.4 ms)) = 0.1 s, wq = 1 − exp(−1/2500) ≈ 0.0004.
    assert "th 6.25..18.75" in described and "wq 0.0003999" in described, described


def test_the_ns2_variant_line_gives_the_figures_it_prints() -> None:
    toml, _ = red_example()
    line = re.search(r"```sh\n(ccarena run red\.toml --set '(topology\.queue=\{kind=\"red\"[^']+variant=\"ns2\"\})'.*?)\n```", DOC.read_text(), re.S)
    assert line, "the ns2 variant example is missing from docs/queues.md"
    queue, util = printed(line.group(1))
    bottleneck = ccarena.run(toml, overrides=[line.group(2)], series=False).links.set_index("link").loc["bottleneck"]
    assert abs(bottleneck["mean_queue_pkts"] - queue) <= 0.1 * queue, bottleneck["mean_queue_pkts"]
    assert abs(bottleneck["utilisation"] - util) <= 0.005, bottleneck["utilisation"]
