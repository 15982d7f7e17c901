"""The comparison of a run with a document's published tables, for any document.

Given a :class:`~svmlab.reproduce.document.Reproduction` and a run's result rows, the engine

* derives the columns the target needs but the rows do not carry (:func:`derive_columns`,
  the target's ``prepare``, called once per run; :func:`support_vector_columns` is the shared
  step of the targets that report the share of support vectors);
* puts the run's per-dataset values in the document's terms (:func:`run_table`) and sets them
  beside the published ones (:func:`side_by_side`), with the document's statistical tests beside
  the same tests on the run (:mod:`svmlab.reproduce.published_tests`);
* returns them as report sections (:func:`comparison_sections`), then the document's own
  sections and figures.

It knows no document: each one describes itself in :mod:`svmlab.reproduce.documents`.
"""

from __future__ import annotations

from importlib import resources

import numpy as np
import pandas as pd

from svmlab.reproduce.document import PublishedTable, Reproduction
from svmlab.reproduce.published_tests import (
    DIFFERS,
    VERDICTS_ROW,
    published_tests,
    side_by_side_tests,
)
from svmlab.results import aggregate
from svmlab.stats.sections import Section

#: The row of the side-by-side tables holding each method's mean absolute deviation.
MEAN_DELTA = "mean abs. Δ"
#: The row holding Spearman's correlation of a method's values with the published ones.
RANK_CORR = "rank corr. ρ"


#: The columns :func:`support_vector_columns` derives, with their directions.
SUPPORT_VECTOR_COLUMNS = {"sv_percent": "min", "sparsity": "max"}


