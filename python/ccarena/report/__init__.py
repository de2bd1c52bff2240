"""HTML reports of runs (see :func:`write_report`)."""

from ccarena.report.html import html_table, render_section, write_report

__all__ = ["write_report", "render_section", "html_table"]
