"""An experiment: a base scenario, a grid of values for any of its keys, and replications.

The grid is the cartesian product of the ``grid`` keys and of the ``zip`` groups (each group's
keys vary together, like Python's ``zip``); every grid point is run ``replications`` times, with
seeds ``seed, seed + 1, …`` so that the same replication sees the same seed at every point
(common random numbers: paired comparisons between points are then meaningful).
"""

from __future__ import annotations

import copy
import itertools
import math
import os
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ccarena import scenario as _scenario
from ccarena.errors import ExperimentError, ScenarioError

if TYPE_CHECKING:
    from ccarena.experiment.result import ExperimentResult

#: Seed of replication 0 when the base scenario sets none (the core's own default).
DEFAULT_SEED = 1

#: The most runs (grid points × replications) one experiment may have. A sweep plans every run
#: before the first starts (about 0.13 ms and 2 KB each: 10⁶ runs take two minutes and 2 GB) and
#: the store records each in the experiment's JSON file, so a bigger grid is almost certainly a
#: mistake (a key's values pasted twice, a range with too fine a step), refused before any work.
MAX_RUNS = 1_000_000


@dataclass(frozen=True)
class RunSpec:
    """One run of an experiment: a grid point, a replication and the scenario they give."""

    point: int
    replication: int
    seed: int
    #: Grid key → value at this point, in the experiment's key order.
    params: dict[str, Any]
    #: The scenario with the point's values and the seed applied (not yet validated).
    scenario: dict[str, Any]


