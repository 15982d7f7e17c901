"""Search operators of the multi-objective feature construction (Mierswa (2009), Ch. 6,
Secs. 6.4.1-6.4.3): intron-free construction, the combined probabilistic ("generating")
mutation and variable-length crossover without duplicated features (Fig. 6.2).

An individual is a tuple of :class:`~svmlab.construction.expressions.Expr` (a feature set of
variable length, Sec. 6.4.1), never holding the same feature twice (same canonical form).
"""

from __future__ import annotations

from svmlab.construction.expressions import OPERATORS, apply
from svmlab.construction.space import FeatureSpace

__all__ = [
    "MAX_TRIES",
    "construct",
    "crossover",
    "generating_mutation",
    "is_structural_intron",
    "one_point_crossover",
    "uniform_crossover",
]

#: Draws of a generator and its operands before a construction gives up (all were introns).
MAX_TRIES = 10

#: Binary operators that give an intron when both operands are the same feature: a weighted
#: duplicate (``X + X``, Sec. 6.4.2), a constant (``X - X``, ``X / X``) or the feature itself.
_SAME_OPERAND_INTRONS = frozenset({"+", "-", "/", "min", "max"})
#: Unary operators undone or repeated without effect by the operator of their operand.
_UNDOES = {
    "reciprocal": {"reciprocal"},
    "exp": {"log"},
    "log": {"exp"},
    "abs": {"abs"},
}


def is_structural_intron(op_name: str, args) -> bool:
    """Whether ``op_name(*args)`` is an intron by its structure alone (Sec. 6.4.2).

    Introns are the weighted duplicate ``X + X``, the constants ``X - X`` and ``X / X``, the
    identities ``min(X, X)`` / ``max(X, X)``, and a unary operator applied to its own inverse or
    repeated to no effect (``1/(1/X)``, ``exp(log X)``, ``log(exp X)``, ``abs(abs X)``).
    Commutative duplicates (``X2 * X1`` beside ``X1 * X2``) are caught by the canonical form
    (:attr:`Expr.canonical`), features already present by :func:`construct`.
    """
    if len(args) == 2 and args[0] == args[1] and op_name in _SAME_OPERAND_INTRONS:
        return True
    return len(args) == 1 and args[0].op in _UNDOES.get(op_name, ())


def construct(features: tuple, generators, space: FeatureSpace, rng) -> tuple:
    """The construction mutation (Sec. 6.4.1.1) with intron prevention (Sec. 6.4.2).

    A generator is drawn uniformly from ``generators`` and its operands uniformly (with
    replacement) from ``features``. The candidate is rejected when it is a structural intron,
    already present, invalid or constant on the data (:meth:`FeatureSpace.valid`), or when the
    sampling check finds an equivalent feature in the set that is at most as complex; an
    equivalent present feature that is *more* complex is replaced by the candidate
    (Sec. 6.4.2.1). A candidate equivalent to an original feature becomes that original.
    Up to :data:`MAX_TRIES` candidates are drawn.

    Returns
    -------
    tuple of Expr
        The new feature set, or ``features`` itself when every try was rejected.
    """
    if not features:
        return features
    for _ in range(MAX_TRIES):
        name = generators[rng.randint(len(generators))]
        args = tuple(features[rng.randint(len(features))] for _ in range(OPERATORS[name].arity))
        if is_structural_intron(name, args):
            continue
        cand = apply(name, *args)
        if cand in features or not space.valid(cand):
            continue
        for orig in space.originals:  # equivalent to an original: the original is simpler
            if space.equivalent(cand, orig):
                cand = orig
                break
        out = _insert(features, cand, space)
        if out is not None:
            return out
    return features


