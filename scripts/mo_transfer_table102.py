"""Case-based feature construction on synthetic regression tasks: Mierswa (2009), Table 10.2 and
Fig. 10.7 (Ch. 10, Secs. 10.6.1 and 10.8).

Usage::

    python scripts/mo_transfer_table102.py            # --quick: two case-base sizes, < 60 s
    python scripts/mo_transfer_table102.py --paper    # sizes 50..1500, 241 test tasks

Every task is a regression problem on 5 base features whose target is a random function tree
over {+, *, sin, exp} (maximal depth 3, leaf probability 0.3; Sec. 10.6.1) with 500 examples
(Sec. 10.8). A case stores the task's linear-SVM base weights (|w| of ``SVR(kernel="linear")``
on standardised data), the standard deviations of its base features and its constructed
features. For every test task the nearest case (k' = 1) is retrieved by each method, a linear
regression is fitted on the base features plus the retrieved features, and its 10-fold CV error
is averaged over the test tasks ("No construction": base features only).

Deviations from the thesis (see docs/decisions/mo_features.md):

* The thesis's cases store the features found by 400-generation evolutionary construction
  runs. Here a case stores the constructed features of its generating tree - its distinct
  non-leaf subexpressions, the root included (an *oracle* case base). Errors are therefore
  lower than the thesis's and a retrieved case of the *same* tree gives an exact fit.
* Base features of a task: ``X_p ~ N(0, s_p)`` with ``s_p ~ U(0.5, 1)`` drawn per task and
  feature (the thesis does not give the distribution; mean 0 matches its "mean standardised"
  remark in Sec. 10.7.1). A tree is redrawn when its target is non-finite or beyond 1e8 in
  magnitude, (nearly) constant, or fitted by the base features alone with R^2 >= 0.99 (the
  thesis: linear regression cannot predict the targets without feature construction).
* Relative error as printed, ``|y - yhat| / min(yhat, y)``, is undefined for non-positive
  values: the target of every task is shifted to ``y - min(y) + range(y)`` (in ``[R, 2R]``;
  a shift changes no fit), and where ``min(yhat, y) <= 0`` the true ``y`` is the denominator.
  RMSE and RRSE (RMSE over the standard deviation of y) are reported as well.
* 2-phase: the query's "constructed features" (needed for the construction distance) come
  from a short local search on the query's own data: the best ``--local-features`` (1) of
  ``--local-pool`` (200) random trees from the same generator, chosen greedily by the training
  error of a linear regression on base + feature. Only the retrieved case's features are
  evaluated, for every method alike.
* Linear regression by least squares on standardised columns; a constructed column that is
  non-finite, constant or beyond 1e12 on the task's data is left out; test-fold values are
  clipped to the training-fold range of each column and predictions to the training-fold
  range of the target (no extrapolation blow-ups of exp(exp(x)) columns).
* ``--alternatives K`` appends K alternatives ``a + b X1`` of base feature X1 to the base
  features from which the weights are computed (Sec. 10.6.1's second data set; only the
  weights see them); Euclidean distance then under-weights X1 (Thm. 10.1).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from svmlab.construction.case_base import Case, CaseBase, union_features
from svmlab.construction.expressions import Expr, random_expression
from svmlab.construction.transfer import svm_feature_weights

REPO = Path(__file__).resolve().parents[1]
FIGURE = REPO / "docs" / "figures" / "mo_features" / "transfer_case_base.png"

METHODS = ("none", "random", "euclidean", "manhattan", "two_phase")
LABELS = {
    "none": "No.",
    "random": "Random",
    "euclidean": "Euclidean",
    "manhattan": "Manhattan",
    "two_phase": "2-Phase",
}
INF = float("inf")
#: Table 10.2 (average relative error; inf = "no result in reasonable time").
PUBLISHED = {
    50: (INF, INF, 0.228, 0.213, 0.145),
    100: (INF, INF, 0.201, 0.196, 0.106),
    250: (INF, 8.720, 0.125, 0.125, 0.102),
    500: (INF, INF, 0.126, 0.125, 0.105),
    1000: (INF, INF, 0.120, 0.119, 0.106),
    1500: (INF, 4.010, 0.121, 0.116, 0.106),
}
N_BASE = 5


@dataclass
class Task:
    tree: Expr
    X: np.ndarray  # (n, 5) base features
    y: np.ndarray  # target, shifted to [R, 2R]
    case: Case  # weights, sigmas, oracle features


def oracle_features(tree: Expr) -> list[Expr]:
    """Distinct non-leaf subexpressions of ``tree`` (root included), smallest first."""
    out: set[Expr] = set()
    stack = [tree]
    while stack:
        e = stack.pop()
        if not e.is_leaf:
            out.add(e)
            stack.extend(e.args)
    return sorted(out)


def _design(X, features):
    """Base columns plus the finite, non-constant, moderate feature columns."""
    cols = [X]
    for f in features:
        v = f.evaluate(X)
        if np.all(np.isfinite(v)) and np.abs(v).max() < 1e12 and np.ptp(v) > 0:
            cols.append(v[:, None])
    return np.hstack(cols)


def _fit_predict(A_train, y_train, A_test):
    mu, sd = A_train.mean(axis=0), A_train.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    Z = np.hstack([np.ones((A_train.shape[0], 1)), (A_train - mu) / sd])
    coef = np.linalg.lstsq(Z, y_train, rcond=None)[0]
    # no extrapolation: test values are clipped to the training range of every column, and the
    # predictions to the training range of the target (heavy-tailed exp(exp(x)) columns)
    A_test = np.clip(A_test, A_train.min(axis=0), A_train.max(axis=0))
    pred = np.hstack([np.ones((A_test.shape[0], 1)), (A_test - mu) / sd]) @ coef
    return np.clip(pred, y_train.min(), y_train.max())


def _r2_base(X, y):
    pred = _fit_predict(X, y, X)
    return 1.0 - np.sum((y - pred) ** 2) / np.sum((y - y.mean()) ** 2)


def make_task(rng, *, n_examples=500, n_alternatives=0, C=1.0) -> Task:
    """A random regression task and its oracle case (see the module docstring)."""
    while True:
        tree = random_expression(N_BASE, rng, ("+", "*", "sin", "exp"), 3, 0.3)
        sigmas = rng.uniform(0.5, 1.0, size=N_BASE)
        X = rng.normal(size=(n_examples, N_BASE)) * sigmas
        f = tree.evaluate(X)
        if not np.all(np.isfinite(f)) or np.abs(f).max() > 1e8 or np.ptp(f) < 1e-8:
            continue
        if _r2_base(X, f) >= 0.99:
            continue
        break
    y = f - f.min() + np.ptp(f)
    Xw = X
    if n_alternatives:
        a = rng.normal(size=n_alternatives)
        b = rng.uniform(0.5, 2.0, size=n_alternatives)
        Xw = np.hstack([X, a + b * X[:, [0]]])
    case = Case(
        weights=svm_feature_weights(Xw, y, C=C),
        sigmas=Xw.std(axis=0),
        features=tuple(oracle_features(tree)),
        name=str(tree),
    )
    return Task(tree, X, y, case)


def local_features(X, y, rng, *, n_pool=200, n_keep=1) -> list[Expr]:
    """A short local construction for the 2-phase query: greedy forward choice of ``n_keep`` of
    ``n_pool`` random trees (same generator), each step the one with the smallest training
    squared error of base + chosen + candidate."""
    pool = list({random_expression(N_BASE, rng): None for _ in range(n_pool)})
    chosen: list[Expr] = []
    for _ in range(n_keep):
        A = _design(X, chosen)
        best, best_sse = None, np.sum((y - _fit_predict(A, y, A)) ** 2)
        for e in pool:
            if e in chosen:
                continue
            A = _design(X, [*chosen, e])
            if A.shape[1] == N_BASE + len(chosen):
                continue  # invalid on these data
            sse = np.sum((y - _fit_predict(A, y, A)) ** 2)
            if sse < best_sse:
                best, best_sse = e, sse
        if best is None:
            break
        chosen.append(best)
    return chosen


def cv_errors(X, y, features, *, n_folds=10, seed=0):
    """10-fold CV of a linear regression on base + ``features``: (relative error, RMSE, RRSE)."""
    A = _design(X, features)
    n = len(y)
    folds = np.random.default_rng(seed).permutation(n) % n_folds
    pred = np.empty(n)
    for k in range(n_folds):
        test = folds == k
        pred[test] = _fit_predict(A[~test], y[~test], A[test])
    lo = np.minimum(pred, y)
    denom = np.where(lo > 0, lo, y)
    rel = float(np.mean(np.abs(y - pred) / denom))
    rmse = float(np.sqrt(np.mean((y - pred) ** 2)))
    return rel, rmse, rmse / float(y.std())


def run(
    sizes,
    n_test,
    *,
    seed=0,
    n_examples=500,
    n_alternatives=0,
    n_folds=10,
    n_candidates=20,
    construction_weight=50.0,
    n_samples=100,
    local_pool=200,
    n_local=1,
    log=print,
):
    """Rows ``(size, method, task, rel, rmse, rrse)`` for every case-base size and test task."""
    ss = np.random.SeedSequence(seed)
    case_seed, test_seed, query_seed = ss.spawn(3)
    t0 = time.perf_counter()
    rng = np.random.default_rng(case_seed)
    cases = [
        make_task(rng, n_examples=n_examples, n_alternatives=n_alternatives).case
        for _ in range(max(sizes))
    ]
    rng = np.random.default_rng(test_seed)
    tests = [
        make_task(rng, n_examples=n_examples, n_alternatives=n_alternatives) for _ in range(n_test)
    ]
    log(f"  {len(cases)} cases and {n_test} test tasks in {time.perf_counter() - t0:.1f} s")
    qrng = np.random.default_rng(query_seed)
    queries = []
    for t in tests:
        local = tuple(local_features(t.X, t.y, qrng, n_pool=local_pool, n_keep=n_local))
        queries.append(Case(t.case.weights, t.case.sigmas, local))
    rows = []
    for j, t in enumerate(tests):
        rel, rmse, rrse = cv_errors(t.X, t.y, [], n_folds=n_folds, seed=j)
        rows += [(s, "none", j, rel, rmse, rrse) for s in sizes]
    for size in sizes:
        base = CaseBase(cases[:size])
        for j, (t, q) in enumerate(zip(tests, queries, strict=True)):
            for method in METHODS[1:]:
                found = base.retrieve(
                    q,
                    method,
                    k=1,
                    n_candidates=n_candidates,
                    construction_weight=construction_weight,
                    n_samples=n_samples,
                    random_state=[seed, size, j],
                )
                rel, rmse, rrse = cv_errors(
                    t.X, t.y, union_features(found), n_folds=n_folds, seed=j
                )
                rows.append((size, method, j, rel, rmse, rrse))
        log(f"  case base {size}: done at {time.perf_counter() - t0:.1f} s")
    return rows


def summary(rows, metric="rel"):
    """``{size: {method: mean over test tasks}}``."""
    col = {"rel": 3, "rmse": 4, "rrse": 5}[metric]
    out: dict[int, dict[str, float]] = {}
    for r in rows:
        out.setdefault(r[0], {}).setdefault(r[1], []).append(r[col])
    return {s: {m: float(np.mean(v)) for m, v in d.items()} for s, d in out.items()}


def _fmt(v):
    return "inf" if v == INF else f"{v:.3f}"


def table(rows) -> str:
    rel, rmse, rrse = summary(rows, "rel"), summary(rows, "rmse"), summary(rows, "rrse")
    head = "".join(f"{LABELS[m]:>11}" for m in METHODS)
    lines = [
        "Average relative error |y - yhat| / min(yhat, y) (10-fold CV; thesis Table 10.2 below "
        "each row)",
        f"{'size':>6} {'':>9}{head}",
    ]
    for s in sorted(rel):
        lines.append(f"{s:>6} {'this run':>9}" + "".join(f"{_fmt(rel[s][m]):>11}" for m in METHODS))
        if s in PUBLISHED:
            pub = "".join(f"{_fmt(v):>11}" for v in PUBLISHED[s])
            lines.append(f"{'':>6} {'thesis':>9}{pub}")
    for name, d in (("RRSE (RMSE / sd(y))", rrse), ("RMSE", rmse)):
        lines += ["", f"{name}, this run", f"{'size':>6} {'':>9}{head}"]
        for s in sorted(d):
            lines.append(f"{s:>6} {'':>9}" + "".join(f"{_fmt(d[s][m]):>11}" for m in METHODS))
    return "\n".join(lines)


def paired(rows, a="two_phase", b="manhattan", metric="rrse"):
    """Per size: mean and standard error over the test tasks of ``metric(a) - metric(b)``."""
    col = {"rel": 3, "rmse": 4, "rrse": 5}[metric]
    by = {(r[0], r[1], r[2]): r[col] for r in rows}
    out = {}
    for s in sorted({r[0] for r in rows}):
        d = np.array([by[s, a, j] - by[s, b, j] for (s2, m, j) in by if s2 == s and m == a])
        out[s] = (float(d.mean()), float(d.std(ddof=1) / np.sqrt(d.size)) if d.size > 1 else 0.0)
    return out


def ordering(rows) -> dict[int, dict[str, bool]]:
    """Per size, the relations of Table 10.2's ordering on the mean relative error:
    2-Phase < Manhattan, Manhattan <= Euclidean, Euclidean < Random."""
    rel = summary(rows, "rel")
    return {
        s: {
            "2-Phase < Manhattan": d["two_phase"] < d["manhattan"],
            "Manhattan <= Euclidean": d["manhattan"] <= d["euclidean"],
            "Euclidean < Random": d["euclidean"] < d["random"],
        }
        for s, d in rel.items()
    }


def figure(rows, path: Path) -> Path:
    """Fig. 10.7 style: error against case-base size per method (this run's relative error and
    RRSE; the thesis's Table 10.2 in its own panel, since the targets differ)."""
    from matplotlib.figure import Figure

    colors = dict(zip(METHODS, ("C7", "C1", "C2", "C3", "C4"), strict=True))
    fig = Figure(figsize=(15, 4.8), layout="constrained")
    axes = fig.subplots(1, 3)
    for ax, metric, title in (
        (axes[0], "rel", "this run: average relative error"),
        (axes[2], "rrse", "this run: average RRSE (RMSE / sd(y))"),
    ):
        d = summary(rows, metric)
        sizes = sorted(d)
        for m in METHODS:
            ax.plot(sizes, [d[s][m] for s in sizes], "o-", color=colors[m], label=LABELS[m])
        ax.set_title(title)
    pub = sorted(PUBLISHED)
    for i, m in enumerate(METHODS):
        xs = [s for s in pub if np.isfinite(PUBLISHED[s][i])]
        if m in ("euclidean", "manhattan", "two_phase") and xs:
            ys = [PUBLISHED[s][i] for s in xs]
            axes[1].plot(xs, ys, "x--", color=colors[m], label=LABELS[m])
    axes[1].set_title("thesis, Table 10.2: average relative error")
    for ax in axes:
        ax.set_xlabel("number of cases in the case base")
        ax.legend(fontsize=8)
    axes[0].set_ylabel("10-fold CV error, mean over test tasks")
    fig.suptitle(
        "Case-based feature construction, k' = 1 (Mierswa 2009, Fig. 10.7); this run: oracle "
        "case base, see scripts/mo_transfer_table102.py"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    return path


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="two sizes, 60 test tasks (default)")
    mode.add_argument("--paper", action="store_true", help="sizes 50..1500, 241 test tasks")
    p.add_argument("--sizes", type=int, nargs="+", help="case-base sizes (overrides the mode)")
    p.add_argument("--n-test", type=int, help="number of test tasks (overrides the mode)")
    p.add_argument("--n-examples", type=int, default=500)
    p.add_argument("--alternatives", type=int, default=0, help="alternatives of X1 (weights)")
    p.add_argument("--folds", type=int, default=10)
    p.add_argument("--candidates", type=int, default=20, help="2-phase: phase-1 candidates k")
    p.add_argument("--construction-weight", type=float, default=50.0)
    p.add_argument("--samples", type=int, default=100, help="points per construction distance")
    p.add_argument("--local-pool", type=int, default=200, help="2-phase query: random trees")
    p.add_argument("--local-features", type=int, default=1, help="2-phase query: features kept")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--figure", default=str(FIGURE), help="output PNG ('' to skip)")
    a = p.parse_args(argv)
    sizes = a.sizes or ([50, 100, 250, 500, 1000, 1500] if a.paper else [50, 250])
    n_test = a.n_test or (241 if a.paper else 60)
    print(f"Table 10.2 run: sizes {sizes}, {n_test} test tasks, seed {a.seed}")
    rows = run(
        sizes,
        n_test,
        seed=a.seed,
        n_examples=a.n_examples,
        n_alternatives=a.alternatives,
        n_folds=a.folds,
        n_candidates=a.candidates,
        construction_weight=a.construction_weight,
        n_samples=a.samples,
        local_pool=a.local_pool,
        n_local=a.local_features,
    )
    print(table(rows))
    for size, rel in ordering(rows).items():
        print(
            f"ordering at {size}: "
            + ", ".join(f"{k}: {'yes' if v else 'no'}" for k, v in rel.items())
        )
    for metric in ("rel", "rrse"):
        diff = paired(rows, metric=metric)
        print(
            f"2-Phase minus Manhattan, {metric}, mean +- s.e. over test tasks: "
            + ", ".join(f"{s}: {m:+.3f} +- {e:.3f}" for s, (m, e) in diff.items())
        )
    if a.figure:
        print(f"figure: {figure(rows, Path(a.figure))}")
    return rows


if __name__ == "__main__":
    main()
