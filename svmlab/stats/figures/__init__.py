"""Figures for the post-hoc comparison of methods over many data sets.

Two styles are offered, both drawn from plain inputs (a mapping ``method -> average
rank`` and a critical difference), so this module does not depend on how the ranks or
the critical difference were computed:

* :func:`rank_bars` is the style of the papers' "Bonferroni–Dunn" figures (Melki (2018),
  Figs. 3.4–3.8 and 4.4–4.9; Zafra et al., HyDR-MI, Fig. 4): one
  bar per method whose length is its average rank, a grey band from the control's rank
  to control + CD, and the methods "to the right of the critical difference rectangle"
  (rank > control + CD) drawn in a distinct colour as significantly worse. This is the
  faithful style for the Bonferroni–Dunn papers.
* :func:`cd_diagram` is a Demšar-style critical-difference diagram: a rank axis with
  the best rank on the left, each method hanging from its average rank, and thick bars
  joining the groups of methods that are not significantly different ("cliques"). The
  cliques are either given (for example from pairwise Wilcoxon–Holm tests, as the
  critical-difference figures of Oliveira's LSSVM/MLM thesis were drawn) or computed
  Nemenyi-style by :func:`compute_cliques`.

For the all-pairs procedures (Holm, Shaffer, Bergmann–Hommel, the two Nemenyi tests)
both figures are also drawn from the procedure's p-values: :func:`cliques_from_pvalues`
gives the CD diagram's bars (scmamp's way), :func:`classify_by_pvalues` the bar chart's
colours (with ``cd=None``, no band), and :func:`pvalue_heatmap` draws the p-values
themselves.

:func:`save_figure` writes a figure in several formats at once, keeping the text of
SVG files as text and embedding TrueType fonts in PDF files so that both stay editable.

matplotlib is imported lazily inside the functions, so ``import svmlab.stats`` does not
pay for it, and the figures are rendered on an Agg canvas that is never attached to
pyplot: no display is needed, the user's interactive backend is left alone, and the
returned figures do not accumulate in pyplot's figure manager.

Layout of the package: :mod:`~svmlab.stats.figures.groups` (cliques and categories),
:mod:`~svmlab.stats.figures.critical_difference` (the diagram; its positions are
computed by ``_cd_layout``), :mod:`~svmlab.stats.figures.rank_bar_chart` (the bar
chart) and :mod:`~svmlab.stats.figures.saving`; ``_inputs`` validates the arguments and
``_canvas`` holds the colours, the Agg canvas and text measurement.
"""

from svmlab.stats.figures._canvas import (
    BAND_COLOR,
    BETTER_COLOR,
    CONTROL_COLOR,
    NOT_SIGNIFICANT_COLOR,
    WORSE_COLOR,
)
from svmlab.stats.figures._inputs import FigureInputError
from svmlab.stats.figures.critical_difference import cd_diagram
from svmlab.stats.figures.groups import (  # noqa: F401
    CATEGORIES,
    classify_against_control,
    classify_by_pvalues,
    cliques_from_pvalues,
    compute_cliques,
)
from svmlab.stats.figures.pvalue_heatmap import pvalue_heatmap
from svmlab.stats.figures.rank_bar_chart import rank_bars
from svmlab.stats.figures.saving import save_figure

__all__ = [
    "FigureInputError",
    "cd_diagram",
    "pvalue_heatmap",
    "rank_bars",
    "save_figure",
    "compute_cliques",
    "classify_against_control",
    "cliques_from_pvalues",
    "classify_by_pvalues",
    "CONTROL_COLOR",
    "NOT_SIGNIFICANT_COLOR",
    "WORSE_COLOR",
    "BETTER_COLOR",
    "BAND_COLOR",
]
