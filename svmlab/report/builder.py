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
from svmlab.report.rank_tests import add_rank_tests, control_names
from svmlab.report.render import (
    anchored,
    figure_html,
    heading_anchor,
    markdown_html,
    page,
    render,
)
from svmlab.reproduce import DATASETS_ROW, MEAN_DELTA, RANK_CORR
from svmlab.reproduce.published_tests import DIFFERS, VERDICTS_ROW
from svmlab.stats.sections import Section

#: The kinds of reproduction sections (``Section.key``, set by svmlab.reproduce.sections).
SIDE_BY_SIDE, TESTS = "paper", "tests"
#: The heading of a document's section on the datasets it could not obtain.
UNAVAILABLE = "Datasets not obtainable here"
#: The heading of a document's section on the duplicated rows or bags of its datasets.
DUPLICATES = "Datasets with duplicated rows or bags"


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
    # str(figure path) -> the Section.group of the block it belongs to (none: after all)
    figure_groups: dict = field(default_factory=dict)


#: The provenance columns the report names one by one (``prov_`` + key); the others are the
#: Python and library versions, listed together (:func:`_libraries`).
_MACHINE_AND_CODE = {
    "host": "host",
    "platform": "platform",
    "svmlab": "svmlab",
    "git_commit": "commit",
    "blas_threads": "BLAS threads per task",
}


def _distinct(df: pd.DataFrame, column: str) -> list[str]:
    """The distinct non-empty values of ``column`` as sorted strings (none without it)."""
    if column not in df.columns:
        return []
    return sorted({str(v) for v in df[column].dropna() if str(v)})


def provenance(df: pd.DataFrame) -> dict:
    """How a run's rows were made: tasks, compute time, first and last start, and the hosts,
    platforms, svmlab versions, git commits, BLAS threads and Python and library versions its
    rows record (several joined by ``, ``; a library as ``name version``; "not recorded" where
    no row says, as in rows made before svmlab recorded it)."""
    if df.empty:
        return {}
    # a task's rows (one per candidate of a grid chosen on the outer folds) share its seconds
    once = df.drop_duplicates("key") if "key" in df.columns else df
    seconds = once["task_seconds"].sum() if "task_seconds" in df.columns else float("nan")
    started = df["started_at"].dropna().astype(str) if "started_at" in df.columns else []
    made = {
        "tasks": int(df["key"].nunique()) if "key" in df.columns else len(df),
        "task-hours": round(float(seconds) / 3600.0, 3),
        "first task": min(started) if len(started) else "",
        "last task": max(started) if len(started) else "",
    }
    for key, label in _MACHINE_AND_CODE.items():
        made[label] = ", ".join(_distinct(df, "prov_" + key)) or "not recorded"
    return made | {"libraries": _libraries(df)}


def _libraries(df: pd.DataFrame) -> str:
    """The Python and library versions a run's rows record (every ``prov_`` column but those
    of :data:`_MACHINE_AND_CODE`), e.g. ``python 3.11.14, numpy 2.4.6``: numbers made with
    other versions may differ where a library's numerics changed."""
    said = []
    for column in df.columns:
        name = column.removeprefix("prov_")
        if name != column and name not in _MACHINE_AND_CODE:
            said += [f"{name.replace('_', '-')} {v}" for v in _distinct(df, column)]
    return ", ".join(said)


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
    from svmlab.results import load_results, run_config, run_configs, unstarted_solvers

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
    not_started = unstarted_solvers(df)
    if not_started:  # a killed study that never reached them: no column, no rank
        out.notes.append(
            f"the run has not reached {len(not_started)} of its solvers yet (no rows): "
            f"{', '.join(not_started)}; the same command resumes it"
        )
    stat_metrics = metric or sorted(
        {default_metric(t) for t in df.loc[df["status"] == "ok", "task_type"].dropna()}
    )
    if not stat_metrics or no_stats:
        return out
    out_dir = out_dir or _default_out(run_dir)
    # asked for by name (--metric, --control), the tests over the solvers run anyway
    own = [] if metric or stats.get("control") else targets_with_own_rank_tests(configs)
    if own:
        out.notes.append(
            f"no rank tests over the run's solvers: the reproduction target ({', '.join(own)}) "
            "makes the document's own tests above (--metric or --control makes them anyway)"
        )
    else:
        names = control_names(df)
        if stats.get("control") is not None and stats["control"] not in names:
            raise UnknownNameError("method", stats["control"], names)
        derived = derived_directions(configs)
        add_rank_tests(
            out, df, stat_metrics, how, derived, out_dir=out_dir, formats=formats, stats=stats
        )
    out.figures += reproduction_figures(df, formats, out_dir, configs)
    return out


def _default_out(run_dir) -> Path:
    """Where a run's report figures go by default: RUN_DIR/report."""
    run_path = Path(run_dir)
    return (run_path.parent if run_path.is_file() else run_path) / "report"


