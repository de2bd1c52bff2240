"""``result.plot.<kind>()``: the plots of one run (:class:`RunPlots`) or of a campaign
(:class:`ExperimentPlots`) as methods, each returning the matplotlib Figure and, with ``path``,
writing it as a PNG (a directory means the plot's own file name inside it)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from matplotlib.figure import Figure

from ccarena.plots import delay, fct, sequence, sweep, throughput_delay, time_series

if TYPE_CHECKING:
    from ccarena.api import RunResult
    from ccarena.experiment.result import ExperimentResult

PathArg = str | Path | None


class RunPlots:
    """The plots of one :class:`~ccarena.RunResult`: ``result.plot.goodput()``, ``.cwnd()``,
    ``.queue()``, ``.throughput_delay()``, ``.delay_cdf()``, ``.fct()`` and ``.sequence()``
    (the last for runs made with ``pcap=DIR``)."""

    def __init__(self, result: RunResult) -> None:
        self._result = result

    def goodput(self, path: PathArg = None, *, max_points: int = 200) -> Figure:
        """Goodput of each flow over time (:func:`ccarena.plots.plot_goodput`)."""
        return time_series.plot_goodput(self._result, path, max_points=max_points)

    def cwnd(self, path: PathArg = None) -> Figure:
        """Congestion window of each window-based flow (:func:`ccarena.plots.plot_cwnd`)."""
        return time_series.plot_cwnd(self._result, path)

    def queue(self, path: PathArg = None, *, link: str | None = None) -> Figure:
        """Queue length of ``link``, by default the bottleneck (:func:`ccarena.plots.plot_queue`)."""
        return time_series.plot_queue(self._result, path, link)

    def throughput_delay(self, path: PathArg = None, *, per: str = "flow") -> Figure:
        """Goodput against 95th-percentile delay, per flow or per algorithm
        (:func:`ccarena.plots.plot_throughput_delay`)."""
        return throughput_delay.plot_throughput_delay(self._result, path, per=per)

    def delay_cdf(self, path: PathArg = None, *, per: str = "flow", log: bool = False) -> Figure:
        """CDF of per-packet one-way delay (:func:`ccarena.plots.plot_delay_cdf`)."""
        return delay.plot_delay_cdf(self._result, path, per=per, log=log)

    def fct(self, path: PathArg = None) -> Figure:
        """Flow completion times: CDF and against size (:func:`ccarena.plots.plot_fct`)."""
        return fct.plot_fct(self._result, path)

    def sequence(
        self, path: PathArg = None, *, flow: int = 0, link: str | None = None, ack_link: str | None = None,
        unit: str = "bytes",
    ) -> Figure:
        """Sequence plot of TCP flow ``flow`` from the run's captures
        (:func:`ccarena.plots.plot_sequence`)."""
        return sequence.plot_sequence(self._result, flow, link, path, ack_link=ack_link, unit=unit)


class ExperimentPlots:
    """The plots of an :class:`~ccarena.ExperimentResult`: ``res.plot.sweep(metric)``,
    ``res.plot.throughput_delay()`` and ``res.plot.delay_cdf()``."""

    def __init__(self, result: ExperimentResult) -> None:
        self._result = result

    def sweep(
        self, metric: str = "goodput_bps", path: PathArg = None, *, x: str | None = None,
        lines: Sequence[str] | None = None, ylabel: str | None = None,
    ) -> Figure:
        """A per-run ``metric`` (mean and 95% CI over replications) against the swept key ``x``,
        one line per combination of ``lines`` (:func:`ccarena.plots.plot_sweep`). Without ``x``
        and ``lines``, the campaign report's choice: ``x`` the varied key with the most values,
        preferring one that is not a congestion control, every other varied key making lines."""
        from ccarena.errors import ArgumentError

        res = self._result
        x, lines = self._axes(x, lines)
        if x is None:
            raise ArgumentError(f"x: {res.name!r} varies no key to draw a metric against")
        return sweep.plot_sweep(res.summary([metric]), x, metric, list(lines), path, ylabel=ylabel)

    def _axes(self, x: str | None, lines: Sequence[str] | None) -> tuple[str | None, Sequence[str]]:
        """``x`` and ``lines``, by default the campaign report's choice (:meth:`sweep`); with an
        ``x`` of the caller's and no ``lines``, every other key with more than one value."""
        from ccarena.experiment.report import choose_axes

        res = self._result
        chosen_x, chosen_lines = choose_axes(res)
        x = chosen_x if x is None else x
        if lines is None and x == chosen_x:
            return x, chosen_lines
        if lines is None:
            return x, [k for k in res.keys if k != x and res.metrics[k].nunique() > 1]
        return x, lines

    def throughput_delay(self, path: PathArg = None, *, per: str = "algorithm", by: Sequence[str] | None = None) -> Figure:
        """Goodput against 95th-percentile delay: each algorithm's mean over its runs with their
        1-σ ellipse, per value of the other varied keys ``by``
        (:func:`ccarena.plots.plot_throughput_delay`)."""
        return throughput_delay.plot_throughput_delay(self._result, path, per=per, by=by)

    def delay_cdf(
        self, path: PathArg = None, *, x: str | None = None, lines: Sequence[str] | None = None, log: bool = False
    ) -> Figure:
        """The CDF of one-way delay per grid point, a panel per value of ``x`` and a line per
        combination of ``lines``, each the packets of its point's replications together
        (:func:`ccarena.plots.plot_delay_cdf_sweep`). Without ``x`` and ``lines``, the campaign
        report's panels (:func:`ccarena.experiment.report.panel_axes`: those of :meth:`sweep`,
        but one panel with a line per algorithm where only algorithms vary); with one of them,
        the other as in :meth:`sweep`."""
        from ccarena.experiment.report import panel_axes

        x, chosen = panel_axes(self._result) if x is None and lines is None else self._axes(x, lines)
        return delay.plot_delay_cdf_sweep(self._result, x, chosen, path, log=log)
