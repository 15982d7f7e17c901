"""Expression trees of the feature construction (Mierswa (2009), Sec. 6.4.2)."""

import numpy as np
import pytest

from svmlab.construction.expressions import OPERATORS, apply, random_expression, var

X1, X2, X3 = var(0), var(1), var(2)


def test_printing_and_shape():
    cube = apply("*", apply("*", X1, X1), X1)
    assert str(cube) == "X1 * X1 * X1"
    assert str(apply("reciprocal", X1)) == "1/X1"
    assert str(apply("reciprocal", apply("*", X1, X1))) == "1/(X1 * X1)"
    assert str(apply("-", X1, apply("-", X2, X3))) == "X1 - (X2 - X3)"
    assert str(apply("sin", apply("+", X1, X2))) == "sin(X1 + X2)"
    assert (cube.size, cube.depth, X1.size, X1.depth) == (5, 2, 1, 0)


def test_canonical_commutativity_and_associativity():
    assert apply("*", X1, X2) == apply("*", X2, X1)
    assert apply("*", X1, X2).canonical == apply("*", X2, X1).canonical
    assert hash(apply("+", X1, X2)) == hash(apply("+", X2, X1))
    assert apply("-", X1, X2) != apply("-", X2, X1)
    assert apply("/", X1, X2) != apply("/", X2, X1)
    left = apply("*", apply("*", X1, X2), X3)
    right = apply("*", X3, apply("*", X2, X1))
    assert left == right and len({left, right}) == 1
    assert apply("*", apply("+", X1, X2), X3) != apply("+", apply("*", X1, X2), X3)


def test_evaluate_vectorised_and_non_finite_allowed():
    X = np.array([[2.0, 3.0], [0.0, -1.0]])
    np.testing.assert_array_equal(apply("*", X1, X2).evaluate(X), [6.0, -0.0])
    r = apply("reciprocal", X1).evaluate(X)
    assert r[0] == 0.5 and np.isinf(r[1])
    assert np.isnan(apply("sqrt", X2).evaluate(X)[1])
    assert apply("power", X1, X2).evaluate(X)[0] == 8.0
    for name, op in OPERATORS.items():
        args = [X1, X2][: op.arity]
        assert apply(name, *args).evaluate(X).dtype == np.float64


def test_immutable_and_bad_input():
    with pytest.raises(AttributeError):
        X1.op = "+"
    with pytest.raises(ValueError, match="op_name"):
        apply("nope", X1)
    with pytest.raises(ValueError, match="takes 2"):
        apply("*", X1)
    with pytest.raises(ValueError, match="index"):
        var(-1)


def test_random_expression_depth_and_operators():
    rng = np.random.RandomState(0)
    exprs = [random_expression(5, rng) for _ in range(200)]
    assert all(1 <= e.depth <= 3 for e in exprs)
    assert {e.depth for e in exprs} == {1, 2, 3}
    ops = set()
    stack = list(exprs)
    while stack:
        e = stack.pop()
        if e.op is not None:
            ops.add(e.op)
            stack.extend(e.args)
    assert ops == {"+", "*", "sin", "exp"}
    a = [str(random_expression(5, np.random.default_rng(3))) for _ in range(2)]
    assert a[0] == a[1]