def targets_with_own_rank_tests(configs: dict[str, dict]) -> list[str]:
    """The reproduction targets of the runs that make their own rank tests
    (:func:`svmlab.reproduce.own_rank_tests`), each once."""
    from svmlab.reproduce import own_rank_tests

    names = {c["reproduce"] for c in configs.values() if c.get("reproduce")}
    own = sorted(n for n in names if own_rank_tests(n))
    runs = [c for c in configs.values() if c.get("reproduce") in own]
    return own if len(runs) == len(configs) else []


def explained_deviations(configs: dict[str, dict]) -> list[tuple[str, str]]:
    """The explained deviations of every reproduction target of the runs, each topic once."""
    from svmlab.reproduce import known_deviations

    out = {}
    for config in configs.values():
        if config.get("reproduce"):
            out.update(known_deviations(config["reproduce"]))
    return list(out.items())


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
    _duplicated: list | None = field(default=None, repr=False, compare=False)

    def duplicated(self) -> list[tuple[str, str]]:
        """:func:`duplicated` of the study's configuration, worked out once (its heading
        and the document's summary both name them)."""
        if self._duplicated is None:
            self._duplicated = duplicated(self.report.config) if self.report else []
        return self._duplicated


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
        rows[(e.experiment, section_label(s))] = row
    return _by_table(rows)


def deviation_summary(entries: list[Entry]) -> pd.DataFrame:
    """One row per published table: the mean over methods of the mean absolute deviation,
    Spearman's ρ of the run's values with the published ones over the datasets (median and
    range over the methods), the datasets compared of those the paper printed, and how many of
    the published tests' verdicts the run reproduces."""
    rows = {}
    for e, s in _reproduction_sections(entries, SIDE_BY_SIDE):
        row = rows.setdefault((e.experiment, section_label(s)), {})
        deltas = _numbers(s.table, MEAN_DELTA)
        if deltas.size:
            row["mean abs. Δ (mean over methods)"] = f"{deltas.mean():.4g}"
        rho = _numbers(s.table, RANK_CORR)
        if rho.size:
            row["Spearman ρ (median; min..max)"] = (
                f"{np.median(rho):+.2f} ({rho.min():+.2f}..{rho.max():+.2f})"
            )
        if DATASETS_ROW in s.table.index:  # "5 of 8" per method: the most any method has
            counts = [str(v) for v in s.table.loc[DATASETS_ROW] if str(v).strip()]
            row["datasets compared"] = max(counts, key=lambda c: int(c.split()[0]), default="")
        if VERDICTS_ROW in s.table.index:  # per-dataset tests printed in the table (ANOVA)
            counts = [str(v) for v in s.table.loc[VERDICTS_ROW] if str(v).strip()]
            row["test verdicts that differ"] = ", ".join(counts) + " (per-dataset ANOVA)"
    for e, s in _reproduction_sections(entries, TESTS):
        row = rows.setdefault((e.experiment, section_label(s)), {})
        if VERDICTS_ROW in s.table.index:
            row["test verdicts that differ"] = s.table.at[VERDICTS_ROW, DIFFERS]
            which = s.table[DIFFERS].drop(index=VERDICTS_ROW)
            row["where"] = "; ".join(f"{m}: {v}" for m, v in which.items() if str(v).strip())
        else:
            row["test verdicts that differ"] = "no tests on this run"
    return _by_table(rows)


#: A table or figure number in a heading: "Table 3.4", "Tables 3.2 and 3.3", "Figs. 1-2".
_NUMBER = re.compile(
    r"\b(?:Tables?|Figs?\.|Figures?)\s+[A-Z]?\d+(?:\.\d+)*"
    r"(?:\s*(?:-|–|/|,|and)\s*(?:Tables?\s+|Figs?\.\s+)?\d+(?:\.\d+)*)*"
)


def section_label(s: Section) -> str:
    """The name of a reproduction section's published table in the summaries: its number
    (``Section.number``, else the first table number its heading names, unless the name
    starts with it), the sweep run it compares (``[evo.C=1]``), and what it shows.

    >>> section_label(Section("Mierswa 2009, Table 3.4, C = 1: error (%), paper vs this run",
    ...     pd.DataFrame(), key=("paper", "[evo.C=1] error (%)")))
    'Table 3.4 [evo.C=1]: error (%)'
    """
    name, job = s.key[1], ""
    run = re.match(r"\[(.+?)\] (.*)", name)
    if run:
        job, name = f" [{run.group(1)}]", run.group(2)
    if _NUMBER.match(name):  # the name starts with its number already
        return name + job
    found = _NUMBER.search(s.title)
    number = s.number or (found.group(0) if found else "")
    return f"{number}{job}: {name}" if number else f"{job.strip()} {name}".strip()


def _by_table(rows: dict) -> pd.DataFrame:
    """``{(experiment, table): cells}`` as a table indexed by table, experiment first; a
    table name that two experiments share gets the experiment in parentheses."""
    names = [t for _, t in rows]
    out = pd.DataFrame([{"experiment": e, **cells} for (e, _), cells in rows.items()])
    out.index = pd.Index([f"{t} ({e})" if names.count(t) > 1 else t for e, t in rows], name="table")
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
    return "\n".join(md).rstrip() + "\n", page(title, anchored("\n".join(body)))


