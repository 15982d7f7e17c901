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
    # the heading of the block the section belongs to (e.g. one run of a sweep): the
    # renderer writes it once, above the first section of a run of equal groups
    group: str = ""
    # the document's number of the published table the section compares with ("Table 3.4")
    number: str = ""
