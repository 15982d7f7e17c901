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
from svmlab.reproduce.protocol import RunProtocol, protocol_heading, run_protocol
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
#: The row counting, per method, the datasets compared of those the paper printed ("5 of 9").
DATASETS_ROW = "datasets compared"


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
    return _run_grid(repro, table, df, "value")


def run_spread(repro: Reproduction, table: PublishedTable, df: pd.DataFrame) -> pd.DataFrame:
    """The spread of :func:`run_table`'s cells over the folds, in the paper's unit: the
    standard deviation of the fold values (of their sum: x sqrt(n), for ``how="sum"``);
    NaN for a cell of one fold."""
    return _run_grid(repro, table, df, "std")


def _run_grid(repro: Reproduction, table: PublishedTable, df: pd.DataFrame, field: str):
    """:func:`run_table` (``field="value"``) or :func:`run_spread` (``field="std"``)."""
    solver_of = dict(zip(df["method"], df["solver"]))

    def measured(column):
        agg = aggregate(df, column, "pooled" if table.how == "pooled" else "mean")
        if table.how == "sum":
            agg["value"] = agg["value"] * agg["n"]
            agg["std"] = agg["std"] * np.sqrt(agg["n"])
        agg.loc[agg["n"] < 2, "std"] = np.nan  # one fold: no spread
        wide = agg.pivot(index="dataset", columns="method", values=field) * table.scale
        if field == "std":
            wide = wide.abs()
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
    "ours (paper)"), and last rows ``mean abs. Δ``, ``rank corr. ρ`` (with three or more
    datasets: Spearman's correlation of a method's values with the published ones over the
    datasets -- does the run order the datasets as the paper did?) and ``datasets compared``
    ("5 of 9": the datasets with both values, of those the paper printed). A published cell
    that is empty (not printed, or not readable off a figure) shows "—" and is not compared.
    Tables with a published per-dataset ANOVA (EvoSVM's Table 3.4) show it beside the
    run's. ``ours`` is :func:`run_table` when the caller has it already.
    """
    published = repro.published(table)
    ours = run_table(repro, table, df) if ours is None else ours
    anova_paper = (published_tests(table.file) or {}).get("anova") or {}
    compact = len(repro.methods) > 4  # many methods: one cell "ours (paper)" per method
    rows, anova_verdicts = {}, []
    pairs = _pairs(published, ours)
    for paper_ds, row in published.iterrows():
        if paper_ds not in ours.index:
            continue
        cells = {}
        for paper_m in ours.columns:
            mine, theirs = ours.at[paper_ds, paper_m], row[paper_m]
            cells |= _value_cells(paper_m, mine, theirs, table.digits, compact)
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
        printed = {m: int(published[m].notna().sum()) for m in ours.columns}
        rows |= _summary_rows(pairs, table.digits, compact, anova_verdicts, printed)
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "dataset"
    return out


def _pairs(published: pd.DataFrame, ours: pd.DataFrame) -> dict[str, list[tuple]]:
    """``{method: [(ours, paper), ...]}`` over the datasets where both values are numbers."""
    pairs = {}
    for paper_ds in published.index:
        if paper_ds not in ours.index:
            continue
        for paper_m in ours.columns:
            mine, theirs = ours.at[paper_ds, paper_m], published.at[paper_ds, paper_m]
            if np.isfinite(mine) and np.isfinite(theirs):
                pairs.setdefault(paper_m, []).append((float(mine), float(theirs)))
    return pairs


def _value_cells(method: str, mine: float, theirs: float, digits: int, compact: bool) -> dict:
    """The cells of one method on one dataset: "ours (paper)", or paper, ours and Δ apart."""
    shown = "—" if np.isnan(mine) else f"{mine:.{digits}f}"
    printed = "—" if np.isnan(theirs) else f"{theirs:.{digits}f}"
    if compact:
        return {method: f"{shown} ({printed})"}
    return {
        f"{method} paper": printed,
        f"{method} ours": shown,
        f"{method} Δ": "" if np.isnan(mine) or np.isnan(theirs) else f"{mine - theirs:+.{digits}f}",
    }


def rank_correlation(pairs: list[tuple]) -> float:
    """Spearman's ρ of (ours, paper) pairs: NaN with fewer than three, or a constant side."""
    from scipy.stats import spearmanr

    if len(pairs) < 3 or not _varies(pairs):
        return np.nan
    return float(spearmanr(*zip(*pairs)).statistic)


def _summary_rows(
    pairs: dict, digits: int, compact: bool, anova_verdicts: list, printed: dict
) -> dict:
    """The last rows of a side-by-side table: :data:`MEAN_DELTA`, :data:`RANK_CORR` (three or
    more datasets), :data:`DATASETS_ROW` and the ANOVA verdicts that differ from the paper's."""

    def column(m):
        return m if compact else f"{m} Δ"

    rows = {
        MEAN_DELTA: {
            column(m): f"{np.mean([abs(a - b) for a, b in p]):.{digits}f}" for m, p in pairs.items()
        }
    }
    rho = {m: rank_correlation(p) for m, p in pairs.items() if len(p) >= 3}
    if rho:
        rows[RANK_CORR] = {column(m): "—" if np.isnan(r) else f"{r:+.2f}" for m, r in rho.items()}
    rows[DATASETS_ROW] = {column(m): f"{len(pairs.get(m, []))} of {n}" for m, n in printed.items()}
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


def table_label(table: PublishedTable, long: bool = False) -> str:
    """The table's name in summaries: its number (where the document gives one) and title,
    and "(read off)" where its values were read off a figure; ``long``: for headings, what
    they were read off."""
    label = f"{table.number}: {table.title}" if table.number else table.title
    if table.read_off:
        label += (
            f" (read off {table.read_off}; the document prints no numbers)"
            if long
            else " (read off the document's figures)"
        )
    return label


def _row_notes(repro: Reproduction, datasets) -> list[str]:
    """The notes of ``repro.row_notes`` about the datasets the table shows."""
    shown = set(datasets)
    return list(dict.fromkeys(note for ds, note in repro.row_notes.items() if ds in shown))


def _run_note(run: RunProtocol | None) -> str:
    """What a quick profile cut, in its experiment's words ("" for a full run)."""
    if run is None or not run.quick:
        return ""
    return f"this run is the quick profile {run.experiment}: {run.description}".rstrip(": ")


def comparison_sections(repro: Reproduction, rows: pd.DataFrame) -> list[Section]:
    """Report sections comparing a run with the published tables of ``repro``.

    Each heading names the table (number and title) and sets the document's protocol beside
    the run's ("paper: 20-fold CV; this run: 5-fold CV (quick profile)"); a note about a
    dataset's rows (``repro.row_notes``) is shown only under tables with that row.

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
    run = run_protocol(rows)
    protocol = protocol_heading(repro.protocol, run)
    suffix = f" — {protocol}" if protocol else ""
    for table in repro.tables:
        if table.column not in rows.columns:
            continue
        label = table_label(table)
        ours = run_table(repro, table, rows)
        notes = [table.note, repro.note, *_row_notes(repro, ours.index), _run_note(run)]
        out.append(
            Section(
                f"{repro.source}, {table_label(table, long=True)}, paper vs this run{suffix}",
                side_by_side(repro, table, rows, ours).fillna(""),
                None,
                "; ".join(n for n in notes if n),
                key=("paper", label),
            )
        )
        pub = published_tests(table.file)
        if pub and pub.get("average_ranks"):
            tests, tests_note = side_by_side_tests(ours, pub)
            differs = tests[DIFFERS].drop(index=VERDICTS_ROW, errors="ignore")
            out.append(
                Section(
                    f"{repro.source}, {label}, tests, paper vs this run{suffix}",
                    tests,
                    {m: [DIFFERS] for m, v in differs.items() if v},  # bold: verdicts differ
                    tests_note,
                    key=("tests", label),
                )
            )
    if repro.extra_sections is not None:
        for section in repro.extra_sections(rows):  # the document's own tables
            section.title += suffix
            out.append(section)
    return out


def table_summaries(repro: Reproduction, rows: pd.DataFrame) -> list[dict]:
    """Per published table of ``repro``, how close one run comes to it, as plain values.

    What an index of the reproductions needs to classify each table (reproduced within its
    own spread, or deviates): the tables of ``repro.tables`` whose column the rows carry, then
    those ``repro.summaries`` describes (tables the document's own sections build).

    Parameters
    ----------
    repro : Reproduction
    rows : DataFrame
        One run's result rows with the columns ``repro`` derives (:func:`derive_columns`).

    Returns
    -------
    list of dict
        One per table, with the keys

        * ``target``, ``source``, ``number`` (e.g. "Table 3.3"; "" if none), ``title``,
          ``table`` (:func:`table_label`), ``file``, ``metric`` (the compared column),
          ``read_off`` (where values were read off a figure; "" when printed), ``ranks_only``
          (only the order compares: run times on other hardware);
        * ``n_published`` (datasets the paper printed a value for) and ``n_compared``
          (of them, those with a value of the run), ``datasets`` (the compared ones);
        * ``mean_abs_delta`` ({method: mean absolute difference}) and
          ``mean_abs_delta_overall`` (over every compared cell), in the table's unit;
        * ``rho`` ({method: Spearman's ρ over the datasets}, NaN below three) and
          ``rho_median``;
        * ``verdicts_differ`` and ``verdicts_compared``: the published tests' verdicts that the
          run does not reproduce, of those compared (None when the table has no tests), and
          ``verdicts_where`` (which);
        * ``spread_run``: the mean standard deviation over the folds of the compared cells
          (table's unit), ``spread_published``: the same of the published ones where the
          document prints them (else None), and ``within_spread``: whether
          ``mean_abs_delta_overall`` is at most that spread (the published one where printed;
          at least half a unit of the table's last digit, ``digits``, as a printed 0.00 is);
        * ``protocol_paper``, ``protocol_run`` and ``quick``: what each used;
        * ``explained_by``: the topics of the known deviations that concern the table (the
          target's and the table's own, :func:`known_deviations`);
        * ``note``: why a table has no published values to compare ("" otherwise).
    """
    run = run_protocol(rows)
    common = {
        "target": repro.name,
        "source": repro.source,
        "protocol_paper": repro.protocol.text if repro.protocol else "",
        "protocol_run": run.text if run else "",
        "quick": bool(run and run.quick),
        "explained_by": list(repro.deviations),
    }
    out = []
    for table in repro.tables:
        if table.column in rows.columns:
            out.append(common | _grid_summary(repro, table, rows))
    if repro.summaries is not None:
        out.extend(common | _with_defaults(s) for s in repro.summaries(rows))
    return out


def _grid_summary(repro: Reproduction, table: PublishedTable, rows: pd.DataFrame) -> dict:
    """:func:`table_summaries`'s entry of one dataset x method table."""
    published = repro.published(table)
    ours = run_table(repro, table, rows)
    pairs = _pairs(published, ours)
    cells = [(ds, m) for ds in ours.index for m in ours.columns if ds in published.index]
    cells = [
        (ds, m)
        for ds, m in cells
        if np.isfinite(ours.at[ds, m]) and np.isfinite(published.at[ds, m])
    ]
    spread = run_spread(repro, table, rows)
    pstd = repro.published_std(table)
    verdicts = _verdicts(repro, table, rows, ours)
    every = [abs(a - b) for p in pairs.values() for a, b in p]  # each compared cell once
    entry = {
        "number": table.number,
        "title": table.title,
        "table": table_label(table),
        "file": table.file,
        "metric": table.column,
        "read_off": table.read_off,
        "ranks_only": table.ranks_only,
        "digits": table.digits,
        "n_published": int(published.notna().any(axis=1).sum()),
        "datasets": sorted({ds for ds, _ in cells}, key=list(published.index).index),
        "mean_abs_delta": {m: float(np.mean([abs(a - b) for a, b in p])) for m, p in pairs.items()},
        "mean_abs_delta_overall": float(np.mean(every)) if every else np.nan,
        "rho": {m: rank_correlation(p) for m, p in pairs.items()},
        "spread_run": _mean_cells(spread, cells),
        "spread_published": None if pstd is None else _mean_cells(pstd, cells),
        "explained_by": list(dict.fromkeys(repro.deviations + table.deviations)),
        **verdicts,
    }
    return _with_defaults(entry)


def _with_defaults(entry: dict) -> dict:
    """A summary entry with the keys every entry has and the values derived from the others
    (``n_compared``, the overall mean abs. Δ, the median ρ, ``within_spread``)."""
    out = {
        "number": "",
        "title": "",
        "file": "",
        "metric": "",
        "read_off": "",
        "ranks_only": False,
        "digits": 2,
        "n_published": 0,
        "datasets": [],
        "mean_abs_delta": {},
        "rho": {},
        "verdicts_differ": None,
        "verdicts_compared": None,
        "verdicts_where": "",
        "spread_run": np.nan,
        "spread_published": None,
        "note": "",
    } | entry
    named = ": ".join(p for p in (out["number"], out["title"]) if p)
    out.setdefault("table", named)
    out.setdefault("n_compared", len(out["datasets"]))
    if "mean_abs_delta_overall" not in out:
        deltas = [v for v in out["mean_abs_delta"].values() if np.isfinite(v)]
        out["mean_abs_delta_overall"] = float(np.mean(deltas)) if deltas else np.nan
    rhos = [v for v in out["rho"].values() if np.isfinite(v)]
    out.setdefault("rho_median", float(np.median(rhos)) if rhos else np.nan)
    spread = out["spread_published"] if out["spread_published"] is not None else out["spread_run"]
    if spread is not None and np.isfinite(spread):  # a printed 0.00 is below the last digit
        spread = max(spread, 0.5 * 10.0 ** -out["digits"])
    delta = out["mean_abs_delta_overall"]
    out.setdefault(
        "within_spread",
        bool(np.isfinite(delta) and spread is not None and np.isfinite(spread) and delta <= spread),
    )
    return out


def _mean_cells(frame: pd.DataFrame, cells: list[tuple]) -> float:
    """The mean of ``frame``'s finite values at the (dataset, method) ``cells``."""
    values = [
        frame.at[ds, m]
        for ds, m in cells
        if ds in frame.index and m in frame.columns and np.isfinite(frame.at[ds, m])
    ]
    return float(np.mean(values)) if values else np.nan


def _verdicts(repro, table, rows, ours) -> dict:
    """The published tests' verdicts the run does not reproduce: the rank tests printed under
    the table (:func:`side_by_side_tests`) and the per-dataset ANOVA where there is one."""
    differ, compared, where = 0, 0, []
    pub = published_tests(table.file)
    if pub and pub.get("average_ranks"):
        tests, _ = side_by_side_tests(ours, pub)
        if VERDICTS_ROW in tests.index:
            d, _, c = str(tests.at[VERDICTS_ROW, DIFFERS]).partition(" of ")
            differ, compared = differ + int(d), compared + int(c)
            which = tests[DIFFERS].drop(index=VERDICTS_ROW)
            where += [f"{m}: {v}" for m, v in which.items() if str(v).strip()]
    if table.anova:
        sbs = side_by_side(repro, table, rows, ours)
        if VERDICTS_ROW in sbs.index:
            d, _, c = str(sbs.at[VERDICTS_ROW, "ANOVA F (p), this run"]).partition(" of ")
            differ, compared = differ + int(d), compared + int(c)
            if int(d):
                where.append(f"per-dataset ANOVA: {d} of {c}")
    if not compared:
        return {"verdicts_differ": None, "verdicts_compared": None, "verdicts_where": ""}
    return {
        "verdicts_differ": differ,
        "verdicts_compared": compared,
        "verdicts_where": "; ".join(where),
    }


def figures(repro: Reproduction, rows: pd.DataFrame, out_dir, formats=("png",)) -> list:
    """The document's figures ``repro`` redraws from a run (written paths; none if it draws
    none)."""
    return [] if repro.figures is None else repro.figures(rows, out_dir, formats)


def known_deviations(repro: Reproduction) -> list[tuple[str, str]]:
    """The explained deviations of ``repro`` (its own and its tables'): ``(topic, Markdown
    text)`` each, from ``svmlab/reproduce/deviations/<topic>.md``."""
    folder = resources.files("svmlab.reproduce").joinpath("deviations")
    topics = dict.fromkeys(repro.deviations + tuple(d for t in repro.tables for d in t.deviations))
    return [
        (topic, folder.joinpath(f"{topic}.md").read_text(encoding="utf-8").strip())
        for topic in topics
    ]
