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

    def published(self, table: PublishedTable) -> pd.DataFrame:
        """The published values of ``table``: the document's datasets x its methods."""
        with resources.files("svmlab.reproduce").joinpath("published", table.file).open() as fh:
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
