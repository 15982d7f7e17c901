"""svmlab's SVMPerfClassifier side by side with the real SVM^perf (V3.00) on the same data.

Usage::

    SVMLAB_DATA_DIR=../shared/datasets python scripts/bench/svmperf_vs_svmperf.py PATH
        [--datasets ijcnn1 adult w8a] [--losses accuracy auc f1 prbep prec_at_k rec_at_k]
        [--C 1 10 100] [--epsilon 0.1] [--bias 0 1] [--max-rows N] [--json OUT]

``PATH`` is a directory holding ``svm_perf_learn`` (built), or SVM^perf's source tree or its
``svm_perf.tar.gz``, which the script builds with ``make SFLAGS=-fcommon`` in a temporary
directory. SVM^perf's licence does not allow redistribution, so svmlab never ships it: when
``PATH`` holds neither, the script prints one line and exits 0.

Both programs see the same numbers: the features are rounded to float32 (SVM^perf stores
them so) and written as SVM-light files; svmlab fits the same float32-rounded rows (sparse
when less than a quarter of the entries are non-zero). Per data set (the registered
``<name>_trn`` / ``<name>_tst`` files; the training file doubles as test set where there is
no test file), loss, C and bias value it prints

* the objective each program reached, ``1/2 ||w||^2 + C xi(w)`` with ``xi`` the exact
  structural hinge of svmlab's oracle (``scaling="svmperf"``), both computed from the returned
  weight vector on the same data (SVM^perf's model file gives ``w`` and the threshold
  ``b = -B w_bias``);
* the test measure of both (:func:`svmlab.estimators.svmperf.oracles.measure_value`, with the
  bias in the score);
* iterations, and CPU seconds of the optimisation: SVM^perf's own "Runtime in cpu-seconds"
  (reading the file excluded) and svmlab's ``fit`` in ``time.process_time`` with one thread;
* the ratio SVM^perf CPU / svmlab CPU (> 1: svmlab is faster), with the geometric mean per
  loss and the goal of issue 35 beside it;
* ``gap/Ce``: (svmlab's objective - SVM^perf's) / (C epsilon). Both stop at an
  epsilon-optimal point, at most ``C epsilon`` above the optimum, so it lies in [-1, 1]
  when both solve the same problem.

Losses and SVM^perf's codes: accuracy ``-l 2`` (against ``-w 3``, the 1-slack dual, and
``-w 9``, its custom algorithm; svmlab's error rate is fitted twice, by the default cutting
plane and with ``shrinking=True``, each compared with both), ROC area ``-l 10``, F1 ``-l 1``,
PRBEP ``-l 3``, Prec@k
``-l 4``, Rec@k ``-l 5`` (``-w 3``; k from SVM^perf's default ``--p 0``: half the training
positives for Prec@k, twice them for Rec@k). ``--bias 0`` is ``--b 0`` against svmlab without
a bias; ``--bias 1`` is SVM^perf's default ``--b 1`` against ``bias=1.0``.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tarfile  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from sklearn.datasets import dump_svmlight_file  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from svmlab.data.registry import load_dataset, resolve  # noqa: E402
from svmlab.errors import UnknownNameError  # noqa: E402
from svmlab.estimators.svmperf import SVMPerfClassifier, oracles  # noqa: E402

#: SVM^perf V3.00's loss codes (its ``-l``) and the algorithms compared (its ``-w``).
LOSS_CODES = {"accuracy": 2, "auc": 10, "f1": 1, "prbep": 3, "prec_at_k": 4, "rec_at_k": 5}
PEER_ALGORITHMS = {"accuracy": (3, 9)}
#: svmlab's fits per loss: the default cutting plane, and for the error rate also the
#: ``shrinking=True`` option (the counterpart of ``-w 9``).
SVMLAB_VARIANTS = {"accuracy": ("default", "shrinking")}
#: issue 35's goals: (peer algorithm, ratio, "every set" or "geometric mean")
GOALS = {
    ("accuracy", 3): (1.0, "every set"),
    ("accuracy", 9): (0.5, "every set"),
    ("auc", 3): (1.5, "every set"),
    ("f1", 3): (8.3, "geometric mean (keep)"),
    ("prbep", 3): (3.4, "geometric mean (keep)"),
}
#: SVM^perf's default ``--p 0``: k = max(1, int(fraction * training positives)).
DEFAULT_K_FRACTION = {"prec_at_k": 0.5, "rec_at_k": 2.0}


# ----------------------------------------------------------------------------------------
# the peer


def find_peer(path: Path, workdir: Path) -> Path | None:
    """The directory of a runnable ``svm_perf_learn``: ``path`` itself, or a build of the
    source tree / tarball in ``path`` inside ``workdir``; None when neither works."""
    learn = path / "svm_perf_learn"
    if learn.is_file() and os.access(learn, os.X_OK):
        return path
    src = None
    if (path / "Makefile").is_file() and (path / "svm_struct_api.c").is_file():
        src = workdir / "svm_perf_src"
        shutil.copytree(path, src, ignore=shutil.ignore_patterns("*.o", "svm_perf_learn"))
    elif (path / "svm_perf.tar.gz").is_file():
        src = workdir / "svm_perf_src"
        src.mkdir()
        with tarfile.open(path / "svm_perf.tar.gz") as tar:
            tar.extractall(src, filter="data")
        makefiles = sorted(src.rglob("Makefile"), key=lambda p: len(p.parts))
        src = makefiles[0].parent if makefiles else src
    if src is None:
        return None
    built = subprocess.run(
        ["make", "SFLAGS=-fcommon"], cwd=src, capture_output=True, text=True, check=False
    )
    learn = src / "svm_perf_learn"
    return src if built.returncode == 0 and learn.is_file() else None


def run_peer(peer, train, workdir, n_features, loss, C, epsilon, bias, algorithm):
    """Train SVM^perf once; its weight vector (with the bias weight last), CPU, iterations."""
    model = workdir / "model.txt"
    cmd = [str(peer / "svm_perf_learn"), "-c", repr(C), "-e", repr(epsilon)]
    cmd += ["-l", str(LOSS_CODES[loss]), "-w", str(algorithm), "--b", repr(float(bias))]
    cmd += ["-v", "1", "-y", "0", str(train), str(model)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    cpu = re.search(r"Runtime in cpu-seconds: ([\d.]+)", out)
    iters = re.search(r"Number of iterations: (\d+)", out)
    w, threshold = read_linear_model(model, n_features)
    w_bias = -threshold / bias if bias else 0.0
    return {
        "w": w,
        "w_bias": w_bias,
        "cpu": float(cpu.group(1)) if cpu else float("nan"),
        "n_iter": int(iters.group(1)) if iters else -1,
    }


def read_linear_model(path: Path, n_features: int):
    """``(w, b)`` of an SVM-light linear model file (score ``w'x - b``); ``w`` has
    ``n_features`` entries (the file's features beyond them, the bias feature, are dropped)."""
    lines = path.read_text().splitlines()
    threshold = float(lines[10].split("#")[0])
    w = np.zeros(n_features)
    for line in lines[11:]:
        tokens = line.split("#")[0].split()
        if not tokens:
            continue
        coef = float(tokens[0])
        for tok in tokens[1:]:
            idx, val = tok.split(":")
            if int(idx) <= n_features:
                w[int(idx) - 1] += coef * float(val)
    return w, threshold


# ----------------------------------------------------------------------------------------
# data


def is_registered(name: str) -> bool:
    try:
        resolve(name)
    except UnknownNameError:
        return False
    return True


def load_pair(name: str, max_rows: int | None):
    """``(X_train, y_train, X_test, y_test, test_name)``, features rounded to float32."""
    train_name = f"{name}_trn" if is_registered(f"{name}_trn") else name
    train = load_dataset(train_name)
    if is_registered(f"{name}_tst"):
        test, test_name = load_dataset(f"{name}_tst"), f"{name}_tst"
    else:  # no test file: measure on the training file
        test, test_name = train, f"{train_name} (no test file)"
    positive = np.unique(train.y)[-1]

    def prepare(ds, max_rows):
        n = ds.X.shape[0]
        rows = np.arange(n)
        if max_rows and max_rows < n:  # a seeded random subset: some files are sorted by class
            rows = np.sort(np.random.default_rng(0).choice(n, max_rows, replace=False))
        X = ds.X[rows]
        X = sp.csr_matrix(X, dtype=np.float32) if sp.issparse(X) else np.asarray(X, np.float32)
        X = X.astype(np.float64)
        density = (X.nnz if sp.issparse(X) else np.count_nonzero(X)) / max(1, np.prod(X.shape))
        X = sp.csr_matrix(X) if density < 0.25 else (X.toarray() if sp.issparse(X) else X)
        y = np.where(np.asarray(ds.y)[rows] == positive, 1, -1)
        return X, y

    X, y = prepare(train, max_rows)
    X_test, y_test = prepare(test, max_rows)
    return X, y, X_test, y_test, test_name


def with_bias_column(X, bias):
    if not bias:
        return X
    col = np.full((X.shape[0], 1), float(bias))
    return (
        sp.hstack([X, sp.csr_matrix(col)], format="csr") if sp.issparse(X) else np.hstack([X, col])
    )


# ----------------------------------------------------------------------------------------
# the comparison


def k_options(loss):
    return {"k_fraction": DEFAULT_K_FRACTION[loss]} if loss in DEFAULT_K_FRACTION else {}


def objective(X, y, w, loss, C, bias):
    """``1/2 ||w||^2 + C max(0, H*)`` on the bias-augmented rows, from svmlab's oracle."""
    f = np.asarray(with_bias_column(X, bias) @ w).ravel()
    con = oracles.most_violated(loss, y, f, scaling="svmperf", **k_options(loss))
    return 0.5 * float(w @ w) + C * max(0.0, con.violation(f))


def test_measure(X, y, w, loss, bias):
    f = np.asarray(with_bias_column(X, bias) @ w).ravel()
    return oracles.measure_value(loss, y, f, **k_options(loss))


def fit_svmlab(X, y, loss, C, epsilon, bias, variant="default"):
    """svmlab's weight vector (bias weight last), process CPU of ``fit``, iterations."""
    params = {"loss": loss, "C": C, "epsilon": epsilon, **k_options(loss)}
    if variant == "shrinking":
        params["shrinking"] = True
    if "bias" in SVMPerfClassifier().get_params():
        params["bias"] = float(bias)
        X_fit = X
    else:  # before the bias parameter: the equivalent appended column
        X_fit = with_bias_column(X, bias)
    with threadpool_limits(1):
        t0 = time.process_time()
        model = SVMPerfClassifier(**params).fit(X_fit, y)
        cpu = time.process_time() - t0
    w = np.asarray(model.coef_, dtype=np.float64).ravel()
    if "bias" in params and bias:
        w = np.append(w, model.intercept_ / bias)
    return w, cpu, int(model.n_iter_), model.fit_info_.get("qp_fallbacks")


def compare(name, peer, workdir, args):
    """All (loss, C, bias) rows of one data set."""
    X, y, X_test, y_test, test_name = load_pair(name, args.max_rows)
    train_file = workdir / f"{name}.svm"
    dump_svmlight_file(X, y, str(train_file), zero_based=False)
    kind = "sparse" if sp.issparse(X) else "dense"
    print(
        f"\n{name}: {X.shape[0]} x {X.shape[1]} ({kind}), {np.mean(y > 0):.1%} positive; "
        f"test {test_name}: {X_test.shape[0]} rows",
        flush=True,
    )
    print(HEADER, flush=True)
    rows = []
    for loss in args.losses:
        few = np.r_[np.flatnonzero(y > 0)[:150], np.flatnonzero(y < 0)[:150]]
        fit_svmlab(X[few], y[few], loss, 1.0, args.epsilon, 1.0)  # warm-up (compiled code)
        for C in args.C:
            for bias, variant in itertools.product(
                args.bias, SVMLAB_VARIANTS.get(loss, ("default",))
            ):
                w_lab, cpu_lab, it_lab, fallbacks = fit_svmlab(
                    X, y, loss, C, args.epsilon, bias, variant
                )
                obj_lab = objective(X, y, w_lab, loss, C, bias)
                meas_lab = test_measure(X_test, y_test, w_lab, loss, bias)
                for algorithm in PEER_ALGORITHMS.get(loss, (3,)):
                    res = run_peer(
                        peer,
                        train_file,
                        workdir,
                        X.shape[1],
                        loss,
                        C,
                        args.epsilon,
                        bias,
                        algorithm,
                    )
                    w_peer = np.append(res["w"], res["w_bias"]) if bias else res["w"]
                    row = {
                        "dataset": name,
                        "loss": loss,
                        "C": C,
                        "bias": bias,
                        "peer": f"-w {algorithm}",
                        "svmlab": variant,
                        "objective_svmlab": obj_lab,
                        "objective_svmperf": objective(X, y, w_peer, loss, C, bias),
                        "measure_svmlab": meas_lab,
                        "measure_svmperf": test_measure(X_test, y_test, w_peer, loss, bias),
                        "iterations_svmlab": it_lab,
                        "iterations_svmperf": res["n_iter"],
                        "cpu_svmlab": cpu_lab,
                        "cpu_svmperf": res["cpu"],
                        "ratio": max(res["cpu"], 0.005) / max(cpu_lab, 0.005),
                        "qp_fallbacks": fallbacks,
                    }
                    row["gap_in_C_epsilon"] = (obj_lab - row["objective_svmperf"]) / (
                        C * args.epsilon
                    )
                    rows.append(row)
                    print_row(row)
    return rows


HEADER = (
    f"{'set':8} {'loss':9} {'C':>5} {'B':>2} {'peer':5} {'obj svmlab':>11} {'obj svmperf':>11} "
    f"{'meas lab':>8} {'meas perf':>9} {'it lab':>6} {'it perf':>7} {'cpu lab':>8} "
    f"{'cpu perf':>8} {'ratio':>6} {'gap/Ce':>6}  svmlab"
)


def print_row(r):
    print(
        f"{r['dataset']:8} {r['loss']:9} {r['C']:>5g} {r['bias']:>2g} {r['peer']:5} "
        f"{r['objective_svmlab']:>11.4f} {r['objective_svmperf']:>11.4f} "
        f"{r['measure_svmlab']:>8.4f} {r['measure_svmperf']:>9.4f} "
        f"{r['iterations_svmlab']:>6d} {r['iterations_svmperf']:>7d} {r['cpu_svmlab']:>8.2f} "
        f"{r['cpu_svmperf']:>8.2f} {r['ratio']:>6.2f} {r['gap_in_C_epsilon']:>6.2f}  "
        f"{r.get('svmlab', 'default')}",
        flush=True,
    )


def print_summary(rows):
    """Geometric mean and minimum of the ratio per (loss, peer algorithm, bias), with goals."""
    print("\nratio = SVM^perf CPU / svmlab CPU (> 1: svmlab faster)")
    print(
        f"{'loss':9} {'peer':5} {'B':>2} {'svmlab':9} {'runs':>4} {'geomean':>8} {'min':>6}  goal"
    )

    def key(r):
        return r["loss"], r["peer"], r["bias"], r.get("svmlab", "default")

    for loss, peer, bias, variant in sorted({key(r) for r in rows}, key=str):
        sel = [r["ratio"] for r in rows if key(r) == (loss, peer, bias, variant)]
        geo = math.exp(float(np.mean(np.log(sel))))
        goal = GOALS.get((loss, int(peer.split()[-1])))
        if goal is None:
            text = "-"
        else:
            target, how = goal
            value = min(sel) if how == "every set" else geo
            text = f">= {target:g} on {how}: {'met' if value >= target else 'NOT met'}"
        print(
            f"{loss:9} {peer:5} {bias:>2g} {variant:9} {len(sel):>4d} {geo:>8.2f} "
            f"{min(sel):>6.2f}  {text}"
        )


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("path", type=Path, help="directory of svm_perf_learn or its source")
    ap.add_argument("--datasets", nargs="+", default=["ijcnn1", "adult", "w8a"])
    ap.add_argument("--losses", nargs="+", default=list(LOSS_CODES), choices=list(LOSS_CODES))
    ap.add_argument("--C", type=float, nargs="+", default=[1.0, 10.0, 100.0])
    ap.add_argument("--epsilon", type=float, default=0.1)
    ap.add_argument("--bias", type=float, nargs="+", default=[0.0, 1.0])
    ap.add_argument("--max-rows", type=int, default=None, help="N random rows only (quick)")
    ap.add_argument("--json", type=Path, default=None, help="write the rows here")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="svmperf_vs_") as tmp:
        workdir = Path(tmp)
        peer = find_peer(args.path, workdir) if args.path.is_dir() else None
        if peer is None:
            print(f"SVM^perf not found or not buildable at {args.path}: benchmark skipped")
            return 0
        print(f"SVM^perf: {peer / 'svm_perf_learn'}; one thread; epsilon {args.epsilon}")
        rows = []
        for name in args.datasets:
            rows += compare(name, peer, workdir, args)
    print_summary(rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
