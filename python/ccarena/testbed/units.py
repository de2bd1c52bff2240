"""The scenario quantities the testbed hands to tc and the traffic agent, read by the core's own
readers (SCENARIO.md units: decimal prefixes, rates in bit/s, sizes in bytes, queue limits in
packets or bytes), so the testbed accepts exactly what a scenario accepts. A bad value raises
:class:`TestbedError` naming the field, with the message the scenario would give."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from ccarena import _core
from ccarena.errors import TestbedError

T = TypeVar("T")


def _read(parse: Callable[[str], T], text: object, field: str) -> T:
    try:
        return parse(str(text))
    except ValueError as exc:
        raise TestbedError(f"{field}: {exc}") from None


def rate_bps(text: object, field: str) -> float:
    """``"10Mbps"`` → 10e6."""
    return _read(_core.rate_bps, text, field)


def size_bytes(text: object, field: str) -> int:
    """``"1500B"`` → 1500, ``"64KB"`` → 64000."""
    return _read(_core.size_bytes, text, field)


def seconds(text: object, field: str) -> float:
    """``"40s"`` → 40.0, ``"250ms"`` → 0.25."""
    return _read(_core.duration_s, text, field)


def queue_limit(text: object, field: str) -> tuple[int, str]:
    """``"100pkt"`` → ``(100, "pkt")``; ``"50kB"`` → ``(50000, "B")``."""
    return _read(_core.queue_limit, text, field)
