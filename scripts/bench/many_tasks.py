"""How the runner copes with a very large plan of tiny tasks: time and peak memory of planning,
running, resuming and consolidating, through the real ``svmlab run`` command.

Usage::

    python scripts/bench/many_tasks.py [--tasks 100000] [--n-jobs 2] [--dir DIR] [--keep]

The plan is the ``scale_100k`` experiment (iris x a majority-class classifier x hold-out
repeats, no tuning, no scaling: a few ms of real work per task) with
``protocol.n_repeats=TASKS``. In a temporary results directory (``--dir`` to choose one,
``--keep`` to leave it) the script measures, each phase in a process of its own:

* **plan**: composing the configuration and :func:`svmlab.runner.plan.build_plan` (the CLI
  has no plan-only mode);
* **run**: ``svmlab run +experiment=scale_100k protocol.n_repeats=TASKS runner=local
  runner.n_jobs=N`` (its progress bar is shown on stderr);
* **resume**: the same command again, which finds every task done and runs none;
* **consolidate**: :func:`svmlab.runner.store.consolidate` of the run directory alone.

For each it prints the wall time, tasks/s, and the peak resident set size (RSS) of the
phase's main process and of its child processes (the loky workers): the main process's from
``getrusage`` (exact), the workers' from sampling them every 0.1 s with psutil (the largest
worker, and all of them together at the worst moment). Run it with ``--tasks 10000`` and
``--tasks 100000`` to see whether memory grows with the number of tasks.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

EXPERIMENT = "scale_100k"
PHASES = ("plan", "run", "resume", "consolidate")
RUN_ID = "bench"


def _mb(kib: float) -> float:
    return kib / 1024  # ru_maxrss is in KiB on Linux


def overrides(args, results_dir: Path) -> list[str]:
    """The ``svmlab run`` overrides of the measured run."""
    return [
        f"+experiment={EXPERIMENT}",
        f"protocol.n_repeats={args.tasks}",
        "runner=local",
        f"runner.n_jobs={args.n_jobs}",
        f"results_dir={results_dir}",
        f"run_id={RUN_ID}",
    ]


def _plan(cfg_overrides: list[str]):
    """The run's plan, composed as ``svmlab run`` composes it (no run directory touched)."""
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from svmlab.paths import conf_dir
    from svmlab.runner.plan import build_plan

    with initialize_config_dir(str(conf_dir()), version_base="1.3"):
        cfg = compose("config", overrides=cfg_overrides)
    container = OmegaConf.to_container(cfg, resolve=True)
    run_dir = Path(container["results_dir"]) / container["name"] / RUN_ID
    return build_plan(container, str(run_dir), RUN_ID), run_dir


def phase_plan(args) -> dict:
    """Child process: plan only."""
    t0 = time.perf_counter()
    plan, _ = _plan(overrides(args, Path(args.dir)))
    return {"seconds": time.perf_counter() - t0, "tasks": len(plan.tasks)}


def phase_consolidate(args) -> dict:
    """Child process: plan (for the keys, not timed) and consolidate."""
    from svmlab.results import select_outer_best
    from svmlab.runner.store import consolidate

    plan, run_dir = _plan(overrides(args, Path(args.dir)))
    keys = {t.key for t in plan.tasks}
    del plan
    t0 = time.perf_counter()
    df = consolidate(run_dir, postprocess=select_outer_best, keys=keys)
    return {"seconds": time.perf_counter() - t0, "tasks": len(df)}


class Sampler(threading.Thread):
    """Peak RSS of a process and of its descendants, sampled every ``interval`` seconds."""

    def __init__(self, pid: int, interval: float = 0.1):
        super().__init__(daemon=True)
        self.pid, self.interval = pid, interval
        self.main = self.largest = self.total = 0.0  # MiB: the process, one child, all children
        self.stop = threading.Event()

    def run(self) -> None:
        try:
            proc = psutil.Process(self.pid)
        except psutil.Error:
            return
        while not self.stop.wait(self.interval):
            try:
                self.main = max(self.main, proc.memory_info().rss / 2**20)
                children = proc.children(recursive=True)
            except psutil.Error:
                return
            rss = []
            for child in children:
                try:
                    rss.append(child.memory_info().rss / 2**20)
                except psutil.Error:
                    continue
            if rss:
                self.largest = max(self.largest, max(rss))
                self.total = max(self.total, sum(rss))


def measured(cmd: list[str], *, capture_stderr: bool) -> dict:
    """Run ``cmd`` in a process of its own: wall time, exit status, output and peak RSS.

    ``max_mb`` is exact (``wait4``'s ``ru_maxrss``: the largest of the process and its
    descendants); ``main_mb``, ``worker_mb`` and ``workers_mb`` come from the sampler.
    """
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err if capture_stderr else None)
        sampler = Sampler(proc.pid)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
        sampler.stop.set()
        sampler.join()
        out.seek(0)
        err.seek(0)
        return {
            "wall": seconds,
            "rc": os.waitstatus_to_exitcode(status),
            "max_mb": _mb(usage.ru_maxrss),
            "main_mb": sampler.main,
            "worker_mb": sampler.largest,
            "workers_mb": sampler.total,
            "stdout": out.read(),
            "stderr": err.read(),
        }


