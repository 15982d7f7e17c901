"""``svmlab stats``: rank tests, post-hoc tables and figures of a dataset x method table."""

from __future__ import annotations

import sys
from pathlib import Path

from svmlab.cli._common import check_writable, emit, figure_formats, stats_kwargs


def stats(args) -> int:
    """Compare the methods of one table; returns the exit status."""
    from svmlab.report.render import render
    from svmlab.stats.analysis import analyse
    from svmlab.stats.compare import read_table

    name = args.name or args.table.stem
    check_writable(args.output_dir, "--output-dir", directory=True)
    table = read_table(args.table)
    out_dir = args.output_dir or Path(f"{name}_stats")
    cmp, sections, paths = analyse(
        table,
        args.metric_direction,
        name=name,
        out_dir=out_dir,
        formats=figure_formats(args),
        **stats_kwargs(args),
    )
    if cmp.degenerate:
        print(f"svmlab: note: no verdict, no figures: {cmp.degenerate}", file=sys.stderr)
    text = render(sections, args.format)
    suffix = {"markdown": "md", "latex": "tex", "csv": "csv"}[args.format]
    emit(text, args.output_dir / f"{name}.{suffix}" if args.output_dir else None)
    for path in paths:
        print(f"svmlab: figure {path}", file=sys.stderr)
    return 0
