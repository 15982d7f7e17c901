"""The report of a run (``svmlab report``) and of a document (``svmlab reproduce``).

:func:`run_report` builds the sections and figures of one run or sweep, the same for both
commands; :func:`document` puts the reports of a document's experiments into one Markdown
and one HTML page (figures inline, a summary of the deviations from the published tables
and the datasets that could not be obtained). Both pages are written by
:mod:`svmlab.report.render`.
"""

from __future__ import annotations

import html
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from svmlab.errors import SvmlabError, UnknownNameError
from svmlab.report.render import figure_html, markdown_html, page, render
from svmlab.reproduce import MEAN_DELTA, RANK_CORR
from svmlab.reproduce.published_tests import DIFFERS, VERDICTS_ROW
from svmlab.stats.sections import Section

#: The kinds of reproduction sections (``Section.key``, set by svmlab.reproduce.sections).
SIDE_BY_SIDE, TESTS = "paper", "tests"


@dataclass
class RunReport:
    """The sections, figures and notes of one run's report."""

    sections: list = field(default_factory=list)
    figures: list = field(default_factory=list)
    notes: list = field(default_factory=list)  # lines for stderr, without "svmlab: note: "
    config: dict = field(default_factory=dict)
    made: dict = field(default_factory=dict)  # how the run was made (see :func:`provenance`)
    # the reproduction targets' explained deviations: (topic, Markdown text)
    explained: list = field(default_factory=list)


def provenance(df: pd.DataFrame) -> dict:
    """How a run's rows were made: tasks, compute time, first and last start, and the hosts,
    platforms, svmlab versions and git commits its rows record (several joined by ``, ``)."""
    if df.empty:
        return {}

    def values(column):
        if column not in df.columns:
            return ""
        return ", ".join(sorted({str(v) for v in df[column].dropna() if str(v)}))

    seconds = df["task_seconds"].sum() if "task_seconds" in df.columns else float("nan")
    started = df["started_at"].dropna().astype(str) if "started_at" in df.columns else []
    return {
        "tasks": int(df["key"].nunique()) if "key" in df.columns else len(df),
        "task-hours": round(float(seconds) / 3600.0, 3),
        "first task": min(started) if len(started) else "",
        "last task": max(started) if len(started) else "",
        "host": values("prov_host"),
        "platform": values("prov_platform"),
        "svmlab": values("prov_svmlab"),
        "commit": values("prov_git_commit"),
    }


def run_report(
    run_dir,
    *,
    metric=None,
    aggregate_how=None,
    no_stats=False,
    out_dir=None,
    formats=("png",),
    stats=None,
) -> RunReport:
    """Sections (summary, statistics, reproduction side by side) and figures of a run.

    Parameters
    ----------
    run_dir : str or Path
        A run directory, a sweep directory or a results.parquet.
    metric : list of str, optional
        Metrics to tabulate and test (default: one per task type).
    aggregate_how : {"mean", "pooled"}, optional
        Default: the experiment's ``report.aggregate``, else mean.
    no_stats : bool
        Only the summary tables.
    out_dir : Path, optional
        Where figures go (default: RUN_DIR/report).
    formats : tuple of str
        Figure formats (already checked).
    stats : dict
        Keyword arguments of :func:`svmlab.stats.analysis.analyse` (``bd_alpha`` None: the
        experiment's ``report.bd_alpha``).
    """
    from svmlab.evaluation.metrics import default_metric
    from svmlab.report.summary import derived_columns, derived_directions, derived_report
    from svmlab.results import load_results, run_config, run_configs

    # with the columns the runs' reproduction targets derive (the MLM studies' NORM), so that
    # --metric can name them
    df = load_results(run_dir)
    configs = run_configs(df)
    df = derived_columns(df, configs)
    config = run_config(run_dir)
    defaults = config.get("report") or {}
    how = aggregate_how or defaults.get("aggregate") or "mean"
    stats = dict(stats or {})
    if stats.get("bd_alpha") is None:
        stats["bd_alpha"] = defaults.get("bd_alpha")
    out = RunReport(
        derived_report(df, metric, how, configs=configs), [], [], config, provenance(df)
    )
    out.explained = explained_deviations(configs)
    stat_metrics = metric or sorted(
        {default_metric(t) for t in df.loc[df["status"] == "ok", "task_type"].dropna()}
    )
    if not stat_metrics or no_stats:
        return out
    if stats.get("control") is not None and stats["control"] not in set(df["method"]):
        raise UnknownNameError("method", stats["control"], set(df["method"].dropna()))
    run_path = Path(run_dir)
    out_dir = out_dir or ((run_path.parent if run_path.is_file() else run_path) / "report")
    derived = derived_directions(configs)
    _add_rank_tests(
        out, df, stat_metrics, how, derived, out_dir=out_dir, formats=formats, stats=stats
    )
    out.figures += reproduction_figures(df, formats, out_dir, configs)
    return out


