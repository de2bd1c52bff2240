"""Seed 003's figures redrawn from our runs: utilisation by the main flows against a grid axis,
one panel per background load."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ccarena.papers.highspeed_tcp.experiments import CC, LABEL, LOAD
from ccarena.papers.highspeed_tcp.tables import main_utilisation
from ccarena.papers.model import Figure, Results


def _draw_against(name: str, x: str, title: str, xlabel: str) -> Callable[[Results, Path], None]:
    def draw(results: Results, path: Path) -> None:
        import matplotlib.pyplot as plt

        m = main_utilisation(results[name])
        loads = sorted(m[LOAD].unique())
        fig, axes = plt.subplots(1, len(loads), figsize=(max(4 * len(loads), 6.5), 3.4), dpi=100, layout="constrained", sharey=True, squeeze=False)
        order = list(dict.fromkeys(m[x]))
        for ax, load in zip(axes[0], loads):
            part = m[m[LOAD] == load]
            for cc, g in part.groupby(CC, sort=False):
                means = g.groupby(x, sort=False)["util"].mean().reindex(order)
                ax.plot(range(len(order)), means.to_numpy(), marker="o", label=LABEL[cc])
            ax.set_xticks(range(len(order)), [str(v) for v in order])
            ax.set(title=f"background {int(load * 100)}%", xlabel=xlabel)
            ax.grid(True, alpha=0.3)
        axes[0][0].set_ylabel("utilisation by the main flows (%)")
        axes[0][-1].legend(fontsize="small", loc="center left", bbox_to_anchor=(1.02, 0.5))
        fig.suptitle(title)
        fig.savefig(path)
        plt.close(fig)

    return draw


FIGURES = (
    Figure("Figura 4.3", "Utilisation by the main flows against the number of connections.", _draw_against("connections", "flows[0].count", "Figura 4.3: scalability with the number of connections", "connections")),
    Figure("Figura 4.6", "Utilisation by 20 connections against the bottleneck's propagation delay.", _draw_against("delay", "topology.bottleneck_delay", "Figura 4.6: scalability with the delay", "one-way delay")),
    Figure("Figura 4.14", "Parking lot: utilisation by 100 connections against the capacity of every hop (TCP Reno as the reference).", _draw_against("parking-capacity", "topology.hop_rate", "Figura 4.14: parking lot, scalability with the capacity", "capacity per hop")),
)
