"""One call that turns a dataset x method table into every table and figure.

matplotlib (and the figure modules) are imported only when figures are drawn, so that
``svmlab stats TABLE --figures none`` pays for numpy, scipy and pandas alone.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from svmlab.stats.compare import Comparison, compare
from svmlab.stats.sections import Section
from svmlab.stats.tables import comparison_sections, pairwise_label


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "stats"


def check_figure_formats(formats) -> tuple[str, ...]:
    """The figure formats asked for, validated by the figure writer's own check
    (:func:`svmlab.stats.figures.saving.check_formats`); ``none`` means no figures.

    >>> check_figure_formats(["png", "none"])
    ('png',)
    """
    formats = tuple(f for f in (formats or ()) if f != "none")
    if not formats:
        return ()
    from svmlab.stats.figures.saving import check_formats

    return tuple(check_formats(formats))


def figures(
    cmp: Comparison,
    out_dir: str | Path,
    *,
    name: str,
    formats=("png",),
    pairwise=(),
    matrices: dict | None = None,
) -> list[Path]:
    """Write one figure per test family the tables print: the papers' rank-bar chart with
    the Bonferroni-Dunn band (the 1xN table's "BD rejects"), a Demšar CD diagram (Nemenyi),
    the rank-bar chart of Holm's step-down test of the control against each method (the 1xN
    table's "Holm rejects"), and for each all-pairs procedure in ``pairwise`` its CD diagram
    (cliques of the pairs it does not reject) and p-value heat map (and, but for Holm, a
    rank-bar chart of its p of the control against each method).

    Returns the files written.
    """
    from svmlab.stats.figures import cd_diagram, rank_bars, save_figure

    formats = check_figure_formats(formats)
    out_dir = Path(out_dir)
    label = cmp.metric or name
    scores = cmp.scores.to_dict()
    axis = f"average {cmp.score_name} (lower is better)"
    paths = save_figure(
        rank_bars(
            scores,
            cmp.control,
            cmp.bd_cd,
            alpha=cmp.bd_alpha,
            title=f"{label}: average {cmp.score_name}s, Bonferroni-Dunn CD",
            xlabel=axis,
        ),
        out_dir / f"{_slug(name)}_rank_bars",
        formats,
    )
    paths += save_figure(
        cd_diagram(
            scores,
            cmp.nemenyi_cd,
            title=f"{label}: Nemenyi critical difference (studentized range)",
            lower_is_better_label=cmp.score_name,
        ),
        out_dir / f"{_slug(name)}_cd_diagram",
        formats,
    )
    paths += save_figure(
        rank_bars(
            scores,
            cmp.control,
            None,
            categories=control_holm_categories(cmp),
            alpha=cmp.alpha,
            test_name="Holm step-down, control vs. each",
            title=f"{label}: average {cmp.score_name}s, Holm (control vs. each)",
            xlabel=axis,
        ),
        out_dir / f"{_slug(name)}_rank_bars_holm",
        formats,
    )
    if pairwise:
        matrices = matrices or cmp.pairwise(pairwise)
        for which in pairwise:
            paths += _procedure_figures(cmp, which, matrices[which], out_dir, name, formats)
    return paths


def control_holm_categories(cmp: Comparison) -> dict[str, str]:
    """The category of each method in Holm's test of the control against each method, the
    1xN table's "Holm rejects" column: ``"worse"`` / ``"better"`` where Holm rejects,
    ``"not_significant"`` elsewhere, ``"control"`` for the control."""
    out = {cmp.control: "control"}
    for method, row in cmp.control_table.iterrows():
        significant = bool(row["holm_reject"]) and row["direction"] in ("worse", "better")
        out[method] = row["direction"] if significant else "not_significant"
    return out


def _procedure_figures(cmp, which: str, pvalues, out_dir: Path, name: str, formats) -> list[Path]:
    """CD diagram and heat map of one all-pairs procedure's p-values, and (but for Holm,
    whose chart is the 1xN test's) its rank-bar chart coloured by the procedure's p of the
    control against each method, the legend naming the all-pairs family."""
    from svmlab.stats.figures import (
        cd_diagram,
        classify_by_pvalues,
        cliques_from_pvalues,
        pvalue_heatmap,
        rank_bars,
        save_figure,
    )

    scores = cmp.scores.to_dict()
    label = cmp.metric or name
    short = pairwise_label(cmp, which).split(" (")[0]
    stem = out_dir / f"{_slug(name)}"
    cliques = cliques_from_pvalues(scores, pvalues, cmp.alpha)
    paths = save_figure(
        cd_diagram(
            scores,
            None,
            cliques=cliques,
            title=f"{label}: {short}, all pairs (alpha = {cmp.alpha:g})",
            lower_is_better_label=cmp.score_name,
        ),
        Path(f"{stem}_cd_diagram_{which}"),
        formats,
    )
    if which != "holm":
        paths += save_figure(
            rank_bars(
                scores,
                cmp.control,
                None,
                categories=classify_by_pvalues(scores, cmp.control, pvalues, cmp.alpha),
                alpha=cmp.alpha,
                test_name=f"{short}, all pairs (control's row)",
                title=f"{label}: average {cmp.score_name}s, {short} (all pairs)",
                xlabel=f"average {cmp.score_name} (lower is better)",
            ),
            Path(f"{stem}_rank_bars_{which}"),
            formats,
        )
    order = list(cmp.scores.sort_values(kind="stable").index)
    paths += save_figure(
        pvalue_heatmap(
            pvalues, order, alpha=cmp.alpha, title=f"{label}: {short} p-values, all pairs"
        ),
        Path(f"{stem}_pvalues_{which}"),
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
    pairwise : sequence of the keys of :data:`svmlab.stats.tables.PAIRWISE_LABELS`
        The NxN p-value tables to include (each also gets its figures).
    **options
        Passed to :func:`svmlab.stats.compare.compare` (control, alpha, bd_alpha,
        tie_correction, missing, wilcoxon, zero_method, omnibus, bergmann_hommel).

    No figures are drawn for a degenerate comparison (``cmp.degenerate``: all ties,
    N = 2 or k = 2): they would show a verdict the tests cannot give.
    """
    options.setdefault("metric", name)
    cmp = compare(table, direction, **options)
    matrices = cmp.pairwise(pairwise) if pairwise else None
    sections = comparison_sections(cmp, pairwise=pairwise, matrices=matrices)
    draw = out_dir is not None and formats and not cmp.degenerate
    paths = (
        figures(cmp, out_dir, name=name, formats=formats, pairwise=pairwise, matrices=matrices)
        if draw
        else []
    )
    return cmp, sections, paths
