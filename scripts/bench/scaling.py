"""How the task runner scales: tasks/second, parallel efficiency, per-task overhead and memory
per worker, for each backend on the same tasks in one run.

Usage::

    python scripts/bench/scaling.py [--tasks 400] [--busy-tasks 16] [--busy-iterations 4000000]

Backends: the sequential runner (1 worker; ``loky`` with ``n_jobs=1`` runs the same way), loky
with 2 workers, and a 2-worker dask cluster on 127.0.0.1 that the script starts
(``runner.address``, so the cluster's start is not timed, as on a real cluster). For each:

* **overhead**: N trivial tasks (a majority classifier on hold-out splits of iris) against a
  plain Python loop doing the same split / fit / predict / metrics work - ms per task;
* **throughput**: CPU-bound tasks (a pure-Python busy loop in fit) - tasks/s, and the parallel
  efficiency ``t(plain loop) / (workers x t(backend))`` (1.0 = perfect use of the workers);
* **memory**: the resident set size (RSS) of each worker process after the runs.

Ray is not measured: it is not installed here (issue 20 adds it).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runner_overhead import config, plain_loop, through_runner  # noqa: E402

TRIVIAL = {"name": "majority", "_target_": "svmlab.testing.MajorityClassifier"}


def busy(iterations: int) -> dict:
    return {"name": "busy", "_target_": "svmlab.testing.BusyClassifier", "iterations": iterations}


def _rss_mb(pids) -> list[float]:
    out = []
    for pid in pids:
        try:
            out.append(psutil.Process(pid).memory_info().rss / 2**20)
        except psutil.Error:
            continue
    return out


def loky_worker_pids() -> list[int]:
    """The loky worker processes (children of this process running loky's worker loop)."""
    me = psutil.Process()
    pids = []
    for child in me.children(recursive=True):
        try:
            if "loky" in " ".join(child.cmdline()):
                pids.append(child.pid)
        except psutil.Error:
            continue
    return pids


def measure(name: str, runner: dict, workers: int, args, worker_pids) -> dict:
    """Overhead and throughput of one backend (the pool warmed up first, as in a long run)."""
    through_runner(config(TRIVIAL, 8, runner))
    n, m = args.tasks, args.busy_tasks
    t_trivial = through_runner(config(TRIVIAL, n, runner))
    t_busy = through_runner(config(busy(args.busy_iterations), m, runner))
    return {
        "backend": name,
        "workers": workers,
        "ms/task (trivial)": 1e3 * t_trivial / n,
        "tasks/s (CPU-bound)": m / t_busy,
        "t_busy": t_busy,
        "rss": _rss_mb(worker_pids()),
    }


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--tasks", type=int, default=400, help="trivial tasks per backend")
    ap.add_argument("--busy-tasks", type=int, default=16, help="CPU-bound tasks per backend")
    ap.add_argument("--busy-iterations", type=int, default=4_000_000)
    args = ap.parse_args()

    seq = {"backend": "sequential", "n_jobs": 1, "progress": False}
    base_trivial = plain_loop(config(TRIVIAL, args.tasks, seq))
    base_busy = plain_loop(config(busy(args.busy_iterations), args.busy_tasks, seq))
    rows = [
        measure("sequential", seq, 1, args, lambda: [os.getpid()]),
        measure(
            "loky", {"backend": "loky", "n_jobs": 2, "progress": False}, 2, args, loky_worker_pids
        ),
    ]
    from dask.distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        Client(cluster) as client,
    ):
        pids = list(client.run(os.getpid).values())
        dask = {"backend": "dask", "address": cluster.scheduler_address, "progress": False}
        rows.append(measure("dask (127.0.0.1)", dask, 2, args, lambda: pids))

    print(f"plain loop: {1e3 * base_trivial / args.tasks:.2f} ms per trivial task, ")
    print(f"            {args.busy_tasks / base_busy:.2f} CPU-bound tasks/s (1 core)")
    print(f"{args.tasks} trivial and {args.busy_tasks} CPU-bound tasks per backend")
    header = (
        f"{'backend':18} {'workers':>7} {'overhead ms/task':>17} {'tasks/s':>8} "
        f"{'efficiency':>10} {'RSS MB/worker':>14}"
    )
    print(header)
    for r in rows:
        overhead = r["ms/task (trivial)"] - 1e3 * base_trivial / args.tasks
        efficiency = base_busy / (r["workers"] * r["t_busy"])
        rss = r["rss"]
        mem = f"{sum(rss) / len(rss):.0f}" if rss else "-"
        print(
            f"{r['backend']:18} {r['workers']:>7} {overhead:>17.2f} "
            f"{r['tasks/s (CPU-bound)']:>8.2f} {efficiency:>10.2f} {mem:>14}"
        )
    print(
        "efficiency = t(plain loop) / (workers x t(backend)) on the CPU-bound tasks; "
        "overhead = the backend's ms per trivial task minus the plain loop's"
    )


if __name__ == "__main__":
    main()
