"""ccarena: a deterministic packet-level simulator for evaluating congestion control.

>>> import ccarena
>>> result = ccarena.run("scenarios/reno-pair.toml", overrides=["duration=10s"])
>>> result.flows[["id", "group", "goodput_bps"]]
>>> result.summary()["jain"]

See ``docs/`` for the scenario format and the result tables.
"""

from ccarena._core import __version__
from ccarena.api import RunResult, algorithms, run, validate
from ccarena.errors import Error, ExperimentError, OutputError, ScenarioError, SimulationError, TestbedError
from ccarena.experiment import Experiment, ExperimentResult, open_store

__all__ = [
    "run",
    "validate",
    "RunResult",
    "Experiment",
    "ExperimentResult",
    "open_store",
    "algorithms",
    "__version__",
    "Error",
    "ScenarioError",
    "OutputError",
    "SimulationError",
    "ExperimentError",
    "TestbedError",
]
