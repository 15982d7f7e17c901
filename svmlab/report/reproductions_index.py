"""The index of a folder of document reports: one line per published table of every document.

``svmlab reproduce PAPER`` writes, beside ``PAPER.md``, the record ``PAPER.index.json``
(:func:`document_record`): per published table of each of the document's studies, whether the
run reproduces it within the table's own spread, deviates, could not be compared (data not
obtainable, no published numbers) or has not run, with the mean absolute deviation,
Spearman's ρ, the published test verdicts the run does not reproduce, and a link to the
table's section of the report. :func:`update_index` then rewrites the index block of the
folder's ``README.md`` from every record there; documents without a record are listed with
their tables as not run.

The classification (:func:`table_status`) uses
:func:`svmlab.reproduce.registry.run_summaries`: a table is reproduced when its mean absolute
deviation over the compared cells is at most its spread (the published standard deviation over
the folds where the document prints one, else the run's). A table of tests has no spread; it
is reproduced when every published verdict it compares is the run's too.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pandas as pd

from svmlab.report.render import heading_anchor, md_cell

#: The markers between which :func:`update_index` writes the index into a README.
BEGIN, END = "<!-- reproductions index: begin -->", "<!-- reproductions index: end -->"
#: The words ending the heading of a published table set beside the run's.
SIDE_BY_SIDE = "paper vs this run"
#: The suffix of a document's record beside its report.
RECORD_SUFFIX = ".index.json"

REPRODUCED = "reproduced within its spread"
DEVIATES = "deviates"
NOT_RUN = "not run yet"
NOT_COMPARED = "not compared"
ORDER_ONLY = "order only (run times on other hardware: see ρ)"
NO_SPREAD = "compared, no spread to judge by"
SAME_VERDICTS = "reproduced: every test verdict the same"


def study_target(experiment: str) -> str | None:
    """The reproduction target an experiment's config names (``reproduce:``), read from
    ``conf/experiment/<experiment>.yaml`` without composing it (None if it names none)."""
    from omegaconf import OmegaConf

    from svmlab.paths import conf_dir

    path = conf_dir() / "experiment" / f"{experiment}.yaml"
    if not path.exists():
        return None
    target = OmegaConf.to_container(OmegaConf.load(path)).get("reproduce")
    return str(target) if target else None


def headings(markdown: str) -> list[tuple[int, str, str]]:
    """``(level, text, anchor)`` of every Markdown heading, with the anchors GitHub gives
    them (a repeated heading gets ``-1``, ``-2``, ...)."""
    seen: dict[str, int] = {}
    out = []
    for match in re.finditer(r"^(#{1,6}) (.+)$", markdown, flags=re.M):
        anchor = heading_anchor(match.group(2))
        n = seen.get(anchor, 0)
        seen[anchor] = n + 1
        out.append((len(match.group(1)), match.group(2), anchor if n == 0 else f"{anchor}-{n}"))
    return out


def _section_anchor(heads: list, study_heading: str, title: str, job: str) -> str:
    """The anchor of a table's section inside its study's part of the report (the study's
    own anchor when no heading there names the table)."""
    start = next((i for i, (lv, text, _) in enumerate(heads) if text == study_heading), None)
    if start is None:
        return ""
    below = []
    for level, text, anchor in heads[start + 1 :]:
        if level <= 2:
            break
        if title and title in text and (not job or f"[{job}]" in text):
            below.append((text, anchor))
    # the side-by-side table's own heading first (a summary heading may name the metric too)
    beside = [a for text, a in below if SIDE_BY_SIDE in text]
    return (beside or [a for _, a in below] or [heads[start][2]])[0]


def table_status(summary: dict, partial: bool, explained: bool) -> str:
    """One table's status from its summary (:func:`~svmlab.reproduce.registry.run_summaries`).

    Parameters
    ----------
    summary : dict
        The table's entry.
    partial : bool
        Whether the run is incomplete (the table may lack datasets or folds).
    explained : bool
        Whether known deviations that concern the table are explained in the report.
    """
    if not summary.get("n_compared"):
        return f"{NOT_COMPARED}: {summary.get('note') or 'no dataset of the table in the run'}"
    spread = summary.get("spread_published")
    spread = summary.get("spread_run") if spread is None else spread
    deviates = DEVIATES + (" (explained in the report)" if explained else "")
    if summary.get("ranks_only"):  # run times on other hardware: only the order compares
        status = ORDER_ONLY
    elif _number(spread) is None and summary.get("verdicts_compared"):  # a table of tests
        status = deviates if summary.get("verdicts_differ") else SAME_VERDICTS
    elif _number(spread) is None:  # one split, or ranks: nothing to judge the Δ by
        status = NO_SPREAD
    elif summary.get("within_spread"):
        status = REPRODUCED
    else:
        status = deviates
    return status + (" - partial run" if partial else "")


def _number(value) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _table_row(summary: dict, study: dict, link: str, partial: bool, explained: bool) -> dict:
    """One line of the index from a table's summary."""
    rho = [v for v in (_number(r) for r in (summary.get("rho") or {}).values()) if v is not None]
    differ, compared = summary.get("verdicts_differ"), summary.get("verdicts_compared")
    return {
        "experiment": study["experiment"],
        "table": summary.get("table") or summary.get("title") or "",
        "job": summary.get("job") or "",
        "status": table_status(summary, partial, explained),
        "mean_abs_delta": _number(summary.get("mean_abs_delta_overall")),
        "spread": _number(
            summary.get("spread_published")
            if summary.get("spread_published") is not None
            else summary.get("spread_run")
        ),
        "rho_median": float(pd.Series(rho).median()) if rho else None,
        "verdicts": f"{differ} of {compared}" if compared else "",
        "datasets": f"{summary.get('n_compared', 0)} of {summary.get('n_published', 0)}",
        "digits": int(summary.get("digits") or 2),
        "link": link,
    }


