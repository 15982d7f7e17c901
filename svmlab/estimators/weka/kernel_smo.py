"""Weka 3.6's ``MISMO$BinaryMISMO`` on a precomputed bag kernel, iterate for iterate.

:func:`weka_kernel_smo` trains the two-class machine of Weka 3.6.14's
``weka.classifiers.mi.MISMO`` given the bag kernel matrix: Platt's SMO with Keerthi et al.'s
(2001) two thresholds in Weka's arrangement, the same as :mod:`svmlab.estimators.weka.smo`'s
linear ``BinarySMO`` except where ``BinaryMISMO`` differs (read from the 3.6.14 classes):

* outputs are kernel sums ``sum_j y_j alpha_j K[i, j] - b`` over the support vectors in the
  order Weka's ``SMOset`` of support vectors visits them (last inserted first), not a weight
  vector;
* the rows are MISMO's training bags, those of class index 0 then those of class index 1
  (each in input order), shuffled by ``Instances.randomize`` with ``java.util.Random(-W)``
  (:func:`weka_bag_order`); every bag's box is ``C`` times its weight.

Stopping: no violating pair wider than ``2 L`` (``-L``); the bias is ``(b_low + b_up) / 2``.
With the same kernel matrix the iterate is Weka's up to the rounding of the kernel values
(Weka sums instance-pair dot products one by one).

Kept parallel: ``_take_step``, ``_examine`` and ``_smo_loop`` repeat
:mod:`svmlab.estimators.weka.smo`'s linear step, check and loop with the kernel matrix in place
of the weight vector; the ``eta >= 0`` end choice, the set-membership tests and the start are
shared. Sharing the rest as numba helpers (called or inlined) left every iterate bit-identical
but cost 2-7 % CPU per fit in these hot loops, so they stay written out in each module.

Speed (the same iterates, bit for bit): the step's helpers compile without numba's reference
counting (``loop_njit``) and are inlined into the sweep loop, Weka's linked sets are arrays
walked in Weka's order (:func:`_set_add`), and one pass over the unbounded rows updates their
errors and takes the thresholds (Weka makes two; the values and their order are the same):
6-8x fewer CPU seconds per step than written plainly.

References
----------
J. Platt. Fast training of support vector machines using sequential minimal optimization.
In Advances in Kernel Methods - Support Vector Learning, MIT Press, 1998.
S. S. Keerthi, S. K. Shevade, C. Bhattacharyya, K. R. K. Murthy. Improvements to Platt's SMO
algorithm for SVM classifier design. Neural Computation 13(3), 637-649, 2001.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from svmlab.estimators.weka.java_random import JavaRandom
from svmlab.estimators.weka.smo import (
    _DEL,
    _end_choice,
    _first_thresholds,
    _low_set,
    _up_set,
    loop_njit,
)

__all__ = ["weka_bag_order", "weka_kernel_smo"]

#: The step's helpers are inlined into the sweep loop (numba IR inlining; as calls they pass
#: every array's descriptor on each call: 1.5x the CPU per step, the same iterates).
_inlined = njit(cache=True, _nrt=False, inline="always")


def weka_bag_order(y, seed: int = 1) -> np.ndarray:
    """Positions of the training bags in the order MISMO's ``BinaryMISMO`` visits them.

    Parameters
    ----------
    y : array-like of shape (n_bags,)
        -1 for class index 0, +1 for class index 1.
    seed : int, default=1
        MISMO's ``-W``.

    Returns
    -------
    ndarray of shape (n_bags,)
        ``order[k]`` is the input position of the bag Weka holds at row ``k``.
    """
    y = np.asarray(y)
    rows = np.concatenate([np.flatnonzero(y < 0), np.flatnonzero(y > 0)])
    return rows[np.asarray(JavaRandom(seed).shuffled(len(rows)), dtype=np.intp)]


@_inlined
def _set_add(i, count, order, pos, member):
    """Weka's ``SMOset.insert``: ``i`` becomes the first element a walk visits.

    A set is ``(count, order, pos, member)``: its elements in insertion order in
    ``order[:count]``, walked backwards, which is the order of Weka's list (new elements
    at its head); ``pos[i]`` is ``i``'s place in ``order``. Walking an array in place of
    following links cut the CPU per step by about 15 %.
    """
    if member[i]:
        return
    c = count[0]
    order[c] = i
    pos[i] = c
    count[0] = c + 1
    member[i] = True


@_inlined
def _set_remove(i, count, order, pos, member):
    """Weka's ``SMOset.delete``: the others keep their order."""
    if not member[i]:
        return
    c = count[0] - 1
    for q in range(pos[i], c):
        j = order[q + 1]
        order[q] = j
        pos[j] = q
    count[0] = c
    member[i] = False