def _shift(markdown: str) -> str:
    """Rendered sections one heading level down (under the experiment's heading)."""
    return re.sub(r"^(#{2,5}) ", r"#\1 ", markdown, flags=re.M)


def _add_entry(e: Entry, base: Path, md: list, body: list) -> None:
    """Append one experiment's heading, status, sections, figures and notes: the sections
    of a block (a run of a sweep) with the block's figures after them, the figures of no
    block at the end."""
    heading = f"{e.part}: {e.experiment or '-'}"
    md.append(f"## {heading}\n\n{e.status}\n")
    body.append(f"<h2>{html.escape(heading)}</h2>")
    body.append(f"<p>{html.escape(e.status)}</p>")
    if e.report is None:
        return
    missing = [name for name, _ in unavailable(e.report.config)]
    if missing:
        line = f"not obtainable here: {', '.join(missing)}; why: see"
        link = f"#{heading_anchor(UNAVAILABLE)}"
        md.append(f"_{line} [{UNAVAILABLE}]({link})_\n")
        body.append(f"<p class='note'>{html.escape(line)} <a href='{link}'>{UNAVAILABLE}</a></p>")
    twins = [name for name, _ in e.duplicated()]
    if twins:
        line = f"duplicated rows or bags in {', '.join(twins)}; see"
        link = f"#{heading_anchor(DUPLICATES)}"
        md.append(f"_{line} [{DUPLICATES}]({link})_\n")
        body.append(f"<p class='note'>{html.escape(line)} <a href='{link}'>{DUPLICATES}</a></p>")
    groups = e.report.figure_groups
    for group, sections in _runs_of_groups(e.report.sections):
        md.append(_shift(render(sections, "markdown")))
        body.append(render(sections, "html"))
        if group:
            _add_figures(
                [p for p in e.report.figures if groups.get(str(p)) == group], base, md, body
            )
    _add_figures([p for p in e.report.figures if not groups.get(str(p))], base, md, body)
    for note in e.report.notes:
        md.append(f"_note: {note}_\n")
        body.append(f"<p class='note'>note: {html.escape(note)}</p>")
    if e.report.explained:
        md.append("### Known deviations, explained\n")
        body.append("<h3>Known deviations, explained</h3>")
        for _, text in e.report.explained:
            md.append(text + "\n")
            body.append(markdown_html(text))


def _runs_of_groups(sections: list[Section]) -> list[tuple[str, list[Section]]]:
    """``(group, sections)`` of each run of consecutive sections with the same group."""
    out = []
    for s in sections:
        if out and out[-1][0] == s.group:
            out[-1][1].append(s)
        else:
            out.append((s.group, [s]))
    return out


def _add_figures(paths: list, base: Path, md: list, body: list) -> None:
    """The image figures of ``paths``, inline, linked relative to ``base``."""
    for path in paths:
        rel = Path(os.path.relpath(path, base)).as_posix()
        if rel.endswith((".png", ".svg", ".jpg")):
            md.append(f"![{Path(path).stem}]({rel})\n")
            body.append(figure_html(rel, Path(path).stem))


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
    twins = duplicates_section(entries)
    missing = unavailable_section(entries)
    return out + [s for s in (twins, missing) if s is not None]


def unavailable_section(entries: list[Entry]) -> Section | None:
    """The datasets of the document's studies that could not be obtained here: one row per
    dataset, why, and the experiments that use it (None when every dataset was there)."""
    why, used_by = {}, {}
    for e in entries:
        for name, reason in unavailable(e.report.config) if e.report else []:
            why.setdefault(name, reason)
            used_by.setdefault(name, []).append(e.experiment or e.part)
    if not why:
        return None
    table = pd.DataFrame(
        {"why": list(why.values()), "used by": [", ".join(used_by[n]) for n in why]},
        index=pd.Index(list(why), name="dataset"),
    )
    return Section(UNAVAILABLE, table)


def duplicated(config: dict) -> list[tuple[str, str]]:
    """The datasets of a run's study with duplicated rows or bags, each with its note
    (:func:`svmlab.data.findings.duplicates_note`: counted from the data, cached per file)."""
    from svmlab.data.findings import duplicates_note
    from svmlab.data.prefetch import config_datasets

    notes = ((name, duplicates_note(name)) for name in config_datasets(config)[0])
    return [(name, note) for name, note in notes if note]


def duplicates_section(entries: list[Entry]) -> Section | None:
    """The datasets of the document's studies with duplicated rows or bags: one note per
    dataset and the experiments that use it (None when no dataset has any)."""
    notes, used_by = {}, {}
    for e in entries:
        for name, note in e.duplicated():
            notes.setdefault(name, note)
            used_by.setdefault(name, []).append(e.experiment or e.part)
    if not notes:
        return None
    table = pd.DataFrame(
        {"note": list(notes.values()), "used by": [", ".join(used_by[n]) for n in notes]},
        index=pd.Index(list(notes), name="dataset"),
    )
    why = (
        "duplicates split between the training and the test part of a fold inflate accuracy; "
        "duplicates with conflicting labels cap it (docs/decisions/data.md)"
    )
    return Section(DUPLICATES, table, note=why)
