"""Loading scenarios and applying ``KEY=VALUE`` overrides.

A scenario reaches the core as JSON text. On the Python side it is a plain ``dict`` with the
structure of the TOML file (see ``docs/scenario.md``); this module turns a path, a TOML string or a
dict into that dict, and edits it with overrides such as ``flows[0].cc=reno``. Validation of the
content (known keys, units, ranges) is the core's job: nothing here second-guesses it.
"""

from __future__ import annotations

import copy
import json
import math
import re
import tomllib
from collections.abc import Iterable, Mapping
from os import PathLike
from pathlib import Path
from typing import Any

from ccarena.errors import ScenarioError

__all__ = ["ScenarioSource", "load", "apply_overrides", "parse_override_value", "parse_key", "set_key", "to_json"]

ScenarioSource = str | PathLike[str] | Mapping[str, Any]
"""A scenario: a path to a ``.toml`` file, TOML text, or a dict with the same structure."""

# One component of an override path: a bare key, or an index written `[3]`.
_PATH_TOKEN = re.compile(r"\s*(?:\[\s*(\d+)\s*\]|([A-Za-z0-9_\-]+))\s*")


def load(scenario: ScenarioSource) -> dict[str, Any]:
    """Return the scenario as a new plain dict.

    ``scenario`` is a :class:`~pathlib.Path` or a string naming an existing file (or ending in
    ``.toml``), TOML text, or a mapping (deep-copied, so the caller's object is never modified).
    Raises :class:`ScenarioError` if the file is missing or the TOML does not parse.
    """
    if isinstance(scenario, Mapping):
        try:
            return copy.deepcopy(dict(scenario))
        except RecursionError:
            raise ScenarioError(f"scenario: tables or arrays nested too deeply (at most {MAX_NESTING} levels)") from None
    if isinstance(scenario, PathLike):
        return _load_file(Path(scenario))
    if isinstance(scenario, str):
        if not scenario.strip():
            raise ScenarioError("scenario: the text is empty (give a path, TOML text or a dict)")
        if _looks_like_path(scenario):
            return _load_file(Path(scenario))
        return _parse_toml(scenario, "scenario text")
    raise ScenarioError(f"scenario: expected a path, TOML text or a dict, not {type(scenario).__name__}")


#: How deeply tables and arrays may nest in a scenario: the real format needs fewer than 6 levels.
MAX_NESTING = 64


def _parse_toml(text: str, what: str) -> dict[str, Any]:
    """Parse TOML, refusing (in one line) nesting too deep for the parser's recursion."""
    depth = 0
    deepest = 0
    for ch in text:  # brackets and braces, strings included: an upper bound on the real depth
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth = max(depth - 1, 0)
    if deepest > MAX_NESTING:
        raise ScenarioError(f"{what}: arrays or tables nested {deepest} deep; at most {MAX_NESTING} levels are allowed")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{what} is not valid TOML: {exc}") from None
    except RecursionError:
        raise ScenarioError(f"{what}: nested too deeply to parse") from None


def _looks_like_path(text: str) -> bool:
    if "\n" in text or "=" in text:
        return False
    return text.endswith(".toml") or Path(text).is_file() or Path(text).is_dir()


def _load_file(path: Path) -> dict[str, Any]:
    if path.is_dir():
        raise ScenarioError(f"{path}: is a directory, not a scenario file")
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ScenarioError(f"{path}: no such scenario file") from None
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ScenarioError(f"{path}: not UTF-8 text") from None
    return _parse_toml(text, str(path))


def parse_override_value(text: str) -> Any:
    """Interpret the right-hand side of an override.

    The text is read as a TOML value if it is one (``3`` → 3, ``true`` → True, ``"x"`` → "x",
    ``{kind="file", size="5MB"}`` → dict, ``[1, 2]`` → list); otherwise it is taken as a plain
    string (``1Gbps`` → "1Gbps", ``reno`` → "reno").
    """
    try:
        return tomllib.loads(f"x = {text}")["x"]
    except tomllib.TOMLDecodeError:
        return text.strip()


