"""LSSVM family speed (Oliveira (2021), Ch. 3): the eigen trick over the C grid, FCC-LSSVM on a
large Table 6 set, and CC-LSSVM against the full LSSVM on Ripley's data.

Usage::

    SVMLAB_DATA_DIR=../shared/datasets python scripts/bench/lssvm_speed.py
        [--parts a b c] [--n 5000] [--measure-fine] [--quick] [--large ijcnn1_trn] [--M 400]
        [--C 32] [--gamma 1.0]

Everything runs with ``--threads`` BLAS threads (default 1, as the runner does). ``--quick``
is the smoke-test size: part (a) at N = 800, no parts (b) and (c) unless ``--parts`` names
them (then (c) tunes 3-fold).

(a) The eigen trick (:class:`EigenKKT`: one eigendecomposition of Omega, then an O(N^2) solve
    per C) against two peers that factorise once per C: the Cholesky trick of
    :func:`solve_kkt` (``Omega + I/C``, the library's single-C path) and the naive direct
    implementation of Eq. 2.5 (the indefinite ``(N+1) x (N+1)`` KKT matrix by
    ``scipy.linalg.solve``, LU). Two-moons-like data at ``--n`` samples, one gamma. ``eigh``
    is timed with the LAPACK drivers ``evr`` (scipy's default) and ``evd``; the faster is
    used. Printed, from one run: per-C times, the totals and ratios for the spec A5 grid
    (11 values, every C measured) and for a fine grid over the same range (41 values, step
    0.5 in log2; the peers extrapolated from their per-C mean, which does not depend on C,
    unless ``--measure-fine``), and per peer the grid size from which the eigen trick breaks
    even and from which it is 5x faster (``t_eigh / (t_peer - t_solve)``).
(b) FCC-LSSVM (Alg. 9) on the first large Table 6 set that loads (``--large``, default
    ijcnn1_trn, then shuttle, usps, adult_trn; binarised per spec A18), ``M`` from Table 6,
    fixed (C, gamma) (the thesis takes them from Zhou (2016), not reproduced): N, M, strata,
    |PS|, fit time, tracemalloc peak against the M N 8 bytes bound and the N^2 8 bytes a full
    LSSVM kernel would take, and test accuracy when a test split exists.
(c) CC-LSSVM against the full LSSVM (the peer) on Ripley's synth.te (1000 x 2; 80/20 split,
    seed 0, z-scored), both with the (C, gamma) of tune_lssvm (10-fold, spec A5 grid): fit
    times and their ratio, SPR = 1 - M/N, test accuracy.
"""

from __future__ import annotations

import argparse
import math
import time
import tracemalloc
import warnings

import numpy as np
from scipy import linalg
from threadpoolctl import threadpool_limits

from svmlab.data.registry import load_dataset
from svmlab.estimators.lssvm import (
    CCLSSVMClassifier,
    FCCLSSVMClassifier,
    LSSVMClassifier,
    tune_lssvm,
)
from svmlab.estimators.lssvm._kkt import EigenKKT, kkt_matrix, solve_kkt
from svmlab.estimators.lssvm._params import DEFAULT_CS
from svmlab.kernels import rbf

#: Table 6 (#SV required) and spec A18 (binarisation: the positive class).
TABLE_6 = {
    "ijcnn1_trn": (400, "ijcnn1_tst", None),
    "shuttle": (200, None, "Rad.Flow"),  # class 1 vs rest (spec A18); the registry names classes
    "usps": (200, None, 9),  # "USPS8": digit 8 is label 9 in LIBSVM's 1..10 coding
    "adult_trn": (300, "adult_tst", None),
}


#: The fine grid of part (a): the spec A5 range 2^-5 .. 2^15 in steps of 2^0.5 (41 values).
FINE_CS = tuple(2.0 ** (p / 2) for p in range(-10, 31))


def _moons(n: int):
    rng = np.random.default_rng(0)
    t = rng.uniform(0, np.pi, n)
    side = rng.integers(0, 2, n)
    X = np.c_[np.cos(t) + side, np.sin(t) * (1 - 2 * side) - 0.5 * side]
    X += 0.15 * rng.normal(size=X.shape)
    return X, np.where(side == 1, 1.0, -1.0)


