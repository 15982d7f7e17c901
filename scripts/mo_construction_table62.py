"""Reproduce Table 6.2 and Figs. 6.3-6.8 of Mierswa (2009), Sec. 6.5: multi-objective feature
construction on ``f(X) = 3 X1^3 - X1^2 + 1000/|X1| + 2000 |X1| + eps``.

Data (Sec. 6.5): X1 ~ U[-20, 25], a noise feature X2 ~ N(0, 1), n = 500; the "2 % label noise"
is read as eps ~ N(0, (0.02 |f(X1)|)^2) (the registry's ``mierswa_fx``; see
docs/decisions/mo_features.md). The rows are split once, 70 % / 30 % (seeded): every method is
fitted on the 70 % and its squared error measured on the 30 %.

* **MO feature construction** (:class:`svmlab.construction.YAGGAFeatureConstructor`): inner
  learner linear regression, fitness on a fixed single hold-out split of the training part
  (Sec. 6.5), generators multiplication, reciprocal, sin, cos and exp. Its Pareto front
  (validation MSE) is printed beside the published Table 6.2 with each member's test MSE
  (linear regression refitted on the whole training part).
* **The published Table 6.2 sets** refitted by linear regression on this data.
* **RBF epsilon-SVR baselines** (Figs. 6.4-6.6; scikit-learn ``SVR``, X standardised, labels in
  their own units): with X2, without X2 (the selection step of Fig. 6.5) and with C = 1e8
  (Fig. 6.6). The thesis gives no C for the first two; we use Cherkassky and Ma's (2004) rule
  ``C = max(|mean(y) + 3 sd(y)|, |mean(y) - 3 sd(y)|)``. The C = 1e8 fit is capped by
  ``max_iter`` (the thesis's run took about 10 minutes); a capped fit is marked.

Figures: ``construction_front.png`` (Fig. 6.8: x = -squared error, y = -#features) and
``construction_fit.png`` (Figs. 6.3-6.7: the data and the predictions of every model).

Usage::

    python scripts/mo_construction_table62.py            # --quick: a few seconds
    python scripts/mo_construction_table62.py --paper    # larger population, more generations
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVR

from svmlab.construction import YAGGAFeatureConstructor, apply, var
from svmlab.construction.yagga import THESIS_GENERATORS
from svmlab.data import load_dataset
from svmlab.data.feature_sets import fx_target
from svmlab.paths import REPO_ROOT

#: Table 6.2 of Mierswa (2009): the feature sets on the Pareto front of Fig. 6.8.
X1 = var(0)
_SQ = apply("*", X1, X1)
_CUBE = apply("*", _SQ, X1)
TABLE_6_2 = [
    (X1,),
    (X1, _SQ),
    (X1, _SQ, _CUBE),
    (X1, _SQ, _CUBE, apply("reciprocal", _SQ)),
    (X1, _SQ, _CUBE, apply("reciprocal", _SQ), apply("*", _SQ, _SQ)),
]

PROFILES = {
    "quick": {"population_size": 20, "max_generations": 100, "svr_max_iter": 200_000},
    "paper": {"population_size": 50, "max_generations": 1000, "svr_max_iter": 20_000_000},
}


def load_fx(n_samples: int, seed: int):
    """``(X, y, f)`` of the Sec. 6.5 data: the registry's ``mierswa_fx`` (relative noise
    ``0.02 |f|``); ``f`` is the noise-free target."""
    ds = load_dataset("mierswa_fx", {"n_samples": n_samples, "random_state": seed})
    return ds.X, ds.y, np.asarray(ds.meta["f"])


def _power(e):
    """``(base index, exponent)`` when ``e`` is a power of one base feature, else None."""
    if e.op is None:
        return e.index, 1
    if e.op == "reciprocal":
        p = _power(e.args[0])
        return None if p is None else (p[0], -p[1])
    if e.op == "*":
        parts = [_power(a) for a in e.args]
        if all(p is not None for p in parts) and len({p[0] for p in parts}) == 1:
            return parts[0][0], sum(p[1] for p in parts)
    return None


def notation(e) -> str:
    """The thesis's notation for powers of one feature (``X1^3``, ``1/X1^2``), else str."""
    p = _power(e)
    if p is None:
        return str(e)
    name = f"X{p[0] + 1}"
    k = abs(p[1])
    body = name if k == 1 else f"{name}^{k}"
    return body if p[1] > 0 else f"1/{body}"


def set_notation(features) -> str:
    return "; ".join(notation(e) for e in features)


def lr_test_mse(features, X_tr, y_tr, X_te, y_te):
    Z_tr = np.column_stack([e.evaluate(X_tr) for e in features])
    Z_te = np.column_stack([e.evaluate(X_te) for e in features])
    model = LinearRegression().fit(Z_tr, y_tr)
    pred = model.predict(Z_te)
    return float(np.mean((pred - y_te) ** 2)), model


