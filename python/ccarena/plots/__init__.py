"""Plots of runs and campaigns (:mod:`ccarena.plots.time_series`): results in, figures out."""

from ccarena.plots.time_series import (
    GRID_ABOVE,
    goodput_series,
    plot_cwnd,
    plot_cwnd_grid,
    plot_cwnd_runs,
    plot_goodput,
    plot_queue,
    plot_sweep,
)

__all__ = ["plot_goodput", "plot_cwnd", "plot_cwnd_grid", "plot_cwnd_runs", "plot_queue", "plot_sweep", "goodput_series", "GRID_ABOVE"]
