"""Non-parametric comparison of several methods over many datasets.

``compare`` ranks the methods per dataset and runs Friedman / Iman–Davenport, the 1xN
post-hoc tests against a control (z-test, Bonferroni–Dunn, Holm, Hochberg, Finner),
Wilcoxon signed-rank (or rank-sum) tests and the NxN procedures (Nemenyi, Holm,
Shaffer); ``tables`` renders them in the papers' layouts and ``figures`` draws the
critical-difference diagram and the papers' rank-bar chart.
"""

from svmlab.stats.compare import Comparison, compare, read_table

__all__ = ["Comparison", "compare", "read_table"]