def _add_rank_tests(out: RunReport, df, metrics, how, derived, *, out_dir, formats, stats):
    """Add to ``out`` the rank tests and figures of every metric
    (:func:`svmlab.stats.analysis.analyse` on the datasets x methods table), and the
    meta-ranks over the metrics when there are several; a metric that cannot be tested
    leaves a note instead."""
    from svmlab.results import aggregate, direction_of
    from svmlab.stats.analysis import analyse

    ranks_by_metric = {}
    partial = _incomplete(df, out.notes)
    for name in metrics:
        matrix = aggregate(df, name, how).pivot(index="dataset", columns="method", values="value")
        matrix = matrix.drop(index=[d for d in partial if d in matrix.index])
        if matrix.shape[0] < 2 or matrix.shape[1] < 2:
            out.notes.append(
                f"no rank tests for {name}: they need >= 2 datasets and >= 2 methods "
                f"(have {matrix.shape[0]} x {matrix.shape[1]})"
            )
            continue
        try:
            cmp, more, paths = analyse(
                matrix,
                direction_of(name, df, derived),
                name=name,
                out_dir=out_dir,
                formats=formats,
                **stats,
            )
        except SvmlabError as exc:  # e.g. an infinite cell: the other metrics still go on
            out.notes.append(f"no rank tests for {name}: {exc}")
            continue
        out.sections += more[1:]  # the summary table already shows the values
        out.figures += paths
        ranks_by_metric[name] = cmp.average_ranks
    if len(ranks_by_metric) > 1:
        from svmlab.stats.tables import meta_rank_section

        table = pd.DataFrame(ranks_by_metric).T
        if table.notna().all().all():
            out.sections.append(meta_rank_section(table))


def explained_deviations(configs: dict[str, dict]) -> list[tuple[str, str]]:
    """The explained deviations of every reproduction target of the runs, each topic once."""
    from svmlab.reproduce import known_deviations

    out = {}
    for config in configs.values():
        if config.get("reproduce"):
            out.update(known_deviations(config["reproduce"]))
    return list(out.items())


def _incomplete(df, notes: list) -> dict[str, str]:
    """The datasets of a killed (or running) run without every method's folds, named in one
    note; the rank tests leave them out."""
    from svmlab.results import incomplete_datasets

    partial = incomplete_datasets(df)
    if partial:
        named = "; ".join(f"{d} ({why})" for d, why in partial.items())
        notes.append(
            f"the run is incomplete; the statistics use only the datasets with "
            f"every method's folds and leave out {named}"
        )
    return partial


def reproduction_figures(df, formats, out_dir, configs) -> list:
    """The paper figures each run's reproduction target redraws (e.g. the MKLPO boxplots);
    ``configs`` as :func:`svmlab.results.run_configs`."""
    from svmlab.reproduce import figures

    paths = []
    for run_dir, config in configs.items():
        target = config.get("reproduce")
        rows = df[df["run_dir"] == run_dir]
        if target and not rows.empty and formats:
            paths += figures(target, rows, out_dir, formats)
    return paths