@_inlined
def _k(raw, cache, i, j):
    """Weka's cached ``eval(i, j)``: the first orientation of ``raw`` asked for is the one
    ``cache`` keeps for both. (Two arrays, not a tuple: a store through a tuple's array made
    every call about 15 times slower.)"""
    v = cache[i, j]
    if v != v:  # not cached yet (NaN)
        v = raw[i, j]
        cache[i, j] = v
        cache[j, i] = v
    return v


@_inlined
def _output(raw, cache, i, y, alpha, sv, b):
    """``SVMOutput``: ``sum y_j alpha_j K[i, j]`` over the support vectors in list order."""
    s = 0.0
    order = sv[1]
    for q in range(sv[0][0] - 1, -1, -1):
        j = order[q]
        v = cache[i, j]  # _k written out (see _errors_and_thresholds)
        if v != v:
            v = raw[i, j]
            cache[i, j] = v
            cache[j, i] = v
        s += y[j] * alpha[j] * v
    return s - b


@_inlined
def _set_membership(i, a, C, sv, i0):
    """Weka's set updates for one row after a step: support vectors, then I0."""
    if a > 0.0:
        _set_add(i, sv[0], sv[1], sv[2], sv[3])
    else:
        _set_remove(i, sv[0], sv[1], sv[2], sv[3])
    if a > 0.0 and a < C:
        _set_add(i, i0[0], i0[1], i0[2], i0[3])
    else:
        _set_remove(i, i0[0], i0[1], i0[2], i0[3])


@_inlined
def _new_alpha2(i1, i2, F1, F2, L, H, raw, cache, y, alpha, sv, eps):
    """The clipped optimum of ``alpha[i2]`` on the segment [L, H] (``takeStep``'s first half)."""
    alph1, alph2, y1, y2 = alpha[i1], alpha[i2], y[i1], y[i2]
    k11, k12, k22 = _k(raw, cache, i1, i1), _k(raw, cache, i1, i2), _k(raw, cache, i2, i2)
    eta = 2.0 * k12 - k11 - k22
    if eta < 0.0:
        a2 = alph2 - y2 * (F1 - F2) / eta
        return min(max(a2, L), H)
    v1 = _output(raw, cache, i1, y, alpha, sv, 0.0) - y1 * alph1 * k11 - y2 * alph2 * k12
    v2 = _output(raw, cache, i2, y, alpha, sv, 0.0) - y1 * alph1 * k12 - y2 * alph2 * k22
    return _end_choice(alph1, alph2, y1, y2, k11, k12, k22, v1, v2, L, H, eps)


