"""The scenario quantities the testbed hands to tc and the traffic agent (SCENARIO.md units:
decimal prefixes, rates in bit/s, sizes in bytes, queue limits in packets or bytes)."""

from __future__ import annotations

import re

from ccarena.errors import TestbedError

_PREFIX = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}
_QUANTITY = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([kKMG]?)(bps|B|pkt)\s*$")


def _parse(text: object, unit: str, field: str) -> float:
    m = _QUANTITY.match(str(text))
    if not m or m.group(3) != unit:
        raise TestbedError(f"{field}: {text!r} is not a quantity in {unit}")
    return float(m.group(1)) * _PREFIX[m.group(2)]


def rate_bps(text: object, field: str) -> float:
    return _parse(text, "bps", field)


def size_bytes(text: object, field: str) -> int:
    return int(_parse(text, "B", field))


def seconds(text: object, field: str) -> float:
    """``"40s"`` → 40.0, ``"250ms"`` → 0.25 (the core's reader of scenario durations)."""
    from ccarena import _core

    try:
        return _core.duration_s(str(text))
    except ValueError as exc:
        raise TestbedError(f"{field}: {exc}") from None


def queue_limit(text: object, field: str) -> tuple[int, str]:
    """``"100pkt"`` → ``(100, "pkt")``; ``"50kB"`` → ``(50000, "B")``."""
    m = _QUANTITY.match(str(text))
    if not m or m.group(3) not in ("pkt", "B"):
        raise TestbedError(f"{field}: {text!r} is not a packet or byte count")
    return int(float(m.group(1)) * _PREFIX[m.group(2)]), m.group(3)
