"""Run full reproduction studies in time boxes, one after another, and keep every run.

Each line of the queue file names one box: ``PAPER EXPERIMENT MINUTES [ORDER]`` (``#``
starts a comment). For each line not yet in the done file, the script runs::

    svmlab reproduce PAPER --only EXPERIMENT --order ORDER --results-dir RUNS \
        --out REPORTS/EXPERIMENT

stops it with SIGTERM after MINUTES (finished tasks are kept; the next call resumes), then
packs the study's run into ``--keep`` (``svmlab pack``), so that a sitting that ends, or a
machine that is lost, loses no finished task once the kept runs are committed. The queue
file is read again before each box, so boxes can be added or changed while it runs; a line
is done once its box has ended (a line with other minutes runs again). A log line per box
start and end goes to standard output.

    python scripts/reproduce_boxes.py queue.txt --results-dir RUNS --keep docs/reproductions/runs

Afterwards, write the reports from the kept runs::

    svmlab reproduce PAPER --no-run --results-dir docs/reproductions/runs --out docs/reproductions
"""

from __future__ import annotations

import argparse
import datetime
import signal
import subprocess
import sys
from pathlib import Path

ORDERS = ("datasets", "folds", "solvers")


def read_queue(path: Path) -> list[str]:
    """The queue's box lines (stripped; comments and blank lines left out), each checked."""
    lines = []
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        bad_order = len(parts) == 4 and parts[3] not in ORDERS
        if len(parts) not in (3, 4) or not _minutes(parts[2]) or bad_order:
            raise SystemExit(
                f"{path}:{number}: expected 'PAPER EXPERIMENT MINUTES [ORDER]' with ORDER one of "
                f"{', '.join(ORDERS)}, got {raw.strip()!r}"
            )
        lines.append(" ".join(parts))
    return lines


def _minutes(text: str) -> float:
    """MINUTES as a positive number, else 0."""
    try:
        value = float(text)
    except ValueError:
        return 0.0
    return value if value > 0 else 0.0


def run_box(line: str, args) -> int:
    """Run one box; its exit status (143 when the box ran out: the run resumes later)."""
    paper, experiment, minutes, *order = line.split()
    command = [
        args.svmlab, "reproduce", paper, "--only", experiment,
        "--order", order[0] if order else "datasets",
        "--results-dir", str(args.results_dir), "--out", str(args.reports / experiment),
    ]  # fmt: skip
    log = args.reports / f"{experiment}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "a") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        try:
            return proc.wait(timeout=float(minutes) * 60)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGTERM)  # finished tasks are kept
            return proc.wait()


def keep(experiment: str, args) -> None:
    """Pack the study's run into ``--keep``."""
    run_dir = args.results_dir / experiment / "reproduce"
    if run_dir.is_dir():
        subprocess.run([args.svmlab, "pack", str(run_dir), "--into", str(args.keep)], check=False)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("queue", type=Path, help="the queue file: PAPER EXPERIMENT MINUTES [ORDER]")
    p.add_argument("--results-dir", type=Path, default=Path("results"), help="the runs (results)")
    p.add_argument("--keep", type=Path, required=True, help="where the runs are packed")
    p.add_argument("--reports", type=Path, default=Path("results/boxes"), help="reports and logs")
    p.add_argument("--done", type=Path, help="the lines done (default: QUEUE.done)")
    p.add_argument("--svmlab", default="svmlab", help="the svmlab command")
    args = p.parse_args(argv)
    done_file = args.done or args.queue.with_name(args.queue.name + ".done")
    while True:
        done = set(done_file.read_text().splitlines()) if done_file.exists() else set()
        todo = [line for line in read_queue(args.queue) if line not in done]
        if not todo:
            return 0
        line = todo[0]
        print(f"{datetime.datetime.now():%H:%M:%S} start {line}", flush=True)
        status = run_box(line, args)
        keep(line.split()[1], args)
        print(f"{datetime.datetime.now():%H:%M:%S} end {line} (exit {status})", flush=True)
        with open(done_file, "a") as fh:
            fh.write(line + "\n")


if __name__ == "__main__":
    sys.exit(main())
