"""Helpers shared by MO-EvoSVM, the transductive SVMs and the RVM: kernel parameters, binary
labels, the semi-supervised ``y = -1`` convention and an exact box-constrained dual solver."""

from __future__ import annotations

import numpy as np
from numba import njit

from svmlab.estimators.evo._base import COMMON_CONSTRAINTS, KERNEL_PARAMS, KernelParamsMixin

__all__ = [
    "KERNEL_CONSTRAINTS",
    "KERNEL_PARAMS",
    "KernelParamsMixin",
    "UNLABELED",
    "binary_targets",
    "box_dual_ascent",
    "split_unlabeled",
]

UNLABELED = -1  # scikit-learn's semi-supervised marker (LabelSpreading, SelfTrainingClassifier)

KERNEL_CONSTRAINTS: dict = {k: COMMON_CONSTRAINTS[k] for k in ("kernel", *KERNEL_PARAMS)}


def _class_error(name: str, classes) -> ValueError:
    k = len(classes)
    shown = ", ".join(map(repr, list(classes)[:5]))
    return ValueError(
        f"Only binary classification is supported. {name} needs exactly 2 classes in y, "
        f"got {k} class{'es' if k != 1 else ''} ({shown}{', ...' if k > 5 else ''})"
    )


def binary_targets(y, name: str) -> tuple[np.ndarray, np.ndarray]:
    """``classes_`` (2 labels, sorted) and ``Y`` in {-1, +1} (``classes_[1]`` is +1)."""
    classes, idx = np.unique(y, return_inverse=True)
    if len(classes) != 2:
        raise _class_error(name, classes)
    return classes, np.where(idx == 1, 1.0, -1.0)


def split_unlabeled(
    y, name: str, *, allow_no_labels: bool = False, allow_no_unlabeled: bool = False
):
    """Split semi-supervised targets: rows with ``y == -1`` are unlabeled.

    Returns ``(classes, labeled_mask, Y_labeled)`` with ``Y_labeled`` in {-1, +1}. The labeled
    rows must hold exactly two classes (other than -1); with ``allow_no_labels`` there may
    be none at all (clustering), and then ``classes`` is ``[0, 1]``.
    """
    y = np.asarray(y)
    if y.dtype.kind in "fc" and not np.isfinite(y).all():
        raise ValueError(f"{name}: y contains NaN or infinity; mark unlabeled rows with -1")
    unl = (
        np.asarray(y == UNLABELED, dtype=bool)
        if y.dtype.kind in "iufcbO"
        else np.zeros(len(y), dtype=bool)
    )
    if not unl.any() and not allow_no_unlabeled:
        raise ValueError(
            f"{name} is transductive: it needs unlabeled rows, marked y = -1 (scikit-learn's "
            f"semi-supervised convention), but every row of y is labeled"
        )
    lab = ~unl
    if not lab.any():
        if allow_no_labels:
            return np.array([0, 1]), lab, np.empty(0)
        raise ValueError(
            f"{name} needs labeled rows of both classes; every row of y is -1 (unlabeled)"
        )
    classes, Y = binary_targets(y[lab], name)
    return classes, lab, Y


@njit(cache=True, nogil=True)
def _coordinate_ascent(Q, ub, tol, max_sweeps):
    n = Q.shape[0]
    a = np.zeros(n)
    g = np.zeros(n)  # Q a
    sweeps = 0
    for sweeps in range(1, max_sweeps + 1):
        moved = 0.0
        for i in range(n):
            qii = Q[i, i]
            if qii > 0.0:
                new = a[i] + (1.0 - g[i]) / qii
            else:  # flat or convex along this axis: the better end of the box
                up = ub[i] - a[i]
                down = -a[i]
                gain_up = up * (1.0 - g[i]) - 0.5 * qii * up * up
                gain_down = down * (1.0 - g[i]) - 0.5 * qii * down * down
                new = ub[i] if gain_up > gain_down else 0.0
            if new < 0.0:
                new = 0.0
            elif new > ub[i]:
                new = ub[i]
            d = new - a[i]
            if d != 0.0:
                for j in range(n):
                    g[j] += d * Q[i, j]
                a[i] = new
                if abs(d) > moved:
                    moved = abs(d)
        if moved <= tol:
            break
    return a, g, sweeps


def box_dual_ascent(Q: np.ndarray, ub: np.ndarray, tol: float = 1e-10, max_sweeps: int = 10_000):
    """Maximise ``1^T a - 1/2 a^T Q a`` over the box ``0 <= a <= ub`` by exact coordinate ascent.

    This is the b = 0 SVM dual (no equality constraint). For a positive semi-definite ``Q``
    the problem is concave and the ascent converges to the global maximum; for an indefinite
    one it stops at a coordinate-wise maximum. Returns ``(a, W, sweeps)``.
    """
    Q = np.ascontiguousarray(Q, dtype=np.float64)
    ub = np.ascontiguousarray(np.broadcast_to(np.asarray(ub, dtype=np.float64), (Q.shape[0],)))
    a, g, sweeps = _coordinate_ascent(Q, ub, float(tol), int(max_sweeps))
    return a, float(a.sum() - 0.5 * a @ g), int(sweeps)
