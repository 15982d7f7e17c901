"""Bergmann–Hommel adjusted p-values for all pairwise comparisons of k methods.

Among the m = k(k−1)/2 hypotheses "method i equals method j" only some subsets can be
true together: if A = B and B = C then A = C. The subsets that can be exactly the true
ones (García & Herrera (2008), §2.2, the "exhaustive sets") are the equality patterns
of a partition of the k methods into groups: the pairs inside a group are true, the
others false. There are Bell(k) − 1 of them (the partition into singletons gives the
empty set), 21,146 for k = 9.

Bergmann and Hommel's procedure rejects H_i when every exhaustive set I containing
H_i has min{p_j : j ∈ I} ≤ α/|I|, so the adjusted p-value of H_i is

    APV_i = min(1, max{|I| · min{p_j : j ∈ I} : I exhaustive, H_i ∈ I}),

García & Herrera's (2008) definition, ``"exhaustive"`` here and the default: APV_i ≤ α exactly
when the procedure rejects H_i at level α. It need not be monotone in the unadjusted p: on
the paper's 30 x 5 example, k-NN vs NaiveBayes gets 0.0303 while k-NN vs Kernel, with a
smaller unadjusted p, gets 0.0319. The ``"monotone"`` definition (scmamp's
``adjustBergmannHommel``) makes the adjusted values non-decreasing in the order of the
unadjusted ones, as a step-down procedure's are; it is never smaller, so it can reject less
(k-NN vs NaiveBayes: 0.0319). The sets are enumerated exactly (no sampling) up to
:data:`MAX_K` methods, the limit of scmamp's precomputed sets; beyond it the procedure is
refused.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

MAX_K = 9
#: The definitions of the adjusted p-value: García & Herrera's (2008) maximum over the
#: exhaustive sets (the default), and that maximum made non-decreasing in the unadjusted p.
DEFINITIONS = ("exhaustive", "monotone")


def partitions(k: int) -> np.ndarray:
    """Every partition of k labelled methods, as block labels (restricted growth strings).

    Returns
    -------
    ndarray of shape (Bell(k), k)
        Row r gives the block of each method in the r-th partition; method 0 is always
        in block 0 and a method opens block b only after blocks 0..b−1 are open.
    """
    rows: list[tuple[int, ...]] = []
    labels: list[int] = []

    def grow(n_blocks: int) -> None:
        if len(labels) == k:
            rows.append(tuple(labels))
            return
        for block in range(n_blocks + 1):
            labels.append(block)
            grow(max(n_blocks, block + 1))
            labels.pop()

    grow(0)
    return np.array(rows, dtype=np.int8).reshape(len(rows), k)


@lru_cache(maxsize=MAX_K + 1)
def exhaustive_sets(k: int) -> np.ndarray:
    """The exhaustive sets of the k(k−1)/2 pairwise hypotheses, computed once per k.

    Parameters
    ----------
    k : int
        Number of methods, 2 <= k <= :data:`MAX_K`.

    Returns
    -------
    ndarray of bool, shape (Bell(k) − 1, k(k−1)/2)
        Row s marks the hypotheses of the s-th set; the columns follow the pairs in
        ``numpy.triu_indices(k, 1)`` order: (0, 1), (0, 2), ..., (k−2, k−1).
        Read-only (it is shared by every call).
    """
    check_k(k)
    labels = partitions(k)
    first, second = np.triu_indices(k, 1)
    sets = labels[:, first] == labels[:, second]
    sets = sets[sets.any(axis=1)]
    sets.setflags(write=False)
    return sets


def check_k(k: int) -> None:
    """Refuse a number of methods the exact procedure is not offered for."""
    if not 2 <= k <= MAX_K:
        raise ValueError(
            f"Bergmann-Hommel is computed exactly for 2 to {MAX_K} methods (as in scmamp), "
            f"got k = {k}; use 'shaffer' for more methods"
        )


def check_definition(definition: str) -> None:
    """Refuse a definition of the adjusted p-value that is not one of :data:`DEFINITIONS`."""
    if definition not in DEFINITIONS:
        raise ValueError(
            f"the Bergmann-Hommel definition {definition!r} is not known; choose one of "
            f"{', '.join(DEFINITIONS)}"
        )


def bergmann_hommel(p, k: int, definition: str = "exhaustive") -> np.ndarray:
    """Bergmann–Hommel adjusted p-values of the k(k−1)/2 pairwise hypotheses.

    Parameters
    ----------
    p : array-like of length k(k−1)/2
        Unadjusted p-values in ``numpy.triu_indices(k, 1)`` pair order.
    k : int
        Number of methods (at most :data:`MAX_K`).
    definition : {"exhaustive", "monotone"}, default="exhaustive"
        ``"exhaustive"``: García & Herrera's (2008) adjusted p, the maximum over the
        exhaustive sets I containing the hypothesis of |I| · min p(I); it need not be
        monotone in ``p``. ``"monotone"``: those values made non-decreasing in the ascending
        order of ``p`` (ties keep the input order), as scmamp prints them.

    Returns
    -------
    ndarray
        Adjusted p-values in the same order, capped at 1.
    """
    p = np.asarray(p, dtype=float)
    check_k(k)
    check_definition(definition)
    m = k * (k - 1) // 2
    if p.shape != (m,):
        raise ValueError(
            f"Bergmann-Hommel needs the k(k-1)/2 = {m} pairwise p-values of k = {k} methods, "
            f"got {p.size}"
        )
    sets = exhaustive_sets(k)
    set_value = sets.sum(axis=1) * np.where(sets, p, np.inf).min(axis=1)
    worst = np.minimum(np.where(sets, set_value[:, None], -np.inf).max(axis=0), 1.0)
    if definition == "exhaustive":
        return worst
    order = np.argsort(p, kind="stable")
    out = np.empty(m)
    out[order] = np.maximum.accumulate(worst[order])
    return out
