"""Congestion controls written in Python, for prototyping an idea without writing Rust.

Subclass :class:`CongestionControl`, then name the class in a scenario as
``cc = "py:module.Class"`` or register it for one run with
``ccarena.run(scenario, algorithms={"mine": MyCC})`` and ``cc = "mine"``. The simulator calls
the methods below with a :class:`CcState` whose ``cwnd`` and ``ssthresh`` (segments) the method
may change; the transport does the rest (loss detection, recovery, timers), exactly as for the
built-in algorithms (`crates/core/src/cc/mod.rs` documents the Rust trait this mirrors).

Each callback takes the GIL for its own duration only. It costs a Python call per ACK, so a
run is several times slower than with a built-in algorithm (docs/python.md gives a measure).
An exception in a callback stops the run and ``ccarena.run`` raises it with its traceback.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ccarena._core import CcState
from ccarena.errors import ScenarioError

__all__ = ["CongestionControl", "CcState"]

PREFIX = "py:"
_OPTIONAL_HOOKS = ("on_sent", "on_rtt_sample", "on_ack_feedback", "on_recovery_exit", "pacing_rate")


class CongestionControl:
    """Base class of a congestion control written in Python.

    ``cc_params`` of the scenario's flow group are passed to the constructor as keyword
    arguments; one instance is made per flow. Times are seconds of simulated time.
    """

    def on_ack(self, state: CcState, acked: int, rtt: float | None, now: float) -> None:
        """``acked`` segments were newly acknowledged (cumulatively or by SACK) while the
        window limited the sender and no loss recovery was under way: grow ``state.cwnd``.
        ``rtt`` is this ACK's RTT sample (Karn's rule applied), if any."""
        raise NotImplementedError(f"{type(self).__name__} must define on_ack")

    def on_congestion(self, state: CcState, kind: str, flight_size: int, now: float) -> None:
        """A congestion signal: ``kind`` is ``"loss"``, ``"timeout"``, ``"ecn"`` or
        ``"source_quench"``. Set ``state.ssthresh``; the transport sets cwnd from it (to
        ssthresh in fast recovery, to 1 after a timeout). ``flight_size`` is the data
        outstanding, segments (RFC 5681's FlightSize)."""
        raise NotImplementedError(f"{type(self).__name__} must define on_congestion")

    def on_rtt_sample(self, state: CcState, rtt: float, now: float) -> None:
        """Every valid RTT sample, in recovery too (optional: delay-based algorithms)."""

    def on_ack_feedback(self, state: CcState, acked: int, ece: bool, one_way_delay: float | None, now: float) -> None:
        """Every acceptable ACK, in recovery too, before the transport acts on it (optional):
        ``acked`` segments newly delivered (cumulatively or by SACK), ``ece`` its ECN-Echo, and
        with timestamps ``one_way_delay``, TSval − TSecr in seconds (whole milliseconds: the
        data's one-way delay plus the time the receiver held its ACK)."""

    def on_recovery_exit(self, state: CcState, now: float) -> None:
        """Fast recovery ended with cwnd set back to ssthresh (optional)."""

    def on_sent(self, state: CcState, now: float) -> None:
        """A data segment was sent (optional: called per packet, costly)."""

    def pacing_rate(self, state: CcState) -> float | None:
        """Bits per second to pace segments at, or None not to pace (optional)."""
        return None


def _import(module: str, search: Sequence[str | os.PathLike[str]]) -> Any:
    """``importlib.import_module(module)``; where its top-level package is not on ``sys.path``
    but is a file or package in the current directory or one of ``search`` (the scenario's or
    experiment's folder), that directory is appended to ``sys.path`` first: the ``ccarena``
    command, unlike ``python``, does not put the current directory on the path."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        top = module.partition(".")[0]
        if e.name != top:
            raise
        for folder in (Path.cwd(), *map(Path, search)):
            if (folder / f"{top}.py").is_file() or (folder / top / "__init__.py").is_file():
                sys.path.append(str(folder.resolve()))
                return importlib.import_module(module)
        raise


def module_folders(doc: Mapping[str, Any], search: Sequence[str | os.PathLike[str]] = ()) -> list[str]:
    """The folders holding the modules of ``doc``'s ``py:module.Class`` names that are not
    importable from ``sys.path`` as it is but are found as :func:`_import` finds them: what a
    worker process must add to its path to import them too."""
    folders: list[str] = []
    for group in doc.get("flows") or []:
        cc = group.get("cc") if isinstance(group, dict) else None
        if not (isinstance(cc, str) and cc.startswith(PREFIX) and "." in cc):
            continue
        top = cc[len(PREFIX) :].partition(".")[0]
        for folder in (Path.cwd(), *map(Path, search)):
            if (folder / f"{top}.py").is_file() or (folder / top / "__init__.py").is_file():
                folders.append(str(folder.resolve()))
                break
    return list(dict.fromkeys(folders))


def resolve(
    name: str, registered: Mapping[str, type[CongestionControl]], where: str, search: Sequence[str | os.PathLike[str]] = ()
) -> type[CongestionControl]:
    """The class ``py:name`` stands for: a registered name, else ``module.Class`` (imported as
    :func:`_import` does, ``search`` naming further folders to look in)."""
    if name in registered:
        cls: Any = registered[name]
    else:
        module, _, attr = name.rpartition(".")
        # Every part must be a Python identifier: importlib reads a leading dot ("py:..x") as a
        # relative import and raises TypeError, and other characters can name no module.
        if not module or not all(part.isidentifier() for part in name.split(".")):
            known = ", ".join(sorted(registered)) or "none registered"
            raise ScenarioError(
                f'{where}: "{PREFIX}{name}" names no class: expected "py:module.Class" (dotted Python names) '
                f"or a name given in ccarena.run(..., algorithms=...) ({known})"
            )
        try:
            cls = getattr(_import(module, search), attr)
        except ImportError as e:
            raise ScenarioError(f'{where}: "{PREFIX}{name}": cannot import {module!r}: {e}') from e
        except AttributeError as e:
            raise ScenarioError(f'{where}: "{PREFIX}{name}": module {module!r} has no {attr!r}') from e
        except Exception as e:  # noqa: BLE001 - the module's own code failed while importing
            first = str(e).splitlines()[0] if str(e) else ""
            raise ScenarioError(f'{where}: "{PREFIX}{name}": importing {module!r} failed: {type(e).__name__}: {first}') from e
    if not (isinstance(cls, type) and issubclass(cls, CongestionControl)):
        raise ScenarioError(f'{where}: "{PREFIX}{name}" is {cls!r}, not a subclass of ccarena.CongestionControl')
    return cls


class Factory:
    """Makes one instance per flow when the core asks (``cc_factory`` of ``_core.run``)."""

    def __init__(self, classes: Mapping[str, type[CongestionControl]]) -> None:
        self.classes = dict(classes)

    def __call__(self, name: str, params: dict[str, Any], flow: int) -> tuple[CongestionControl, dict[str, bool]]:
        cls = self.classes[name]
        instance = cls(**params)
        hooks = {h: getattr(cls, h) is not getattr(CongestionControl, h) for h in _OPTIONAL_HOOKS}
        return instance, hooks


def factory_for(
    doc: dict[str, Any], algorithms: Mapping[str, type[CongestionControl]] | None, search: Sequence[str | os.PathLike[str]] = ()
) -> Factory | None:
    """Rewrites the groups of ``doc`` whose ``cc`` is a name in ``algorithms`` to ``py:name``,
    resolves every ``py:`` name (raising :class:`ScenarioError` for a bad one) and returns the
    factory for the run, or None if no group uses Python."""
    from ccarena.errors import ArgumentError

    if algorithms is not None and not isinstance(algorithms, Mapping):
        raise ArgumentError(f"algorithms: expected a dict of names to CongestionControl subclasses, not {type(algorithms).__name__}")
    registered = dict(algorithms or {})
    for name, cls in registered.items():
        if not isinstance(name, str) or not name:
            raise ArgumentError(f"algorithms: the key {name!r} is not a name (a non-empty string)")
        if not (isinstance(cls, type) and issubclass(cls, CongestionControl)):
            raise ArgumentError(f"algorithms[{name!r}]: {cls!r} is not a subclass of ccarena.CongestionControl")
    classes: dict[str, type[CongestionControl]] = {}
    for i, group in enumerate(doc.get("flows") or []):
        cc = group.get("cc") if isinstance(group, dict) else None
        if not isinstance(cc, str):
            continue
        if cc in registered:
            group["cc"] = cc = PREFIX + cc
        if cc.startswith(PREFIX) and cc[len(PREFIX) :] not in classes:
            classes[cc[len(PREFIX) :]] = resolve(cc[len(PREFIX) :], registered, f"flows[{i}].cc", search)
    return Factory(classes) if classes else None
