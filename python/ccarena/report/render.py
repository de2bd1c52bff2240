"""The HTML pages' templates (``templates/``, package data): a base page with the one stylesheet
(``style.css``, inlined so that every page is a single self-contained file) that the run report,
the campaign report and the paper pages extend.

Autoescaping is on for every template: a value that is already HTML (a page section drawn by
other code) must be passed as :class:`markupsafe.Markup` by the code that built it.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

__all__ = ["render", "write_html", "html_table", "stylesheet", "generated_stamp"]


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("ccarena.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,  # a misspelt name fails the page, not blanks part of it
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render(template: str, **context: Any) -> str:
    """The page or fragment ``templates/<template>`` rendered with ``context``."""
    return _environment().get_template(template).render(**context)


def write_html(path: Path, template: str, **context: Any) -> Path:
    """Render ``template`` into the file ``path`` (UTF-8); return the path."""
    path.write_text(render(template, **context) + "\n", encoding="utf-8")
    return path


def html_table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool]) -> str:
    """An HTML table from the same (headers, rows, right-aligned) triple the text tables use: the
    ``table`` macro of ``macros.html``, as plain text for pages that are not templates (plain
    ``str``, not ``Markup``, so that concatenating it escapes nothing)."""
    return str(_environment().get_template("macros.html").module.table(headers, rows, right))  # type: ignore[attr-defined]


def stylesheet() -> str:
    """The pages' stylesheet as text, for pages that are not templates."""
    return resources.files("ccarena.report").joinpath("templates", "style.css").read_text(encoding="utf-8")


def generated_stamp() -> str:
    """When a page was generated, as it prints it: ``2025-01-31 12:00 UTC``."""
    return _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
