"""``svmlab report``: the summary tables, statistics and figures of a run or sweep."""

from __future__ import annotations

import sys
from pathlib import Path

from svmlab.cli._common import check_writable, emit, figure_formats, stats_kwargs


def report(args) -> int:
    """Summarise a run directory (or a sweep of runs); returns the exit status."""
    from svmlab.report.builder import run_report
    from svmlab.report.render import render

    check_writable(args.output, "--output", directory=False)
    if not args.no_stats:
        check_writable(args.figures_dir, "--figures-dir", directory=True)
    formats = () if args.no_stats else figure_formats(args)
    built = run_report(
        args.run_dir,
        metric=args.metric,
        aggregate_how=args.aggregate,
        no_stats=args.no_stats,
        out_dir=args.figures_dir,
        formats=formats,
        stats=stats_kwargs(args),
    )
    from svmlab.runner.trials import trials_section

    trials = trials_section(args.run_dir) if Path(args.run_dir).is_dir() else None
    sections = [trials, *built.sections] if trials is not None else built.sections
    for note in built.notes:
        print(f"svmlab: note: {note}", file=sys.stderr)
    emit(render(sections, args.format), args.output)
    for path in built.figures:
        print(f"svmlab: figure {path}", file=sys.stderr)
    return 0
