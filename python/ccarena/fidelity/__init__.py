"""``ccarena fidelity``: a fixed suite of scenarios on the simulator and the peer simulators
(ns-2, ns-3), compared metric by metric, written as docs/fidelity.md and fidelity.html.

``run(backends, ...)`` runs the suite and returns its rows; ``write(directory, rows, meta)``
writes the pages and ``fidelity.json`` (every value, so the pages can be checked or redrawn).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ccarena.fidelity.page import generated_now, markdown, page_html
from ccarena.fidelity.run import RowResult, run_suite
from ccarena.fidelity.suite import rows

__all__ = ["run_suite", "write", "rows", "RowResult"]


def write(directory: str | Path, results: list[RowResult], meta: dict[str, Any]) -> list[Path]:
    """Write fidelity.md, fidelity.html and fidelity.json into ``directory``; return the paths."""
    from ccarena import __version__

    meta = {"generated": generated_now(), "version": __version__, **meta}
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "fidelity.md", out / "fidelity.html", out / "fidelity.json"]
    paths[0].write_text(markdown(results, meta))
    paths[1].write_text(page_html(results, meta))
    paths[2].write_text(json.dumps({"meta": meta, "rows": [r.to_dict() for r in results]}, indent=1, allow_nan=False) + "\n")
    return paths
