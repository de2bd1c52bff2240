"""docs/algorithms/ccid3.md's `ccid3@ns2` example gives the rates the page prints."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "algorithms" / "ccid3.md"


def test_the_ns2_preset_example_gives_the_printed_rates() -> None:
    text = DOC.read_text()
    command = re.search(r"```sh\n(ccarena run scenarios/ccid3-vs-ccid2\.toml [^\n]*ccid3@ns2[^\n]*)\n```", text)
    assert command, "the ccid3@ns2 example is missing"
    printed = re.search(r"12\.4\s+and 13\.2 at 100 ms", " ".join(text.split()))
    assert printed, "the page no longer prints the 100 ms rates"
    out = subprocess.run([sys.executable, "-m", "ccarena", *shlex.split(command.group(1))[1:], "--json"],
                         capture_output=True, text=True, cwd=REPO, timeout=300)
    assert out.returncode == 0, out.stderr
    import json

    flows = json.loads(out.stdout)["flows"]
    rate = {g: sum(f["goodput_bps"] for f in flows if f["group"] == g) / sum(f["group"] == g for f in flows) for g in ("ccid2", "ccid3")}
    assert round(rate["ccid3"] / 1e3, 1) == 12.4 and 29e3 < rate["ccid2"] < 31e3
