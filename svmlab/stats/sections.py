"""Report sections: the titled tables every report of svmlab is made of.

The statistics library returns its tables as :class:`Section` objects, and so do the
summaries of ``svmlab report`` and the comparisons of ``svmlab reproduce``; one renderer,
:func:`svmlab.report.render.render`, writes them as Markdown, CSV, LaTeX or HTML. The type
lives here, at the bottom of the layers, so that this pure library can return it.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd


@dataclass
class Section:
    """One titled table of a report."""

    title: str
    table: pd.DataFrame
    best: dict | None = None  # dataset -> best method(s) (bold in Markdown/LaTeX/HTML)
    note: str = ""
    # (kind, name) of a section that compares a run with a published table ("paper" or
    # "tests", and the table's name), so that summaries need not parse titles
    key: tuple[str, str] | None = None