@_inlined
def _errors_and_thresholds(i1, i2, d1, d2, raw, cache, y, alpha, box, errors, i0, th, ti):
    """After a step: the error cache of the unbounded rows and of ``i1``, ``i2``, then
    ``b_up``/``b_low`` from the unbounded rows (list order) and ``i1``, ``i2``.

    One pass over the list: a row's error is final once updated, so comparing it right away
    gives Weka's two passes' thresholds (the same entries, in the same order).
    """
    k11, k12, k22 = cache[i1, i1], cache[i1, i2], cache[i2, i2]  # cached by the step
    b_up, b_low = 1.7976931348623157e308, -1.7976931348623157e308
    i_up, i_low = -1, -1
    done1, done2 = False, False
    # the cache lookups written out: as calls (even inlined) this loop ran ~15x slower
    order = i0[1]
    for q in range(i0[0][0] - 1, -1, -1):
        i = order[q]
        if i == i1:
            errors[i1] += d1 * k11 + d2 * k12
            done1 = True
        elif i == i2:
            errors[i2] += d1 * k12 + d2 * k22
            done2 = True
        else:
            u = cache[i1, i]
            if u != u:
                u = raw[i1, i]
                cache[i1, i] = u
                cache[i, i1] = u
            v = cache[i2, i]
            if v != v:
                v = raw[i2, i]
                cache[i2, i] = v
                cache[i, i2] = v
            errors[i] += d1 * u + d2 * v
        e = errors[i]
        if e < b_up:
            b_up, i_up = e, i
        if e > b_low:
            b_low, i_low = e, i
    if not done1:
        errors[i1] += d1 * k11 + d2 * k12
    if not done2:
        errors[i2] += d1 * k12 + d2 * k22
    for j in (i1, i2):
        if not i0[3][j]:
            if _low_set(j, y, alpha, box, i0[3]):
                if errors[j] > b_low:
                    b_low, i_low = errors[j], j
            elif errors[j] < b_up:
                b_up, i_up = errors[j], j
    if i_low == -1 or i_up == -1:
        raise RuntimeError("Weka MISMO: no threshold index (Weka fails here too)")
    th[0], th[1] = b_up, b_low
    ti[0], ti[1] = i_up, i_low


@_inlined
def _take_step(i1, i2, F2, raw, cache, y, box, alpha, errors, sv, i0, th, ti, eps):
    """``BinaryMISMO.takeStep``: the joint step of rows ``i1``, ``i2``; True if it moved."""
    if i1 == i2:
        return False
    C1, C2 = box[i1], box[i2]
    alph1, alph2, y1, y2 = alpha[i1], alpha[i2], y[i1], y[i2]
    if y1 != y2:
        L, H = max(0.0, alph2 - alph1), min(C2, C1 + alph2 - alph1)
    else:
        L, H = max(0.0, alph1 + alph2 - C1), min(C2, alph1 + alph2)
    if L >= H:
        return False
    a2 = _new_alpha2(i1, i2, errors[i1], F2, L, H, raw, cache, y, alpha, sv, eps)
    if abs(a2 - alph2) < eps * (a2 + alph2 + eps):
        return False
    if a2 > C2 - _DEL * C2:
        a2 = C2
    elif a2 <= _DEL * C2:
        a2 = 0.0
    a1 = alph1 + y1 * y2 * (alph2 - a2)
    if a1 > C1 - _DEL * C1:
        a1 = C1
    elif a1 <= _DEL * C1:
        a1 = 0.0
    _set_membership(i1, a1, C1, sv, i0)
    _set_membership(i2, a2, C2, sv, i0)
    d1, d2 = y1 * (a1 - alph1), y2 * (a2 - alph2)
    alpha[i1], alpha[i2] = a1, a2
    _errors_and_thresholds(i1, i2, d1, d2, raw, cache, y, alpha, box, errors, i0, th, ti)
    ti[2] += 1
    return True


@_inlined
def _examine(i2, raw, cache, y, box, alpha, errors, sv, i0, th, ti, tol, eps):
    """``BinaryMISMO.examineExample``: check row ``i2``'s optimality, step if violated."""
    member = i0[3]
    if member[i2]:
        F2 = errors[i2]
    else:
        F2 = _output(raw, cache, i2, y, alpha, sv, 0.0) - y[i2]
        errors[i2] = F2
        if _up_set(i2, y, alpha, box, member) and F2 < th[0]:
            th[0], ti[0] = F2, i2
        elif _low_set(i2, y, alpha, box, member) and F2 > th[1]:
            th[1], ti[1] = F2, i2
    optimal, i1 = True, -1
    if (member[i2] or _up_set(i2, y, alpha, box, member)) and th[1] - F2 > 2.0 * tol:
        optimal, i1 = False, ti[1]
    if (member[i2] or _low_set(i2, y, alpha, box, member)) and F2 - th[0] > 2.0 * tol:
        optimal, i1 = False, ti[0]
    if optimal:
        return False
    if member[i2]:
        i1 = ti[1] if th[1] - F2 > F2 - th[0] else ti[0]
    return _take_step(i1, i2, F2, raw, cache, y, box, alpha, errors, sv, i0, th, ti, eps)


