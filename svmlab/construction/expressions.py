"""Expression trees for constructed features (Mierswa (2009), Ch. 6, Sec. 6.4 and Ch. 10).

A constructed feature is a term over the original (base) features: a leaf ``var(i)`` is base
feature ``i`` (printed ``X{i+1}``, the thesis's one-based names), an inner node applies one of
the :data:`OPERATORS` ("generators" in the thesis, Sec. 6.4.1.1) to its operands.

Expressions are immutable and hashable. Two expressions compare equal exactly when their
:attr:`Expr.canonical` forms are equal, i.e. when they are the same term up to the order of the
operands of commutative operators and up to the bracketing of chains of an associative and
commutative operator (``+`` and ``*``): ``X1 * X2 == X2 * X1`` and
``(X1 * X1) * X2 == X1 * (X2 * X1)``. This is the structural part of the thesis's intron
prevention (Sec. 6.4.2, the commutative duplicates); equivalence beyond structure is decided
by sampling (Sec. 6.4.2.1, :mod:`svmlab.construction.equivalence`).

:func:`random_expression` draws random target functions as in the synthetic case base of
Ch. 10, Sec. 10.6.1 (building blocks ``+``, ``*``, ``sin``, ``exp``; maximal depth 3; leaf
probability 0.3).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["OPERATORS", "Expr", "Operator", "apply", "random_expression", "var"]


@dataclass(frozen=True)
class Operator:
    """A feature generator.

    Parameters
    ----------
    name : str
        Key in :data:`OPERATORS`.
    arity : int
        Number of operands (1 or 2).
    commutative : bool
        Operand order does not matter (``+``, ``*``): the canonical form sorts the operands.
    fn : callable
        Vectorised numpy function of ``arity`` float64 arrays; may return non-finite values
        (the caller checks).
    associative : bool
        Chains of this operator are flattened in the canonical form (``+``, ``*``).
    symbol : str or None
        Infix symbol for printing binary operators; ``None`` prints ``name(args)``.
    precedence : int
        Binding strength of the infix symbol (for parentheses when printing).
    """

    name: str
    arity: int
    commutative: bool
    fn: Callable[..., np.ndarray]
    associative: bool = False
    symbol: str | None = None
    precedence: int = 9


def _reciprocal(a):
    return 1.0 / a


#: The generators. ``power`` has the fixed binary form ``power(a, b) = a ** b`` (real power,
#: as numpy computes it: a negative base with a non-integer exponent gives NaN, which makes
#: the feature invalid). ``log`` is the natural logarithm and ``sqrt`` the real square root;
#: both give non-finite values outside their domains.
OPERATORS: dict[str, Operator] = {
    op.name: op
    for op in (
        Operator("+", 2, True, np.add, associative=True, symbol="+", precedence=1),
        Operator("-", 2, False, np.subtract, symbol="-", precedence=1),
        Operator("*", 2, True, np.multiply, associative=True, symbol="*", precedence=2),
        Operator("/", 2, False, np.divide, symbol="/", precedence=2),
        Operator("power", 2, False, np.power, symbol="^", precedence=3),
        Operator("reciprocal", 1, False, _reciprocal),
        Operator("sin", 1, False, np.sin),
        Operator("cos", 1, False, np.cos),
        Operator("tan", 1, False, np.tan),
        Operator("exp", 1, False, np.exp),
        Operator("abs", 1, False, np.abs),
        Operator("sqrt", 1, False, np.sqrt),
        Operator("log", 1, False, np.log),
        Operator("min", 2, True, np.minimum, associative=True),
        Operator("max", 2, True, np.maximum, associative=True),
    )
}


class Expr:
    """An immutable expression tree (build with :func:`var` and :func:`apply`).

    Attributes
    ----------
    op : str or None
        Operator name, ``None`` for a base feature.
    index : int or None
        Base-feature index (zero-based) of a leaf, ``None`` otherwise.
    args : tuple of Expr
        Operands (empty for a leaf).
    """

    __slots__ = ("op", "index", "args", "_canonical", "_hash", "_size", "_depth")

    def __init__(self, op: str | None, index: int | None, args: tuple[Expr, ...]):
        set_ = object.__setattr__
        set_(self, "op", op)
        set_(self, "index", index)
        set_(self, "args", tuple(args))
        set_(self, "_canonical", _canonical(op, index, self.args))
        set_(self, "_hash", hash(self._canonical))
        set_(self, "_size", 1 + sum(a._size for a in self.args))
        set_(self, "_depth", 0 if not self.args else 1 + max(a._depth for a in self.args))

    def __setattr__(self, name, value):
        raise AttributeError("Expr is immutable")

    def __delattr__(self, name):
        raise AttributeError("Expr is immutable")

    def __reduce__(self):
        return (Expr, (self.op, self.index, self.args))

    # -- identity ------------------------------------------------------------------------------

    @property
    def canonical(self) -> str:
        """Canonical prefix form: operands of commutative operators sorted, associative chains
        flattened (``*(X1,X1,X2)``). Equal canonical forms <=> equal up to commutativity."""
        return self._canonical

    def __eq__(self, other) -> bool:
        return isinstance(other, Expr) and self._canonical == other._canonical

    def __hash__(self) -> int:
        return self._hash

    def __lt__(self, other: Expr) -> bool:  # a total order, for sorting feature sets
        return (self._size, self._canonical) < (other._size, other._canonical)

    # -- shape -----------------------------------------------------------------------------------

    @property
    def size(self) -> int:
        """Number of nodes (leaves and operators): the construction complexity."""
        return self._size

    @property
    def depth(self) -> int:
        """Number of operators on the longest root-to-leaf path (a base feature has depth 0)."""
        return self._depth

    @property
    def is_leaf(self) -> bool:
        return self.op is None

    def base_features(self) -> frozenset[int]:
        """Indices of the base features the expression uses."""
        if self.op is None:
            return frozenset((self.index,))
        return frozenset().union(*(a.base_features() for a in self.args))

    # -- values ----------------------------------------------------------------------------------

    def evaluate(self, X) -> np.ndarray:
        """Values on the rows of ``X`` (n, d), float64 of shape (n,); may be non-finite."""
        X = np.asarray(X, dtype=np.float64)
        with np.errstate(all="ignore"):
            return np.asarray(self._eval(X, {}), dtype=np.float64)

    def _eval(self, X, memo):
        if self.op is None:
            return X[:, self.index]
        key = self._canonical
        if key not in memo:
            memo[key] = OPERATORS[self.op].fn(*(a._eval(X, memo) for a in self.args))
        return memo[key]

    # -- text ------------------------------------------------------------------------------------

    def __str__(self) -> str:
        return _infix(self)

    def __repr__(self) -> str:
        return f"Expr({self})"


def var(i: int) -> Expr:
    """Base feature ``i`` (zero-based; printed ``X{i+1}``)."""
    if isinstance(i, bool) or not isinstance(i, int | np.integer) or i < 0:
        raise ValueError(f"var: the feature index must be an int >= 0, got {i!r}")
    return Expr(None, int(i), ())


def apply(op_name: str, *args: Expr) -> Expr:
    """The expression ``op_name(*args)``."""
    op = OPERATORS.get(op_name)
    if op is None:
        raise ValueError(f"apply: op_name must be one of {sorted(OPERATORS)}, got {op_name!r}")
    if len(args) != op.arity or not all(isinstance(a, Expr) for a in args):
        raise ValueError(f"apply: {op_name!r} takes {op.arity} Expr operand(s), got {args!r}")
    return Expr(op_name, None, args)


# -- canonical form and printing ---------------------------------------------------------------


def _flat(op: str, args) -> list[str]:
    out: list[str] = []
    for a in args:
        if a.op == op:
            out.extend(_flat(op, a.args))
        else:
            out.append(a._canonical)
    return out


def _canonical(op, index, args) -> str:
    if op is None:
        return f"X{index + 1}"
    o = OPERATORS[op]
    parts = _flat(op, args) if o.associative else [a._canonical for a in args]
    if o.commutative:
        parts = sorted(parts)
    return f"{op}({','.join(parts)})"


def _infix(e: Expr) -> str:
    if e.op is None:
        return f"X{e.index + 1}"
    o = OPERATORS[e.op]
    if o.name == "reciprocal":
        a = e.args[0]
        inner = _infix(a)
        return f"1/{inner}" if _atomic(a) else f"1/({inner})"
    if o.symbol is None:
        return f"{o.name}({', '.join(_infix(a) for a in e.args)})"
    left, right = e.args
    return f"{_side(left, o, False)} {o.symbol} {_side(right, o, True)}"


def _atomic(e: Expr) -> bool:
    return e.op is None or OPERATORS[e.op].symbol is None and e.op != "reciprocal"


def _side(child: Expr, parent: Operator, right: bool) -> str:
    """Operand text, bracketed unless the operator binds it unambiguously: only a tighter
    operator, or the same associative operator (``X1 * X1 * X1``), goes without brackets."""
    text = _infix(child)
    if _atomic(child):
        return text
    c = OPERATORS[child.op]
    prec = OPERATORS["/"].precedence if c.name == "reciprocal" else c.precedence
    if prec > parent.precedence or (parent.associative and c.name == parent.name):
        return text
    return f"({text})"


# -- random targets (Ch. 10, Sec. 10.6.1) ----------------------------------------------------------


def _draw(rng):
    """``(uniform(), integers(n))`` draws from a numpy Generator, a RandomState or a seed."""
    if isinstance(rng, np.random.Generator):
        return rng.random, lambda n: int(rng.integers(n))
    if not isinstance(rng, np.random.RandomState):
        rng = np.random.RandomState(rng)
    return rng.random_sample, lambda n: int(rng.randint(n))


def random_expression(
    n_base: int,
    rng,
    operators=("+", "*", "sin", "exp"),
    max_depth: int = 3,
    leaf_prob: float = 0.3,
) -> Expr:
    """A random target function as in Mierswa (2009), Ch. 10, Sec. 10.6.1.

    The root is an operator (drawn uniformly from ``operators``); below it every operand is a
    leaf (a uniformly drawn base feature) with probability ``leaf_prob`` and an operator
    otherwise, and always a leaf once ``max_depth`` operators lie above it, so the result has
    :attr:`Expr.depth` between 1 and ``max_depth``. With the defaults this yields terms such as
    ``X5 * exp(X2) + sin(X3)`` (the thesis's example).

    Parameters
    ----------
    n_base : int
        Number of base features.
    rng : numpy Generator, RandomState, int or None
    operators : tuple of str
        Operator names (keys of :data:`OPERATORS`).
    max_depth : int
        Maximal number of operators on a root-to-leaf path (>= 1).
    leaf_prob : float
        Probability that an operand below the root is a base feature.
    """
    if isinstance(n_base, bool) or not isinstance(n_base, int | np.integer) or n_base < 1:
        raise ValueError(f"random_expression: n_base must be an int >= 1, got {n_base!r}")
    bad = [o for o in operators if o not in OPERATORS]
    if bad or not len(operators):
        raise ValueError(
            "random_expression: operators must be names from "
            f"{sorted(OPERATORS)}, got {operators!r}"
        )
    if isinstance(max_depth, bool) or not isinstance(max_depth, int) or max_depth < 1:
        raise ValueError(f"random_expression: max_depth must be an int >= 1, got {max_depth!r}")
    if not 0.0 <= leaf_prob <= 1.0:
        raise ValueError(f"random_expression: leaf_prob must be in [0, 1], got {leaf_prob!r}")
    uniform, integers = _draw(rng)
    ops = tuple(operators)

    def node(depth: int) -> Expr:  # depth = number of operators above this node
        if depth > 0 and (depth >= max_depth or uniform() < leaf_prob):
            return var(integers(n_base))
        name = ops[integers(len(ops))]
        return apply(name, *(node(depth + 1) for _ in range(OPERATORS[name].arity)))

    return node(0)
