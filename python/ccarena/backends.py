"""The backends a scenario runs on, under one interface: the simulator (``sim``), the peers ns-2
(``ns2``) and ns-3 (``ns3``), and the Linux kernel testbed (``kernel``).

Each returns the simulator's :class:`~ccarena.api.RunResult` tables (``meta["backend"]`` names
it), so metrics, plots, comparisons and experiments consume any of them unchanged. A backend
that cannot run here says why in one line (:func:`unavailable`); one that cannot run a scenario
raises :class:`~ccarena.errors.PeerError` or :class:`~ccarena.errors.TestbedError` naming the key.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from typing import Any

from ccarena.errors import ArgumentError

#: Every backend, in the order tables list them: name → (module, what it is).
BACKENDS: dict[str, tuple[str, str]] = {
    "sim": ("ccarena.api", "the ccarena simulator"),
    "ns2": ("ccarena.peers.ns2", "ns-2.35 (Debian package ns2)"),
    "ns3": ("ccarena.peers.ns3", "ns-3.37 (Debian package libns3-dev)"),
    "kernel": ("ccarena.testbed", "this host's Linux TCP in network namespaces"),
}


def names(text: str | Iterable[str] | None) -> list[str]:
    """Backend names from ``"sim,ns2"`` or a list; every backend for None. Raises
    :class:`ArgumentError` for an unknown name."""
    if text is None:
        return list(BACKENDS)
    items = [t.strip() for t in (text.split(",") if isinstance(text, str) else text) if t.strip()]
    if not items:
        raise ArgumentError(f"backends: expected one or more of {', '.join(BACKENDS)}")
    for item in items:
        if item not in BACKENDS:
            raise ArgumentError(f"backends: unknown backend {item!r} (allowed: {', '.join(BACKENDS)})")
    return list(dict.fromkeys(items))


def unavailable(name: str) -> str | None:
    """None when backend ``name`` can run on this machine, else why not."""
    if name == "sim":
        return None
    if name == "kernel":
        from ccarena.errors import TestbedError
        from ccarena.testbed import checks

        try:
            checks.require_privileges()
        except TestbedError as exc:
            return str(exc)
        return None
    return _module(name).available()


def runner(name: str) -> Callable[..., Any]:
    """The ``run(scenario, *, overrides, seed)`` function of backend ``name``."""
    module = _module(name)
    return module.run


def _module(name: str) -> Any:
    return importlib.import_module(BACKENDS[name][0])
