"""The Linux kernel backend: a dumbbell scenario on this machine's TCP stack in network namespaces.

``run(scenario)`` returns the simulator's ``RunResult`` tables measured on real sockets;
``cleanup()`` removes what killed runs left behind. See docs/testbed.md.
"""

from __future__ import annotations

from ccarena.errors import TestbedError
from ccarena.testbed.netns import leftovers, remove
from ccarena.testbed.runner import run

__all__ = ["run", "cleanup", "TestbedError"]


def cleanup(include_live: bool = False) -> list[str]:
    """Remove testbed namespaces (and their processes) whose runner is gone, or every testbed
    namespace with ``include_live``; return their names."""
    names = leftovers(include_live)
    remove(names)
    return names