def _insert(features: tuple, cand, space: FeatureSpace):
    """``features`` plus ``cand`` under the sampling check (Sec. 6.4.2.1), or None when the set
    already holds ``cand`` or an equivalent feature at most as complex; equivalent features that
    are more complex than ``cand`` are replaced by it."""
    if cand in features:
        return None
    twins = [f for f in features if space.equivalent(cand, f)]
    if any(f.size <= cand.size for f in twins):
        return None
    return tuple(f for f in features if f not in twins) + (cand,)


def generating_mutation(features, generators, space: FeatureSpace, rng, mode="balanced", p=None):
    """The combined probabilistic mutation of Sec. 6.4.3.

    ``p`` is the basic mutation probability, ``1 / nf`` by default (``nf = len(features)``).

    ``mode="balanced"`` (default) -- the reading that keeps the expected size, which the
    thesis states as the intent (the printed probabilities exceed 1 for ``p < 1/4``): with
    probability ``p/4`` one of the ``o`` usable original features
    (:attr:`FeatureSpace.originals`), drawn uniformly, is added (nothing when it or an
    equivalent feature is already present); with probability ``p/4`` one feature is
    constructed (:func:`construct`); each of the ``nf`` features of the parent is removed with
    probability ``p/(2 nf)``. Expected additions ``p/2`` = expected removals.

    ``mode="rapidminer"`` -- the reading of RapidMiner's YAGGA2 mutation: the same two
    additions with probability ``p/4`` each, then every feature (new ones included) is removed
    with probability ``k p / (4 o)``, ``k = 2`` when a feature was constructed and 1 otherwise.

    Returns
    -------
    tuple of Expr
        The mutated set (possibly empty; the caller drops empty sets).
    """
    nf = len(features)
    if nf == 0:
        return features
    p = 1.0 / nf if p is None else float(p)
    originals = space.originals
    o = len(originals)
    out = tuple(features)
    if rng.random_sample() < p / 4:
        out = _insert(out, originals[rng.randint(o)], space) or out
    constructed = False
    if rng.random_sample() < p / 4:
        new = construct(out, generators, space, rng)
        constructed = new is not out
        out = new
    if mode == "balanced":
        parent = set(features)
        drop = {f for f in features if rng.random_sample() < p / (2 * nf)}
        return tuple(f for f in out if f not in drop or f not in parent)
    q = (2 if constructed else 1) * p / (4 * o)
    return tuple(f for f in out if rng.random_sample() >= q)


def _unique(features) -> tuple:
    return tuple(dict.fromkeys(features))


def uniform_crossover(a: tuple, b: tuple, rng) -> tuple[tuple, tuple]:
    """Variable-length uniform crossover (Sec. 6.4.1.2): every feature of either parent moves
    to the other child with probability 1/2; a feature the receiving child already has is not
    added twice."""
    move_a = [rng.random_sample() < 0.5 for _ in a]
    move_b = [rng.random_sample() < 0.5 for _ in b]
    child_a = [f for f, m in zip(a, move_a, strict=True) if not m]
    child_b = [f for f, m in zip(b, move_b, strict=True) if not m]
    child_a += [f for f, m in zip(b, move_b, strict=True) if m]
    child_b += [f for f, m in zip(a, move_a, strict=True) if m]
    return _unique(child_a), _unique(child_b)


def one_point_crossover(a: tuple, b: tuple, rng) -> tuple[tuple, tuple]:
    """Variable-length one-point crossover (Fig. 6.2): one cut position ``c`` in
    ``1 .. max(len) - 1``, the tails after it swapped (a parent shorter than ``c`` gives an
    empty tail); repeated features are kept once."""
    n = max(len(a), len(b))
    if n < 2:
        return tuple(a), tuple(b)
    c = 1 + rng.randint(n - 1)
    return _unique(a[:c] + b[c:]), _unique(b[:c] + a[c:])


def crossover(kind: str, a: tuple, b: tuple, rng) -> tuple[tuple, tuple]:
    """``"uniform"`` or ``"one_point"`` crossover of two feature sets."""
    return (uniform_crossover if kind == "uniform" else one_point_crossover)(a, b, rng)