def _unrun_rows(study: dict, status: str) -> list[dict]:
    """The index lines of a study without results: its target's published tables."""
    from svmlab.reproduce.engine import table_label
    from svmlab.reproduce.registry import REPRODUCTIONS, get_reproduction

    target = study_target(study["experiment"]) or ""
    # a sweep's target depends on the job (``evosvm_table_3_4_C${evo.C}``): each job's target
    stem = target.split("${", 1)[0]
    names_of = [n for n in REPRODUCTIONS if n == target or ("${" in target and n.startswith(stem))]
    tables = [t for n in names_of for t in get_reproduction(n).tables]
    names = [table_label(t) for t in tables] or [f"{study['part']} (tables built from the run)"]
    return [
        {"experiment": study["experiment"], "table": n, "job": "", "status": status, "link": ""}
        for n in names
    ]


def _unrun_tables(paper) -> list[dict]:
    """The index lines of a document none of whose studies has run."""
    return [
        row
        for s in paper.studies
        for row in _unrun_rows({"experiment": s.full, "part": s.part}, NOT_RUN)
    ]


def document_record(paper, entries: list, report_name: str, markdown: str, quick: bool) -> dict:
    """The record of one document's report: its studies (how they were run) and one line per
    published table.

    Parameters
    ----------
    paper : Paper
        The document.
    entries : list of Entry
        The report's experiments (:class:`svmlab.report.builder.Entry`), in the paper's order.
    report_name : str
        The report's Markdown file name, which the links point into.
    markdown : str
        The report's Markdown (the sections' anchors are read from it).
    quick : bool
        Whether the report is of the quick profiles.
    """
    from svmlab.reproduce.registry import run_summaries
    from svmlab.results import incomplete_datasets, load_results, unstarted_solvers

    heads = headings(markdown)
    studies, tables = [], []
    for e in entries:
        study = {"experiment": e.experiment or "", "part": e.part, "status": e.status}
        if e.report is None:
            status = f"left out of this report: {e.status}" if e.skipped else NOT_RUN
            studies.append(study | {"made": {}, "incomplete": {}})
            tables += _unrun_rows(study, status)
            continue
        df = load_results(e.run_dir)
        partial = incomplete_datasets(df)
        unstarted = unstarted_solvers(df)
        if unstarted:
            partial = partial | {"solvers not started": ", ".join(unstarted)}
        studies.append(study | {"made": e.report.made, "incomplete": partial})
        heading = f"{e.part}: {e.experiment or '-'}"
        summaries = run_summaries(df)
        if not summaries:  # the study's sections compare no printed table
            anchor = _section_anchor(heads, heading, "", "")
            tables.append(
                {
                    "experiment": study["experiment"],
                    "table": f"{e.part} (the report's own sections)",
                    "job": "",
                    "status": f"{NOT_COMPARED}: no printed table to set beside the run",
                    "link": f"{report_name}#{anchor}" if anchor else report_name,
                }
            )
        for s in summaries:
            anchor = _section_anchor(heads, heading, s.get("title", ""), s.get("job", ""))
            link = f"{report_name}#{anchor}" if anchor else report_name
            explained = bool(s.get("explained_by"))
            tables.append(_table_row(s, study, link, bool(partial), explained))
    return {
        "document": paper.name,
        "title": paper.title,
        "quick": quick,
        "report": report_name,
        "studies": studies,
        "tables": tables,
    }


