"""Plots of runs and campaigns: results in, figures out.

The figures are :class:`matplotlib.figure.Figure` objects made without pyplot, so drawing one
neither needs nor changes a matplotlib backend (a notebook keeps its own) and is thread-safe.

Each function takes a :class:`~ccarena.RunResult` (or a mapping ``{label: RunResult}`` to overlay
several runs, e.g. variants of one scenario or backends) and returns the Figure; with ``path`` it
also writes a PNG there and closes the figure. Lines are labelled ``"<group> #<flow id>"``, and a
flow has the colour of its id in every plot and every overlaid run (which a line style tells
apart). Rates are drawn in kbit/s, Mbit/s or Gbit/s, whichever their largest value reads best in.

===================================  =====================================================  ========================
function                             what                                                   file name
===================================  =====================================================  ========================
:func:`plot_goodput`                 goodput of each flow over time                         ``goodput.png``
:func:`plot_cwnd`                    congestion window of each flow over time               ``cwnd.png``
:func:`plot_cwnd_grid`               one window panel per run                               ``cwnd.png``
:func:`plot_cwnd_runs`               overlaid up to :data:`GRID_ABOVE` runs, a grid above   ``cwnd.png``
:func:`plot_queue`                   queue length of one link over time                     ``queue.png``
:func:`plot_throughput_delay`        goodput against 95th-percentile delay (Pantheon's)     ``throughput_delay.png``
:func:`plot_throughput_delay_sweep`  the same per grid point, a panel per swept value       ``throughput_delay.png``
:func:`plot_delay_cdf`               CDF of per-packet one-way delay                        ``delay_cdf.png``
:func:`plot_delay_cdf_sweep`         a campaign's delay CDF, a panel per swept value        ``delay_cdf.png``
:func:`plot_fct`                     flow completion times: CDF and against size            ``fct.png``
:func:`plot_sequence`                one TCP flow's sequence numbers from a packet capture  ``sequence.png``
:func:`plot_sweep`                   a campaign metric against a swept key                  ``<metric>.png``
===================================  =====================================================  ========================

``result.plot.<kind>()`` (:class:`RunPlots`) and ``experiment_result.plot.<kind>()``
(:class:`ExperimentPlots`) call them as methods.

``path`` names the PNG file. A path that is an existing directory, or ends in ``/``, means the
plot's own file name inside that directory (created if needed): ``plot_goodput(res, "out")``
writes ``out/goodput.png``, never ``out.png`` beside it. A path that cannot be written raises
:class:`~ccarena.OutputError` naming it; an argument of the wrong kind, or a result without what
the plot draws (no delays, no completed transfer, no capture), raises
:class:`~ccarena.ArgumentError`.
"""

from ccarena.plots.accessor import ExperimentPlots, RunPlots
from ccarena.plots.delay import plot_delay_cdf, plot_delay_cdf_sweep, pooled_cdf
from ccarena.plots.fct import flow_completion, plot_fct
from ccarena.plots.sequence import SequenceTrace, plot_sequence, read_sequence
from ccarena.plots.sweep import plot_sweep
from ccarena.plots.throughput_delay import plot_throughput_delay, plot_throughput_delay_sweep, throughput_delay_points
from ccarena.plots.time_series import (
    GRID_ABOVE,
    goodput_series,
    plot_cwnd,
    plot_cwnd_grid,
    plot_cwnd_runs,
    plot_goodput,
    plot_queue,
)

__all__ = [
    "plot_goodput",
    "plot_cwnd",
    "plot_cwnd_grid",
    "plot_cwnd_runs",
    "plot_queue",
    "plot_sweep",
    "plot_throughput_delay",
    "plot_throughput_delay_sweep",
    "plot_delay_cdf",
    "plot_delay_cdf_sweep",
    "plot_fct",
    "plot_sequence",
    "goodput_series",
    "throughput_delay_points",
    "pooled_cdf",
    "flow_completion",
    "read_sequence",
    "SequenceTrace",
    "RunPlots",
    "ExperimentPlots",
    "GRID_ABOVE",
]
