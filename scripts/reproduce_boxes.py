"""Run full reproduction studies in time boxes, one after another, and keep every run.

Each line of the queue file names one box: ``PAPER EXPERIMENT MINUTES [ORDER]`` (``#``
starts a comment). For each line not yet in the done file, the script runs::

    svmlab reproduce PAPER --only EXPERIMENT --order ORDER --results-dir RUNS \
        --out REPORTS/EXPERIMENT

stops it with SIGTERM after MINUTES (finished tasks are kept; the next call resumes; the box's
process group is killed if it has not stopped two minutes later), then packs the study's run
into ``--keep`` (``svmlab pack``), so that a sitting that ends, or a machine that is lost,
loses no finished task once the kept runs are committed. A study with no run under RUNS
starts from its kept run (copied there first), so a fresh clone resumes every study. A stop
signal to the script stops the running box, packs it and exits. The queue
file is read again before each box, so boxes can be added or changed while it runs; a line
is done once its box has ended or its study finished (a line with other minutes runs again);
a study that exits with an error, or a run that cannot be packed, stops the queue. A log line
per box start and end goes to standard output.

    python scripts/reproduce_boxes.py queue.txt --results-dir RUNS --keep docs/reproductions/runs

Afterwards, write the reports from the kept runs::

    svmlab reproduce PAPER --no-run --results-dir docs/reproductions/runs --out docs/reproductions
"""

from __future__ import annotations

import argparse
import datetime
import os
import shutil
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


#: Seconds a box's svmlab gets to stop after SIGTERM before its process group is killed.
GRACE = 120
_stop = {"signal": None, "child": None}


def _forward(signum, frame):
    """A stop signal to the script stops the running box the same way (then it is packed)."""
    _stop["signal"] = signum
    child = _stop["child"]
    if child is not None and child.poll() is None:
        os.killpg(child.pid, signal.SIGTERM)


def _stop_child(proc) -> int:
    """SIGTERM to the box's process group; SIGKILL after :data:`GRACE` seconds."""
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        return proc.wait(timeout=GRACE)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        return proc.wait()


def seed(experiment: str, args) -> None:
    """Start a study that has no run under ``--results-dir`` from its kept run, if any, so
    that its box resumes where the kept run stopped (and the pack after it loses nothing)."""
    run_dir = args.results_dir / experiment / "reproduce"
    kept = args.keep / experiment / "reproduce"
    if not run_dir.exists() and (kept / "run.json").is_file():
        shutil.copytree(kept, run_dir)
        print(f"resuming {experiment} from {kept}", flush=True)


def run_box(line: str, args) -> tuple[int, bool]:
    """Run one box: its exit status, and whether the box ran out (the run resumes later)."""
    paper, experiment, minutes, *order = line.split()
    command = [
        args.svmlab, "reproduce", paper, "--only", experiment,
        "--order", order[0] if order else "datasets",
        "--results-dir", str(args.results_dir), "--out", str(args.reports / experiment),
    ]  # fmt: skip
    log = args.reports / f"{experiment}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "a") as out:
        # its own process group: the box and every worker it started stop together
        proc = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        _stop["child"] = proc
        try:
            return proc.wait(timeout=float(minutes) * 60), False
        except subprocess.TimeoutExpired:
            return _stop_child(proc), True  # finished tasks are kept
        finally:
            if proc.poll() is None:  # the script itself is stopping
                _stop_child(proc)
            _stop["child"] = None


def keep(experiment: str, args) -> int:
    """Pack the study's run into ``--keep``; the pack's exit status."""
    run_dir = args.results_dir / experiment / "reproduce"
    if not run_dir.is_dir():
        return 0
    return subprocess.run([args.svmlab, "pack", str(run_dir), "--into", str(args.keep)]).returncode


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
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, _forward)
    while _stop["signal"] is None:
        done = set(done_file.read_text().splitlines()) if done_file.exists() else set()
        todo = [line for line in read_queue(args.queue) if line not in done]
        if not todo:
            return 0
        line = todo[0]
        experiment = line.split()[1]
        seed(experiment, args)
        print(f"{datetime.datetime.now():%H:%M:%S} start {line}", flush=True)
        status, ran_out = run_box(line, args)
        packed = keep(experiment, args)
        how = "box ran out" if ran_out else f"exit {status}"
        print(
            f"{datetime.datetime.now():%H:%M:%S} end {line} ({how}, pack exit {packed})", flush=True
        )
        if packed != 0:
            print(f"stopping: the run of {experiment} could not be packed", file=sys.stderr)
            return 1
        if _stop["signal"] is not None:
            print("stopped by a signal; the box's line is not marked done", file=sys.stderr)
            return 128 + _stop["signal"]
        if not ran_out and status != 0:
            print(f"stopping: {experiment} exited {status} (see its log)", file=sys.stderr)
            return 1
        with open(done_file, "a") as fh:
            fh.write(line + "\n")
    return 128 + _stop["signal"]


if __name__ == "__main__":
    sys.exit(main())
