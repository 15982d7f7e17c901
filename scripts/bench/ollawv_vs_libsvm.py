"""OLLAWV against LIBSVM (scikit-learn's SVC) as a user runs model selection.

Usage::

    python scripts/bench/ollawv_vs_libsvm.py [--datasets magic ring ...] [--max-samples 0]
        [--C 0.1 1 10 100] [--gamma-factors 0.25 1 4] [--margins ...] [--separate-fits]
        [--select test|validation] [--rule best one_se] [--random-state 0] [--svc-cache-mb 1000]

Per dataset, single-threaded (one BLAS thread, threadpoolctl), in one run:

* a stratified 70/30 split (seed 0), features z-scored with the 70 % part's statistics;
* SVC fits every point of its grid, ``C`` x ``gamma`` (4 x 3 by default, ``gamma = f / d``),
  with a 1000 MB kernel cache (scikit-learn's default is 200 MB; ``--svc-cache-mb``);
* OLLAWV fits every point of its own grid, ``margin`` x the same ``gamma``. Its regulariser
  is the stopping margin m (with the default scaled margin ``C`` does not change the model,
  docs/decisions/ollawv.md), so the m values take the place of SVC's C values; the m values and
  the other settings are svmlab's solver defaults (conf/solver/ollawv.yaml). Per gamma, all m come
  from one run (``OLLAWVClassifier.fit_path``: the models of smaller m are prefixes
  of the same run); ``--separate-fits`` fits each point on its own instead;
* each method's selected model is its grid point with the best accuracy on the 30 % part
  (ties: fewer support vectors, then the earlier point): the issue's protocol, optimistic for
  both. ``--select validation`` fits on three quarters of the 70 % part, selects on the
  remaining quarter and reports the selected models' accuracy on the untouched 30 %;
* OLLAWV's model is selected by each rule of ``--rule`` (both by default): ``best`` as above,
  ``one_se`` the tuner's one-standard-error rule (``svmlab.evaluation.tuning.select_point``):
  at the best point's gamma, the smallest margin (the simpler end its contract declares)
  whose selection accuracy is within one standard error of the best point's, that error
  being the proportion's ``sqrt(p (1 - p) / n)`` on the ``n`` selecting samples. SVC keeps
  ``best``.

Times are CPU seconds of the process (one BLAS thread), since the machine may be shared.
Printed per dataset and overall: the grid-time ratio (SVC / OLLAWV: how many times faster
OLLAWV's grid is), per rule the accuracy difference of the selected models in points and
their support-vector ratio (OLLAWV / SVC), and OLLAWV's cost model: the kernel values its runs
computed, the time that work would take at the speed of a one-thread BLAS GEMV over a
matrix of the same shape (the cost of reading each candidate's features once, measured in
the same run), and the fraction of that limit reached (limit time / OLLAWV time), with the
fit time split into kernel rows and update + arg-min (the kernel values times per-element
timings of those compiled parts at this shape), the rest of the compiled loop (per-iteration
bookkeeping: the measured loop time, ``fit_info_["loop_seconds"]``, minus those two) and
Python around it (validation, one-vs-one subsets, the fitted attributes).

Needs SVMLAB_DATA_DIR.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import time

import numpy as np
from numba import njit
from sklearn.base import clone
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from svmlab.contract import contract_of
from svmlab.data.registry import load_dataset
from svmlab.estimators.ollawv import OLLAWVClassifier
from svmlab.estimators.ollawv._kernel_rows import BLOCK, rbf_block
from svmlab.estimators.ollawv._worst_violator import update_block
from svmlab.evaluation.tuning import RULES, proportion_standard_error, select_point
from svmlab.testing import registered_solvers

SETS = [
    "magic",
    "ring",
    "twonorm",
    "penbased",
    "letter",
    "pendigits",
    "satimage",
    "usps",
    "shuttle",
]


def configured_ollawv():
    """OLLAWV as svmlab's solver configuration builds it (conf/solver/ollawv.yaml), and the
    margins of its grid."""
    spec = registered_solvers()["ollawv"]
    return spec.build(), list(spec.grid["margin"])


def split(name, max_samples, seed=0):
    """The 70/30 stratified split, z-scored on the training part."""
    ds = load_dataset(name)
    X, y = ds.X, ds.y
    if max_samples and len(y) > max_samples:
        X, _, y, _ = train_test_split(X, y, train_size=max_samples, stratify=y, random_state=seed)
    Xa, Xt, ya, yt = train_test_split(X, y, train_size=0.7, stratify=y, random_state=seed)
    scaler = StandardScaler().fit(Xa)
    return scaler.transform(Xa), ya, scaler.transform(Xt), yt


def timed(f, *args):
    """``f(*args)`` and the CPU seconds it took (the process's, one BLAS thread)."""
    return timed_both(f, *args)[:2]


def timed_both(f, *args):
    """``f(*args)``, its CPU seconds and its wall seconds."""
    c0, w0 = time.process_time(), time.perf_counter()
    out = f(*args)
    return out, time.process_time() - c0, time.perf_counter() - w0


@njit(nogil=True)
def _gemv(X, w, reps):
    """``reps`` BLAS GEMVs ``X @ w`` (numba calls BLAS directly: no Python per call)."""
    s = 0.0
    for _ in range(reps):
        s += np.dot(X, w)[0]
    return s


@njit(nogil=True)
def _kernel_rows(XT, w, acc, kv, reps):
    """``reps`` kernel rows over all columns of ``XT``, block by block, as the training loop."""
    n = XT.shape[1]
    for _ in range(reps):
        for lo in range(0, n, BLOCK):
            rbf_block(XT, lo, min(BLOCK, n - lo), w, 0.1, acc, kv)


@njit(nogil=True)
def _updates(o, y, masked, kv, yo, reps):
    """``reps`` output updates and arg-mins over all candidates, block by block."""
    n = o.shape[0]
    for _ in range(reps):
        for lo in range(0, n, BLOCK):
            update_block(o, y, masked, kv, lo, min(BLOCK, n - lo), 0.5, 1e-4, yo)


def per_element_costs(d, n, repeats=5, seed=0):
    """Seconds per candidate of: a BLAS GEMV row (the faster of the row- and feature-major
    layouts), one kernel value (:func:`rbf_block`) and one update + arg-min step
    (:func:`update_block`), on random data of ``n`` candidates with ``d`` features; each
    timing covers at least 2 million candidates; the median of ``repeats`` timings (a single
    fit is one timing too, so the minimum would flatter the parts against the whole)."""
    rng = np.random.default_rng(seed)
    n = max(int(n), BLOCK)
    reps = max(1, 2_000_000 // n)
    X = rng.standard_normal((n, d))
    XT = np.ascontiguousarray(X.T)
    w = rng.standard_normal(d)
    acc, kv, yo = np.empty((4, BLOCK)), np.empty(BLOCK), np.empty(BLOCK)
    o, y, masked = rng.standard_normal(n), np.sign(rng.standard_normal(n)), np.zeros(n)
    calls = {
        "gemv": lambda: _gemv(X, w, reps),
        "gemv_t": lambda: _gemv(XT.T, w, reps),
        "kernel": lambda: _kernel_rows(XT, w, acc, kv, reps),
        "update": lambda: _updates(o, y, masked, kv, yo, reps),
    }
    out = {}
    for key, f in calls.items():
        f()  # compile / warm up
        out[key] = float(np.median([timed(f)[1] for _ in range(repeats)])) / (n * reps)
    out["gemv"] = min(out["gemv"], out.pop("gemv_t"))
    return out


def select(rows):
    """The best accuracy, ties to fewer support vectors, then the earlier point."""
    return max(enumerate(rows), key=lambda r: (r[1]["acc"], -r[1]["sv"], -r[0]))[1]


def select_one_se(rows, n_select):
    """OLLAWV's point by the tuner's one-standard-error rule: the error of each point's
    selection accuracy is that of a proportion on the ``n_select`` selecting samples."""
    accuracies = [r["acc"] / 100 for r in rows]
    chosen = select_point(
        accuracies,
        rule="one_se",
        errors=[proportion_standard_error(p, n_select) for p in accuracies],
        path_values=[r["margin"] for r in rows],
        simpler=contract_of(OLLAWVClassifier).path_simpler,
        groups=[r["gamma"] for r in rows],
    )
    return rows[chosen]


def warm_up() -> None:
    """Load the compiled OLLAWV loops (numba's cache) and LIBSVM once, outside the timings."""
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((64, 3)), np.repeat([0, 1], 32)
    OLLAWVClassifier().fit_path(X, y, [0.1, 0.01])
    SVC().fit(X, y)


def fit_grids(Xa, ya, score, gammas, args):
    """Every SVC point and every OLLAWV point (one ``fit_path`` run per gamma unless
    ``--separate-fits``), as rows ``score(model, seconds, **point)`` plus OLLAWV's costs."""
    svc_rows, ol_rows = [], []
    for g in gammas:
        for C in args.C:
            svc = SVC(C=C, gamma=g, cache_size=args.svc_cache_mb)
            svc_rows.append(score(*timed(svc.fit, Xa, ya), C=C, gamma=g))
        base = clone(args.ollawv).set_params(gamma=g, random_state=args.random_state)
        if args.separate_fits:
            fits = [timed_both(clone(base).set_params(margin=m).fit, Xa, ya) for m in args.margins]
        else:
            models, t, wall = timed_both(base.fit_path, Xa, ya, args.margins)
            # one shared run, spread over its points
            fits = [(model, t / len(models), wall / len(models)) for model in models]
        share = 1 if args.separate_fits else len(fits)
        key = "kernel_evaluations" if args.separate_fits else "path_kernel_evaluations"
        for m, (model, t, wall) in zip(args.margins, fits):
            info = model.fit_info_
            row = score(model, t, margin=m, gamma=g)
            row["wall"] = wall
            row["evals"] = sum(info[key]) / share
            row["loop"] = sum(info["loop_seconds"]) / share
            row["n_pair"] = float(np.mean(info["n_samples"]))
            ol_rows.append(row)
    return svc_rows, ol_rows


def print_grids(svc_rows, ol_rows, sel):
    for label, rows, knob in (("SVC", svc_rows, "C"), ("OLLAWV", ol_rows, "margin")):
        print(f"{label:<7} {'gamma':>9} {knob:>7} {'fit s':>8} {sel + ' %':>7} {'SVs':>6}")
        for r in rows:
            print(
                f"{'':<7} {r['gamma']:>9.4g} {r[knob]:>7g} {r['time']:>8.3f} {r['acc']:>7.2f} "
                f"{r['sv']:>6d}"
            )


def cost_model(ol_rows, d, t_ol):
    """OLLAWV's kernel values, the GEMV limit and the shares of its time (printed): the
    limit, kernel and update shares of its CPU time (per-element CPU timings), the compiled
    loop's share of its wall time (``fit_info_["loop_seconds"]`` is wall time)."""
    evals = sum(r["evals"] for r in ol_rows)
    n_pair = float(np.mean([r["n_pair"] for r in ol_rows]))
    cost = per_element_costs(d, n_pair)
    limit = evals * cost["gemv"]
    shares = {
        "limit_fraction": limit / t_ol,
        "kernel_share": evals * cost["kernel"] / t_ol,
        "update_share": evals * cost["update"] / t_ol,
        "loop_share": sum(r["loop"] for r in ol_rows) / sum(r["wall"] for r in ol_rows),
    }
    bookkeeping = shares["loop_share"] - shares["kernel_share"] - shares["update_share"]
    print(
        f"cost model: {evals:.3g} kernel values (mean binary problem {n_pair:.0f} samples); "
        f"GEMV limit {1e9 * cost['gemv']:.2f} ns/candidate -> {limit:.3f} s, "
        f"{100 * shares['limit_fraction']:.0f} % of the limit reached; time split: kernel rows "
        f"{100 * shares['kernel_share']:.0f} % ({1e9 * cost['kernel']:.2f} ns), update + "
        f"arg-min {100 * shares['update_share']:.0f} % ({1e9 * cost['update']:.2f} ns), rest "
        f"of the compiled loop {100 * bookkeeping:.0f} %, "
        f"Python around it {100 * (1 - shares['loop_share']):.0f} %"
    )
    return shares


def run(name, args):
    Xa, ya, Xt, yt = split(name, args.max_samples)
    d = Xa.shape[1]
    gammas = [f / d for f in args.gamma_factors]
    if args.select == "validation":  # fit on 3/4 of the training part, select on the rest
        Xa, Xs, ya, ys = train_test_split(Xa, ya, train_size=0.75, stratify=ya, random_state=0)
    else:  # the protocol: select on the test part itself
        Xs, ys = Xt, yt
    print(
        f"\n## {name}: {len(ya)} train / {len(yt)} test, {d} features, {len(np.unique(ya))} classes"
        + (f", selection on {len(ys)} validation samples" if args.select == "validation" else "")
    )

    def scored(model, t, **point):
        test = 100 * model.score(Xt, yt)
        chosen_by = test if args.select == "test" else 100 * model.score(Xs, ys)
        return point | {"time": t, "acc": chosen_by, "test": test, "sv": len(model.support_)}

    svc_rows, ol_rows = fit_grids(Xa, ya, scored, gammas, args)
    print_grids(svc_rows, ol_rows, "test" if args.select == "test" else "val")
    t_svc = sum(r["time"] for r in svc_rows)
    t_ol = sum(r["time"] for r in ol_rows)
    result = {"dataset": name, "svc_s": t_svc, "ollawv_s": t_ol, "speedup": t_svc / t_ol}
    print(
        f"grid: SVC {t_svc:.2f} s ({len(svc_rows)} fits), OLLAWV {t_ol:.2f} s ({len(ol_rows)} "
        f"models) -> OLLAWV {result['speedup']:.1f}x faster"
    )
    best_s = select(svc_rows)
    pickers = {"best": select, "one_se": lambda rows: select_one_se(rows, len(ys))}
    for rule in args.rule:
        best_o = pickers[rule](ol_rows)
        result[rule] = {
            "acc_delta": best_o["test"] - best_s["test"],
            "sv_ratio": best_o["sv"] / best_s["sv"],
        }
        print(
            f"selected ({rule}): SVC C={best_s['C']:g} gamma={best_s['gamma']:.4g} "
            f"{best_s['test']:.2f} % {best_s['sv']} SVs; OLLAWV m={best_o['margin']:g} "
            f"gamma={best_o['gamma']:.4g} {best_o['test']:.2f} % {best_o['sv']} SVs -> test "
            f"accuracy {result[rule]['acc_delta']:+.2f} points, SV ratio "
            f"{result[rule]['sv_ratio']:.2f}"
        )
    return result | cost_model(ol_rows, d, t_ol)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(
                line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")
            )
    except (OSError, StopIteration):
        pass
    return f"{cpu}, {os.cpu_count()} logical CPUs, Python {platform.python_version()}"


def print_summary(results, rules):
    """One line per dataset: times, speed-up, per rule the accuracy difference and SV ratio,
    and the GEMV limit reached; then the overall ratios and each rule's targets."""
    print("\n## summary (speed-up = SVC grid time / OLLAWV grid time, CPU seconds)")
    per_rule = "".join(f" {rule + ' acc':>11} {rule + ' SVs':>11}" for rule in rules)
    print(f"{'dataset':<10} {'SVC s':>8} {'OLLAWV s':>9} {'speed-up':>9}{per_rule} {'limit':>6}")
    for r in results:
        cells = "".join(
            f" {r[rule]['acc_delta']:>+11.2f} {r[rule]['sv_ratio']:>11.2f}" for rule in rules
        )
        print(
            f"{r['dataset']:<10} {r['svc_s']:>8.2f} {r['ollawv_s']:>9.2f} {r['speedup']:>8.1f}x"
            f"{cells} {100 * r['limit_fraction']:>5.0f}%"
        )
    gm = math.exp(np.mean([math.log(r["speedup"]) for r in results]))
    total = sum(r["svc_s"] for r in results) / sum(r["ollawv_s"] for r in results)
    print(
        f"{'overall':<10} {sum(r['svc_s'] for r in results):>8.2f} "
        f"{sum(r['ollawv_s'] for r in results):>9.2f} {total:>8.1f}x (geometric mean "
        f"{gm:.1f}x, lowest {min(r['speedup'] for r in results):.1f}x)"
    )
    for rule in rules:
        missed = [
            r["dataset"]
            for r in results
            if r[rule]["acc_delta"] < -1.0 or r[rule]["sv_ratio"] > 1.2
        ]
        print(
            f"rule {rule}: accuracy within "
            f"{max(abs(r[rule]['acc_delta']) for r in results):.2f} points, largest SV ratio "
            f"{max(r[rule]['sv_ratio'] for r in results):.2f}; at most 1.2x the SVs and at most "
            f"1 point below on every set: "
            + ("met" if not missed else "missed on " + ", ".join(missed))
        )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--datasets", nargs="+", default=SETS)
    ap.add_argument(
        "--max-samples", type=int, default=0, help="stratified subsample first (0: all)"
    )
    ap.add_argument("--C", nargs="+", type=float, default=[0.1, 1.0, 10.0, 100.0])
    ap.add_argument(
        "--gamma-factors", nargs="+", type=float, default=[0.25, 1.0, 4.0], help="gamma = f / d"
    )
    ap.add_argument(
        "--margins", nargs="+", type=float, help="OLLAWV's m values (default: its solver grid's)"
    )
    ap.add_argument("--random-state", type=int, default=0, help="OLLAWV's shuffle seed")
    ap.add_argument(
        "--select",
        choices=["test", "validation"],
        default="test",
        help="select each method's point on the test part (the issue's protocol) or on a "
        "quarter of the training part held out (fits then use the other three quarters)",
    )
    ap.add_argument(
        "--rule",
        nargs="+",
        choices=RULES,
        default=list(RULES),
        help="the rule(s) that select OLLAWV's point (default: each, from the same fits)",
    )
    ap.add_argument("--svc-cache-mb", type=float, default=1000.0, help="LIBSVM's kernel cache (MB)")
    ap.add_argument("--separate-fits", action="store_true", help="fit each OLLAWV point on its own")
    args = ap.parse_args(argv)
    args.ollawv, margins = configured_ollawv()
    args.margins = args.margins or margins
    print(f"machine: {machine()}; one BLAS thread; CPU seconds")
    fixed = sorted(args.ollawv.get_params().items())
    settings = ", ".join(f"{k}={v}" for k, v in fixed if k not in ("C", "gamma", "margin"))
    print(
        f"OLLAWV: conf/solver/ollawv.yaml ({settings}), m in {args.margins}, "
        f"random_state={args.random_state}; SVC: C in {args.C}; selection on {args.select}, "
        f"OLLAWV's rule(s): {', '.join(args.rule)}"
    )
    with threadpool_limits(1):
        warm_up()
        results = [run(name, args) for name in args.datasets]
    print_summary(results, args.rule)


if __name__ == "__main__":
    main()
