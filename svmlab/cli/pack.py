"""``svmlab pack``: run directories copied with one task file per row schema."""

from __future__ import annotations

import sys

from svmlab.cli._common import check_writable


def pack(args) -> int:
    """Pack every RUN_DIR (each run of a sweep folder) into ``--into``; one line per run on
    stderr. Every run is checked before the first is written, so a refused one leaves
    nothing half done."""
    from svmlab.runner.pack import check_destinations, runs_in
    from svmlab.runner.pack import pack as pack_run

    check_writable(args.into, "--into", directory=True)
    run_dirs = [run for path in args.run_dirs for run in runs_in(path)]  # a sweep: its runs
    check_destinations(run_dirs, args.into, replace=args.replace)
    for run_dir in run_dirs:
        dest, n_tasks, n_files = pack_run(run_dir, args.into, replace=args.replace)
        print(
            f"svmlab: packed {run_dir}: {n_tasks} task(s) in {n_files} file(s) -> {dest}",
            file=sys.stderr,
        )
    return 0