def svr_baselines(X_tr, y_tr, X_te, y_te, max_iter):
    C = float(max(abs(y_tr.mean() + 3 * y_tr.std()), abs(y_tr.mean() - 3 * y_tr.std())))
    rows = []
    for label, cols, c, cap in [
        ("SVR (RBF) with X2 (Fig. 6.4)", [0, 1], C, -1),
        ("SVR (RBF) without X2 (Fig. 6.5)", [0], C, -1),
        ("SVR (RBF) without X2, C = 1e8 (Fig. 6.6)", [0], 1e8, max_iter),
    ]:
        model = make_pipeline(StandardScaler(), SVR(kernel="rbf", C=c, max_iter=cap))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            start = time.perf_counter()
            model.fit(X_tr[:, cols], y_tr)
            seconds = time.perf_counter() - start
        capped = any(issubclass(w.category, ConvergenceWarning) for w in caught)
        pred = model.predict(X_te[:, cols])
        rows.append(
            {
                "label": label,
                "C": c,
                "mse": float(np.mean((pred - y_te) ** 2)),
                "seconds": seconds,
                "capped": capped,
                "max_iter": cap,
                "predict": (lambda m, cs: lambda X: m.predict(X[:, cs]))(model, cols),
            }
        )
    return rows


def figure_front(front, path: Path, title: str):
    """Fig. 6.8: x = -squared error, y = -#features (both maximised); the sets listed beside."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, box) = plt.subplots(1, 2, figsize=(12, 4.8), gridspec_kw={"width_ratios": [1.1, 1.0]})
    x, y = -front["error"].to_numpy(), -front["n_features"].to_numpy()
    ax.plot(x, y, "o-", color="tab:blue")
    for xi, yi in zip(x, y, strict=True):
        ax.annotate(f"{-yi}", (xi, yi), textcoords="offset points", xytext=(-8, 4), fontsize=8)
    ax.set_xlabel("- squared error (hold-out validation)")
    ax.set_ylabel("- number of features")
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    box.axis("off")
    lines = [
        f"{nf}: {feats}  (MSE {err:.3g})"
        for nf, feats, err in zip(
            front["n_features"], front["notation"], front["error"], strict=True
        )
    ]
    box.text(
        0.0,
        1.0,
        "\n".join(lines),
        va="top",
        ha="left",
        fontsize=7.5,
        wrap=True,
        family="monospace",
        transform=box.transAxes,
    )
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def figure_fit(X, y, X_te, y_te, panels, path: Path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 3, figsize=(13, 7), sharex=True, sharey=True)
    axes = axes.ravel()
    axes[0].scatter(X[:, 0], y, s=4, color="0.3")
    grid = np.linspace(-20, 25, 2000)
    axes[0].plot(grid, fx_target(grid), color="tab:red", lw=0.8)
    axes[0].set_title("Fig. 6.3: data (label vs X1), f in red", fontsize=9)
    order = np.argsort(X_te[:, 0])
    for ax, (title, pred) in zip(axes[1:], panels, strict=False):
        ax.scatter(X_te[:, 0], y_te, s=4, color="0.75", label="test labels")
        ax.plot(X_te[order, 0], pred[order], ".", ms=3, color="tab:blue", label="prediction")
        ax.set_title(title, fontsize=9)
    for ax in axes[len(panels) + 1 :]:
        ax.axis("off")
    for ax in axes:
        ax.set_ylim(np.min(y) - 5000, np.max(y) + 5000)
    axes[1].legend(fontsize=7, loc="upper left")
    fig.supxlabel("X1")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="few-seconds settings (default)")
    mode.add_argument("--paper", action="store_true", help="larger population, more generations")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-samples", type=int, default=500)
    ap.add_argument("--population", type=int, help="override the profile's population size")
    ap.add_argument("--generations", type=int, help="override the profile's generations")
    ap.add_argument("--svr-max-iter", type=int, help="cap of the C = 1e8 SVR (libsvm iterations)")
    ap.add_argument(
        "--out",
        type=Path,
        default=REPO_ROOT / "docs" / "figures" / "mo_features",
        help="folder of construction_front.png and construction_fit.png",
    )
    ap.add_argument("--no-figures", action="store_true")
    args = ap.parse_args(argv)
    profile = dict(PROFILES["paper" if args.paper else "quick"])
    if args.population is not None:
        profile["population_size"] = args.population
    if args.generations is not None:
        profile["max_generations"] = args.generations
    if args.svr_max_iter is not None:
        profile["svr_max_iter"] = args.svr_max_iter

    X, y, f = load_fx(args.n_samples, args.seed)
    tr, te = train_test_split(np.arange(len(y)), test_size=0.3, random_state=args.seed)
    X_tr, X_te, y_tr, y_te = X[tr], X[te], y[tr], y[te]

    yagga = YAGGAFeatureConstructor(
        estimator=LinearRegression(),
        generators=THESIS_GENERATORS,
        validation="holdout",
        population_size=profile["population_size"],
        max_generations=profile["max_generations"],
        random_state=args.seed,
    ).fit(X_tr, y_tr)
    front = yagga.pareto_front_.copy()
    front["notation"] = [set_notation(s) for s in yagga.pareto_expressions_]
    front["test_mse"] = [
        lr_test_mse(s, X_tr, y_tr, X_te, y_te)[0] for s in yagga.pareto_expressions_
    ]
    info = yagga.fit_info_

    print(f"Mierswa (2009) Sec. 6.5 data (registry: mierswa_fx): n = {len(y)}, seed {args.seed}")
    print(
        f"MO feature construction: population {profile['population_size']}, "
        f"{profile['max_generations']} generations, hold-out 30 % of the {len(tr)} training "
        f"rows, generators {', '.join(THESIS_GENERATORS)}; fit {info['seconds']:.2f} s, "
        f"{info['evaluations']} evaluations, {info['cache_hits']} cache hits"
    )
    print()
    print("Table 6.2 (published front of Fig. 6.8) beside this run's Pareto front")
    head = (
        f"{'nf':>3}  {'Table 6.2 feature set':<34} {'this run':<44} "
        f"{'val. MSE':>10} {'test MSE':>10}"
    )
    print(head)
    print("-" * len(head))
    by_nf = {int(r.n_features): r for r in front.itertuples()}
    for nf in sorted(set(range(1, 6)) | set(by_nf)):
        pub = set_notation(TABLE_6_2[nf - 1]) if nf <= 5 else "-"
        r = by_nf.get(nf)
        ours = r.notation if r is not None else "(none)"
        val = f"{r.error:10.3g}" if r is not None else f"{'-':>10}"
        tst = f"{r.test_mse:10.3g}" if r is not None else f"{'-':>10}"
        print(f"{nf:>3}  {pub:<34} {ours:<44} {val} {tst}")
    print()
    print("The published Table 6.2 sets, linear regression refitted on this data")
    for s in TABLE_6_2:
        print(f"  {set_notation(s):<34} test MSE {lr_test_mse(s, X_tr, y_tr, X_te, y_te)[0]:10.3g}")
    chosen_mse, chosen_model = lr_test_mse(yagga.features_, X_tr, y_tr, X_te, y_te)
    print()
    print("Baselines and the chosen member (train 70 % -> test 30 %)")
    rows = svr_baselines(X_tr, y_tr, X_te, y_te, profile["svr_max_iter"])
    for r in rows:
        cap = (
            f"  capped at max_iter = {r['max_iter']:,} (not converged)"
            if r["capped"]
            else ("" if r["max_iter"] < 0 else f"  max_iter = {r['max_iter']:,}, converged")
        )
        print(
            f"  {r['label']:<44} C = {r['C']:<9.3g} test MSE {r['mse']:10.3g}  "
            f"fit {r['seconds']:6.2f} s{cap}"
        )
    print(
        f"  {'MO construction, chosen member (Fig. 6.7)':<44} {'':<13}test MSE {chosen_mse:10.3g}  "
        f"fit {info['seconds']:6.2f} s (whole search)  [{set_notation(yagga.features_)}]"
    )
    noise = float(np.mean((y_te - f[te]) ** 2))
    print(f"  {'noise on the test rows, mean eps^2':<44} {'':<13}         {noise:10.3g}")

    if not args.no_figures:
        title = (
            f"Fig. 6.8 analogue: Pareto front (seed {args.seed}, population "
            f"{profile['population_size']}, {profile['max_generations']} generations)"
        )
        figure_front(front, args.out / "construction_front.png", title)
        Z_te = np.column_stack([e.evaluate(X_te) for e in yagga.features_])
        panels = [
            (f"Fig. 6.{4 + i}: {r['label'].split(' (Fig')[0]}", r["predict"](X_te))
            for i, r in enumerate(rows)
        ]
        panels.append(
            ("Fig. 6.7: linear regression on the constructed features", chosen_model.predict(Z_te))
        )
        figure_fit(X, y, X_te, y_te, panels, args.out / "construction_fit.png")
        print(
            f"\nfigures: {args.out / 'construction_front.png'}, {args.out / 'construction_fit.png'}"
        )
    return front


if __name__ == "__main__":
    main()
