"""Where one function's executed instructions go, source line by source line, per call: what
`callgrind_annotate` cannot say, since its per-line numbers add a line's instructions up over
every function it was inlined into and over all calls. It runs the
engine's benchmark binary under `callgrind --dump-instr=yes` (or reads a profile made so),
takes the instructions the function executed at each of its addresses (not those of the
functions it calls), gives each address the source line `objdump -l` prints for it (an inlined
callee's line where one was inlined), and prints the lines and the files with the most, divided
by the function's calls.

    cargo bench -p ccarena-core --no-run     # the binary: target/release/deps/b1-<hash>
    .venv/bin/python tools/instructions.py target/release/deps/b1-<hash> \\
        ccarena_core::engine::World::admit_one --case scenarios/bench/b1.toml

Valgrind and binutils do the measuring; this script only reads their output."""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

#: A callgrind name definition: `fn=(12) name` the first time, `fn=(12)` after.
_NAME = re.compile(r"^c?fn=\((\d+)\)(?: (.*))?$")
#: An instruction in `objdump -d` output: `  a3d70:\tpush   %rbp`.
_INSTRUCTION = re.compile(r"^\s+([0-9a-f]+):\s")
#: A source position in `objdump -l` output: `/path/to/file.rs:123` (with an optional suffix).
_SOURCE = re.compile(r"^(/\S+?):(\d+)(?:\s|$)")


class Profile(NamedTuple):
    """One function's executed instructions by address, and the calls made to it."""

    by_address: Counter[int]
    calls: int


def _position(token: str, previous: int) -> int:
    """A callgrind position: absolute (`0x1f`, `31`), relative to the previous one (`+3`, `-2`),
    or the same again (`*`)."""
    if token == "*":
        return previous
    if token[0] in "+-":
        return previous + int(token, 0)
    return int(token, 0)


def parse_callgrind(lines: Iterable[str], function: str) -> Profile:
    """The instructions `function` executed itself (not in the functions it calls), by address,
    from a callgrind profile written with `--dump-instr=yes` (positions `instr line`)."""
    names: dict[str, str] = {}
    by_address: Counter[int] = Counter()
    calls = 0
    current = callee = ""
    address = 0
    call_cost_next = False
    for raw in lines:
        line = raw.rstrip("\n")
        if line.startswith(("fn=", "cfn=")):
            m = _NAME.match(line)
            if m is None:
                continue
            if m.group(2):
                names[m.group(1)] = m.group(2)
            name = names.get(m.group(1), "")
            if line.startswith("fn="):
                current = name
            else:
                callee = name
            continue
        if line.startswith("calls="):
            # The next cost line is the call's inclusive cost, not the caller's own.
            call_cost_next = True
            if callee == function:
                calls += int(line.split("=", 1)[1].split()[0])
            continue
        if not line or line[0] not in "0123456789+-*":
            continue
        tokens = line.split()
        if len(tokens) < 2:
            continue
        address = _position(tokens[0], address)
        cost = int(tokens[2]) if len(tokens) >= 3 else int(tokens[1])
        if call_cost_next:
            call_cost_next = False
            continue
        if current == function:
            by_address[address] += cost
    return Profile(by_address, calls)


def attribute(by_address: Counter[int], listing: Iterable[str]) -> Counter[str]:
    """Instructions by `file:line`, from an `objdump -d -l` listing of the function: each
    instruction belongs to the source position printed last before it."""
    by_line: Counter[str] = Counter()
    source = "?"
    for line in listing:
        m = _SOURCE.match(line)
        if m:
            source = f"{_short(m.group(1))}:{m.group(2)}"
            continue
        m = _INSTRUCTION.match(line)
        if m:
            by_line[source] += by_address.get(int(m.group(1), 16), 0)
    return by_line


def _short(path: str) -> str:
    """A source path from its crate's `src/` on (`net/link.rs`, `slice/index.rs`)."""
    return path.rsplit("/src/", 1)[-1]


def symbol_range(binary: Path, function: str) -> tuple[int, int]:
    """The function's start address and size, from `nm`."""
    out = subprocess.run(["nm", "-C", "-S", str(binary)], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split(None, 3)
        if len(parts) == 4 and parts[3] == function:
            return int(parts[0], 16), int(parts[1], 16)
    raise SystemExit(f"instructions: no symbol {function!r} in {binary} (an inlined function has none: name its caller)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary", type=Path, help="the benchmark binary (cargo bench -p ccarena-core --no-run)")
    parser.add_argument("function", help="the function's demangled name, as `nm -C` prints it")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--case", type=Path, help="a scenario file to run under callgrind")
    source.add_argument("--profile", type=Path, help="a callgrind profile of BINARY made with --dump-instr=yes")
    parser.add_argument("--top", type=int, default=30, help="lines to print (default 30)")
    parser.add_argument("--per", type=int, metavar="N", help="divide by N, not by the calls (say, the packets a loop took)")
    args = parser.parse_args(argv)
    for flag, value in (("--top", args.top), ("--per", args.per)):
        if value is not None and value < 1:
            parser.error(f"{flag} {value}: must be at least 1")
    if not args.binary.is_file():
        raise SystemExit(f"instructions: {args.binary}: no such binary (cargo bench -p ccarena-core --no-run builds it)")
    needed = ["nm", "objdump"] + (["valgrind"] if args.profile is None else [])
    missing = [tool for tool in needed if shutil.which(tool) is None]
    if missing:
        raise SystemExit(f"instructions: {', '.join(missing)} not found (Debian packages valgrind and binutils)")
    with tempfile.TemporaryDirectory() as tmp:
        profile_path = args.profile
        if profile_path is None:
            profile_path = Path(tmp) / "callgrind.out"
            subprocess.run(
                ["valgrind", "--tool=callgrind", "--dump-instr=yes", f"--callgrind-out-file={profile_path}", str(args.binary), "--bench", str(args.case)],
                check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
        with open(profile_path) as f:
            profile = parse_callgrind(f, args.function)
    start, size = symbol_range(args.binary, args.function)
    listing = subprocess.run(
        ["objdump", "-d", "-l", "--no-show-raw-insn", f"--start-address={start:#x}", f"--stop-address={start + size:#x}", str(args.binary)],
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()
    by_line = attribute(profile.by_address, listing)
    total = sum(by_line.values())
    per = args.per or max(profile.calls, 1)
    unit = f"each of {args.per:,}" if args.per else "per call" if profile.calls else "in all (no calls recorded)"
    print(f"{args.function}: {total:,} instructions, {profile.calls:,} calls, {total / per:.1f} {unit}")
    by_file: Counter[str] = Counter()
    for where, n in by_line.items():
        by_file[where.rsplit(":", 1)[0]] += n
    print("\nby file")
    for where, n in by_file.most_common(args.top):
        print(f"{n / per:9.2f}  {where}")
    print("\nby line")
    for where, n in by_line.most_common(args.top):
        print(f"{n / per:9.2f}  {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
