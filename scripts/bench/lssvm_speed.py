"""LSSVM family speed (Oliveira (2021), Ch. 3): the eigen trick over the C grid, FCC-LSSVM on a
large Table 6 set, and CC-LSSVM against the full LSSVM on Ripley's data.

Usage::

    SVMLAB_DATA_DIR=../shared/datasets python scripts/bench/lssvm_speed.py
        [--parts a b c] [--n 5000] [--large ijcnn1_trn] [--M 400] [--C 32] [--sigma 1.0]

Everything runs with ``--threads`` BLAS threads (default 1, as the runner does).

(a) The 11 values of the spec A5 C grid at ``--n`` samples (two-moons-like data, one sigma): one
    eigendecomposition of Omega and an O(N^2) solve per C (:class:`EigenKKT`) against one
    Cholesky factorisation of Omega + I/C per C (:func:`solve_kkt`, the peer). Printed: both
    times, the ratio, and the break-even grid size (eigh time / Cholesky time).
(b) FCC-LSSVM (Alg. 9) on the first large Table 6 set that loads (``--large``, default
    ijcnn1_trn, then shuttle, usps, adult_trn; binarised per spec A18), ``M`` from Table 6,
    fixed (C, sigma) (the thesis takes them from Zhou (2016), not reproduced): N, M, strata,
    |PS|, fit time, tracemalloc peak against the M N 8 bytes bound and the N^2 8 bytes a full
    LSSVM kernel would take, and test accuracy when a test split exists.
(c) CC-LSSVM against the full LSSVM (the peer) on Ripley's synth.te (1000 x 2; 80/20 split,
    seed 0, z-scored), both with the (C, sigma) of tune_lssvm (10-fold, spec A5 grid): fit
    times and their ratio, SPR = 1 - M/N, test accuracy.
"""

from __future__ import annotations

import argparse
import math
import time
import tracemalloc
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

from svmlab.data.registry import load_dataset
from svmlab.estimators.lssvm import (
    CCLSSVMClassifier,
    FCCLSSVMClassifier,
    LSSVMClassifier,
    tune_lssvm,
)
from svmlab.estimators.lssvm._kkt import EigenKKT, solve_kkt
from svmlab.estimators.lssvm._rbf_width import DEFAULT_CS, rbf_gamma
from svmlab.kernels import rbf

#: Table 6 (#SV required) and spec A18 (binarisation: the positive class).
TABLE_6 = {
    "ijcnn1_trn": (400, "ijcnn1_tst", None),
    "shuttle": (200, None, "Rad.Flow"),  # class 1 vs rest (spec A18); the registry names classes
    "usps": (200, None, 9),  # "USPS8": digit 8 is label 9 in LIBSVM's 1..10 coding
    "adult_trn": (300, "adult_tst", None),
}


def part_a(n: int) -> None:
    rng = np.random.default_rng(0)
    t = rng.uniform(0, np.pi, n)
    side = rng.integers(0, 2, n)
    X = np.c_[np.cos(t) + side, np.sin(t) * (1 - 2 * side) - 0.5 * side]
    X += 0.15 * rng.normal(size=X.shape)
    y = np.where(side == 1, 1.0, -1.0)
    K = rbf(X, X, rbf_gamma(1.0, "sig2"))
    start = time.perf_counter()
    chol = [solve_kkt(K, y, C)[:2] for C in DEFAULT_CS]
    t_chol = time.perf_counter() - start
    start = time.perf_counter()
    system = EigenKKT(K, y)
    t_eigh = time.perf_counter() - start
    eig = [system.solve(C) for C in DEFAULT_CS]
    t_eig = time.perf_counter() - start
    worst = max(abs(a[1] - b[1]) for a, b in zip(chol, eig))
    per_chol = t_chol / len(DEFAULT_CS)
    print(f"(a) C grid of {len(DEFAULT_CS)} values, N = {n}, one sigma")
    print(f"    {'method':<34}{'seconds':>10}")
    print(f"    {'Cholesky per C (peer)':<34}{t_chol:>10.2f}")
    print(f"    {'eigen trick (eigh + 11 solves)':<34}{t_eig:>10.2f}")
    print(f"    ratio Cholesky / eigen: {t_chol / t_eig:.2f}x (max |b_chol - b_eig| = {worst:.1e})")
    print(
        f"    eigh alone {t_eigh:.2f} s = {t_eigh / per_chol:.1f} Cholesky solves: the eigen trick "
        f"pays from a grid of {math.ceil(t_eigh / per_chol)} C values on"
    )