# ---------------------------------------------------------------- one document, many runs


@dataclass
class Entry:
    """One experiment of a document's report.

    ``report`` is None when there is nothing to report (``status`` says why); ``skipped``
    marks a study without a quick profile.
    """

    part: str
    experiment: str | None
    run_dir: Path | None
    status: str
    report: RunReport | None = None
    skipped: bool = False


def deviations(entries: list[Entry]) -> pd.DataFrame:
    """The ``mean abs. Δ`` rows of every side-by-side table: one row per experiment and
    table, one column per method (empty where a table has no such method)."""
    rows = {}
    for e, s in _reproduction_sections(entries, SIDE_BY_SIDE):
        if MEAN_DELTA not in s.table.index:
            continue
        row = {}
        for column, value in s.table.loc[MEAN_DELTA].items():
            if str(value).strip():
                row[str(column).removesuffix(" Δ")] = value
        rows[(e.experiment, s.key[1])] = row
    return _by_table(rows)


def deviation_summary(entries: list[Entry]) -> pd.DataFrame:
    """One row per published table: the mean over methods of the mean absolute deviation,
    Spearman's ρ of the run's values with the published ones over the datasets (median and
    range over the methods), and how many of the published tests' verdicts the run
    reproduces."""
    rows = {}
    for e, s in _reproduction_sections(entries, SIDE_BY_SIDE):
        row = rows.setdefault((e.experiment, s.key[1]), {})
        deltas = _numbers(s.table, MEAN_DELTA)
        if deltas.size:
            row["mean abs. Δ (mean over methods)"] = f"{deltas.mean():.4g}"
        rho = _numbers(s.table, RANK_CORR)
        if rho.size:
            row["Spearman ρ (median; min..max)"] = (
                f"{np.median(rho):+.2f} ({rho.min():+.2f}..{rho.max():+.2f})"
            )
        if VERDICTS_ROW in s.table.index:  # per-dataset tests printed in the table (ANOVA)
            counts = [str(v) for v in s.table.loc[VERDICTS_ROW] if str(v).strip()]
            row["test verdicts that differ"] = ", ".join(counts) + " (per-dataset ANOVA)"
    for e, s in _reproduction_sections(entries, TESTS):
        row = rows.setdefault((e.experiment, s.key[1]), {})
        if VERDICTS_ROW in s.table.index:
            row["test verdicts that differ"] = s.table.at[VERDICTS_ROW, DIFFERS]
            which = s.table[DIFFERS].drop(index=VERDICTS_ROW)
            row["where"] = "; ".join(f"{m}: {v}" for m, v in which.items() if str(v).strip())
        else:
            row["test verdicts that differ"] = "no tests on this run"
    return _by_table(rows)


def _by_table(rows: dict) -> pd.DataFrame:
    """``{(experiment, table): cells}`` as a table indexed by table, experiment first."""
    out = pd.DataFrame([{"experiment": e, **cells} for (e, _), cells in rows.items()])
    out.index = pd.Index([t for _, t in rows], name="table")
    return out.fillna("")


def _reproduction_sections(entries: list[Entry], kind: str):
    """(entry, section) of every reproduction section of ``kind`` (``SIDE_BY_SIDE``, ``TESTS``)."""
    for e in entries:
        for s in e.report.sections if e.report else []:
            if s.key and s.key[0] == kind:
                yield e, s


def _numbers(table: pd.DataFrame, row: str) -> np.ndarray:
    """The numeric cells of one row of a side-by-side table."""
    if row not in table.index:
        return np.array([])
    values = pd.to_numeric(table.loc[row].astype(str).str.strip(), errors="coerce")
    return values.dropna().to_numpy(dtype=float)