def naive_kkt(K, y, C):
    """Eq. 2.5 as printed: the indefinite ``(N+1) x (N+1)`` matrix assembled and solved by
    ``scipy.linalg.solve`` (LU with partial pivoting); ``(alpha, b)``."""
    u = linalg.solve(kkt_matrix(K, C), np.r_[0.0, y], overwrite_a=True, check_finite=False)
    return u[1:], float(u[0])


def _timed(fn, Cs):
    out, times = [], []
    for C in Cs:
        start = time.perf_counter()
        out.append(fn(C))
        times.append(time.perf_counter() - start)
    return out, np.asarray(times)


def part_a(n: int, measure_fine: bool) -> None:
    X, y = _moons(n)
    K = rbf(X, X, 1.0)
    print(f"(a) eigen trick over a C grid vs a factorisation per C, N = {n}, one gamma")
    # The eigendecomposition, both LAPACK drivers; the faster one is the eigen trick's.
    seconds, systems = {}, {}
    for driver in ("evr", "evd"):
        start = time.perf_counter()
        systems[driver] = EigenKKT(K, y, driver=driver)
        seconds[driver] = time.perf_counter() - start
    best = min(seconds, key=seconds.get)
    t_eigh, system = seconds[best], systems.pop(best)
    systems.clear()  # the other N x N eigenbasis
    print(
        f"    eigh: driver evr (scipy default) {seconds['evr']:.2f} s, evd {seconds['evd']:.2f} s "
        f"-> evd/evr = {seconds['evd'] / seconds['evr']:.2f}; using {best}"
    )
    grids = {"spec A5 (11 values, step 2 in log2)": DEFAULT_CS}
    grids[f"fine ({len(FINE_CS)} values, step 0.5 in log2)"] = FINE_CS
    # Peers on the spec grid, every C measured.
    chol, t_chol = _timed(lambda C: solve_kkt(K, y, C)[:2], DEFAULT_CS)
    lu, t_lu = _timed(lambda C: naive_kkt(K, y, C), DEFAULT_CS)
    eig, t_eig = _timed(system.solve, DEFAULT_CS)
    worst_chol = max(abs(a[1] - b[1]) for a, b in zip(chol, eig))
    worst_lu = max(abs(a[1] - b[1]) for a, b in zip(lu, eig))
    c, l_, s_ = t_chol.mean(), t_lu.mean(), t_eig.mean()
    print(
        f"    per C: Cholesky of Omega + I/C {c:.3f} s (min {t_chol.min():.3f}, max "
        f"{t_chol.max():.3f}); LU of the (N+1)^2 KKT matrix {l_:.3f} s (min {t_lu.min():.3f}, "
        f"max {t_lu.max():.3f}); eigen solve {s_:.4f} s; eigh = {t_eigh / c:.1f} Cholesky = "
        f"{t_eigh / l_:.1f} LU"
    )
    print(
        f"    agreement over the spec grid: max |b_chol - b_eig| = {worst_chol:.1e}, "
        f"max |b_LU - b_eig| = {worst_lu:.1e}"
    )
    if measure_fine:
        _, t_chol_fine = _timed(lambda C: solve_kkt(K, y, C)[:2], FINE_CS)
        _, t_lu_fine = _timed(lambda C: naive_kkt(K, y, C), FINE_CS)
        _, t_eig_fine = _timed(system.solve, FINE_CS)
        measured = {len(FINE_CS): (t_chol_fine.sum(), t_lu_fine.sum(), t_eig_fine.sum())}
        how = "every C measured"
    else:
        _, t_eig_fine = _timed(system.solve, FINE_CS)
        G = len(FINE_CS)
        measured = {G: (G * c, G * l_, t_eig_fine.sum())}
        how = "eigen side measured; peers = 41 x their measured mean per C (--measure-fine: all)"
    measured[len(DEFAULT_CS)] = (t_chol.sum(), t_lu.sum(), t_eig.sum())
    print(
        f"    {'grid':<40}{'Cholesky s':>11}{'LU s':>9}{'eigen s':>9}{'Chol/eig':>10}{'LU/eig':>8}"
    )
    for label, Cs in grids.items():
        tc, tl, te = measured[len(Cs)]
        te += t_eigh
        print(f"    {label:<40}{tc:>11.2f}{tl:>9.2f}{te:>9.2f}{tc / te:>9.2f}x{tl / te:>7.2f}x")
    print(f"    fine grid: {how}")
    for peer, per_c in (("Cholesky", c), ("LU", l_)):
        even = t_eigh / (per_c - s_) if per_c > s_ else math.inf
        five = 5 * t_eigh / (per_c - 5 * s_) if per_c > 5 * s_ else math.inf
        print(
            f"    vs {peer}: break-even at a grid of {math.ceil(even)} C values; 5x from "
            f"{math.ceil(five) if math.isfinite(five) else 'never'} values on"
        )


