"""Speed of the linear 1-slack cutting plane (SVM^perf) against the n-slack formulation.

Usage::

    SVMLAB_DATA_DIR=../shared/datasets python scripts/bench/svmperf_speed.py
        [--dataset ijcnn1_trn] [--n 50000] [--C 1 10] [--epsilon 0.1] [--quick] [--threads 1]

With the accuracy loss, SVM^perf's 1-slack problem and the classic n-slack linear SVM without
bias (``min 1/2 ||w||^2 + C' sum_i xi_i``, ``y_i w'x_i >= 1 - xi_i``, ``C' = 100 C / n``) have
the same optimum (Joachims 2005, Sec. 4; Joachims 2006). The script trains both on the same
z-scored rows of ``--dataset`` (default ijcnn1's training file, 49,990 x 22, 9.7 % positive):

* ``SVMPerfClassifier(loss="accuracy")``, the 1-slack cutting plane;
* the n-slack quadratic program over ``(w, xi)`` (``n + d`` variables, ``2n`` constraints),
  solved by OSQP at the tolerance that gives the same objective to 1e-3 relative -- the named
  peer;
* for reference, LIBLINEAR's dual coordinate descent (scikit-learn's ``LinearSVC``, hinge
  loss, no intercept), which solves the same n-slack problem.

It prints per C: seconds, the primal objective each reached, iterations / constraints of the
cutting plane, and the ratio "n-slack OSQP seconds / 1-slack seconds". Then the F1 and AUC
models on the same data (no n-slack counterpart exists for them). ``--quick`` runs 5,000 rows.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from svmlab.data.registry import load_dataset
from svmlab.estimators.svmperf import SVMPerfClassifier


def _primal(X, y, w, C):
    return 0.5 * float(w @ w) + 100.0 * C / len(y) * float(np.maximum(0.0, 1 - y * (X @ w)).sum())


def _n_slack_osqp(X, y, C, eps):
    import osqp

    n, d = X.shape
    Cp = 100.0 * C / n
    P = sp.block_diag([sp.identity(d), sp.csc_matrix((n, n))], format="csc")
    q = np.concatenate([np.zeros(d), np.full(n, Cp)])
    # y_i x_i' w + xi_i >= 1 and xi_i >= 0
    A = sp.vstack(
        [
            sp.hstack([sp.csr_matrix(y[:, None] * X), sp.identity(n)]),
            sp.hstack([sp.csr_matrix((n, d)), sp.identity(n)]),
        ],
        format="csc",
    )
    lower = np.concatenate([np.ones(n), np.zeros(n)])
    upper = np.full(2 * n, np.inf)
    solver = osqp.OSQP()
    solver.setup(
        P,
        q,
        A,
        lower,
        upper,
        verbose=False,
        eps_abs=eps,
        eps_rel=eps,
        max_iter=200000,
        polishing=False,
    )
    res = solver.solve(raise_error=False)
    return res.x[:d], int(res.info.iter), str(res.info.status)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dataset", default="ijcnn1_trn")
    ap.add_argument("--n", type=int, default=50000)
    ap.add_argument("--C", type=float, nargs="+", default=[1.0, 10.0])
    ap.add_argument("--epsilon", type=float, default=0.1)
    ap.add_argument("--osqp-eps", type=float, default=1e-5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="5,000 rows")
    args = ap.parse_args(argv)
    n = 5000 if args.quick else args.n

    ds = load_dataset(args.dataset)
    X = np.asarray(ds.X, dtype=np.float64)[:n]
    y = np.where(ds.y[:n] == np.unique(ds.y)[-1], 1, -1)
    X = (X - X.mean(0)) / np.where(X.std(0) > 0, X.std(0), 1.0)
    print(
        f"{args.dataset}: {X.shape[0]} x {X.shape[1]}, {np.mean(y == 1):.1%} positive; "
        f"BLAS threads {args.threads}; epsilon {args.epsilon}"
    )
    rows = []
    with threadpool_limits(args.threads):
        for C in args.C:
            t = time.perf_counter()
            perf = SVMPerfClassifier(loss="accuracy", C=C, epsilon=args.epsilon).fit(X, y)
            t_perf = time.perf_counter() - t
            t = time.perf_counter()
            w_os, it_os, status = _n_slack_osqp(X, y, C, args.osqp_eps)
            t_os = time.perf_counter() - t
            from sklearn.svm import LinearSVC

            t = time.perf_counter()
            lin = LinearSVC(
                C=100.0 * C / len(y), loss="hinge", fit_intercept=False, tol=1e-5, max_iter=100000
            ).fit(X, y)
            t_lin = time.perf_counter() - t
            p_perf = _primal(X, y, perf.coef_, C)
            p_os = _primal(X, y, w_os, C)
            p_lin = _primal(X, y, lin.coef_.ravel(), C)
            rows.append((C, t_perf, t_os, t_lin, p_perf, p_os, p_lin, perf, it_os, status))
    print()
    print(
        f"{'C':>6} {'1-slack s':>10} {'n-slack OSQP s':>15} {'LIBLINEAR s':>12} "
        f"{'1-slack primal':>15} {'OSQP primal':>12} {'LIBLINEAR primal':>17} {'iters':>6} "
        f"{'OSQP/1-slack':>13}"
    )
    for C, t_perf, t_os, t_lin, p_perf, p_os, p_lin, perf, it_os, status in rows:
        print(
            f"{C:>6g} {t_perf:>10.2f} {t_os:>15.2f} {t_lin:>12.2f} {p_perf:>15.4f} "
            f"{p_os:>12.4f} {p_lin:>17.4f} {perf.n_iter_:>6d} {t_os / t_perf:>12.1f}x"
        )
        print(
            f"       OSQP: {it_os} iterations, status {status}; 1-slack: "
            f"{perf.fit_info_['n_constraints']} constraints, stop {perf.fit_info_['stop_reason']}"
        )
    print()
    with threadpool_limits(args.threads):
        for loss in ("f1", "auc", "prbep", "mcc"):
            t = time.perf_counter()
            m = SVMPerfClassifier(loss=loss, C=args.C[0], epsilon=args.epsilon).fit(X, y)
            print(
                f"loss={loss:<5} C={args.C[0]:g}: {time.perf_counter() - t:.2f} s, "
                f"{m.n_iter_} iterations, stop {m.fit_info_['stop_reason']}"
            )


if __name__ == "__main__":
    main()