def unavailable(config: dict) -> list[tuple[str, str]]:
    """The datasets of a run's study that could not be obtained here, with the reason."""
    from svmlab.data.registry import dataset_info

    out = []
    for name in config.get("unavailable_datasets") or []:
        try:
            why = dataset_info(name).get("unavailable_reason") or "not available"
        except SvmlabError as exc:
            why = str(exc)
        out.append((name, why))
    return out


def document(title: str, entries: list[Entry], base: Path) -> tuple[str, str]:
    """The Markdown and the HTML report of a document; figure links relative to ``base``."""
    md, body = [f"# {title}\n"], [f"<h1>{html.escape(title)}</h1>"]
    for e in entries:
        _add_entry(e, base, md, body)
    md.append("## Summary\n")
    body.append("<h2>Summary</h2>")
    for e in entries:
        if e.skipped:
            line = f"skipped: {e.part} ({e.status})"
            md.append(f"- {line}")
            body.append(f"<p>{html.escape(line)}</p>")
    summary = summary_sections(entries)
    if summary:
        md.append("\n" + _shift(render(summary, "markdown")))
        body.append(render(summary, "html"))
    return "\n".join(md).rstrip() + "\n", page(title, "\n".join(body))


def _shift(markdown: str) -> str:
    """Rendered sections one heading level down (under the experiment's heading)."""
    return re.sub(r"^## ", "### ", markdown, flags=re.M)


def _add_entry(e: Entry, base: Path, md: list, body: list) -> None:
    """Append one experiment's heading, status, sections, figures and notes."""
    heading = f"{e.part}: {e.experiment or '-'}"
    md.append(f"## {heading}\n\n{e.status}\n")
    body.append(f"<h2>{html.escape(heading)}</h2>")
    body.append(f"<p>{html.escape(e.status)}</p>")
    if e.report is None:
        return
    md.append(_shift(render(e.report.sections, "markdown")))
    body.append(render(e.report.sections, "html"))
    for path in e.report.figures:
        rel = Path(os.path.relpath(path, base)).as_posix()
        if rel.endswith((".png", ".svg", ".jpg")):
            md.append(f"![{Path(path).stem}]({rel})\n")
            body.append(figure_html(rel, Path(path).stem))
    for note in e.report.notes:
        md.append(f"_note: {note}_\n")
        body.append(f"<p class='note'>note: {html.escape(note)}</p>")
    if e.report.explained:
        md.append("### Known deviations, explained\n")
        body.append("<h3>Known deviations, explained</h3>")
        for _, text in e.report.explained:
            md.append(text + "\n")
            body.append(markdown_html(text))


def summary_sections(entries: list[Entry]) -> list[Section]:
    """The deviations from the published tables and the datasets that could not be obtained
    (each section only when it has rows)."""
    out = []
    summary = deviation_summary(entries)
    if not summary.empty:
        out.append(
            Section(
                "Deviations from the published tables, per table",
                summary,
                note="mean abs. Δ in the table's unit; ρ near +1: the run orders the datasets "
                "as the paper did; a test verdict differs when the paper and the run disagree "
                "on significance (Wilcoxon, Holm, Bonferroni-Dunn per method; Iman-Davenport)",
            )
        )
    dev = deviations(entries)
    if not dev.empty:
        out.append(Section("Deviations from the published tables (mean abs. Δ per method)", dev))
    made = {e.experiment: e.report.made for e in entries if e.report and e.report.made}
    if made:
        table = pd.DataFrame.from_dict(made, orient="index")
        table.index.name = "experiment"
        out.append(Section("How the runs were made (machine, time, code)", table))
    missing = [
        (e.experiment, n, why)
        for e in entries
        if e.report
        for n, why in unavailable(e.report.config)
    ]
    if missing:
        table = pd.DataFrame(missing, columns=["experiment", "dataset", "why"])
        out.append(Section("Datasets that could not be obtained", table.set_index("experiment")))
    return out
