"""Values equal but for floating-point noise tie in every rank test.

The three means below are one method's mean accuracy over the same 30 test folds of 154 rows,
summed in three row orders (as rows read back from a packed run come in another order); the
exact mean is 116/154 for all three. A second method scores exactly 116/154 on every fold.
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from svmlab.stats import compare
from svmlab.stats.distributions import TIE_RTOL, merge_ties, rankdata
from svmlab.stats.omnibus import friedman
from svmlab.stats.posthoc import pairwise_comparison
from svmlab.stats.ranks import rank_table
from svmlab.stats.wilcoxon import rank_sum, signed_rank

SAME_MEAN = (0.7532467532467532, 0.7532467532467533, 0.753246753246753)


def _table(noisy: float) -> pd.DataFrame:
    """Five datasets x three methods; on d0 methods a and b tie (b's mean carries noise)."""
    exact = 116 / 154
    return pd.DataFrame(
        {
            "a": [exact, 0.81, 0.70, 0.92, 0.66],
            "b": [noisy, 0.80, 0.72, 0.90, 0.65],
            "c": [0.70, 0.79, 0.69, 0.93, 0.60],
        },
        index=[f"d{i}" for i in range(5)],
    )


def test_the_three_sums_really_differ_in_their_last_bits():
    assert len(set(SAME_MEAN)) == 3
    assert all(abs(m - 116 / 154) <= 4 * TIE_RTOL * 116 / 154 for m in SAME_MEAN)


@pytest.mark.parametrize("noisy", SAME_MEAN)
def test_ranks_and_friedman_do_not_depend_on_the_summation_order(noisy):
    ranks = rank_table(_table(noisy), "max")
    assert ranks.loc["d0", "a"] == ranks.loc["d0", "b"] == 1.5
    assert friedman(_table(noisy)) == friedman(_table(116 / 154))


@pytest.mark.parametrize("noisy", SAME_MEAN)
def test_a_noise_difference_is_a_zero_of_the_signed_rank_test(noisy):
    table = _table(noisy)
    got = signed_rank(table["a"], table["b"], "max", zero_method="wilcox")
    assert got.n == 4
    assert got == signed_rank(
        _table(116 / 154)["a"],
        table["b"].where(table.index != "d0", 116 / 154),
        "max",
        zero_method="wilcox",
    )


@pytest.mark.parametrize("noisy", SAME_MEAN)
def test_pairwise_and_control_tables_do_not_depend_on_the_summation_order(noisy):
    reference = _table(116 / 154)
    got = compare(_table(noisy), direction="max")
    want = compare(reference, direction="max")
    pd.testing.assert_frame_equal(got.control_table, want.control_table)
    pairs = pairwise_comparison(_table(noisy), rank_table(_table(noisy), "max").mean())
    pd.testing.assert_frame_equal(
        pairs["wilcoxon_holm"],
        pairwise_comparison(reference, rank_table(reference, "max").mean())["wilcoxon_holm"],
    )


def test_rank_sum_ties_noise_like_equal_values():
    a = np.array([SAME_MEAN[0], 0.8, 0.9])
    b = np.array([SAME_MEAN[1], 0.7, 0.6])
    noisy, exact = rank_sum(a, b), rank_sum(a, np.r_[SAME_MEAN[0], 0.7, 0.6])
    assert noisy == exact
    assert noisy.p == pytest.approx(
        sps.mannwhitneyu(
            a,
            np.r_[a[0], 0.7, 0.6],
            alternative="two-sided",
            method="asymptotic",
            use_continuity=False,
        ).pvalue
    )


def test_real_differences_and_infinities_stay_apart():
    x = np.array([1.0, 1.0 + 1e-9, np.inf, np.inf, -np.inf, np.nan, 1e300, 1e300 * (1 + 1e-14)])
    merged = merge_ties(x)
    assert merged[0] != merged[1]  # a difference of one in a billion is real
    assert merged[2] == merged[3] == np.inf and merged[4] == -np.inf and np.isnan(merged[5])
    assert merged[6] == merged[7]  # relative, not absolute
    assert list(rankdata([np.inf, np.inf, 1.0, -np.inf])) == [3.5, 3.5, 2.0, 1.0]
