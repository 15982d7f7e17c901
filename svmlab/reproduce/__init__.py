"""Published results of the reproduced documents, and side-by-side comparison tables.

An experiment names its reproduction target in its config (``reproduce: ollawv_table_5_3``);
``svmlab report`` then prints, next to the summary, each published table beside the values of
the run (:func:`sections`). The package is in three parts:

* :mod:`~svmlab.reproduce.document`: what a document is made of (:class:`Paper`,
  :class:`Study`, :class:`Reproduction`, :class:`PublishedTable`);
* :mod:`~svmlab.reproduce.documents`: one module per document with its studies, its maps from
  the document's dataset and method names to svmlab's, its published tables (CSV files in
  ``published/``), the columns it derives from the rows, its own sections and figures and its
  known deviations (``deviations/``);
* :mod:`~svmlab.reproduce.engine`: the comparison of a run with any target, which knows no
  document; :mod:`~svmlab.reproduce.published_tests` sets the document's statistical tests
  beside the run's, and :mod:`~svmlab.reproduce.protocol` states the run's protocol beside the
  document's in each heading.

:mod:`~svmlab.reproduce.registry` looks the targets up by name, :mod:`~svmlab.reproduce.papers`
the documents; :func:`~svmlab.reproduce.registry.run_summaries` sums up a run per published
table (mean abs. Δ, ρ, test verdicts that differ, spread) for an index of the reproductions.
"""

from __future__ import annotations

from svmlab.reproduce.document import Paper, PublishedTable, Reproduction, Study
from svmlab.reproduce.engine import (
    DATASETS_ROW,
    MEAN_DELTA,
    RANK_CORR,
    run_table,
    side_by_side,
    support_vector_columns,
)
from svmlab.reproduce.registry import (
    REPRODUCTIONS,
    derive_columns,
    figures,
    get_reproduction,
    known_deviations,
    own_rank_tests,
    run_summaries,
    sections,
    table_summaries,
)

__all__ = [
    "DATASETS_ROW",
    "MEAN_DELTA",
    "RANK_CORR",
    "REPRODUCTIONS",
    "Paper",
    "PublishedTable",
    "Reproduction",
    "Study",
    "derive_columns",
    "figures",
    "get_reproduction",
    "known_deviations",
    "own_rank_tests",
    "run_summaries",
    "run_table",
    "sections",
    "side_by_side",
    "support_vector_columns",
    "table_summaries",
]
