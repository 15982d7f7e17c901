"""MIRSVM ``keep="author"`` beside the author's own MATLAB code run under GNU Octave.

Usage::

    python scripts/bench/mirsvm_author_parity.py --author-code DIR
        [--datasets musk1 musk2_csv elephant fox tiger] [--C 0.1 10] [--folds 10]

``DIR`` holds the author's unedited ``DualTrain.m`` and ``DualTest.m`` (GitHub
melkiga/MultiInstanceLearning, commit fb6d759, ``current_code/``); they are not part of
svmlab. The helpers the code calls but does not ship are supplied here, as the code implies
them: ``GaussianKernel`` / ``grbf_fast`` as ``exp(-||x - c||^2 / (2 sigma^2))``, ``quadprog``
as a dense primal-dual interior point (Octave's active-set ``qp`` where it does not converge),
and ``randi`` replaying svmlab's initial representatives. Every fold is svmlab's
(bag-stratified, seed 0, z-scored on the training part, ``random_state`` = fold, sigma = 5).

Prints, per dataset and C, the pooled accuracy of the author's code and of svmlab, the test
bags they predict differently and the final representatives that differ. Without Octave or
without the author's files it says so and exits 0. docs/decisions/mil.md ("MIRSVM: the
author's output floor") holds the measured table.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import scipy.io
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from threadpoolctl import threadpool_limits

from svmlab.data.registry import load_dataset
from svmlab.estimators.mil import MIRSVMClassifier
from svmlab.evaluation.preprocessing import Preprocessor
from svmlab.evaluation.protocols import make_splits

DATASETS = ["musk1", "musk2_csv", "elephant", "fox", "tiger"]
SIGMA = 5.0

# The helpers DualTrain.m / DualTest.m call, written for this comparison.
HELPERS = {
    "GaussianKernel.m": """function K = GaussianKernel(A, B, sigma)
D = sum(A .^ 2, 2) + sum(B .^ 2, 2)' - 2 * (A * B');
K = exp(-max(D, 0) / (2 * sigma ^ 2));
end
""",
    "grbf_fast.m": """function K = grbf_fast(A, B, sigma)
K = GaussianKernel(A, B, sigma);
end
""",
    "randi.m": """function r = randi(imax, varargin)
global FIRST_REPS FIRST_POS
r = FIRST_REPS(FIRST_POS); FIRST_POS = FIRST_POS + 1;
if r < 1 || r > imax, error('replayed index %d outside 1..%d', r, imax); end
end
""",
    "quadprog.m": """function x = quadprog(H, f, A, b, Aeq, beq, LB, UB, x0, options)
