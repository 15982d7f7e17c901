"""YAGGA2 search operators: intron prevention, sampling equivalence, the combined
probabilistic mutation and variable-length crossover (Mierswa (2009), Secs. 6.4.1-6.4.3)."""

import numpy as np
import pytest

from svmlab.construction.expressions import apply, var
from svmlab.construction.space import FeatureSpace
from svmlab.construction.variation import (
    construct,
    generating_mutation,
    is_structural_intron,
    one_point_crossover,
    uniform_crossover,
)

X1, X2, X3 = var(0), var(1), var(2)


def space(X, equivalence="correlation", a=20, sigma=0.9999, epsilon=5e-7, seed=0):
    return FeatureSpace(X, equivalence, a, sigma, epsilon, np.random.RandomState(seed))


def test_structural_introns():
    for op in ("+", "-", "/"):
        assert is_structural_intron(op, (X1, X1))
        assert not is_structural_intron(op, (X1, X2))
    assert not is_structural_intron("*", (X1, X1))  # X1^2 is a feature (Table 6.2)
    assert is_structural_intron("reciprocal", (apply("reciprocal", X1),))
    assert is_structural_intron("exp", (apply("log", X1),))
    assert not is_structural_intron("reciprocal", (apply("exp", X1),))


def test_construct_never_makes_introns_or_duplicates():
    rng = np.random.RandomState(1)
    X = rng.uniform(1, 3, size=(50, 2))
    sp = space(X)
    made = set()
    for _ in range(300):
        feats = (X1, X2, apply("*", X1, X2))
        out = construct(feats, ("+", "-", "/", "*"), sp, rng)
        assert len(set(out)) == len(out)
        new = [f for f in out if f not in feats]
        for f in new:
            assert not (f.op in ("+", "-", "/") and f.args[0] == f.args[1])
            assert f != apply("*", X2, X1)
            assert np.ptp(sp.column(f)) > 0
        made.update(new)
    assert apply("*", X1, X1) in made and apply("/", X1, X2) in made
    assert apply("+", X1, X1) not in made and apply("-", X2, X2) not in made


def test_invalid_features_are_never_constructed():
    X = np.array([[0.0, 1.0], [1.0, 2.0], [2.0, 3.0]])  # 1/X1 divides by zero, log(X1 - ...)
    sp = space(X)
    rng = np.random.RandomState(0)
    for _ in range(50):
        out = construct((X1,), ("reciprocal", "log"), sp, rng)
        assert out == (X1,)


def test_equivalence_drops_the_more_complex_twin():
    rng = np.random.RandomState(0)
    X = rng.uniform(-2, 2, size=(40, 2))
    cube = apply("*", apply("*", X1, X1), X1)
    twin = apply("reciprocal", apply("reciprocal", cube))  # same values, 7 nodes instead of 5
    for mode in ("correlation", "absolute"):
        sp = space(X, equivalence=mode, epsilon=1e-9)
        assert sp.equivalent(cube, twin)
        assert sp.drop_equivalent((twin, X2, cube)) == (X2, cube)
        assert not sp.equivalent(cube, X1) or mode == "correlation"
    # exp(X1) * exp(X2) == exp(X1 + X2): the construction replaces the 5-node twin by 4 nodes
    sp = space(np.random.RandomState(1).uniform(0, 1, size=(30, 2)))
    s = apply("+", X1, X2)
    feats = (X1, X2, s, apply("*", apply("exp", X1), apply("exp", X2)))
    rng = np.random.RandomState(0)
    for _ in range(100):
        out = construct(feats, ("exp",), sp, rng)
        if apply("exp", s) in out:
            break
    assert apply("exp", s) in out and feats[3] not in out and len(out) == 4
    # x ~ sin(x) near 0 (Sec. 6.4.2.1): sin(X1) counts as X1 on [-0.01, 0.01] -> rejected
    sp = space(np.random.RandomState(2).uniform(-0.01, 0.01, size=(30, 1)))
    assert sp.equivalent(apply("sin", X1), X1)
    assert construct((X1,), ("sin",), sp, np.random.RandomState(0)) == (X1,)
    # the absolute test with a tight epsilon tells them apart
    sp = space(np.random.RandomState(2).uniform(-0.01, 0.01, size=(30, 1)), "absolute", epsilon=0)
    assert not sp.equivalent(apply("sin", X1), X1)


def _mutation_stats(mode, n_draws=5000):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(60, 10))
    sp = space(X)
    feats = (
        apply("*", var(0), var(1)),
        apply("*", var(2), var(3)),
        apply("sin", var(4)),
        apply("cos", var(5)),
    )
    gens = ("*", "sin", "cos")
    delta, removed, added = [], np.zeros(len(feats)), 0
    for _ in range(n_draws):
        out = generating_mutation(feats, gens, sp, rng, mode=mode)
        delta.append(len(out) - len(feats))
        removed += [f not in out for f in feats]
        added += sum(f not in feats for f in out)
    return np.mean(delta), removed / n_draws, added / n_draws


def test_balanced_mutation_keeps_the_expected_size():
    mean_delta, removed, added = _mutation_stats("balanced")
    p, nf = 1 / 4, 4
    assert abs(mean_delta) < 0.02  # E[additions] p/2 = E[removals] p/2 = 0.125
    np.testing.assert_allclose(removed, p / (2 * nf), atol=0.008)
    assert added == pytest.approx(p / 2, abs=0.015)


def test_rapidminer_mutation_shrinks_sets_of_constructed_features():
    mean_delta, removed, _ = _mutation_stats("rapidminer")
    p, o = 1 / 4, 10  # removal k p / (4 o) per feature (k = 2 after a construction)
    np.testing.assert_allclose(removed, p / (4 * o) * (1 + p / 4), atol=0.004)
    assert mean_delta > 0.06  # additions p/2 = 0.125 against removals of about 0.027


@pytest.mark.parametrize("cross", [uniform_crossover, one_point_crossover])
def test_crossover_never_duplicates(cross):
    rng = np.random.RandomState(3)
    pool = [X1, X2, X3, apply("*", X1, X2), apply("*", X2, X1), apply("sin", X3), apply("exp", X1)]
    for _ in range(500):
        a = tuple(dict.fromkeys(pool[i] for i in rng.randint(len(pool), size=rng.randint(1, 6))))
        b = tuple(dict.fromkeys(pool[i] for i in rng.randint(len(pool), size=rng.randint(1, 6))))
        ca, cb = cross(a, b, rng)
        for c in (ca, cb):
            assert len({f.canonical for f in c}) == len(c)
            assert set(c) <= set(a) | set(b)
        assert set(ca) | set(cb) == set(a) | set(b)
