"""The seed papers as reproductions: `ccarena reproduce NAME` (docs/reproducing.md).

Each module holds one paper: its experiments per scale, its published tables as data with their
references, its claims as checks over our results, and its figures. This package never runs or
stores anything itself: that is the experiment layer's job (ARCHITECTURE §7).
"""

from __future__ import annotations

from ccarena.errors import ExperimentError
from ccarena.papers.model import Paper


def papers() -> dict[str, Paper]:
    """Every reproducible paper by name, in seed order."""
    from ccarena.papers import dccp_voip, e1_testbed, fast_dccp, highspeed_tcp, sqm_response

    found = [dccp_voip.PAPER, e1_testbed.PAPER, fast_dccp.PAPER, highspeed_tcp.PAPER, sqm_response.PAPER]
    return {p.name: p for p in sorted(found, key=lambda p: p.seed)}


def paper(name: str) -> Paper:
    """The paper called ``name``; :class:`ExperimentError` naming the known ones otherwise."""
    known = papers()
    if name not in known:
        raise ExperimentError(f"reproduce: no paper {name!r} (known: {', '.join(known)}, or all)")
    return known[name]


__all__ = ["Paper", "paper", "papers"]
