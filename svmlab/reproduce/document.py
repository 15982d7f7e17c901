"""What a reproduced document is made of: its studies, its targets and their published tables.

A :class:`Paper` (one seed document, ``svmlab reproduce PAPER``) lists the :class:`Study`
experiments that rerun it and the :class:`Reproduction` targets a run of them is compared with.
A target holds the document's published :class:`PublishedTable` grids (CSV files in
``svmlab/reproduce/published/``, transcribed from the document), the map from the document's
dataset and method names to svmlab's, and the columns it derives from the result rows. Each
document fills these in its own module of :mod:`svmlab.reproduce.documents`; the comparison
itself (:mod:`svmlab.reproduce.engine`) knows none of them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources

import pandas as pd


@dataclass(frozen=True)
class PublishedTable:
    """One published dataset x method table and the result-row column it is compared with.

    Parameters
    ----------
    title : str
        What the table shows, in the report's words.
    file : str
        CSV in ``svmlab/reproduce/published/``: first column the document's dataset names,
        one column per method of the document.
    column : str
        The result-row column (or a column the target derives) compared with it.
    how : {"mean", "sum", "pooled"}, default="mean"
        How the run's folds are aggregated: their mean, their sum (e.g. a total runtime), or
        the metric recomputed from the pooled confusion counts.
    scale : float, default=1.0
        Run value x ``scale`` = the published unit (e.g. 100 for an accuracy in %).
    digits : int, default=2
        Decimals shown.
    note : str, default=""
        Shown under the table.
    method_columns : dict, default={}
        The document's method -> its own result column (default: ``column``), where the
        document measured some methods differently (a class convention).
    anova : bool, default=False
        Add the run's one-way ANOVA over the methods' per-fold values, per dataset.
    number : str, default=""
        The document's number of the table or figure ("Table 3.3", "Figs. 3.2/3.3"), shown in
        the heading and returned by :func:`svmlab.reproduce.engine.table_summaries`.
    std_file : str, default=""
        CSV of the published standard deviations over the folds (same shape as ``file``),
        where the document prints them.
    read_off : str, default=""
        Where the document prints no numbers: what the values of ``file`` were read off
        ("Fig. 5.2 and the text of Sec. 5.3.1"). The heading then says that they were read
        off, not printed.
    ranks_only : bool, default=False
        Only the order of the values can be compared, not the values (run times measured on
        other hardware and in another language).
    deviations : tuple of str, default=()
        Known deviations of this table alone, each explained with measured numbers in
        ``svmlab/reproduce/deviations/<topic>.md`` (the target's own ``deviations`` concern
        all its tables).
    """

    title: str
    file: str
    column: str
    how: str = "mean"
    scale: float = 1.0
    digits: int = 2
    note: str = ""
    method_columns: dict = field(default_factory=dict)
    anova: bool = False
    number: str = ""
    std_file: str = ""
    read_off: str = ""
    ranks_only: bool = False
    deviations: tuple[str, ...] = ()


@dataclass(frozen=True)
class Protocol:
    """The document's protocol of a study, as the report's headings state it.

    Parameters
    ----------
    text : str
        The protocol in the document's words ("RBF, C = 1, 20-fold CV").
    folds : int, optional
        Folds of its cross-validation (None: not a cross-validation, or not stated).
    repeats : int, optional
        Repetitions (realisations, runs) of the whole protocol (None: not stated).
    """

    text: str
    folds: int | None = None
    repeats: int | None = None


@dataclass(frozen=True)
class Reproduction:
    """A document's table (or family of tables) that a run is compared with.

    An experiment names its target in its config (``reproduce: ollawv_table_5_3``).

    Parameters
    ----------
    name : str
        The target's name.
    source : str
        The document and tables, as the report's titles cite them.
    tables : tuple of PublishedTable
        The dataset x method grids compared by :func:`svmlab.reproduce.engine.comparison_sections`.
    datasets : dict
        The document's dataset name -> svmlab's registry name.
    methods : dict
        The document's method (a column of the published tables) -> svmlab's solver name.
    note : str
        Shown under each table.
    prepare : callable, optional
        ``rows -> rows`` with the columns the tables need but the rows do not carry (e.g. a
        scaled norm); :func:`svmlab.reproduce.engine.derive_columns` calls it, once per run.
    derived : dict
        ``{column: "max" | "min"}`` of the columns ``prepare`` adds: whether a higher or a lower
        value is better, for reports that rank them (``svmlab report --metric``).
    extra_sections : callable, optional
        ``rows -> list of Section``: the document's tables that are not one dataset x method
        grid.
    figures : callable, optional
        ``(rows, out_dir, formats) -> written paths``: the document's figures redrawn from a
        run.
    deviations : tuple of str
        Known deviations from the published values, each explained with measured numbers in
        ``svmlab/reproduce/deviations/<topic>.md`` (shown by ``svmlab reproduce``).
    protocol : Protocol, optional
        The document's protocol; the headings set the run's own beside it.
    row_notes : dict
        The document's dataset name -> a note about its rows, shown under a table only when
        the table has that dataset's row.
    summaries : callable, optional
        ``rows -> list of dict``: the per-table summaries
        (:func:`svmlab.reproduce.engine.table_summaries`) of the tables ``extra_sections``
        builds.
    rank_tests : bool, default=True
        False when ``extra_sections`` already holds the document's own tests over other units
        than the run's datasets x solvers (the MKLPO study ranks methods over (data set,
        measure) blocks, one model per measure): the report then leaves out the rank tests of
        every solver against every other, which would compare models trained for different
        measures.
    """

    name: str
    source: str
    tables: tuple[PublishedTable, ...]
    datasets: dict = field(default_factory=dict)
    methods: dict = field(default_factory=dict)
    note: str = ""
    prepare: Callable[[pd.DataFrame], pd.DataFrame] | None = None
    derived: dict = field(default_factory=dict)
    extra_sections: Callable[[pd.DataFrame], list] | None = None
    figures: Callable[..., list] | None = None
    deviations: tuple[str, ...] = ()
    protocol: Protocol | None = None
    row_notes: dict = field(default_factory=dict)
    summaries: Callable[[pd.DataFrame], list] | None = None
    rank_tests: bool = True

    def published(self, table: PublishedTable) -> pd.DataFrame:
        """The published values of ``table``: the document's datasets x its methods."""
        return read_published(table.file)

    def published_std(self, table: PublishedTable) -> pd.DataFrame | None:
        """The published standard deviations of ``table`` (None where none are printed)."""
        return read_published(table.std_file) if table.std_file else None


