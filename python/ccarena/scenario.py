"""Loading scenarios and applying ``KEY=VALUE`` overrides.

A scenario reaches the core as JSON text. On the Python side it is a plain ``dict`` with the
structure of the TOML file (see ``docs/scenario.md``); this module turns a path, a TOML string or a
dict into that dict, and edits it with overrides such as ``flows[0].cc=reno``. Validation of the
content (known keys, units, ranges) is the core's job: nothing here second-guesses it.
"""

from __future__ import annotations

import copy
import datetime
import json
import math
import re
import tomllib
from collections.abc import Iterable, Mapping
from os import PathLike
from pathlib import Path
from typing import Any

from ccarena.errors import ScenarioError

__all__ = [
    "ScenarioSource", "load", "apply_overrides", "parse_override_value", "parse_key", "set_key", "to_json", "check_seed",
    "nesting_depth", "MAX_NESTING", "MAX_SEED",
]

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


def nesting_depth(text: str) -> int:
    """The deepest nesting of ``[``/``{`` in TOML ``text``, brackets inside strings and comments
    not counted; table headers count too (``[[flows]]`` is 2). It costs no recursion, so it can
    be checked before tomllib, which recurses once per level and would raise RecursionError.
    (Dotted keys nest tables without brackets: :func:`to_json` checks the parsed depth.)"""
    depth = deepest = 0
    i, n = 0, len(text)
    while (m := _TOML_SPECIAL.search(text, i)) is not None:
        i = m.start()
        ch = text[i]
        if ch == "#":  # a comment runs to the end of the line
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif ch in "\"'":
            i = _skip_string(text, i)
            continue
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:  # ] or }
            depth = max(depth - 1, 0)
        i += 1
    return deepest


#: What :func:`nesting_depth` looks at: comments, strings and brackets.
_TOML_SPECIAL = re.compile(r"[#\"'\[\]{}]")


def _skip_string(text: str, i: int) -> int:
    """Index just past the TOML string starting at ``text[i]`` (basic or literal, one line or
    multi-line); an unterminated string runs to the end of its line (or of the text for a
    multi-line one): tomllib reports the error, this only must not miscount brackets."""
    quote = text[i]
    escapes = quote == '"'  # literal strings ('...') have no escapes
    if text.startswith(quote * 3, i):
        j = i + 3
        while j < len(text):
            if escapes and text[j] == "\\":
                j += 2
            elif text.startswith(quote * 3, j):
                j += 3
                # Up to two quotes right before the closing three belong to the content.
                for _ in range(2):
                    if j < len(text) and text[j] == quote:
                        j += 1
                return j
            else:
                j += 1
        return len(text)
    j = i + 1
    while j < len(text) and text[j] != "\n":
        if escapes and text[j] == "\\":
            j += 2
        elif text[j] == quote:
            return j + 1
        else:
            j += 1
    return j


def _parse_toml(text: str, what: str) -> dict[str, Any]:
    """Parse TOML, refusing (in one line) nesting too deep for the parser's recursion."""
    deepest = nesting_depth(text)
    if deepest > MAX_NESTING:
        raise ScenarioError(f"{what}: arrays or tables nested {deepest} deep; at most {MAX_NESTING} levels are allowed")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{what} is not valid TOML: {exc}") from None
    except RecursionError:
        raise ScenarioError(f"{what}: nested too deeply to parse (at most {MAX_NESTING} levels are allowed)") from None


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
        raise ScenarioError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except ValueError:  # a NUL byte or an unencodable character in the name
        raise ScenarioError(f"{str(path)!r:.80}: not a usable file name") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ScenarioError(f"{path}: not UTF-8 text") from None
    return _traces_beside(_parse_toml(text, str(path)), path.parent)


def _traces_beside(doc: dict[str, Any], folder: Path) -> dict[str, Any]:
    """The scenario with its trace files' relative names made relative to ``folder``, the
    scenario file's, so that a scenario and its traces move together (docs/topologies.md)."""
    topology = doc.get("topology")
    if not isinstance(topology, dict):
        return doc
    holders = [topology, *(lk for lk in topology.get("links", ()) if isinstance(lk, dict))]
    for holder in holders:
        for key in ("bottleneck_trace", "trace"):
            name = holder.get(key)
            if isinstance(name, str) and not Path(name).expanduser().is_absolute():
                holder[key] = str(folder / name)
    return doc


def parse_override_value(text: str, what: str = "override value") -> Any:
    """Interpret the right-hand side of an override.

    The text is read as a TOML value if it is one (``3`` → 3, ``true`` → True, ``"x"`` → "x",
    ``{kind="file", size="5MB"}`` → dict, ``[1, 2]`` → list); otherwise it is taken as a plain
    string (``1Gbps`` → "1Gbps", ``reno`` → "reno"). TOML's bare ``nan`` and ``inf`` stay strings:
    no scenario value is a non-finite number, and ``flows[0].cc=nan`` means a name. A value
    nesting arrays or tables more than :data:`MAX_NESTING` deep raises :class:`ScenarioError`
    naming ``what``.
    """
    if not isinstance(text, str):
        raise ScenarioError(f"{what}: expected the value as text (a str), not {type(text).__name__}")
    deepest = nesting_depth(text)
    if deepest > MAX_NESTING:
        raise ScenarioError(f"{what}: arrays or tables nested {deepest} deep; at most {MAX_NESTING} levels are allowed")
    try:
        value = tomllib.loads(f"x = {text}")["x"]
    except tomllib.TOMLDecodeError:
        return text.strip()
    except RecursionError:  # not expected below MAX_NESTING, but never a traceback
        raise ScenarioError(f"{what}: nested too deeply to parse (at most {MAX_NESTING} levels are allowed)") from None
    return text.strip() if isinstance(value, float) and not math.isfinite(value) else value


