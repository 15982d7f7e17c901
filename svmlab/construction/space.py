"""The constructed-feature space of one fit: cached columns, the numeric blow-up guard and the
sampling equivalence check (Mierswa (2009), Ch. 6, Secs. 6.4.1.3 and 6.4.2.1).

Columns are computed once per expression and reused by every individual that holds the feature
(the thesis's "new columns are added once ... and re-used", Sec. 6.4.1.3); a sub-expression's
column is reused by the expressions built on it.

**Validity** (the numeric blow-up guard): a feature is *invalid* when any of its values on the
fitting data is non-finite (``1/0``, ``exp`` overflow, ``log`` / ``sqrt`` outside the domain)
or larger than :data:`MAX_ABS` in magnitude, and a *constant* intron (Sec. 6.4.2) when all its
values on the fitting data are equal. Neither is ever put into an individual.

**Sampling equivalence** (Sec. 6.4.2.1): ``a`` artificial rows are drawn once per fit, each base
feature uniformly in its range on the fitting data (``[-1, 1]`` for a constant base feature).
Two features are equivalent when

* ``"correlation"`` (the thesis): the absolute Pearson correlation of their values on the
  samples is at least ``sigma`` (the sign is irrelevant: the inner learner re-weights);
* ``"absolute"``: their values differ by at most ``epsilon`` on every sample;

a feature whose sample values are all equal counts as equivalent to every other constant one.
Of two equivalent features the more complex one (larger :attr:`Expr.size`) is dropped.
"""

from __future__ import annotations

import numpy as np

from svmlab.construction.expressions import OPERATORS, Expr, var

__all__ = ["MAX_ABS", "FeatureSpace"]

#: Largest magnitude a feature value may have on the fitting data (beyond it the feature counts
#: as a numeric blow-up: sums of squares of such columns overflow float64).
MAX_ABS = 1e100


class FeatureSpace:
    """Feature columns on the fitting data ``X`` and on the equivalence samples.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The fitting data (base features).
    equivalence : {"correlation", "absolute"} or None
        Equivalence test (``None``: no sampling check).
    n_samples : int
        Number ``a`` of artificial rows.
    sigma : float
        Correlation threshold of the ``"correlation"`` test.
    epsilon : float
        Tolerance of the ``"absolute"`` test.
    rng : numpy RandomState
        Draws the artificial rows.
    """

    def __init__(self, X, equivalence, n_samples, sigma, epsilon, rng):
        self.X = np.asarray(X, dtype=np.float64)
        self.n_base = self.X.shape[1]
        self.equivalence = equivalence
        self.sigma = float(sigma)
        self.epsilon = float(epsilon)
        lo, hi = self.X.min(axis=0), self.X.max(axis=0)
        flat = lo == hi
        lo, hi = np.where(flat, -1.0, lo), np.where(flat, 1.0, hi)
        self.S = lo + (hi - lo) * rng.random_sample((int(n_samples), self.n_base))
        self._columns: dict[str, np.ndarray] = {}
        self._samples: dict[str, np.ndarray] = {}
        self._valid: dict[str, bool] = {}
        #: The usable original features, those not constant on the data (a constant is an
        #: intron, Sec. 6.4.2). They seed the initial population and the "add original"
        #: mutation. (The artificial rows draw the base features independently, so the
        #: sampling check never finds two original features equivalent.)
        self.originals = tuple(f for f in (var(j) for j in range(self.n_base)) if self.valid(f))
        self.originals = self.originals or (var(0),)

    # -- values --------------------------------------------------------------------------------

    def _values(self, e: Expr, data: np.ndarray, cache: dict) -> np.ndarray:
        key = e.canonical
        v = cache.get(key)
        if v is None:
            if e.op is None:
                v = data[:, e.index]
            else:
                with np.errstate(all="ignore"):
                    v = np.asarray(
                        OPERATORS[e.op].fn(*(self._values(a, data, cache) for a in e.args)),
                        dtype=np.float64,
                    )
            cache[key] = v
        return v

    def column(self, e: Expr) -> np.ndarray:
        """Values of ``e`` on the fitting data (cached)."""
        return self._values(e, self.X, self._columns)

    def matrix(self, features) -> np.ndarray:
        """The columns of ``features`` side by side, shape (n, len(features))."""
        return np.column_stack([self.column(e) for e in features])

    def sample(self, e: Expr) -> np.ndarray:
        """Values of ``e`` on the artificial equivalence rows (cached)."""
        return self._values(e, self.S, self._samples)

    # -- checks --------------------------------------------------------------------------------

    def valid(self, e: Expr) -> bool:
        """Finite, bounded and not constant on the fitting data."""
        key = e.canonical
        ok = self._valid.get(key)
        if ok is None:
            v = self.column(e)
            ok = bool(
                np.all(np.isfinite(v))
                and np.max(np.abs(v)) <= MAX_ABS
                and (len(v) < 2 or np.ptp(v) > 0)
            )
            self._valid[key] = ok
        return ok

    def equivalent(self, e: Expr, f: Expr) -> bool:
        """Whether the sampling check regards ``e`` and ``f`` as the same feature."""
        if e == f:
            return True
        if self.equivalence is None:
            return False
        a, b = self.sample(e), self.sample(f)
        if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
            return False  # undecidable on these samples: not regarded as equivalent
        if self.equivalence == "absolute":
            return bool(np.max(np.abs(a - b)) <= self.epsilon)
        # correlation is scale-free: scale to max |value| = 1 first, so huge features (up to
        # MAX_ABS on the data, more on the samples) cannot overflow the squares
        with np.errstate(all="ignore"):
            a = a / max(np.max(np.abs(a)), np.finfo(float).tiny)
            b = b / max(np.max(np.abs(b)), np.finfo(float).tiny)
            sa, sb = np.std(a), np.std(b)
            if sa == 0 or sb == 0:
                return bool(sa == sb)
            r = np.mean((a - a.mean()) * (b - b.mean())) / (sa * sb)
        return bool(np.isfinite(r) and abs(r) >= self.sigma)

    def drop_equivalent(self, features) -> tuple[Expr, ...]:
        """``features`` without repeats and without the more complex member of every
        equivalent pair (order kept; among equally complex twins the earlier one stays)."""
        kept: list[Expr] = []
        for f in sorted(dict.fromkeys(features), key=lambda e: e.size):
            if not any(self.equivalent(f, k) for k in kept):
                kept.append(f)
        keep = set(kept)
        return tuple(f for f in dict.fromkeys(features) if f in keep)