def _binarise(y, positive):
    if positive is None:
        return y
    return np.where(y == positive, 1, -1)


def part_b(names, M_override, C, sigma) -> None:
    for name in names:
        try:
            ds = load_dataset(name)
        except Exception as exc:  # noqa: BLE001 - report and try the next candidate
            print(f"(b) {name}: not available ({str(exc)[:80]})")
            continue
        M, test_name, positive = TABLE_6[name]
        M = M_override or M
        X, y = np.asarray(ds.X, dtype=np.float64), _binarise(ds.y, positive)
        N = X.shape[0]
        est = FCCLSSVMClassifier(n_support=M, C=C, sigma=sigma, random_state=0)
        tracemalloc.start()
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            est.fit(X, y)
        fit_s = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        info = est.fit_info_
        print(f"(b) FCC-LSSVM on {name}: N = {N}, d = {X.shape[1]}, M = {M} (Table 6)")
        print(
            f"    strata J = {info['n_strata']}, |PS| = {info['n_prototypes']}, corners = "
            f"{info['n_corners']}, SVs kept = {info['n_support']}, C = {C:g}, sigma = {sigma:g}"
        )
        print(f"    fit time {fit_s:.1f} s")
        mn, nn = M * N * 8, N * N * 8
        print(
            f"    tracemalloc peak {peak / 2**20:.0f} MiB; M*N*8 = {mn / 2**20:.0f} MiB "
            f"(peak / bound = {peak / mn:.2f}); full LSSVM N^2*8 = {nn / 2**30:.1f} GiB "
            f"(peak is {peak / nn:.4f} of it)"
        )
        if test_name:
            try:
                te = load_dataset(test_name)
                acc = np.mean(est.predict(np.asarray(te.X, dtype=np.float64)) == te.y)
                print(f"    test accuracy on {test_name} ({len(te.y)} rows): {acc:.4f}")
            except Exception as exc:  # noqa: BLE001
                print(f"    no test accuracy ({str(exc)[:80]})")
        return
    print("(b) no large Table 6 set available")


def part_c() -> None:
    ds = load_dataset("synth_te")
    X, y = np.asarray(ds.X, dtype=np.float64), ds.y
    order = np.random.default_rng(0).permutation(len(y))
    tr, te = order[: int(0.8 * len(y))], order[int(0.8 * len(y)) :]
    mu, sd = X[tr].mean(0), X[tr].std(0)
    X = (X - mu) / sd
    C, sigma = tune_lssvm(X[tr], y[tr], random_state=0)
    rows = []
    for label, est in (
        ("full LSSVM (peer)", LSSVMClassifier(C=C, sigma=sigma)),
        ("CC-LSSVM", CCLSSVMClassifier(C=C, sigma=sigma)),
    ):
        start = time.perf_counter()
        est.fit(X[tr], y[tr])
        fit_s = time.perf_counter() - start
        m = int(est.n_support_.sum())
        rows.append((label, fit_s, m, 1 - m / len(tr), np.mean(est.predict(X[te]) == y[te])))
    print(f"(c) Ripley synth.te, 80/20 (N = {len(tr)}), tuned C = {C:g}, sigma = {sigma:.4g}")
    print(f"    {'method':<20}{'fit s':>9}{'#SV':>6}{'SPR':>7}{'acc':>8}")
    for label, fit_s, m, spr, acc in rows:
        print(f"    {label:<20}{fit_s:>9.4f}{m:>6}{spr:>7.3f}{acc:>8.3f}")
    print(f"    time ratio full / CC: {rows[0][1] / rows[1][1]:.1f}x")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--parts", nargs="*", default=["a", "b", "c"], choices=["a", "b", "c"])
    ap.add_argument("--n", type=int, default=5000, help="samples of part (a)")
    ap.add_argument(
        "--large", nargs="*", default=list(TABLE_6), help="candidates of part (b), in order"
    )
    ap.add_argument("--M", type=int, default=None, help="override Table 6's M")
    ap.add_argument("--C", type=float, default=32.0, help="C of part (b)")
    ap.add_argument("--sigma", type=float, default=1.0, help="sigma of part (b) (sig2)")
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads (default one)")
    args = ap.parse_args()
    with threadpool_limits(limits=args.threads, user_api="blas"):
        _run(args)


def _run(args) -> None:
    print(f"one process, {args.threads} BLAS thread(s)")
    if "a" in args.parts:
        part_a(args.n)
    if "b" in args.parts:
        part_b(args.large, args.M, args.C, args.sigma)
    if "c" in args.parts:
        part_c()


if __name__ == "__main__":
    main()