def write_record(out: Path, record: dict) -> Path:
    """Write ``record`` as ``OUT/<report stem>.index.json``; returns the path."""
    path = Path(out) / (Path(record["report"]).stem + RECORD_SUFFIX)
    path.write_text(json.dumps(record, indent=1, sort_keys=True, default=str) + "\n")
    return path


def _cell(value, digits: int, fmt: str = "f") -> str:
    if value is None:
        return ""
    return f"{value:+.2f}" if fmt == "+" else f"{value:.{digits}f}"


def _document_lines(paper, record: dict | None) -> list[str]:
    """The index's part of one document: its heading, its studies' runs, its tables."""
    lines = [f"### {paper.title}\n"]
    if record is None:
        lines.append(f"No full report yet (`svmlab reproduce {paper.name}`).\n")
        record = {"tables": _unrun_tables(paper)}
    else:
        name = record["report"]
        html_name = Path(name).with_suffix(".html").name
        lines.append(f"Report: [{name}]({name}) ([HTML]({html_name})).\n")
        for s in record["studies"]:
            made = s.get("made") or {}
            if made:
                lines.append(
                    f"- `{s['experiment']}`: {made.get('tasks', '?')} tasks, "
                    f"{made.get('task-hours', '?')} task-hours, {made.get('first task', '')} to "
                    f"{made.get('last task', '')}, commit {made.get('commit') or '?'}"
                    + (
                        "; **incomplete** (resumable): "
                        + "; ".join(f"{d}: {w}" for d, w in s["incomplete"].items())
                        if s.get("incomplete")
                        else ""
                    )
                )
            else:
                lines.append(f"- `{s['experiment']}`: {s.get('status', NOT_RUN)}")
        lines.append("")
    lines += [
        "| table | study | status | mean abs. Δ | spread | ρ (median) | verdicts differ "
        "| rows compared |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for t in record["tables"]:
        name = md_cell(t["table"] + (f" [{t['job']}]" if t.get("job") else ""))
        shown = f"[{name}]({t['link']})" if t.get("link") else name
        digits = t.get("digits", 2)
        lines.append(
            f"| {shown} | `{t['experiment']}` | {md_cell(t['status'])} "
            f"| {_cell(t.get('mean_abs_delta'), digits)} | {_cell(t.get('spread'), digits)} "
            f"| {_cell(t.get('rho_median'), 2, '+')} | {t.get('verdicts', '')} "
            f"| {t.get('datasets', '')} |"
        )
    return lines + [""]


def index_markdown(records: dict[str, dict]) -> str:
    """The index of every document (:data:`svmlab.reproduce.papers.PAPERS`), from the full
    reports' records ``{document: record}``; documents without one are listed as not run."""
    from svmlab.reproduce.papers import PAPERS

    lines = [
        "| status | tables | of them from an unfinished run |",
        "|---|---|---|",
    ]
    counts: dict[str, list[int]] = {}
    parts = []
    for name, paper in PAPERS.items():
        record = records.get(name)
        parts += _document_lines(paper, record)
        for t in (record or {}).get("tables") or _unrun_tables(paper):
            key = t["status"].split(" (")[0].split(":")[0].split(" - ")[0]
            count = counts.setdefault(key, [0, 0])
            count[0] += 1
            count[1] += t["status"].endswith(" - partial run")
    lines += [f"| {k} | {n} | {p} |" for k, (n, p) in sorted(counts.items())]
    return "\n".join(lines + [""] + parts).rstrip() + "\n"


def read_records(folder: Path) -> dict[str, dict]:
    """The full (not quick) records in ``folder``, by document."""
    out = {}
    for path in sorted(Path(folder).glob(f"*{RECORD_SUFFIX}")):
        record = json.loads(path.read_text())
        if not record.get("quick"):
            out[record["document"]] = record
    return out


def update_index(folder: Path) -> Path:
    """Rewrite the index block of ``FOLDER/README.md`` (between :data:`BEGIN` and
    :data:`END`; the whole file when it has none) from the records in ``folder``."""
    readme = Path(folder) / "README.md"
    block = f"{BEGIN}\n{index_markdown(read_records(folder))}{END}"
    text = readme.read_text() if readme.exists() else ""
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + block + rest.split(END, 1)[1]
    elif text:  # a README without the block keeps its text: the index goes at its end
        text = f"{text.rstrip()}\n\n{block}\n"
    else:
        text = f"# Reproductions\n\n{block}\n"
    readme.write_text(text)
    return readme
