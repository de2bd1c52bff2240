"""ccarena: a deterministic packet-level simulator for evaluating congestion control.

>>> import ccarena
>>> result = ccarena.run("scenarios/reno-pair.toml", overrides=["duration=10s"])
>>> result.flows[["flow_id", "group", "goodput_bps"]]
>>> result.summary()["jain"]

See ``docs/`` for the scenario format and the result tables.

The names below are loaded on first use (PEP 562), so that ``import ccarena`` and the command
line start without pandas, pyarrow or SciPy until a command needs them.
"""

from __future__ import annotations

from ccarena._core import __version__
from ccarena.errors import (
    ArgumentError,
    Error,
    ExperimentError,
    OutputError,
    PeerError,
    ScenarioError,
    SimulationError,
    StoreDamagedWarning,
    TestbedError,
)

# Not `typing.TYPE_CHECKING`: importing typing is most of this package's import time, which is
# the time a Ctrl-C at a command's start would print a traceback (type checkers honour this).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ccarena.api import RunResult, algorithms, run, validate
    from ccarena.cc import CcState, CongestionControl
    from ccarena.experiment import Experiment, ExperimentResult, open_store

#: Public name → the module that defines it.
_LAZY = {
    "run": "ccarena.api",
    "validate": "ccarena.api",
    "RunResult": "ccarena.api",
    "algorithms": "ccarena.api",
    "Experiment": "ccarena.experiment",
    "ExperimentResult": "ccarena.experiment",
    "open_store": "ccarena.experiment",
    "CongestionControl": "ccarena.cc",
    "CcState": "ccarena.cc",
}

__all__ = [
    "run",
    "validate",
    "RunResult",
    "algorithms",
    "Experiment",
    "ExperimentResult",
    "open_store",
    "CongestionControl",
    "CcState",
    "__version__",
    "Error",
    "ScenarioError",
    "OutputError",
    "SimulationError",
    "ExperimentError",
    "TestbedError",
    "PeerError",
    "ArgumentError",
    "StoreDamagedWarning",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ccarena' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public API only (``dir(ccarena)``, tab completion): not the helpers this module imports."""
    return sorted(__all__)
