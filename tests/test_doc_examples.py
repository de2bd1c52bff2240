"""Every example of README.md and docs/ runs as printed, and prints what the page shows.

One case per code block, named `file:line` (the line of the opening fence):

- ```sh / ```bash blocks run under `bash` with `set -euo pipefail` in a fresh directory that
  holds `scenarios` and `.venv` as links into the checkout (so `.venv/bin/ccarena` works as
  written) and nothing else; PATH starts with the checkout's `.venv/bin`. ```python blocks run
  with the venv's python in the same kind of directory. Nothing is written into the checkout.
- A ```text or plain ``` block right after such a block (only blank lines between), or marked
  `output` / `output of LABEL`, is that block's standard output. Lines are compared token by
  token: words exactly, whole numbers exactly, decimals within 1 % or half a unit of the last digit
  shown; wall and CPU times ("in 0.03 s", "3.3 min of CPU") are the machine's and are not
  compared; a line `...` stands for any number of lines. An output starting with `error:` is
  what the command prints on stderr, exiting with status 2.
- ```toml blocks with `[topology]`, `[[flows]]` or `[[background]]` are checked by `ccarena
  validate` (a `same as PATH` block as that file, in its place); a fragment without `duration`,
  `[topology]` or `[[flows]]` is completed with a small base scenario first. Other TOML is left
  alone.
- Every path of the repository a page names (`crates/...`, `python/...`, `tests/...`, `tools/...`,
  `scenarios/...`, `docs/...`, and relative links) exists.

Directives are HTML comments on the lines right above a block, `<!-- doc-test: ... -->`:
`skip (REASON)`; `needs PROGRAM` (skipped where PROGRAM is not installed); `file NAME` (a TOML
block written as NAME into the directory of every example of its page); `same as PATH` (a TOML
block that must equal that file of the repository, comments aside); `name LABEL`; `after LABEL`
(the block of that name on the same page runs first, in the same directory); `output` (of the
block above), `output of LABEL`.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
VENV_BIN = REPO / ".venv" / "bin"
DOCS = [REPO / "README.md", *sorted(p for p in (REPO / "docs").glob("*.md") if p.name != "fidelity.md"),
        *sorted((REPO / "docs" / "algorithms").glob("*.md"))]
RUNNABLE = {"sh", "bash", "python"}
OUTPUT = {"text", ""}
SCENARIO_TABLE = re.compile(r"^\s*\[(?:topology|\[flows\]|\[background\])\]", re.M)
DIRECTIVE = re.compile(r"^<!-- doc-test: (.*?) -->$")
FENCE = re.compile(r"^```(\S*)\s*$")
TIMEOUT_S = 300


@dataclass
class Block:
    doc: Path
    line: int
    lang: str
    text: str
    directives: list[str]
    outputs: list[Block] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.doc.relative_to(REPO)}:{self.line}"

    def directive(self, name: str) -> str | None:
        """The argument of directive `name` (`""` if it has none), or None."""
        for d in self.directives:
            if d == name or d.startswith(name + " "):
                return d[len(name):].strip()
        return None


def parse(doc: Path) -> list[Block]:
    """The code blocks of a page, each output block attached to the block it is the output of."""
    lines = doc.read_text(encoding="utf-8").split("\n")
    blocks: list[Block] = []
    i, last_end = 0, -2
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
        directives: list[str] = []
        k = i - 1
        while k >= 0 and (d := DIRECTIVE.match(lines[k].strip())):
            directives.insert(0, d.group(1))
            k -= 1
        block = Block(doc, i + 1, m.group(1), "\n".join(lines[i + 1:end]) + "\n", directives)
        of = block.directive("output of")
        adjacent = blocks and all(not s.strip() for s in lines[last_end + 1:i]) and blocks[-1].lang in RUNNABLE
        if block.lang in OUTPUT and (of is not None or block.directive("output") == "" or adjacent):
            owner = named(blocks, of) if of else [b for b in blocks if b.lang in RUNNABLE][-1]
            owner.outputs.append(block)
        blocks.append(block)
        i, last_end = end + 1, end
    return blocks


def named(blocks: list[Block], name: str) -> Block:
    found = [b for b in blocks if b.directive("name") == name]
    assert len(found) == 1, f"{len(found)} blocks are named {name!r}"
    return found[0]


ALL = [b for doc in DOCS for b in parse(doc)]


def is_scenario(block: Block) -> bool:
    return block.lang == "toml" and bool(SCENARIO_TABLE.search(block.text))


# ---- comparing printed output ---------------------------------------------------------------

NUMBER = re.compile(r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?")
# What the machine decides, never compared: a run's wall time ("events in 0.03 s") and estimates
# of CPU time ("about 3.3 min of CPU", "0.05 CPU-hours", "about 98 s on 2 cores").
_N = NUMBER.pattern
MACHINE_TIME = re.compile(rf"\bin {_N} s\b|{_N} (?:s|min|hours?) of CPU|{_N} CPU-hours|{_N} (?:s|min|hours?) on {_N} cores")


def tokens(line: str) -> list[str]:
    """Words and numbers; the machine's times become `TIME`."""
    line = MACHINE_TIME.sub(" TIME ", line)
    out: list[str] = []
    pos = 0
    for m in NUMBER.finditer(line):
        out += line[pos:m.start()].split()
        out.append(m.group())
        pos = m.end()
    return out + line[pos:].split()