def _parse_path(path: str) -> list[str | int]:
    """``"flows[0].cc"`` → ``["flows", 0, "cc"]``; ``"flows.1.count"`` → ``["flows", "1", "count"]``.

    A bracketed index is an ``int``; a dotted component stays a ``str`` (digits included) and is
    used as an index only when the container is a list.
    """
    parts: list[str | int] = []
    pos = 0
    expect_key = True  # at the start and after a dot a key (or an index) must follow
    while pos < len(path):
        if not expect_key and path[pos] == ".":
            pos += 1
            expect_key = True
            continue
        m = _PATH_TOKEN.match(path, pos)
        if m is None or (m.group(2) is not None and not expect_key):
            raise ScenarioError(f"override {path!r}: cannot parse the key at {path[pos:]!r}")
        parts.append(int(m.group(1)) if m.group(1) is not None else m.group(2))
        pos = m.end()
        expect_key = False
    if not parts or expect_key:
        raise ScenarioError(f"override {path!r}: expected a key path like flows[0].cc")
    return parts


def _format_path(parts: list[str | int]) -> str:
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            out += ("." if out else "") + p
    return out


def _set_path(doc: dict[str, Any], parts: list[str | int], value: Any) -> None:
    node: Any = doc
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if isinstance(node, list) and isinstance(part, str) and part.isdigit():
            part = parts[i] = int(part)  # `flows.1` indexes a list like `flows[1]`
        here = _format_path(parts[: i + 1])
        if isinstance(node, list):
            if not isinstance(part, int):
                raise ScenarioError(f"{here}: {_format_path(parts[:i]) or 'the scenario'} is a list; use an index")
            index = part
            if index >= len(node):
                raise ScenarioError(
                    f"{here}: index {index} is out of range ({_format_path(parts[:i])} has {len(node)} entries)"
                )
            if last:
                node[index] = value
            else:
                node = node[index]
        elif isinstance(node, dict):
            if isinstance(part, int):
                raise ScenarioError(f"{here}: {_format_path(parts[:i]) or 'the scenario'} is a table, not a list")
            key = part
            if last:
                node[key] = value
            else:
                # Like TOML dotted keys: a missing intermediate table is created.
                node = node.setdefault(key, {})
        else:
            parent = _format_path(parts[:i])
            raise ScenarioError(f"{here}: {parent} is a {_toml_type(node)}, not a table or a list")


def _toml_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return type(value).__name__


def apply_overrides(scenario: Mapping[str, Any], overrides: Iterable[str]) -> dict[str, Any]:
    """Return a copy of ``scenario`` with each ``KEY=VALUE`` override applied in order.

    ``KEY`` is a path of dotted keys and indices: ``topology.bottleneck_rate``, ``flows[0].cc``
    or ``flows.1.count``. ``VALUE`` is parsed by :func:`parse_override_value`. A missing table on
    the way is created (``topology.loss.p=0.01``); an index out of range or a key into a value
    that is not a table raises :class:`ScenarioError` naming the path.
    """
    if isinstance(overrides, (str, bytes)) or not isinstance(overrides, Iterable):
        raise ScenarioError(f'overrides: expected a list of "KEY=VALUE" strings, got {type(overrides).__name__}')
    doc = copy.deepcopy(dict(scenario))
    for item in overrides:
        if not isinstance(item, str):
            raise ScenarioError(f'overrides: {item!r} is not a "KEY=VALUE" string')
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ScenarioError(f"override {item!r}: expected KEY=VALUE, e.g. flows[0].cc=reno")
        _set_path(doc, _parse_path(key.strip()), parse_override_value(value.strip()))
    return doc


def parse_key(key: str) -> list[str | int]:
    """Split a key path (``"flows[0].cc"``) into its parts; :class:`ScenarioError` if malformed."""
    return _parse_path(key)


def set_key(doc: dict[str, Any], key: str, value: Any) -> None:
    """Set ``key`` (a path like ``flows[0].cc``) to ``value`` in ``doc``, in place, with the
    rules of :func:`apply_overrides` but a value that is already data, not text."""
    _set_path(doc, _parse_path(key), value)


def to_json(scenario: Mapping[str, Any]) -> str:
    """Encode a scenario dict as the JSON text the core reads.

    Raises :class:`ScenarioError` for values JSON cannot carry (TOML dates, NaN, infinity).
    """
    try:
        _check_finite(scenario, "")
        return json.dumps(scenario, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ScenarioError(f"scenario cannot be encoded: {exc}") from None
    except RecursionError:
        raise ScenarioError(f"scenario: tables or arrays nested too deeply (at most {MAX_NESTING} levels)") from None


def _check_finite(value: Any, path: str) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise ScenarioError(f"{path or 'value'}: {value} is not a finite number")
    if isinstance(value, Mapping):
        for k, v in value.items():
            _check_finite(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _check_finite(v, f"{path}[{i}]")
