"""What the dry run measured, kept between dry runs: one small JSON file per build and scenario.

A calibration (:mod:`ccarena.experiment.calibrate`) or the cost model's reference run
(:mod:`ccarena.experiment.cost_model`) prices simulations on one build of the core on one
machine, so its entry is filed under the build: the ccarena version and a hash of the extension
module's file (a rebuild of the same version is another build). A scenario's entry is named by
the hash of its JSON with sorted keys. Entries live under ``$XDG_CACHE_HOME/ccarena`` (else
``~/.cache/ccarena``) and are written to a temporary file first and renamed into place, so a
reader never sees half an entry; an entry that cannot be read or lacks a field is treated as
missing and overwritten by the next measurement. The cache only saves time: a directory that
cannot be written leaves every entry missing.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def cache_root() -> Path:
    """The user's cache directory for ccarena (the XDG base directory rule)."""
    base = os.environ.get("XDG_CACHE_HOME") or ""
    return (Path(base) if Path(base).is_absolute() else Path.home() / ".cache") / "ccarena"


@functools.cache
def build_id() -> str:
    """The ccarena version and the first 16 hex digits of the SHA-256 of the core's extension
    module file: what a measured CPU time holds for."""
    from ccarena import _core

    digest = hashlib.sha256()
    with open(_core.__file__, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return f"{_core.__version__}-{digest.hexdigest()[:16]}"


def scenario_key(scenario: Mapping[str, Any]) -> str:
    """A scenario's name in the cache: the hash of its JSON with sorted keys."""
    text = json.dumps(scenario, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _path(kind: str, name: str) -> Path:
    # Joined as text: a dry run looks up every grid point, hundreds of them.
    return Path(os.path.join(cache_root(), kind, build_id(), f"{name}.json"))


def load(kind: str, name: str, fields: Mapping[str, type]) -> dict[str, Any] | None:
    """The entry ``name`` of ``kind`` for this build, or None if there is none or it is damaged
    (not JSON, not an object, or a field of ``fields`` missing or of another type)."""
    try:
        entry = json.loads(_path(kind, name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(entry, dict):
        return None
    for field, kind_of in fields.items():
        value = entry.get(field)
        # A JSON number may come back as an int where a float was written.
        if not isinstance(value, kind_of) and not (kind_of is float and type(value) is int):
            return None
    return entry


def store(kind: str, name: str, entry: Mapping[str, Any]) -> None:
    """Write ``entry`` as ``name`` of ``kind`` for this build, atomically; silently not at all
    where the cache directory cannot be written."""
    path = _path(kind, name)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(dict(entry), f)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        return