def same_token(want: str, have: str) -> bool:
    """Words exactly; whole numbers exactly; decimals within 1 % or the rounding of the digits shown."""
    if not NUMBER.fullmatch(want):
        return want == have
    if not NUMBER.fullmatch(have):
        return False
    e, g = float(want.replace(",", "")), float(have.replace(",", ""))
    if "." not in want and "e" not in want.lower():
        return e == g
    decimals = len(want.split(".")[1].lower().split("e")[0]) if "." in want else 0
    return math.isclose(e, g, rel_tol=0.01, abs_tol=0.5 * 10.0 ** -decimals * 1.0001)


def same_line(expected: str, got: str) -> bool:
    want, have = tokens(expected), tokens(got)
    return len(want) == len(have) and all(same_token(w, h) for w, h in zip(want, have))


def matches(expected: list[str], got: list[str]) -> bool:
    """Line by line, `...` standing for any run of lines (glob matching)."""
    if not expected:
        return not got
    if expected[0].strip() == "...":
        return any(matches(expected[1:], got[k:]) for k in range(len(got) + 1))
    return bool(got) and same_line(expected[0], got[0]) and matches(expected[1:], got[1:])


def assert_printed(output: Block, got: str) -> None:
    want = [ln.rstrip() for ln in output.text.rstrip("\n").split("\n")]
    have = [ln.rstrip() for ln in got.rstrip("\n").split("\n")]
    assert matches(want, have), f"{output.id} shows:\n{output.text}\nthe example printed:\n{got}"


# ---- running a block --------------------------------------------------------------------------

def workdir(tmp_path: Path, block: Block) -> Path:
    (tmp_path / "scenarios").symlink_to(REPO / "scenarios")
    (tmp_path / ".venv").symlink_to(REPO / ".venv")
    for b in ALL:
        if b.doc == block.doc and (name := b.directive("file")):
            (tmp_path / name).write_text(b.text)
    return tmp_path


def run(block: Block, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{VENV_BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}"}
    env.pop("PYTHONPATH", None)
    if block.lang == "python":
        script = cwd / "example.py"
        script.write_text(block.text)
        cmd = [str(VENV_BIN / "python"), str(script)]
    else:
        cmd = ["bash", "-c", "set -euo pipefail\n" + block.text]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)


def skip_reason(block: Block) -> str | None:
    if (reason := block.directive("skip")) is not None:
        m = re.fullmatch(r"\((.+)\)", reason)
        assert m and len(m.group(1)) > 10, f"{block.id}: a skip names its reason: skip (REASON)"
        return m.group(1)
    if (program := block.directive("needs")) and shutil.which(program) is None:
        return f"needs {program}, which is not installed"
    return None


