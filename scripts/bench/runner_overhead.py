"""Runner overhead per task and parallel speed-up, each against a plain loop in the same run.

Usage::

    python scripts/bench/runner_overhead.py [--tasks 400] [--busy-tasks 16] [--busy-iterations
    8000000]

1. Overhead: N trivial tasks (majority classifier, hold-out splits of iris, no tuning,
   no scaling) through the runner - planning excluded, resuming check, task-key files,
   Parquet rows, provenance, progress bar off - versus a plain Python loop doing the
   same split / fit / predict / metrics work. Reported as milliseconds per task
   (target < 5 ms) for the sequential backend and for loky with 2 workers.
2. Speed-up: CPU-bound tasks (pure-Python busy loop in fit) through the runner on 2
   loky workers versus the same work in a plain sequential loop (target > 1.7x).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from svmlab.data.registry import load_dataset
from svmlab.evaluation.metrics import compute_metrics
from svmlab.evaluation.protocols import make_splits
from svmlab.runner.execute import execute
from svmlab.runner.plan import build_plan
from svmlab.runner.store import prepare_run_dir
from svmlab.solvers import SolverSpec


def config(solver: dict, n_tasks: int, runner: dict) -> dict:
    return {
        "name": "bench",
        "seed": 0,
        "dataset": {"name": "iris"},
        "datasets": {},
        "solvers": {},
        "solver": {"tasks": ["binary", "multiclass"], **solver},
        "protocol": {"name": "holdout", "kind": "holdout", "test_size": 0.3, "n_repeats": n_tasks},
        "runner": runner,
        "preprocessing": {"X": "none"},
        "tuning": {"mode": "none"},
    }


def plain_loop(cfg: dict) -> float:
    """The same work as the runner's tasks, in a bare loop."""
    ds = load_dataset("iris")
    spec = SolverSpec.from_config(cfg["solver"])
    t0 = time.perf_counter()
    for s in make_splits(cfg["protocol"], ds.task, ds.y, cfg["seed"], ds.name):
        train, test = ds.subset(s.train), ds.subset(s.test)
        est = spec.build().fit(train.X, train.y)
        compute_metrics(ds.task, test.y, est.predict(test.X), classes=ds.classes)
    return time.perf_counter() - t0


def through_runner(cfg: dict) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        plan = build_plan(cfg, tmp, "bench")
        prepare_run_dir(Path(tmp), plan.identity, "")
        t0 = time.perf_counter()
        summary = execute(plan.tasks, cfg["runner"], progress=False)
        elapsed = time.perf_counter() - t0
        assert summary.ok == len(plan.tasks), summary.failed[:1]
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--tasks", type=int, default=400)
    ap.add_argument("--busy-tasks", type=int, default=16)
    ap.add_argument("--busy-iterations", type=int, default=8_000_000)
    args = ap.parse_args()

    trivial = {"name": "majority", "_target_": "svmlab.testing.MajorityClassifier"}
    seq = {"backend": "sequential", "n_jobs": 1, "progress": False}
    loky2 = {"backend": "loky", "n_jobs": 2, "progress": False}
    n = args.tasks
    through_runner(config(trivial, 8, loky2))  # start the worker pool once, as a long run would
    base = plain_loop(config(trivial, n, seq))
    t_seq = through_runner(config(trivial, n, seq))
    t_par = through_runner(config(trivial, n, loky2))
    print(f"trivial tasks: {n}")
    print(f"  plain loop            {1e3 * base / n:7.2f} ms/task")
    print(
        f"  runner, sequential    {1e3 * t_seq / n:7.2f} ms/task -> overhead "
        f"{1e3 * (t_seq - base) / n:6.2f} ms/task "
        f"(target < 5 ms)"
    )
    print(
        f"  runner, loky x2       {1e3 * t_par / n:7.2f} ms/task -> overhead "
        f"{1e3 * (t_par - base) / n:6.2f} ms/task "
        f"(wall clock, 2 workers)"
    )
    print(f"  ratio runner/plain loop: sequential {t_seq / base:.2f}x, loky x2 {t_par / base:.2f}x")

    busy = {
        "name": "busy",
        "_target_": "svmlab.testing.BusyClassifier",
        "iterations": args.busy_iterations,
    }
    m = args.busy_tasks
    base = plain_loop(config(busy, m, seq))
    par = through_runner(config(busy, m, loky2))
    print(f"CPU-bound tasks: {m} x ~{base / m:.2f} s")
    print(f"  plain sequential loop {base:7.2f} s")
    print(
        f"  runner, loky x2       {par:7.2f} s -> speed-up {base / par:4.2f}x (target > 1.7x on 2 "
        "cores)"
    )


if __name__ == "__main__":
    main()
