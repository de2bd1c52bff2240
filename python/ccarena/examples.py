"""The example scenarios that ship inside the package (``ccarena/scenarios/``), found by name.

A command that reads a scenario takes a path, or, where no such file exists, the name of a
bundled example: ``reno-pair``, ``bench/b1``, ``experiments/reno-vs-cubic`` (with or without
``.toml``). So ``ccarena run reno-pair`` works from any directory after ``pip install``, and
``ccarena examples`` lists them (``--copy NAME`` writes one out to edit). The papers' own
scenarios (``papers/``) are listed by ``ccarena reproduce --list`` instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ccarena.errors import ArgumentError

ROOT = Path(__file__).resolve().parent / "scenarios"

#: Folders of ROOT listed as examples, besides its top level; ``papers/`` belongs to `reproduce`.
FOLDERS = ("bench", "experiments")


@dataclass(frozen=True)
class Example:
    name: str  # e.g. "reno-pair", "bench/b1"
    path: Path
    summary: str  # the file's first comment line


def _summary(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            return line.lstrip("#").strip()
        if line.strip():
            break
    return ""


def all_examples() -> list[Example]:
    """Every bundled example, the top level first, then each folder, sorted by name."""
    paths = sorted(ROOT.glob("*.toml")) + [p for folder in FOLDERS for p in sorted((ROOT / folder).glob("*.toml"))]
    return [Example(p.relative_to(ROOT).with_suffix("").as_posix(), p, _summary(p)) for p in paths]


def find(name: str) -> Path | None:
    """The bundled example called ``name`` (``.toml`` optional), or None."""
    stem = name.removesuffix(".toml")
    return next((e.path for e in all_examples() if e.name == stem), None)


def resolve(text: str) -> Path:
    """A scenario argument: the file ``text`` if it exists, else the bundled example of that
    name; anything else is one line naming what was tried."""
    path = Path(text)
    if path.is_file():
        return path
    if path.exists():
        raise ArgumentError(f"{text}: is a directory, not a scenario file")
    found = find(text)
    if found is None:
        raise ArgumentError(f"{text}: no such file, and no bundled example of that name (`ccarena examples` lists them)")
    return found


#: An experiment's `base = "..."` line (bundled experiments name their base scenario so).
_BASE_LINE = re.compile(r'^(base\s*=\s*)"([^"]+)"', re.M)
#: A link's delivery trace, named relative to the scenario (docs/topologies.md).
_TRACE_KEY = re.compile(r'\b(?:bottleneck_)?trace\s*=\s*"([^"]+)"')


def copy(name: str, directory: Path) -> list[Path]:
    """Writes the bundled example ``name`` into ``directory`` (created if needed) and returns the
    files written, the example first; an existing file is not overwritten. An experiment comes
    with its base scenario, written beside it and named by its file name in the copy's ``base``,
    and a scenario with the trace files it names, under the same relative names, so that the copy
    runs (such a file already there with the same text is kept)."""
    source = find(name)
    if source is None:
        raise ArgumentError(f"{name}: no bundled example of that name (`ccarena examples` lists them)")
    target = directory / source.name
    text = source.read_text(encoding="utf-8")
    base = _BASE_LINE.search(text)
    files = {target: text}
    if base:
        base_source = (source.parent / base.group(2)).resolve()
        files[directory / base_source.name] = base_source.read_text(encoding="utf-8")
        files[target] = _BASE_LINE.sub(lambda m: f'{m.group(1)}"{base_source.name}"', text, count=1)
    for trace in _TRACE_KEY.findall(text):
        if not Path(trace).is_absolute():
            files[directory / trace] = (source.parent / trace).read_text(encoding="utf-8")
    for path, content in files.items():
        if path.exists() and not (path != target and path.read_text(encoding="utf-8") == content):
            raise ArgumentError(f"{path}: already exists; not overwritten")
    for path, content in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    return list(files)