def check_scenario(block: Block, cwd: Path) -> None:
    text = block.text
    try:
        keys = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        pytest.fail(f"{block.id}: not TOML: {e}")
    if "duration" not in keys:
        text = 'duration = "10s"\n' + text
    if "topology" not in keys:
        text += '\n[topology]\nkind = "dumbbell"\nbottleneck_rate = "10Mbps"\nbottleneck_delay = "10ms"\n'
    if "flows" not in keys:
        text += '\n[[flows]]\ncc = "reno"\n'
    target = "block.toml"
    if (path := block.directive("same as")) is not None:
        # That file, equal to the block, where its relative names (trace files) are found.
        target = str(REPO / path)
    else:
        (cwd / "block.toml").write_text(text)
    out = subprocess.run([str(VENV_BIN / "ccarena"), "validate", target], cwd=cwd,
                         capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    assert out.returncode == 0 and out.stdout.startswith("ok: "), f"{block.id}:\n{text}\n{out.stderr}"


def is_case(block: Block) -> bool:
    return block.lang in RUNNABLE or is_scenario(block) or block.directive("same as") is not None


@pytest.mark.parametrize("block", [b for b in ALL if is_case(b)], ids=lambda b: b.id)
def test_the_example_runs_as_printed(block: Block, tmp_path: Path) -> None:
    if (reason := skip_reason(block)) is not None:
        pytest.skip(reason)
    cwd = workdir(tmp_path, block)
    if (first := block.directive("after")) is not None:
        before = named([b for b in ALL if b.doc == block.doc], first)
        setup = run(before, cwd)
        assert setup.returncode == 0, f"{before.id}, run before {block.id}, failed:\n{setup.stderr[-3000:]}"
    if (path := block.directive("same as")) is not None:
        assert tomllib.loads(block.text) == tomllib.loads((REPO / path).read_text()), f"{block.id} differs from {path}"
    if is_scenario(block):
        check_scenario(block, cwd)
    if block.lang not in RUNNABLE:
        return
    out = run(block, cwd)
    expected = [o for o in block.outputs if o.text.startswith("error:")]
    if expected:
        assert out.returncode == 2, f"{block.id} should fail with status 2:\n{out.stdout}\n{out.stderr}"
        assert_printed(expected[0], out.stderr)
        return
    assert out.returncode == 0, f"{block.id} failed ({out.returncode}):\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    for printed in block.outputs:
        assert_printed(printed, out.stdout)


def test_every_directive_is_known_and_where_it_means_something() -> None:
    wrong = []
    for b in ALL:
        for d in b.directives:
            name = next((k for k in ("skip", "needs", "file", "same as", "name", "after", "output of", "output")
                         if d == k or d.startswith(k + " ")), None)
            is_output = any(b is printed for o in ALL for printed in o.outputs)
            if name is None or name.startswith("output") != is_output or (not is_output and not is_case(b)):
                wrong.append(f"{b.id}: {d}")
    assert not wrong, wrong


def test_examples_are_fenced() -> None:
    """An indented code block, or a fence with text after it, would escape the runner."""
    wrong = []
    for doc in DOCS:
        fenced, prev = False, ""
        for n, line in enumerate(doc.read_text(encoding="utf-8").split("\n"), 1):
            if line.startswith("```"):
                if not (FENCE.match(line) if not fenced else line.strip() == "```"):
                    wrong.append(f"{doc.relative_to(REPO)}:{n}: {line}")
                fenced = not fenced
            elif not fenced and line.startswith("    ") and line.strip() and not prev.strip():
                wrong.append(f"{doc.relative_to(REPO)}:{n}: an indented code block")
            prev = line
    assert not wrong, wrong


# ---- paths the pages name --------------------------------------------------------------------

REPO_PATH = re.compile(r"(?<![\w/.\-])((?:crates|python|tests|tools|scenarios|docs)/[\w./\-]*)(?![\w<*{])")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: str(d.relative_to(REPO)))
def test_every_path_a_page_names_exists(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    named = {m.group(1).rstrip(".,;:") for m in REPO_PATH.finditer(text)}
    missing = sorted(p for p in named if not (REPO / p).exists() and not re.search(r"[A-Z]{3,}", p))
    links = {m.group(1) for m in LINK.finditer(text) if not re.match(r"[a-z]+:", m.group(1))}
    missing += sorted(t for t in links if not (doc.parent / t).exists())
    assert not missing, f"{doc.relative_to(REPO)} names files that do not exist: {missing}"
