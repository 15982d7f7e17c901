"""Resume check and consolidation of a large run: the row index against reading every task file.

Usage::

    python scripts/bench/resume_consolidation.py [--n 20000] [--new 200] [--keep DIR]

A run directory with N task files is synthesised from real rows: a tiny real run
(iris, k-NN, hold-out, 2 tasks, in-process) gives an ok row (~70 columns); each task
file is a copy with its own key, dataset, fold and accuracy, every 10th an error row
(fewer columns), every 25th three outer_best grid-point rows. Then, in the same
process and on the same files (all in the page cache):

- baseline: the code before the row index, re-implemented here as it was
  (``finished_keys`` reading each file's status column, ``consolidate`` reading each
  file whole and concatenating them);
- cold: ``store.finished_keys`` and ``store.consolidate`` without an index (the first
  resume of a run written before the index existed: it is built);
- warm: the same with the index and nothing new (a resume with nothing to do);
- warm + new: after ``--new`` more task files were written (a resume of a killed run).

Seconds are the best of 3 (1 for the baseline and cold, which change nothing but are
slow); ratio = baseline / this. The consolidated results.parquet of every path is
checked to be identical to the baseline's.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from svmlab.results import select_outer_best
from svmlab.runner import lock, store
from svmlab.runner.execute import execute
from svmlab.runner.plan import build_plan


# --- baseline: store.finished_keys / read_task_rows / consolidate before the row index ---
def old_finished_keys(run_dir: Path) -> dict[str, str]:
    out = {}
    for path in (run_dir / "tasks").glob("*.parquet"):
        if path.name.startswith("."):
            continue
        try:
            status = pq.read_table(path, columns=["status"]).column("status").to_pylist()
        except Exception:
            continue
        out[path.stem] = (
            "ok"
            if status and all(s == "ok" for s in status)
            else (status[0] if status else "error")
        )
    return out


def old_consolidate(run_dir: Path, postprocess) -> pd.DataFrame:
    files = sorted(p for p in (run_dir / "tasks").glob("*.parquet") if not p.name.startswith("."))
    df = pd.concat([pq.read_table(p).to_pandas() for p in files], ignore_index=True)
    df = postprocess(df)
    sort = [
        c
        for c in ("dataset", "solver", "variant", "repeat", "fold", "grid_point")
        if c in df.columns
    ]
    df = df.sort_values(sort, kind="stable").reset_index(drop=True)
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), run_dir / "results.parquet")
    return df


# --- synthetic run ---
def real_row(tmp: Path) -> dict:
    """One result row of a real (tiny) run."""
    cfg = {
        "name": "bench",
        "seed": 0,
        "dataset": {"name": "iris"},
        "datasets": {},
        "solvers": {},
        "solver": {
            "name": "knn",
            "_target_": "sklearn.neighbors.KNeighborsClassifier",
            "tasks": ["binary", "multiclass"],
        },
        "protocol": {"name": "holdout", "kind": "holdout", "test_size": 0.3, "n_repeats": 2},
        "runner": {"backend": "sequential", "n_jobs": 1, "progress": False},
        "preprocessing": {"X": "zscore"},
        "tuning": {"mode": "none"},
    }
    plan = build_plan(cfg, str(tmp), "bench")
    store.prepare_run_dir(tmp, plan.identity, "")
    assert execute(plan.tasks, cfg["runner"], progress=False).ok == 2
    lock.release(tmp)
    return pq.read_table(next((tmp / "tasks").glob("*.parquet"))).to_pylist()[0]


def task_rows(row: dict, i: int) -> tuple[str, list[dict]]:
    dataset, fold = f"ds{i % 97:02d}", i // 97
    key = f"{dataset}-knn-r0f{fold}-{i:08x}"
    base = {**row, "key": key, "dataset": dataset, "fold": fold, "accuracy": (i % 1000) / 1000}
    if i % 10 == 3:
        meta = list(row)[: list(row).index("n_train")]
        err = {k: base[k] for k in meta}
        return key, [{**err, "status": "error", "error": "ValueError: bad", "traceback": "tb"}]
    if i % 25 == 7:
        return key, [
            {**base, "tuning_mode": "outer_best", "grid_point": g, "tuning_metric": "accuracy"}
            for g in range(3)
        ]
    return key, [base]


def synthesise(run_dir: Path, row: dict, start: int, n: int) -> None:
    (run_dir / "tasks").mkdir(parents=True, exist_ok=True)
    for i in range(start, start + n):
        key, rows = task_rows(row, i)
        pq.write_table(pa.Table.from_pylist(rows), run_dir / "tasks" / f"{key}.parquet")


def timed(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--n", type=int, default=20_000, help="task files (default 20000)")
    ap.add_argument("--new", type=int, default=200, help="task files added for 'warm + new'")
    ap.add_argument("--keep", type=Path, help="build the run here and keep it")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="svmlab-bench-"))
    run_dir = args.keep or tmp / "run"
    try:
        row = real_row(tmp / "real")
        t0 = time.perf_counter()
        synthesise(run_dir, row, 0, args.n)
        print(
            f"{args.n} task files ({len(row)} columns per ok row) written in "
            f"{time.perf_counter() - t0:.1f} s to {run_dir}"
        )
        results = run_dir / "results.parquet"
        post = select_outer_best

        base_keys = timed(lambda: old_finished_keys(run_dir), 1)
        base_cons = timed(lambda: old_consolidate(run_dir, post), 1)
        reference = pq.read_table(results)
        rows = [("baseline (one by one)", base_keys, base_cons)]

        def check(label: str) -> None:
            assert pq.read_table(results).equals(reference), f"{label}: results differ"

        shutil.rmtree(run_dir / store.INDEX_DIR, ignore_errors=True)
        cold_keys = timed(lambda: store.finished_keys(run_dir), 1)  # builds the index
        shutil.rmtree(run_dir / store.INDEX_DIR)
        cold_cons = timed(lambda: store.consolidate(run_dir, postprocess=post), 1)
        check("cold")
        rows.append(("new, cold (index built)", cold_keys, cold_cons))

        warm_keys = timed(lambda: store.finished_keys(run_dir), 3)
        warm_cons = timed(lambda: store.consolidate(run_dir, postprocess=post), 3)
        check("warm")
        rows.append(("new, warm (nothing new)", warm_keys, warm_cons))

        synthesise(run_dir, row, args.n, args.new)
        new_keys = timed(lambda: store.finished_keys(run_dir), 1)
        new_cons = timed(lambda: store.consolidate(run_dir, postprocess=post), 1)
        assert old_finished_keys(run_dir) == store.finished_keys(run_dir)
        old_consolidate(run_dir, post)
        reference = pq.read_table(results)
        store.consolidate(run_dir, postprocess=post)
        check("warm + new")
        rows.append((f"new, warm + {args.new} new files", new_keys, new_cons))

        print(f"\n{'path':<32} {'resume check':>14} {'consolidate':>13} {'total':>9} {'ratio':>7}")
        base_total = base_keys + base_cons
        for label, keys_s, cons_s in rows:
            total = keys_s + cons_s
            print(
                f"{label:<32} {keys_s:>12.2f} s {cons_s:>11.2f} s {total:>7.2f} s "
                f"{base_total / total:>6.1f}x"
            )
        print("\nresults.parquet identical to the baseline's on every path: yes")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
