"""``svmlab reproduce``: run every experiment of a seed document and report on it."""

from __future__ import annotations

import sys
from pathlib import Path

from svmlab.cli._common import check_writable, emit, table
from svmlab.errors import SvmlabError, UnknownNameError


def reproduce(args) -> int:
    """Run (unless --no-run) and report every experiment of a document."""
    from svmlab.reproduce.papers import PAPERS, get_paper

    if args.list:  # every document, or the one named
        _list_papers({args.paper: get_paper(args.paper)} if args.paper else PAPERS)
        return 0
    if not args.paper:
        raise SvmlabError(
            f"svmlab reproduce needs a document: one of {', '.join(PAPERS)} (or --list)"
        )
    from svmlab.report.builder import Entry

    paper = get_paper(args.paper)
    out = args.out or args.results_dir / "reproduce"
    check_writable(out, "--out", directory=True)
    stem = f"{paper.name}-quick" if args.quick else paper.name
    run_id = "reproduce-quick" if args.quick else "reproduce"
    chosen = _chosen_studies(paper, args.only)
    if not args.no_run:  # every file of the chosen studies, before the first one runs
        from svmlab.cli.data import fetch_for_studies, study_experiments

        fetch_for_studies(study_experiments(chosen, quick=args.quick))
    entries = [
        _reproduce_study(s, args, run_id, out / f"{stem}_files")
        if s in chosen
        else Entry(s.part, s.full, None, f"{s.full}: left out (--only)", skipped=True)
        for s in paper.studies
    ]
    from svmlab.report.builder import document

    md, page = document(paper.title + (" (quick profiles)" if args.quick else ""), entries, out)
    emit(md, out / f"{stem}.md")
    emit(page, out / f"{stem}.html")
    from svmlab.report.reproductions_index import document_record, update_index, write_record

    write_record(out, document_record(paper, entries, f"{stem}.md", md, args.quick))
    if not args.quick:  # OUT/README.md: one line per published table of every document
        update_index(out)
    failed = [e.experiment for e in entries if e.status.startswith(("failed", "no results"))]
    if failed:
        print(
            f"svmlab: {len(failed)} experiment(s) without a full run: {', '.join(failed)}",
            file=sys.stderr,
        )
    return 1 if failed else 0


def _chosen_studies(paper, only: str | None) -> list:
    """The studies ``--only`` names (all without it); an unknown name is one line."""
    if only is None:
        return list(paper.studies)
    by_name = {s.full: s for s in paper.studies}
    names = [n.strip() for n in only.split(",") if n.strip()]
    if not names:
        raise SvmlabError(
            f"--only is empty; give experiments of {paper.name}: {', '.join(by_name)}"
        )
    for name in names:
        if name not in by_name:
            raise UnknownNameError("experiment", name, by_name)
    return [by_name[n] for n in names]


def _list_papers(papers) -> None:
    """``svmlab reproduce --list``: each document, then its studies' full and quick profile."""
    for paper in papers.values():
        print(f"{paper.name}: {paper.title}")
        rows = [
            {"experiment": s.full, "quick": s.quick or "(none)", "part": s.part}
            for s in paper.studies
        ]
        print("  " + table(rows, ["experiment", "quick", "part"]).replace("\n", "\n  "))


def _reproduce_study(study, args, run_id: str, figures_dir: Path):
    """Run one study of a document (unless --no-run) and build its report entry."""
    from svmlab.paths import conf_dir
    from svmlab.report.builder import Entry, run_report

    name = study.experiment(args.quick)
    if name is None or not (conf_dir() / "experiment" / f"{name}.yaml").exists():
        why = "no quick profile" if name is None else f"conf/experiment/{name}.yaml not found"
        print(f"svmlab: note: {study.full} skipped: {why}", file=sys.stderr)
        return Entry(study.part, study.full, None, f"{study.full}: {why}", skipped=True)
    from svmlab.config import compose
    from svmlab.config import run_dir as run_dir_of

    flags, where, rest = study.run_arguments(name, run_id, args.results_dir)
    run_dir = run_dir_of(compose(where)[0])
    status, code = f"run directory {run_dir}", 0
    if not args.no_run:
        from svmlab.app import run

        print(f"svmlab: reproduce: {name} -> {run_dir}", file=sys.stderr)
        order = getattr(args, "order", "datasets")
        ordering = [f"runner.order={order}"] if order != "datasets" else []
        code = run([*flags, *where, *rest, *ordering])
        if code:
            status = f"failed (exit status {code}) - {status}; run the command again to resume"
    if not run_dir.is_dir():
        failed = (
            f" (the run ended with exit status {code}; see the messages of svmlab run)"
            if code
            else ""
        )
        return Entry(study.part, name, run_dir, f"no results: {run_dir} does not exist{failed}")
    try:
        report = run_report(run_dir, out_dir=figures_dir / name, stats={"pairwise": ("holm",)})
    except SvmlabError as exc:
        return Entry(study.part, name, run_dir, f"no results: {exc}")
    return Entry(study.part, name, run_dir, status, report)
