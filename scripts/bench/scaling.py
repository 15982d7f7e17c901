"""How the task runner scales: tasks/second, parallel efficiency, per-task overhead and memory
per worker, for each backend on the same tasks in one run.

Usage::

    python scripts/bench/scaling.py [--tasks 400] [--busy-tasks 16] [--busy-iterations 4000000]

Backends: the sequential runner (1 worker; ``loky`` with ``n_jobs=1`` runs the same way), loky
with 2 workers, a 2-worker dask cluster and a 2-node Ray cluster (``ray start --head`` and
one more node, one CPU each) on 127.0.0.1 that the script starts (``runner.address``, so a
cluster's start is not timed, as on a real cluster; each run still connects its driver, and on
Ray starts its worker processes, as ``svmlab run`` does). For each:

* **start**: what one run pays once - connecting to the cluster, starting worker processes
  (from runs of N and 2N trivial tasks: ``t(N) - N x (t(2N) - t(N)) / N``);
* **overhead**: the marginal cost of a trivial task (a majority classifier on hold-out splits of
  iris) against a plain Python loop doing the same split / fit / predict / metrics work - ms
  per task;
* **throughput**: CPU-bound tasks (a pure-Python busy loop in fit) - tasks/s of one run of M
  tasks, its start included, and the parallel efficiency
  ``t(plain loop) / (workers x t(backend))`` (1.0 = perfect use of the workers);
* **memory**: the largest resident set size (RSS) of each worker process while tasks run.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import threading
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runner_overhead import config, plain_loop, through_runner  # noqa: E402

from svmlab.testing import RAY_TEST_ENV, local_ray_cluster, ray_cluster_processes  # noqa: E402

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


def measure(name: str, runner: dict, workers: int, args, worker_pids, warm_up=True) -> dict:
    """Start-up, per-task overhead, throughput and memory of one backend.

    A run of N and one of 2N trivial tasks separate what each run pays once (connecting to
    the cluster, starting worker processes) from what each task costs: the marginal cost is
    ``(t(2N) - t(N)) / N`` and the start-up ``t(N) - N x marginal``. The M CPU-bound tasks are
    timed in one run, start included (a difference of two runs would carry the noise of both
    on a shared machine). The workers' memory is their largest RSS seen while they run. ``warm_up``
    runs a few tasks first (a loky pool then stays up for the runs that follow; Ray's workers
    do not outlive a run).
    """
    if warm_up:
        through_runner(config(TRIVIAL, 8, runner))
    n, m = args.tasks, args.busy_tasks
    per_task, start = marginal(lambda k: through_runner(config(TRIVIAL, k, runner)), n)
    peak: dict[int, float] = {}
    stop = threading.Event()
    watcher = threading.Thread(target=_watch_rss, args=(worker_pids, peak, stop))
    watcher.start()
    try:
        t_m = through_runner(config(busy(args.busy_iterations), m, runner))
    finally:
        stop.set()
        watcher.join()
    return {
        "backend": name,
        "workers": workers,
        "start": start,
        "ms/task (trivial)": 1e3 * per_task,
        "s/task (CPU-bound)": t_m / m,
        "rss": sorted(peak.values())[-workers:],
    }


def marginal(timed, k: int) -> tuple[float, float]:
    """``(seconds per task, seconds per run)`` from ``timed(k)`` and ``timed(2k)``: the
    difference cancels what a run pays once, which is what is left of ``timed(k)``."""
    t_k = timed(k)
    per_task = max(timed(2 * k) - t_k, 0.0) / k
    return per_task, max(t_k - k * per_task, 0.0)


def _watch_rss(worker_pids, peak: dict, stop: threading.Event) -> None:
    """Largest RSS (MB) seen of each process ``worker_pids()`` names, until ``stop`` is set."""
    while True:
        for pid in worker_pids():
            for mb in _rss_mb([pid]):
                peak[pid] = max(peak.get(pid, 0.0), mb)
        if stop.wait(0.1):
            return


def ray_worker_pids(temp_dir: str) -> list[int]:
    """The Ray worker processes of the cluster in ``temp_dir`` (named ``ray::<task>``, or
    ``ray::IDLE`` between tasks; Ray's own agents are left out)."""
    pids = []
    for proc in ray_cluster_processes(temp_dir):
        try:
            title = " ".join(proc.cmdline())
        except psutil.Error:
            continue
        if title.startswith(("ray::IDLE", "ray::run_batch")):
            pids.append(proc.pid)
    return pids


def measure_ray(args) -> dict:
    """:func:`measure` on a 2-node Ray cluster on 127.0.0.1 (one CPU per node)."""
    os.environ.update(RAY_TEST_ENV)
    with local_ray_cluster((1, 1)) as (address, temp_dir):
        ray = {"backend": "ray", "address": address, "progress": False}
        return measure("ray (127.0.0.1)", ray, 2, args, lambda: ray_worker_pids(temp_dir), False)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--tasks", type=int, default=400, help="trivial tasks per backend")
    ap.add_argument("--busy-tasks", type=int, default=16, help="CPU-bound tasks per backend")
    ap.add_argument("--busy-iterations", type=int, default=4_000_000)
    args = ap.parse_args()

    seq = {"backend": "sequential", "n_jobs": 1, "progress": False}
    # the plain loop's trivial task, measured the same way as the backends' (2N minus N tasks)
    n, m = args.tasks, args.busy_tasks
    base_trivial = marginal(lambda k: plain_loop(config(TRIVIAL, k, seq)), n)[0] * n
    base_busy = plain_loop(config(busy(args.busy_iterations), m, seq))
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

    if importlib.util.find_spec("ray") is None:
        print("Ray is not installed: its row is left out (pip install 'svmlab[ray]')")
    else:
        rows.append(measure_ray(args))

    print(f"plain loop: {1e3 * base_trivial / n:.2f} ms per trivial task, ")
    print(f"            {m / base_busy:.2f} CPU-bound tasks/s (1 core)")
    print(f"{args.tasks} trivial and {args.busy_tasks} CPU-bound tasks per backend")
    header = (
        f"{'backend':18} {'workers':>7} {'start s':>8} {'overhead ms/task':>17} {'tasks/s':>8} "
        f"{'efficiency':>10} {'RSS MB/worker':>14}"
    )
    print(header)
    for r in rows:
        overhead = r["ms/task (trivial)"] - 1e3 * base_trivial / args.tasks
        per_busy = r["s/task (CPU-bound)"]
        rate, efficiency = "-", "-"
        if per_busy > 0:  # timing noise can swamp the difference of tiny runs
            rate = f"{1 / per_busy:.2f}"
            efficiency = f"{base_busy / args.busy_tasks / (r['workers'] * per_busy):.2f}"
        rss = r["rss"]
        mem = f"{sum(rss) / len(rss):.0f}" if rss else "-"
        print(
            f"{r['backend']:18} {r['workers']:>7} {r['start']:>8.2f} {overhead:>17.2f} "
            f"{rate:>8} {efficiency:>10} {mem:>14}"
        )
    print(
        "start = what a run pays once (connecting, starting workers); overhead = the backend's "
        "marginal ms per trivial task minus the plain loop's; tasks/s = CPU-bound tasks per "
        "second of one run, start included; efficiency = t(plain loop) / (workers x t(backend))"
    )


if __name__ == "__main__":
    main()
