"""Flow completion times: how long each finite transfer took (``completion_s`` of the ``flows``
table), as a CDF over flows and against the transfer's size.

Only ``file`` applications record a completion time: a web source fetches many objects and an
ftp source many files, and the core keeps no time per object or per file, so their flows'
``completion_s`` is NaN and they do not appear here.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ccarena import _core
from ccarena.errors import ArgumentError
from ccarena.plots import _common as c

if TYPE_CHECKING:
    from ccarena.api import RunResult


def _file_sizes(result: RunResult) -> dict[str, float]:
    """Group name → the bytes each of its flows sends, for the groups with a ``file`` app (the
    normalised scenario of ``meta`` names it: ``app = { kind = "file", size = "200000B" }``)."""
    sizes = {}
    for group in result.meta.get("scenario", {}).get("flows", []):
        app = group.get("app", {})
        if app.get("kind") == "file" and "size" in app:
            sizes[str(group.get("name"))] = float(_core.size_bytes(str(app["size"])))
    return sizes


def flow_completion(result: RunResult | Mapping[str, RunResult]) -> pd.DataFrame:
    """One row per flow that completed its transfer: ``run`` (the mapping's label, ``""`` for
    one run), ``flow_id``, ``group``, ``algorithm``, ``size_bytes`` (the ``file`` app's size, NaN
    if the scenario does not say) and ``completion_s``."""
    parts = []
    for label, r in c.runs(result):
        flows = r.flows[np.isfinite(r.flows["completion_s"].to_numpy(dtype=float))]
        sizes = _file_sizes(r)
        parts.append(pd.DataFrame({
            "run": label,
            "flow_id": flows["flow_id"].astype(int).to_numpy(),
            "group": flows["group"].astype(str).to_numpy(),
            "algorithm": c.algorithm(flows).to_numpy(),
            "size_bytes": [sizes.get(g, np.nan) for g in flows["group"].astype(str)],
            "completion_s": flows["completion_s"].to_numpy(dtype=float),
        }))
    done = pd.concat(parts, ignore_index=True)
    if done.empty:
        raise ArgumentError("result: no flow completed a transfer (completion_s is recorded for `file` apps only; "
                            "web and ftp sources keep no time per object)")
    return done


def _size_unit(sizes: Any) -> tuple[float, str]:
    top = float(np.nanmax(np.asarray(sizes, dtype=float), initial=0.0))
    for scale, unit in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if top >= scale:
            return scale, unit
    return 1.0, "B"


def plot_fct(result: RunResult | Mapping[str, RunResult], path: str | Path | None = None) -> Figure:
    """Two panels: the CDF of completion times over the flows that finished, one line per
    algorithm (and per run of a mapping ``{label: RunResult}``), and each flow's completion time
    against its transfer size (:func:`flow_completion`)."""
    c.check_path(path, "fct.png")
    done = flow_completion(result)
    pairs = c.runs(result)
    fig = Figure(figsize=(10, 4.2), dpi=100, layout="constrained")
    cdf_ax, size_ax = fig.subplots(1, 2)
    fig.suptitle(f"Flow completion time — {c.title(pairs)}")
    styles = c.algorithm_styles(done["algorithm"].tolist())
    scale, unit = _size_unit(done["size_bytes"])
    for run, (prefix, _) in enumerate(pairs):
        mine = done[done["run"] == prefix]
        for name, part in mine.groupby("algorithm", sort=True):
            style = styles[str(name)]
            label = c.label(prefix, f"{name} ({len(part)})")
            t = np.sort(part["completion_s"].to_numpy(dtype=float))
            line = c.RUN_STYLES[run % len(c.RUN_STYLES)] if len(pairs) > 1 else "-"
            cdf_ax.step(np.concatenate([[0.0], t]), np.arange(len(t) + 1) / len(t), where="post", lw=1.4,
                        color=style["color"], linestyle=line, label=label)
            sized = part.dropna(subset=["size_bytes"])
            size_ax.scatter(sized["size_bytes"] / scale, sized["completion_s"], s=30, color=style["color"],
                            marker=style["marker"], alpha=0.8, label=label)
    cdf_ax.set(xlabel="completion time (s)", ylabel="fraction of flows", ylim=(0, 1.0))
    cdf_ax.set_xlim(left=0)
    size_ax.set(xlabel=f"transfer size ({unit})", ylabel="completion time (s)")
    sizes = done["size_bytes"].dropna()
    if sizes.empty:
        size_ax.text(0.5, 0.5, "no transfer sizes in the scenario", transform=size_ax.transAxes, ha="center", color="grey")
    elif sizes.max() > 10 * sizes.min():
        size_ax.set_xscale("log")
        size_ax.set_yscale("log")
    else:
        size_ax.set_ylim(bottom=0)
    for ax in (cdf_ax, size_ax):
        ax.grid(True, alpha=0.3)
    c.legend(size_ax)
    return c.save(fig, path, "fct.png")
