"""The exceptions ccarena raises on purpose. Every one derives from :class:`Error`.

A user mistake (a bad scenario, override, option or output path) or a run that cannot finish
raises one of these with a one-line message that names what is wrong and what is allowed; the
CLI prints it as ``error: <message>`` and exits with status 2. Anything else escaping the package
is a bug.

========================  =====================================================================
class                     raised when
========================  =====================================================================
``Error``                 base class; catch it to catch everything below
``ScenarioError``         a scenario, an override or an API argument describing one is invalid
                          (also a ``ValueError``)
``OutputError``           an output destination cannot be written (names the path)
``SimulationError``       a valid scenario could not be simulated (a watchdog stopped a run,
                          or an internal error that should be reported)
``ExperimentError``       an experiment definition or a result store is invalid or unreadable
``TestbedError``          the Linux kernel backend cannot run a scenario on this machine
``PeerError``             a peer simulator (ns-2, ns-3) cannot run a scenario, is not installed,
                          or failed (the message says which key or what the peer printed)
``ArgumentError``         a function of the API got an argument it cannot use (also a
                          ``ValueError``), e.g. ``RunResult.jain(over="bogus")``
========================  =====================================================================

Warnings: ``StoreDamagedWarning`` (a ``UserWarning``) names a run of a result store whose files
are missing, truncated or altered; the run is then treated as not run.
"""

from __future__ import annotations

__all__ = [
    "Error", "ScenarioError", "OutputError", "SimulationError", "ExperimentError", "TestbedError", "PeerError", "ArgumentError",
    "StoreDamagedWarning",
]


class Error(Exception):
    """Base class of every error ccarena raises on purpose."""


class ScenarioError(Error, ValueError):
    """A scenario is invalid: the message names the field, the bad value and what is allowed.

    A file with several mistakes in independent parts (top-level keys, the topology, each flow
    group, the background) reports them together: ``errors`` holds one line each, in file order
    (at most six, the last one counting the rest), and the message is those lines."""

    def __init__(self, message: str, errors: list[str] | None = None) -> None:
        super().__init__(message, *([errors] if errors is not None else []))
        self.errors: list[str] = list(errors) if errors is not None else [message]

    def __str__(self) -> str:
        return "\n".join(self.errors)


class OutputError(Error):
    """An output file or directory cannot be written; the message names the path."""


class SimulationError(Error):
    """A valid scenario could not be simulated to its end."""


class ExperimentError(Error):
    """An experiment definition or a result store is invalid or cannot be read."""


class PeerError(Error):
    """A peer simulator (ns-2, ns-3) cannot run this scenario, is missing, or failed."""


class TestbedError(Error):
    """The Linux kernel backend cannot run this scenario here (the message says why)."""

    __test__ = False  # not a pytest test class despite its name


class ArgumentError(Error, ValueError):
    """An argument of an API call has the wrong type or value (the message names it)."""


class StoreDamagedWarning(UserWarning):
    """A run in a result store is damaged (a file missing, truncated or altered): it is left out
    of the results and the next sweep recomputes it. The message names the run and the damage."""