def _empty_list(n):
    """An empty ``SMOset`` (:func:`_set_add`): (count, order, pos, member)."""
    return (np.array([0]), np.full(n, -1), np.full(n, -1), np.zeros(n, dtype=np.bool_))


@loop_njit
def _sweeps(raw, cache, y, box, tol, eps, sv, i0, alpha, errors, th, ti):
    """``buildClassifier``'s main loop: sweeps over all rows, then over the unbounded ones
    until none changes; returns the number of sweeps."""
    n = raw.shape[0]
    n_changed, examine_all, sweeps = 0, True, 0
    while n_changed > 0 or examine_all:
        n_changed, sweeps = 0, sweeps + 1
        for i in range(n):
            if not examine_all and not (alpha[i] > 0.0 and alpha[i] < box[i]):
                continue
            if _examine(i, raw, cache, y, box, alpha, errors, sv, i0, th, ti, tol, eps):
                n_changed += 1
            if not examine_all and th[0] > th[1] - 2.0 * tol:
                n_changed = 0
                break
        if examine_all:
            examine_all = False
        elif n_changed == 0:
            examine_all = True
    return sweeps


@njit(cache=True)
def _smo_loop(raw, cache, y, box, tol, eps, sv, i0):
    n = raw.shape[0]
    alpha, errors = np.zeros(n), np.zeros(n)
    i_up, i_low = _first_thresholds(y, errors)
    th = np.array([-1.0, 1.0])  # b_up, b_low
    ti = np.array([i_up, i_low, 0])  # i_up, i_low, successful pair steps
    sweeps = _sweeps(raw, cache, y, box, tol, eps, sv, i0, alpha, errors, th, ti)
    return alpha, th[0], th[1], ti[2], sweeps


def weka_kernel_smo(K, y, box, tol: float = 1e-3, eps: float = 1e-12):
    """Train ``BinaryMISMO`` on the kernel matrix of rows already in Weka's order.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Kernel matrix of the rows; ``K[i, j]`` is Weka's ``evaluate(i, j)`` (row outer). If
        it is not symmetric, the entry Weka's SMO asks for first is used for both
        ``(i, j)`` and ``(j, i)``, as Weka's kernel cache does.
    y : ndarray of shape (n,)
        -1 / +1, both present.
    box : ndarray of shape (n,)
        ``C`` times each row's weight.
    tol : float, default=1e-3
        Weka's ``-L``: stop when no pair violates by more than ``2 tol``.
    eps : float, default=1e-12
        Weka's ``-P`` round-off epsilon.

    Returns
    -------
    alpha : ndarray of shape (n,)
    b : float
        Weka's threshold: the output is ``sum_j y_j alpha_j K[x, j] - b``.
    support : ndarray of int
        The support vectors in the order Weka sums over them.
    info : dict
        ``n_steps`` (pair steps that moved), ``n_sweeps``, ``gap`` (``b_low - b_up`` at the
        end: at most ``2 tol``).
    """
    n = K.shape[0]
    raw = np.ascontiguousarray(K, dtype=np.float64)
    cache = np.full_like(raw, np.nan)
    y = np.ascontiguousarray(y, dtype=np.float64)
    box = np.ascontiguousarray(box, dtype=np.float64)
    sv, i0 = _empty_list(n), _empty_list(n)
    alpha, b_up, b_low, steps, sweeps = _smo_loop(
        raw, cache, y, box, float(tol), float(eps), sv, i0
    )
    support = [int(sv[1][q]) for q in range(int(sv[0][0]) - 1, -1, -1)]
    info = {"n_steps": int(steps), "n_sweeps": int(sweeps), "gap": float(b_low - b_up)}
    return alpha, float((b_low + b_up) / 2.0), np.asarray(support, dtype=np.intp), info