def read_published(file: str) -> pd.DataFrame:
    """A CSV of ``svmlab/reproduce/published/``, indexed by its first column."""
    with resources.files("svmlab.reproduce").joinpath("published", file).open() as fh:
        return pd.read_csv(fh, index_col=0)


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

    def run_arguments(self, name: str, run_id: str, results_dir):
        """``(flags, where, rest)``: the Hydra flags (``-m``), the settings that place
        experiment ``name`` of this study in ``results_dir/<name>/<run_id>``, and the study's
        other settings, as ``svmlab reproduce`` runs it (``[*flags, *where, *rest]``; ``where``
        alone composes even when ``rest`` holds a sweep)."""
        where = [f"+experiment={name}", f"run_id={run_id}", f"results_dir={results_dir}"]
        flags = [o for o in self.overrides if o.startswith("-")]
        return flags, where, [o for o in self.overrides if not o.startswith("-")]


@dataclass(frozen=True)
class Paper:
    """A seed document: its studies and the reproduction targets their runs name.

    Parameters
    ----------
    name : str
        The document's name (``svmlab reproduce NAME``).
    title : str
        Authors, year and subject.
    studies : tuple of Study
        The experiments that rerun it, in the document's order.
    reproductions : tuple of Reproduction
        The targets its experiments name (``reproduce:`` in their configs).
    """

    name: str
    title: str
    studies: tuple[Study, ...] = field(default_factory=tuple)
    reproductions: tuple[Reproduction, ...] = field(default_factory=tuple)
