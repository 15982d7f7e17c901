"""One call that turns a dataset x method table into every table and figure."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from svmlab.stats.compare import Comparison, compare
from svmlab.stats.figures.saving import check_formats
from svmlab.stats.sections import Section
from svmlab.stats.tables import comparison_sections


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "stats"


def check_figure_formats(formats) -> tuple[str, ...]:
    """The figure formats asked for, validated by the figure writer's own check
    (:func:`svmlab.stats.figures.saving.check_formats`); ``none`` means no figures.

    >>> check_figure_formats(["png", "none"])
    ('png',)
    """
    formats = tuple(f for f in (formats or ()) if f != "none")
    return tuple(check_formats(formats)) if formats else ()


def figures(cmp: Comparison, out_dir: str | Path, *, name: str, formats=("png",)) -> list[Path]:
    """Write the papers' rank-bar chart and a Demšar CD diagram; returns the files."""
    from svmlab.stats.figures import cd_diagram, rank_bars, save_figure

    formats = check_figure_formats(formats)
    out_dir = Path(out_dir)
    label = cmp.metric or name
    paths = save_figure(
        rank_bars(
            cmp.average_ranks.to_dict(),
            cmp.control,
            cmp.bd_cd,
            alpha=cmp.bd_alpha,
            title=f"{label}: average ranks, Bonferroni-Dunn CD",
        ),
        out_dir / f"{_slug(name)}_rank_bars",
        formats,
    )
    paths += save_figure(
        cd_diagram(
            cmp.average_ranks.to_dict(),
            cmp.nemenyi_cd,
            title=f"{label}: Nemenyi critical difference",
        ),
        out_dir / f"{_slug(name)}_cd_diagram",
        formats,
    )
    return paths


def analyse(
    table: pd.DataFrame,
    direction: str,
    *,
    name: str = "stats",
    out_dir: str | Path | None = None,
    formats=("png",),
    pairwise=("holm",),
    **options,
) -> tuple[Comparison, list[Section], list[Path]]:
    """Compare the methods of ``table`` and produce the report sections and figures.

    Parameters
    ----------
    table : DataFrame (datasets x methods)
    direction : {"max", "min", "higher", "lower"}
    name : str
        Used for the metric label and the figure file names.
    out_dir : path, optional
        Where figures go; no figures when None.
    formats : sequence of {"png", "pdf", "svg"}
    pairwise : sequence of {"p", "nemenyi", "holm", "shaffer", "wilcoxon_holm"}
        The NxN p-value tables to include.
    **options
        Passed to :func:`svmlab.stats.compare.compare` (control, alpha, bd_alpha,
        tie_correction, missing, wilcoxon, zero_method).
    """
    options.setdefault("metric", name)
    cmp = compare(table, direction, **options)
    sections = comparison_sections(cmp, pairwise=pairwise)
    paths = (
        figures(cmp, out_dir, name=name, formats=formats) if out_dir is not None and formats else []
    )
    return cmp, sections, paths