def _parse_path(path: str) -> list[str | int]:
    """``"flows[0].cc"`` → ``["flows", 0, "cc"]``; ``"flows.1.count"`` → ``["flows", "1", "count"]``.

    A bracketed index is an ``int``; a dotted component stays a ``str`` (digits included) and is
    used as an index only when the container is a list.
    """
    if not isinstance(path, str):
        raise ScenarioError(f"key: expected a key path like flows[0].cc (a str), not {type(path).__name__}")
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
    if not isinstance(scenario, Mapping):
        raise ScenarioError(f"scenario: expected a table (a dict), not {type(scenario).__name__}")
    if isinstance(overrides, (str, bytes)) or not isinstance(overrides, Iterable):
        raise ScenarioError(f'overrides: expected a list of "KEY=VALUE" strings, got {type(overrides).__name__}')
    doc = copy.deepcopy(dict(scenario))
    for item in overrides:
        if not isinstance(item, str):
            raise ScenarioError(f'overrides: {item!r} is not a "KEY=VALUE" string')
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ScenarioError(f"override {item!r}: expected KEY=VALUE, e.g. flows[0].cc=reno")
        _set_path(doc, _parse_path(key.strip()), parse_override_value(value.strip(), f"override {key.strip()}"))
    return doc


def parse_key(key: str) -> list[str | int]:
    """Split a key path (``"flows[0].cc"``) into its parts; :class:`ScenarioError` if malformed."""
    return _parse_path(key)


def set_key(doc: dict[str, Any], key: str, value: Any) -> None:
    """Set ``key`` (a path like ``flows[0].cc``) to ``value`` in ``doc``, in place, with the
    rules of :func:`apply_overrides` but a value that is already data, not text."""
    if not isinstance(doc, dict):
        raise ScenarioError(f"scenario: expected a table (a dict), not {type(doc).__name__}")
    _set_path(doc, _parse_path(key), value)


def to_json(scenario: Mapping[str, Any]) -> str:
    """Encode a scenario dict as the JSON text the core reads.

    Raises :class:`ScenarioError` naming the field for values JSON cannot carry or the core would
    misread: TOML dates and times, NaN and infinity, integers beyond 64 bits (JSON readers turn
    them into floats), a seed outside 0..2⁶⁴−1, tables nested deeper than :data:`MAX_NESTING`.
    """
    if not isinstance(scenario, Mapping):
        raise ScenarioError(f"scenario: expected a table (a dict), not {type(scenario).__name__}")
    _check_values(scenario, "", 0)
    if "seed" in scenario:
        check_seed(scenario["seed"])
    try:
        return json.dumps(scenario, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ScenarioError(f"scenario cannot be encoded: {exc}") from None
    except RecursionError:
        raise ScenarioError(f"scenario: tables or arrays nested too deeply (at most {MAX_NESTING} levels)") from None


#: Seeds are unsigned 64-bit integers in the core.
MAX_SEED = 2**64 - 1
#: The integers a JSON reader keeps exact (i64 and u64); beyond them serde_json reads a float.
_INT_RANGE = (-(2**63), 2**64 - 1)


def check_seed(seed: Any, where: str = "seed") -> int:
    """``seed`` if it is an integer in 0..2⁶⁴−1, else :class:`ScenarioError` saying so."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ScenarioError(f"{where}: {_short(seed)} is not a seed: expected an integer in 0..{MAX_SEED} (2^64-1)")
    return seed


def _check_values(value: Any, path: str, depth: int) -> None:
    """Refuse, naming the field, what JSON cannot carry faithfully (see :func:`to_json`).
    ``depth`` is the number of tables and arrays around ``value``."""
    where = path or "scenario"
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, int):
        if not _INT_RANGE[0] <= value <= _INT_RANGE[1]:
            if path == "seed":
                check_seed(value)
            raise ScenarioError(f"{where}: {_short(value)} is out of range: integers must lie in -2^63..2^64-1")
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ScenarioError(f"{where}: {value} is not a finite number")
        return
    if isinstance(value, (datetime.date, datetime.time)):  # datetime.datetime is a date
        raise ScenarioError(
            f"{where}: {value.isoformat()} is a TOML date or time; dates are not allowed "
            '(durations are strings like "10s")'
        )
    if isinstance(value, (Mapping, list, tuple)) and depth > MAX_NESTING:  # the scenario's own table is level 0
        shown = where if len(where) <= 60 else where[:57] + "..."
        raise ScenarioError(f"{shown}: tables or arrays nested more than {MAX_NESTING} deep; at most {MAX_NESTING} levels are allowed")
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                raise ScenarioError(f"scenario cannot be encoded: {where}: the key {_short(k)} is not a string")
            _check_values(v, f"{path}.{k}" if path else k, depth + 1)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_values(v, f"{path}[{i}]", depth + 1)
    else:
        raise ScenarioError(
            f"scenario cannot be encoded: {where}: {_short(value)} is a {type(value).__name__}, "
            "not a TOML value (a string, number, boolean, array or table)"
        )


def _short(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
