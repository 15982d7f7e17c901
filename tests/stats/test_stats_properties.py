"""Property-based checks of the rank statistics (hypothesis)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from svmlab.stats import compare
from svmlab.stats.posthoc import adjust
from svmlab.stats.ranks import rank_table

tables = st.integers(2, 8).flatmap(
    lambda k: st.integers(2, 15).flatmap(
        lambda N: arrays(np.float64, (N, k), elements=st.integers(0, 20).map(float))
    )
)


@settings(max_examples=60, deadline=None)
@given(tables)
def test_rank_rows_sum_to_k_k1_over_2(values):
    N, k = values.shape
    ranks = rank_table(pd.DataFrame(values), "max")
    assert np.allclose(ranks.sum(axis=1), k * (k + 1) / 2)
    assert np.isclose(ranks.to_numpy().sum(), N * k * (k + 1) / 2)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(tables, st.randoms())
def test_results_do_not_depend_on_column_order(values, rnd):
    N, k = values.shape
    df = pd.DataFrame(
        values, columns=[f"m{j}" for j in range(k)], index=[f"d{i}" for i in range(N)]
    )
    cols = list(df.columns)
    rnd.shuffle(cols)
    a, b = compare(df, "max", control="m0"), compare(df[cols], "max", control="m0")
    assert np.allclose(a.average_ranks[df.columns], b.average_ranks[df.columns])
    assert np.isclose(a.omnibus.chi2, b.omnibus.chi2) and np.isclose(a.omnibus.F_p, b.omnibus.F_p)
    for col in ("z", "p", "holm", "wilcoxon_p"):
        assert np.allclose(a.control_table[col].sort_index(), b.control_table[col].sort_index())


@settings(max_examples=80, deadline=None)
@given(arrays(np.float64, st.integers(1, 30), elements=st.floats(0, 1)))
def test_adjusted_p_values_are_monotone_and_bounded(p):
    order = np.argsort(p, kind="stable")
    for method in ("bonferroni", "holm", "hochberg", "finner"):
        adj = adjust(p, method)
        assert np.all((adj >= 0) & (adj <= 1)) and np.all(adj >= p - 1e-12)
        assert np.all(np.diff(adj[order]) >= -1e-12)