H = 0.5 * (H + H'); a = Aeq'; u = UB; n = numel(f);
x = u / 2; s = u / 2; z = ones(n, 1); w = ones(n, 1); y = 0; done = false;
for k = 1:300
  rd = H * x + f - a * y - z + w; rp = a' * x - beq; mu = (x' * z + s' * w) / (2 * n);
  if norm(rd, inf) <= 1e-13 * max(1, norm(f, inf)) && abs(rp) <= 1e-13 * max(1, max(u)) ...
      && mu <= 1e-14
    done = true; break;
  end
  M = H + diag(z ./ x + w ./ s);
  if ~all(isfinite(M(:))), break; end  % a variable reached its bound: qp below
  [R, bad] = chol(M);  % M \\ r where rounding breaks chol
  if bad, solve = @(r) M \\ r; else, solve = @(r) R \\ (R' \\ r); end
  q = solve(a);
  [dx, dy, dz, dw] = newton(solve, q, a, rd, rp, x, s, z, w, -x .* z, -s .* w);
  t = min(ratio(x, dx, s, -dx), ratio(z, dz, w, dw));
  mu_aff = ((x + t * dx)' * (z + t * dz) + (s - t * dx)' * (w + t * dw)) / (2 * n);
  c = (mu_aff / mu) ^ 3 * mu;
  [dx, dy, dz, dw] = newton(solve, q, a, rd, rp, x, s, z, w, c - x .* z - dx .* dz, ...
                           c - s .* w + dx .* dw);
  t = min([1, 0.995 * ratio(x, dx, s, -dx), 0.995 * ratio(z, dz, w, dw)]);
  x = x + t * dx; s = s - t * dx; y = y + t * dy; z = z + t * dz; w = w + t * dw;
end
if done && all(isfinite(x))
  x = min(max(x, 0), u);
else
  x = qp(zeros(n, 1), H, f, Aeq, beq, LB, UB, struct('MaxIter', 100000));
end
end

function [dx, dy, dz, dw] = newton(solve, q, a, rd, rp, x, s, z, w, r1, r2)
p = solve(-rd + r1 ./ x - r2 ./ s);
dy = (-rp - a' * p) / (a' * q); dx = p + q * dy;
dz = (r1 - z .* dx) ./ x; dw = (r2 + w .* dx) ./ s;
end

function t = ratio(v1, d1, v2, d2)
t = min([1; -v1(d1 < 0) ./ d1(d1 < 0); -v2(d2 < 0) ./ d2(d2 < 0)]);
end
""",
    "run_fold.m": """function run_fold(infile, outfile)
global FIRST_REPS FIRST_POS
d = load(infile); res = struct();
for c = 1:numel(d.Cs)
  FIRST_REPS = d.first(:); FIRST_POS = 1;
  [alphay, bias, S] = DualTrain(d.Xtr, d.Ytr(:), d.Btr(:), d.Cs(c), d.sigma, [], d.Bsizes(:));
  nb = max(d.Bte); correct = zeros(nb, 1); XS = d.Xtr(S, :);
  for I = 1:nb
    m = d.Bte(:) == I; Yb = d.Yte(:); Bb = d.Bte(:);
    [TP, TN] = DualTest(d.Xte(m, :), XS, Yb(m), Bb(m), alphay, bias, d.sigma);
    correct(I) = TP + TN;
  end
  res.(sprintf('C%d', c)) = struct('S', S, 'correct', correct);
end
save('-v7', outfile, 'res');
end
""",
}


def training_folds(name: str, n_splits: int):
    """svmlab's bag-stratified folds (seed 0), z-scored on each training part."""
    ds = load_dataset(name)
    protocol = {"kind": "bag_stratified_kfold", "n_splits": 10}
    for split in list(make_splits(protocol, ds.task, ds.y, 0, ds.name))[:n_splits]:
        train, test = ds.subset(split.train), ds.subset(split.test)
        pre = Preprocessor("zscore").fit(train)
        yield split.fold, pre.transform(train), pre.transform(test)


def export_fold(path: Path, train, test, fold: int, Cs) -> None:
    """The fold as the author's code reads it: stacked instances, +-1 labels per instance,
    bag ids 1..n, bag sizes per instance, and the first representatives (1-based in-bag)."""
    sizes = np.array([len(b) for b in train.bags])
    positive = np.unique(train.y)[1]

    def sign(y):
        return np.where(np.asarray(y) == positive, 1.0, -1.0)

    test_sizes = np.array([len(b) for b in test.bags])
    draws = check_random_state(fold).random_sample(len(sizes))  # MIRSVM's own first draw
    first = np.minimum((draws * sizes).astype(np.intp), sizes - 1) + 1
    scipy.io.savemat(
        path,
        {
            "Xtr": np.vstack(train.bags),
            "Ytr": np.repeat(sign(train.y), sizes),
            "Btr": np.repeat(np.arange(1.0, len(sizes) + 1), sizes),
            "Bsizes": np.repeat(sizes, sizes).astype(float),
            "first": first.astype(float),
            "Xte": np.vstack(test.bags),
            "Yte": np.repeat(sign(test.y), test_sizes),
            "Bte": np.repeat(np.arange(1.0, len(test_sizes) + 1), test_sizes),
            "Cs": np.asarray(Cs, dtype=float),
            "sigma": SIGMA,
        },
    )


def run_author(octave: str, code: Path, work: Path, infile: Path) -> dict:
    """The author's code on one exported fold; ``{C index: {"S", "correct"}}``."""
    outfile = infile.with_suffix(".out.mat")
    script = f"addpath('{work}'); addpath('{code}'); run_fold('{infile}', '{outfile}');"
    subprocess.run(
        [octave, "--no-gui", "--quiet", "--eval", script],
        check=True,
        capture_output=True,
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},
    )
    return scipy.io.loadmat(outfile, simplify_cells=True)["res"]


def compare_dataset(name: str, Cs, n_splits: int, octave: str, code: Path, work: Path):
    """Per C: (author's correct bags, svmlab's, bags predicted differently, final
    representatives that differ, test bags)."""
    counts = {C: np.zeros(5, dtype=int) for C in Cs}
    for fold, train, test in training_folds(name, n_splits):
        infile = work / f"{name}_{fold}.mat"
        export_fold(infile, train, test, fold, Cs)
        author = run_author(octave, code, work, infile)
        starts = np.concatenate([[0], np.cumsum([len(b) for b in train.bags])[:-1]])
        for c, C in enumerate(Cs):
            ours = MIRSVMClassifier(C=C, sigma=SIGMA, keep="author", random_state=fold)
            with warnings.catch_warnings(), threadpool_limits(1):
                warnings.simplefilter("ignore", ConvergenceWarning)
                ours.fit(train.bags, train.y)
            ok_ours = ours.predict(test.bags) == np.asarray(test.y)
            ok_author = np.asarray(author[f"C{c + 1}"]["correct"]) > 0
            S_author = np.asarray(author[f"C{c + 1}"]["S"]).ravel() - 1
            counts[C] += [
                ok_author.sum(),
                ok_ours.sum(),
                np.sum(ok_author != ok_ours),
                np.sum(ours.representatives_ + starts != S_author),
                len(ok_ours),
            ]
    return counts


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--author-code", type=Path, help="folder with DualTrain.m, DualTest.m")
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--C", nargs="+", type=float, default=[0.1, 10.0])
    parser.add_argument("--folds", type=int, default=10, help="the first k of the 10 folds")
    args = parser.parse_args(argv)
    octave = shutil.which("octave-cli") or shutil.which("octave")
    code = args.author_code
    if octave is None:
        print("skipped: GNU Octave is not installed")
        return 0
    if code is None or not all((code / f).is_file() for f in ("DualTrain.m", "DualTest.m")):
        print("skipped: --author-code must name a folder with DualTrain.m and DualTest.m")
        return 0
    print(f"{'dataset':<10} {'C':>5} {'author':>7} {'svmlab':>7} {'bags differ':>11} "
          f"{'reps differ':>11}")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for file, text in HELPERS.items():
            (work / file).write_text(text)
        for name in args.datasets:
            counts = compare_dataset(name, args.C, args.folds, octave, code.resolve(), work)
            for C, (a, s, differ, reps, n) in counts.items():
                print(f"{name:<10} {C:>5g} {a / n:7.4f} {s / n:7.4f} {differ:>11} {reps:>11}")
                sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