def _binarise(y, positive):
    if positive is None:
        return y
    return np.where(y == positive, 1, -1)


def part_b(names, M_override, C, gamma) -> None:
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
        est = FCCLSSVMClassifier(n_support=M, C=C, gamma=gamma, random_state=0)
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
            f"{info['n_corners']}, SVs kept = {info['n_support']}, C = {C:g}, gamma = {gamma:g}"
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


def part_c(tune_folds: int = 10) -> None:
    ds = load_dataset("synth_te")
    X, y = np.asarray(ds.X, dtype=np.float64), ds.y
    order = np.random.default_rng(0).permutation(len(y))
    tr, te = order[: int(0.8 * len(y))], order[int(0.8 * len(y)) :]
    mu, sd = X[tr].mean(0), X[tr].std(0)
    X = (X - mu) / sd
    C, gamma = tune_lssvm(X[tr], y[tr], n_folds=tune_folds, random_state=0)
    rows = []
    for label, est in (
        ("full LSSVM (peer)", LSSVMClassifier(C=C, gamma=gamma)),
        ("CC-LSSVM", CCLSSVMClassifier(C=C, gamma=gamma)),
    ):
        start = time.perf_counter()
        est.fit(X[tr], y[tr])
        fit_s = time.perf_counter() - start
        m = int(est.n_support_.sum())
        rows.append((label, fit_s, m, 1 - m / len(tr), np.mean(est.predict(X[te]) == y[te])))
    print(
        f"(c) Ripley synth.te, 80/20 (N = {len(tr)}), tuned ({tune_folds}-fold) C = {C:g}, "
        f"gamma = {gamma:.4g}"
    )
    print(f"    {'method':<20}{'fit s':>9}{'#SV':>6}{'SPR':>7}{'acc':>8}")
    for label, fit_s, m, spr, acc in rows:
        print(f"    {label:<20}{fit_s:>9.4f}{m:>6}{spr:>7.3f}{acc:>8.3f}")
    print(f"    time ratio full / CC: {rows[0][1] / rows[1][1]:.1f}x")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--parts", nargs="*", default=None, choices=["a", "b", "c"])
    ap.add_argument("--n", type=int, default=None, help="samples of part (a) (default 5000)")
    ap.add_argument(
        "--measure-fine",
        action="store_true",
        help="part (a): time every C of the fine grid for the peers too (default: 41 x mean)",
    )
    ap.add_argument("--quick", action="store_true", help="smoke-test size: part (a) only, N = 800")
    ap.add_argument(
        "--large", nargs="*", default=list(TABLE_6), help="candidates of part (b), in order"
    )
    ap.add_argument("--M", type=int, default=None, help="override Table 6's M")
    ap.add_argument("--C", type=float, default=32.0, help="C of part (b)")
    ap.add_argument("--gamma", type=float, default=1.0, help="RBF gamma of part (b)")
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads (default one)")
    args = ap.parse_args()
    if args.parts is None:
        args.parts = ["a"] if args.quick else ["a", "b", "c"]
    if args.n is None:
        args.n = 800 if args.quick else 5000
    with threadpool_limits(limits=args.threads, user_api="blas"):
        _run(args)


def _run(args) -> None:
    print(f"one process, {args.threads} BLAS thread(s)")
    if "a" in args.parts:
        part_a(args.n, args.measure_fine)
    if "b" in args.parts:
        part_b(args.large, args.M, args.C, args.gamma)
    if "c" in args.parts:
        part_c(tune_folds=3 if args.quick else 10)


if __name__ == "__main__":
    main()