def support_vector_columns(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` with the share of support vectors, derived from ``model_size`` and ``n_train``.

    * ``sv_percent``: 100 x model_size / n_train, the distinct support vectors as a percentage
      of the training part (Melki (2018), Table 5.3's %SV);
    * ``sparsity``: 1 - sv_percent / 100, the SPR = 1 - M/N of the sparse LSSVMs (Oliveira
      (2021), Sec. 3.3.2.1).

    Both are NaN where model_size is not finite or n_train is not a positive number. Rows
    without ``model_size`` or ``n_train`` are returned unchanged (with the columns they carry).

    Parameters
    ----------
    rows : DataFrame
        Result rows.

    Returns
    -------
    DataFrame
        A copy of ``rows`` with both columns (replaced where they were present).
    """
    if not {"model_size", "n_train"} <= set(rows.columns):
        return rows
    size = pd.to_numeric(rows["model_size"], errors="coerce").astype(float).to_numpy()
    n = pd.to_numeric(rows["n_train"], errors="coerce").astype(float).to_numpy()
    valid = np.isfinite(size) & np.isfinite(n) & (n > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        percent = np.where(valid, 100.0 * size / n, np.nan)
    out = rows.copy()
    out["sv_percent"] = percent
    out["sparsity"] = 1.0 - percent / 100.0
    return out


def derive_columns(repro: Reproduction, rows: pd.DataFrame) -> pd.DataFrame:
    """One run's ``rows`` with the columns ``repro`` derives (its ``prepare``; unchanged if none).

    Call it once per run: :func:`comparison_sections` and :func:`figures` take its result.
    """
    return rows if repro.prepare is None else repro.prepare(rows)


def run_table(repro: Reproduction, table: PublishedTable, df: pd.DataFrame) -> pd.DataFrame:
    """The run's per-dataset values in the paper's terms: rows = the paper's datasets the run
    evaluated, columns = the paper's methods, each read from its own column
    (``table.method_columns``: the paper's class convention) and scaled to the paper's unit."""
    solver_of = dict(zip(df["method"], df["solver"]))

    def measured(column):
        agg = aggregate(df, column, "pooled" if table.how == "pooled" else "mean")
        if table.how == "sum":
            agg["value"] = agg["value"] * agg["n"]
        wide = agg.pivot(index="dataset", columns="method", values="value") * table.scale
        # report labels carry sweep variants and "(outer-best)"; the paper's columns map to solver
        # names
        return wide.T.groupby(wide.columns.map(solver_of), sort=False).first().T

    by_column = {c: measured(c) for c in {table.column, *table.method_columns.values()}}
    published = repro.published(table)
    out = {}
    for paper_ds in published.index:
        ds = repro.datasets.get(paper_ds, paper_ds)
        if not any(ds in frame.index for frame in by_column.values()):
            continue
        row = {}
        for paper_m, solver in repro.methods.items():
            if paper_m not in published.columns:
                continue
            ours = by_column[table.method_columns.get(paper_m, table.column)]
            present = ds in ours.index and solver in ours.columns
            row[paper_m] = ours.at[ds, solver] if present else np.nan
        out[paper_ds] = row
    frame = pd.DataFrame.from_dict(out, orient="index", dtype=float)
    frame.index.name = "dataset"
    return frame


def side_by_side(
    repro: Reproduction, table: PublishedTable, df: pd.DataFrame, ours: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Published and measured values per dataset and method, with the difference.

    Returns a DataFrame indexed by the paper's dataset names (only those the run
    evaluated) with, per method, the columns ``<method> paper``, ``<method> ours`` and
    ``<method> Δ`` (for more than four methods one column per method holding
    "ours (paper)"), and last rows ``mean abs. Δ`` and, with three or more datasets,
    ``rank corr. ρ``: Spearman's correlation of a method's values with the published ones
    over the datasets (does the run order the datasets as the paper did?). Tables with a
    published per-dataset ANOVA (EvoSVM's Table 3.4) show it beside the run's. ``ours`` is
    :func:`run_table` when the caller has it already.
    """
    published = repro.published(table)
    ours = run_table(repro, table, df) if ours is None else ours
    anova_paper = (published_tests(table.file) or {}).get("anova") or {}
    compact = len(repro.methods) > 4  # many methods: one cell "ours (paper)" per method
    rows, pairs, anova_verdicts = {}, {}, []
    for paper_ds, row in published.iterrows():
        if paper_ds not in ours.index:
            continue
        cells = {}
        for paper_m in ours.columns:
            mine, theirs = ours.at[paper_ds, paper_m], row[paper_m]
            cells |= _value_cells(paper_m, mine, theirs, table.digits, compact)
            if not np.isnan(mine):
                pairs.setdefault(paper_m, []).append((mine, theirs))
        if table.anova:
            ds = repro.datasets.get(paper_ds, paper_ds)
            text, p = _anova(df, ds, table.column, list(repro.methods.values()))
            a = anova_paper.get(paper_ds)
            if anova_paper:
                cells["ANOVA F (p), paper"] = f"{a['F']:.2f} ({a['p']:.2f})" if a else ""
            cells["ANOVA F (p), this run"] = text
            if a and np.isfinite(p):  # the thesis's bold = significant at 5 %
                anova_verdicts.append(a["significant"] != (p <= 0.05))
        rows[paper_ds] = cells
    if rows:
        rows |= _summary_rows(pairs, table.digits, compact, anova_verdicts)
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "dataset"
    return out


def _value_cells(method: str, mine: float, theirs: float, digits: int, compact: bool) -> dict:
    """The cells of one method on one dataset: "ours (paper)", or paper, ours and Δ apart."""
    shown = "—" if np.isnan(mine) else f"{mine:.{digits}f}"
    if compact:
        return {method: f"{shown} ({theirs:.{digits}f})"}
    return {
        f"{method} paper": f"{theirs:.{digits}f}",
        f"{method} ours": shown,
        f"{method} Δ": "" if np.isnan(mine) else f"{mine - theirs:+.{digits}f}",
    }


def _summary_rows(pairs: dict, digits: int, compact: bool, anova_verdicts: list) -> dict:
    """The last rows of a side-by-side table: :data:`MEAN_DELTA`, :data:`RANK_CORR` (three or
    more datasets) and the ANOVA verdicts that differ from the paper's."""
    from scipy.stats import spearmanr

    def column(m):
        return m if compact else f"{m} Δ"

    rows = {
        MEAN_DELTA: {
            column(m): f"{np.mean([abs(a - b) for a, b in p]):.{digits}f}" for m, p in pairs.items()
        }
    }
    rho = {
        m: spearmanr(*zip(*p)).statistic if _varies(p) else np.nan
        for m, p in pairs.items()
        if len(p) >= 3
    }
    if rho:
        rows[RANK_CORR] = {column(m): "" if np.isnan(r) else f"{r:+.2f}" for m, r in rho.items()}
    if anova_verdicts:
        count = f"{sum(anova_verdicts)} of {len(anova_verdicts)}"
        rows[VERDICTS_ROW] = {"ANOVA F (p), this run": count}
    return rows


def _varies(pairs) -> bool:
    """Both sides of (ours, paper) pairs take more than one value (else Spearman's rho is
    undefined)."""
    ours, paper = zip(*pairs)
    return len(set(ours)) > 1 and len(set(paper)) > 1


def _anova(df: pd.DataFrame, dataset: str, column: str, solvers: list) -> tuple[str, float]:
    """One-way ANOVA of ``column`` over the folds, between the methods, on one dataset (the
    significance test of the EvoSVM thesis's tables): ("F (p)", p), or ("", nan) with fewer
    than two methods."""
    from scipy.stats import f_oneway

    rows = df[(df["dataset"] == dataset) & (df["status"] == "ok") & df["solver"].isin(solvers)]
    if "selected" in rows.columns:
        rows = rows[rows["selected"].fillna(True).astype(bool)]
    groups = [g[column].dropna().to_numpy() for _, g in rows.groupby("solver")]
    groups = [g for g in groups if len(g) >= 2]
    if len(groups) < 2:
        return "", np.nan
    res = f_oneway(*groups)
    if not np.isfinite(res.statistic):
        return "—", np.nan
    return f"{res.statistic:.2f} ({res.pvalue:.2f})", float(res.pvalue)


def comparison_sections(repro: Reproduction, rows: pd.DataFrame) -> list[Section]:
    """Report sections comparing a run with the published tables of ``repro``.

    Parameters
    ----------
    repro : Reproduction
    rows : DataFrame
        One run's result rows with the columns ``repro`` derives (:func:`derive_columns`).
        A table whose column the rows lack is left out.

    Returns
    -------
    list of Section
        Per published table the side-by-side values and, where the document printed tests
        under it, the tests beside the run's; then the document's own sections.
    """
    out = []
    for table in repro.tables:
        if table.column not in rows.columns:
            continue
        note = "; ".join(n for n in (table.note, repro.note) if n)
        ours = run_table(repro, table, rows)
        out.append(
            Section(
                f"{repro.source}: {table.title}, paper vs this run",
                side_by_side(repro, table, rows, ours).fillna(""),
                None,
                note,
                key=("paper", table.title),
            )
        )
        pub = published_tests(table.file)
        if pub and pub.get("average_ranks"):
            tests, tests_note = side_by_side_tests(ours, pub)
            differs = tests[DIFFERS].drop(index=VERDICTS_ROW, errors="ignore")
            out.append(
                Section(
                    f"{repro.source}: {table.title}, tests, paper vs this run",
                    tests,
                    {m: [DIFFERS] for m, v in differs.items() if v},  # bold: verdicts differ
                    tests_note,
                    key=("tests", table.title),
                )
            )
    if repro.extra_sections is not None:
        out.extend(repro.extra_sections(rows))
    return out


def figures(repro: Reproduction, rows: pd.DataFrame, out_dir, formats=("png",)) -> list:
    """The document's figures ``repro`` redraws from a run (written paths; none if it draws
    none)."""
    return [] if repro.figures is None else repro.figures(rows, out_dir, formats)


def known_deviations(repro: Reproduction) -> list[tuple[str, str]]:
    """The explained deviations of ``repro``: ``(topic, Markdown text)`` each, from
    ``svmlab/reproduce/deviations/<topic>.md``."""
    folder = resources.files("svmlab.reproduce").joinpath("deviations")
    return [
        (topic, folder.joinpath(f"{topic}.md").read_text(encoding="utf-8").strip())
        for topic in repro.deviations
    ]
