"""The seed documents and the experiments that reproduce each one (``svmlab reproduce``).

Each document maps to its studies in the order of the document; each study names its full
experiment (``conf/experiment/<full>.yaml``) and, where one exists, a quick profile that runs
in minutes. ``svmlab reproduce PAPER`` runs the full experiments, ``--quick`` the quick ones
(a study without a quick profile is skipped, and the report says so).

>>> [s.full for s in get_paper("svmperf").studies]
['svmperf_bench']
"""

from __future__ import annotations

from dataclasses import dataclass, field

from svmlab.errors import UnknownNameError


@dataclass(frozen=True)
class Study:
    """One experiment of a document: its full and (optional) quick profile.

    Parameters
    ----------
    part : str
        Where in the document the study is (chapter, section or table).
    full : str
        The experiment that reproduces it (``+experiment=<full>``).
    quick : str or None
        The experiment of the quick profile; None when the study has none.
    overrides : tuple of str
        Extra Hydra arguments for both profiles (``-m`` makes the run a sweep).
    """

    part: str
    full: str
    quick: str | None = None
    overrides: tuple[str, ...] = ()

    def experiment(self, quick: bool) -> str | None:
        """The experiment to run for the profile (None: no quick profile)."""
        return self.quick if quick else self.full


@dataclass(frozen=True)
class Paper:
    """A seed document and its studies."""

    name: str
    title: str
    studies: tuple[Study, ...] = field(default_factory=tuple)


PAPERS: dict[str, Paper] = {
    p.name: p
    for p in (
        Paper(
            "melki2018",
            "Melki (2018), PhD thesis: OLLAWV, MIRSVM and multi-target SVR",
            (
                Study("Ch. 3, multi-target regression (Tables 3.3-3.12)", "mtr_bench", "mtr_quick"),
                Study("Ch. 4, MIRSVM (Tables 4.3-4.13)", "mirsvm_bench", "mirsvm_quick"),
                Study(
                    "Ch. 4, MIRSVM, WEKA class convention", "mirsvm_bench_weka", "mirsvm_weka_quick"
                ),
                Study("Ch. 5, OLLAWV vs SVM solvers (Table 5.3)", "ollawv_bench", "ollawv_quick"),
                Study(
                    "Ch. 5, OLLAWV vs non-SVM methods (Table 5.5)",
                    "ollawv_nonsvm",
                    "ollawv_nonsvm_quick",
                ),
            ),
        ),
        Paper(
            "mierswa2009",
            "Mierswa (2009), PhD thesis: evolutionary SVMs and multi-objective feature selection",
            (
                Study("Table 3.3, EvoSVM vs QP solvers", "evosvm_bench", "evosvm_quick"),
                Study(
                    "Table 3.4, EvoSVM variants (a sweep over C)",
                    "evosvm_variants",
                    "evosvm_variants_quick",
                    overrides=("-m", "evo.C=1,0.1,0.01"),
                ),
                Study("Table 4.2, non-PSD kernels", "evosvm_nonpsd", "evosvm_nonpsd_quick"),
                Study(
                    "Figs. 3.2/3.3, MO-EvoSVM Pareto fronts",
                    "moevosvm_fronts",
                    "moevosvm_fronts_quick",
                ),
                Study(
                    "Ch. 5, transductive SVM vs inductive SVM (Table 5.1, Figs. 5.2-5.7)",
                    "tsvm_bench",
                    "tsvm_quick",
                ),
                Study(
                    "Sec. 6.2, multi-objective feature selection",
                    "mo_feature_selection",
                    "mo_feature_selection_quick",
                ),
            ),
        ),
        Paper(
            "oliveira",
            "Oliveira (2021), PhD thesis: sparse LSSVM and minimal learning machines",
            (
                Study("Table 5 / Fig. 7, CC-LSSVM", "lssvm_bench", "lssvm_quick"),
                Study("Table 7, large sets", "lssvm_large", "lssvm_large_quick"),
                Study("Tables 11-13, LW-MLM", "lwmlm_bench", "lwmlm_quick"),
                Study("Table 16, high-dimensional outputs", "lwmlm_hd", "lwmlm_hd_quick"),
                Study("Table 19, CCLW-MLM", "cclwmlm_bench", "cclwmlm_quick"),
            ),
        ),
        Paper(
            "hydrmi",
            "HyDR-MI: hybrid dimensionality reduction for multiple-instance learning",
            (
                Study("Tables 7-13, wrapper", "hydrmi_bench", "hydrmi_quick"),
                Study("Tables 2-6, ReliefF filter", "hydrmi_relieff", "hydrmi_relieff_quick"),
            ),
        ),
        Paper(
            "svmperf",
            "SVM-perf style multivariate losses: MKLPO and the other solvers (Figs. 1-2)",
            (Study("Figs. 1-2, boxplots", "svmperf_bench", "svmperf_quick"),),
        ),
    )
}


def get_paper(name: str) -> Paper:
    """The registered document ``name``.

    Raises
    ------
    UnknownNameError
        One line with the close matches and the valid names.
    """
    try:
        return PAPERS[name]
    except KeyError:
        raise UnknownNameError("paper", name, PAPERS) from None
