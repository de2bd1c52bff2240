"""Campaigns: an experiment is a base scenario × a grid of key values × replications, run through
a resumable result store on a local process pool or a Dask cluster (docs/experiments.md).

>>> from ccarena import Experiment
>>> exp = Experiment("scenarios/reno-pair.toml", grid={"flows[0].cc": ["reno", "cubic"]}, replications=5)
>>> res = exp.run(store="out/reno-vs-cubic")          # doctest: +SKIP
>>> res.summary(["goodput_bps", "jain"])               # doctest: +SKIP
"""

from ccarena.experiment.definition import Experiment, RunSpec
from ccarena.experiment.result import ExperimentResult
from ccarena.experiment.store import open_store

__all__ = ["Experiment", "ExperimentResult", "RunSpec", "open_store"]
