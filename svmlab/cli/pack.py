"""``svmlab pack``: run directories copied with one task file per row schema."""

from __future__ import annotations

import sys

from svmlab.cli._common import check_writable


def pack(args) -> int:
    """Pack every RUN_DIR into ``--into``; one line per run on stderr."""
    from svmlab.runner.pack import pack as pack_run
    from svmlab.runner.pack import packed_dir

    check_writable(args.into, "--into", directory=True)
    for run_dir in args.run_dirs:  # every destination known before anything is written
        packed_dir(run_dir, args.into)
    for run_dir in args.run_dirs:
        dest, n_tasks, n_files = pack_run(run_dir, args.into)
        print(
            f"svmlab: packed {run_dir}: {n_tasks} task(s) in {n_files} file(s) -> {dest}",
            file=sys.stderr,
        )
    return 0