class Experiment:
    """A campaign: ``base`` scenario × ``grid`` × ``zip`` groups × ``replications``.

    ``base`` is a scenario as :func:`ccarena.run` takes it (a path, TOML text or a dict);
    ``grid`` maps scenario keys (``"flows[0].cc"``, ``"topology.bottleneck_rate"``,
    ``"background[0].load"``) to lists of values; ``zip`` is a list of groups, each a mapping of
    keys to lists of one common length. ``overrides`` (``KEY=VALUE`` strings) edit the base first.
    Raises :class:`ExperimentError` for a malformed grid; bad scenario values surface per run.
    """

    def __init__(
        self,
        base: _scenario.ScenarioSource,
        grid: Mapping[str, Sequence[Any]] | None = None,
        *,
        zip: Sequence[Mapping[str, Sequence[Any]]] = (),  # noqa: A002 - the documented name
        replications: int = 1,
        name: str | None = None,
        overrides: Sequence[str] = (),
    ) -> None:
        self.base: dict[str, Any] = _scenario.apply_overrides(_scenario.load(base), overrides)
        self.grid: dict[str, list[Any]] = _check_axis("grid", grid or {})
        if isinstance(zip, Mapping):
            zip = [zip]
        self.zip: list[dict[str, list[Any]]] = [_check_zip_group(i, g) for i, g in enumerate(zip)]
        if isinstance(replications, bool) or not isinstance(replications, int) or not 1 <= replications <= 100_000:
            raise ExperimentError(f"replications: {replications!r} is not an integer in 1..100000")
        self.replications = replications
        keys = self.keys
        if "seed" in keys:
            raise ExperimentError("grid: 'seed' cannot be varied; replications set the seeds (seed, seed + 1, ...)")
        dup = sorted({k for k in keys if keys.count(k) > 1})
        if dup:
            raise ExperimentError(f"grid: key {dup[0]!r} appears more than once (grid and zip groups must not overlap)")
        if self.n_points * replications > MAX_RUNS:
            raise ExperimentError(
                f"grid: {self.n_points} points × {replications} replications = {self.n_points * replications} runs "
                f"(axes {self._axes_text()}); an experiment may have at most {MAX_RUNS} runs"
            )
        self.name = str(name if name is not None else self.base.get("name", "experiment"))
        #: Where ``py:module.Class`` modules are looked for after the current directory: the base
        #: scenario's folder, and the experiment file's (:func:`ccarena.cc.resolve`).
        self.folders: list[str] = []
        if isinstance(base, (str, Path)) and not (isinstance(base, str) and "\n" in base) and Path(base).is_file():
            self.folders.append(str(Path(base).resolve().parent))

    @classmethod
    def from_toml(cls, path: str | Path, *, replications: int | None = None) -> Experiment:
        """Read an experiment file: an ``[experiment]`` table (``base``, ``replications``,
        ``name``, ``set``, ``[experiment.grid]``, ``[[experiment.zip]]``) and either ``base``
        (a scenario path, relative to the file) or the scenario inline as ``[scenario]``."""
        if not isinstance(path, (str, os.PathLike)) or isinstance(path, bytes):
            raise ExperimentError(f"experiment file: expected a path, not {type(path).__name__}")
        p = Path(path)
        try:
            doc = tomllib.loads(p.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ExperimentError(f"{p}: cannot read the experiment file ({exc.strerror or exc})") from None
        except UnicodeDecodeError:
            raise ExperimentError(f"{p}: not a TOML file (not UTF-8 text)") from None
        except (tomllib.TOMLDecodeError, RecursionError) as exc:
            raise ExperimentError(f"{p}: not valid TOML ({_first_line(exc)})") from None
        exp = doc.get("experiment")
        if not isinstance(exp, dict):
            raise ExperimentError(f"{p}: missing the [experiment] table")
        unknown = sorted(set(exp) - {"base", "grid", "zip", "replications", "name", "set"})
        if unknown:
            raise ExperimentError(
                f"experiment.{unknown[0]}: unknown key (allowed: base, grid, zip, replications, name, set)"
            )
        base: Any
        if "base" in exp and "scenario" in doc:
            raise ExperimentError(f"{p}: give either experiment.base or a [scenario] table, not both")
        if "base" in exp:
            if not isinstance(exp["base"], str):
                raise ExperimentError(f"experiment.base: {exp['base']!r} is not a path to a scenario file")
            base = p.parent / exp["base"]
            if not base.is_file():
                raise ExperimentError(f"experiment.base: {exp['base']!r} is not a file (paths are relative to {p})")
        elif isinstance(doc.get("scenario"), dict):
            base = doc["scenario"]
        else:
            raise ExperimentError(f"{p}: set experiment.base to a scenario file or give the scenario as [scenario]")
        sets = exp.get("set", [])
        if not isinstance(sets, list) or not all(isinstance(s, str) for s in sets):
            raise ExperimentError('experiment.set: expected a list of "KEY=VALUE" strings')
        grid = exp.get("grid", {})
        if not isinstance(grid, dict):
            raise ExperimentError("experiment.grid: expected a table of KEY = [values]")
        zips = exp.get("zip", [])
        if isinstance(zips, dict):
            zips = [zips]
        if not isinstance(zips, list):
            raise ExperimentError("experiment.zip: expected [[experiment.zip]] tables of KEY = [values]")
        reps = exp.get("replications", 1) if replications is None else replications
        experiment = cls(base, grid, zip=zips, replications=reps, name=exp.get("name"), overrides=sets)
        experiment.folders = list(dict.fromkeys([str(p.resolve().parent), *experiment.folders]))
        return experiment

    @property
    def keys(self) -> list[str]:
        """Every varied key, grid keys first, then each zip group's keys in order."""
        return [*self.grid, *(k for g in self.zip for k in g)]

    def _axes(self) -> list[tuple[list[str], int]]:
        """The product's axes in order: each grid key alone, then each zip group, with its length."""
        return [([k], len(v)) for k, v in self.grid.items()] + [(list(g), len(next(iter(g.values())))) for g in self.zip]

    def _axes_text(self) -> str:
        return ", ".join(f"{k[0]}×{n}" if len(k) == 1 else f"zip({', '.join(k)})×{n}" for k, n in self._axes())

    @property
    def n_points(self) -> int:
        """The number of grid points: the product of the axes' lengths (1 without any axis)."""
        return math.prod(n for _, n in self._axes())

    def iter_points(self) -> Iterator[dict[str, Any]]:
        """The grid points one at a time, in a fixed order: the grid's product (last key
        fastest), then the zip groups' rows. Nothing is expanded ahead."""
        axes: list[list[tuple[tuple[str, Any], ...]]] = [[((k, v),) for v in vs] for k, vs in self.grid.items()]
        for group in self.zip:
            axes.append(list(zip(*([(k, v) for v in vs] for k, vs in group.items()))))
        for combo in itertools.product(*axes):
            yield {k: v for part in combo for k, v in part}

    def points(self) -> list[dict[str, Any]]:
        """The grid points as a list (:meth:`iter_points`)."""
        return list(self.iter_points())

    def iter_runs(self) -> Iterator[RunSpec]:
        """Every run one at a time, point-major: all replications of point 0, then point 1, …"""
        base_seed = self.base.get("seed", DEFAULT_SEED)
        if isinstance(base_seed, bool) or not isinstance(base_seed, int):
            raise ScenarioError(f"seed: {base_seed!r} is not an integer")
        for i, params in enumerate(self.iter_points()):
            doc = copy.deepcopy(self.base)
            for key, value in params.items():
                _scenario.set_key(doc, key, copy.deepcopy(value))
            for r in range(self.replications):
                seeded = copy.deepcopy(doc) if r else doc
                seeded["seed"] = base_seed + r
                yield RunSpec(point=i, replication=r, seed=base_seed + r, params=params, scenario=seeded)

    def runs(self) -> list[RunSpec]:
        """Every run as a list (:meth:`iter_runs`)."""
        return list(self.iter_runs())

    def run(
        self,
        store: str | Path,
        *,
        executor: str = "local",
        jobs: int | None = None,
        scheduler: str | None = None,
        force: bool = False,
        progress: bool | None = None,
        series: bool = False,
        backend: str = "sim",
    ) -> ExperimentResult:
        """Run every run not yet in ``store`` (all of them with ``force``) and return the results.

        ``executor`` is ``"local"`` (a process pool of ``jobs`` workers, default: the number of
        cores) or ``"dask"`` (``dask.distributed``: the scheduler at ``scheduler``, e.g.
        ``"tcp://10.0.0.1:8786"``, or a ``LocalCluster`` of ``jobs`` workers when None). Each
        finished run is written at once; a failing run is recorded and the others go on.
        ``series=True`` also stores the per-interval time series. ``progress`` draws a progress
        bar (default: when stderr is a terminal). ``backend`` runs every run on another backend:
        ``"ns2"``, ``"ns3"`` or ``"kernel"`` (docs/peers.md); its runs have their own store keys,
        and the experiment is stored as ``NAME@BACKEND``, so one store holds it on several backends
        side by side.
        """
        from ccarena.experiment.campaign import run_campaigns

        return run_campaigns(
            [(self, series)], store, executor=executor, jobs=jobs, scheduler=scheduler, force=force, progress=progress,
            backend=backend,
        )[0]

    def describe(self) -> dict[str, Any]:
        """The experiment as JSON-ready data (what the store records about it)."""
        return {
            "name": self.name,
            "keys": self.keys,
            "grid": self.grid,
            "zip": self.zip,
            "replications": self.replications,
            "points": self.n_points,
        }

    def __len__(self) -> int:
        """The number of runs, computed from the axes' lengths (no point is expanded)."""
        return self.n_points * self.replications

    def __repr__(self) -> str:
        return f"Experiment({self.name!r}: {self._axes_text()}; {self.replications} replication{'s' if self.replications != 1 else ''}, {len(self)} runs)"


def _first_line(exc: BaseException) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _check_values(where: str, key: Any, values: Any) -> list[Any]:
    if not isinstance(key, str) or not key.strip():
        raise ExperimentError(f"{where}: key {key!r} is not a scenario key such as flows[0].cc")
    _scenario.parse_key(key)  # raises ScenarioError naming the key if it is not a key path
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Sequence):
        raise ExperimentError(f"{where}.{key}: expected a list of values, got {values!r}")
    if len(values) == 0:
        raise ExperimentError(f"{where}.{key}: the list of values is empty")
    for v in values:
        if isinstance(v, float) and not math.isfinite(v):
            raise ExperimentError(f"{where}.{key}: {v!r} is not a finite number")
    return list(values)


def _check_axis(where: str, axis: Mapping[str, Sequence[Any]]) -> dict[str, list[Any]]:
    if not isinstance(axis, Mapping):
        raise ExperimentError(f"{where}: expected a mapping of scenario keys to lists of values, got {axis!r}")
    return {k: _check_values(where, k, v) for k, v in axis.items()}


def _check_zip_group(i: int, group: Mapping[str, Sequence[Any]]) -> dict[str, list[Any]]:
    where = f"zip[{i}]"
    checked = _check_axis(where, group)
    if not checked:
        raise ExperimentError(f"{where}: the group has no keys")
    lengths = {k: len(v) for k, v in checked.items()}
    if len(set(lengths.values())) > 1:
        sizes = ", ".join(f"{k}: {n}" for k, n in lengths.items())
        raise ExperimentError(f"{where}: keys that vary together need lists of one length ({sizes})")
    return checked