def _check(name: str, res: dict) -> None:
    """Stop with the phase's output when it failed."""
    if res["rc"] != 0:
        sys.stderr.write(res["stdout"] + res["stderr"])
        raise SystemExit(f"many_tasks: phase {name} failed (exit status {res['rc']})")


def run_phase(name: str, args) -> dict:
    """One measured phase in a fresh process."""
    if name in ("run", "resume"):
        cmd = [sys.executable, "-m", "svmlab.cli", "run", *overrides(args, Path(args.dir))]
    else:
        cmd = [sys.executable, __file__, "--phase", name, "--tasks", str(args.tasks)]
        cmd += ["--dir", args.dir, "--n-jobs", str(args.n_jobs)]
    res = measured(cmd, capture_stderr=args.quiet or name != "run")
    _check(name, res)
    if name in ("plan", "consolidate"):
        res.update(json.loads(res["stdout"].strip().splitlines()[-1]))
    else:
        res["seconds"] = res["wall"]
    return res


def report(rows: list[tuple[str, dict]], n: int, counts: dict) -> str:
    """The table of the phases' times and peak memory."""
    lines = [
        f"{n} tasks; {counts}",
        f"{'phase':12} {'seconds':>8} {'tasks/s':>8}   peak RSS MB: {'any process':>11} "
        f"{'main':>6} {'largest worker':>14} {'all workers':>11}",
    ]
    for name, r in rows:
        rate = f"{n / r['seconds']:>8.0f}" if name != "resume" else f"{'-':>8}"
        lines.append(
            f"{name:12} {r['seconds']:>8.2f} {rate}   {'':12}{r['max_mb']:>11.0f} "
            f"{r['main_mb']:>6.0f} {r['worker_mb']:>14.0f} {r['workers_mb']:>11.0f}"
        )
    lines.append(
        "seconds: the phase's own work for plan and consolidate (process start, imports and "
        "composing excluded), the whole command for run and resume; 'any process' is exact "
        "(ru_maxrss), the others sampled every 0.1 s"
    )
    lines.append(
        f"peak RSS: {max(r['max_mb'] for _, r in rows):.0f} MB (any process), "
        f"{max(r['main_mb'] for _, r in rows):.0f} MB (main process), "
        f"{max(r['worker_mb'] for _, r in rows):.0f} MB (largest worker)"
    )
    return "\n".join(lines)


def _counts(run_dir: Path) -> dict:
    """What the run left: task files and result rows (and their statuses)."""
    import pyarrow.parquet as pq

    table = pq.read_table(run_dir / "results.parquet", columns=["status"])
    statuses = table["status"].value_counts().to_pylist()
    return {
        "task files": sum(1 for _ in os.scandir(run_dir / "tasks")),
        "result rows": table.num_rows,
        "statuses": {s["values"]: s["counts"] for s in statuses},
    }


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--tasks", type=int, default=100_000, help="tasks in the plan")
    ap.add_argument("--n-jobs", type=int, default=2, help="loky workers of the run")
    ap.add_argument("--dir", help="results directory (default: a temporary one)")
    ap.add_argument("--keep", action="store_true", help="leave the results directory")
    ap.add_argument("--quiet", action="store_true", help="hide the run's progress and output")
    ap.add_argument(
        "--phases",
        default=",".join(PHASES),
        help="comma-separated phases to run (always in the order of the default: %(default)s); "
        "resume and consolidate need run",
    )
    ap.add_argument("--phase", choices=["plan", "consolidate"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.tasks < 1:
        ap.error(f"--tasks must be at least 1, got {args.tasks}")
    given = {p.strip() for p in args.phases.split(",") if p.strip()}
    unknown = sorted(given - set(PHASES))
    phases = [p for p in PHASES if p in given]
    if unknown or not phases:
        ap.error(f"--phases: unknown {', '.join(unknown) or '(none given)'}; choose from {PHASES}")
    if "run" not in phases and {"resume", "consolidate"} & set(phases):
        ap.error("--phases: resume and consolidate need run")

    if args.phase:  # a measured child process
        fn = phase_plan if args.phase == "plan" else phase_consolidate
        print(json.dumps(fn(args)))
        return

    made = args.dir is None
    args.dir = args.dir or tempfile.mkdtemp(prefix="svmlab-many-tasks-")
    try:
        rows = []
        for name in phases:
            if not args.quiet:
                print(f"== {name}", file=sys.stderr, flush=True)
            rows.append((name, run_phase(name, args)))
        resumed = dict(rows).get("resume", {"stderr": ""})["stderr"]
        said = [ln for ln in resumed.splitlines() if "tasks ok" in ln or "fail" in ln]
        run_dir = Path(args.dir) / EXPERIMENT / RUN_ID
        print(report(rows, args.tasks, _counts(run_dir) if "run" in phases else {}))
        if "resume" in phases:
            print("resume said: " + (said[-1] if said else "(no summary line)"))
    finally:
        if made and not args.keep:
            shutil.rmtree(args.dir, ignore_errors=True)


if __name__ == "__main__":
    main()
