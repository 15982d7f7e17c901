"""``svmlab.stats.distributions`` gives what ``scipy.stats`` gives, without importing it."""

import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from svmlab.stats.distributions import (
    chi2_sf,
    f_sf,
    norm_cdf,
    norm_ppf,
    norm_sf,
    rankdata,
    studentized_range_ppf,
    studentized_range_sf,
)

POINTS = [-5.0, -1e-15, 0.0, 1e-300, 0.3, 3.2, 39.647, 1e5, np.inf, -np.inf, np.nan]


def _same(a, b) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return bool(np.array_equal(a, b, equal_nan=True))


@pytest.mark.parametrize("df", [1, 2, 4, 10, 116])
def test_chi2_and_f_tails_are_scipys_to_the_bit(df):
    """Below the support (a statistic of -1e-15 from rounding) both give 1, as scipy.stats."""
    assert _same(chi2_sf(POINTS, df), stats.chi2.sf(POINTS, df))
    assert _same(f_sf(POINTS, df, 116), stats.f.sf(POINTS, df, 116))
    assert _same(f_sf(POINTS, 4, df), stats.f.sf(POINTS, 4, df))


def test_normal_tails_and_quantiles_are_scipys_to_the_bit():
    assert _same(norm_sf(POINTS), stats.norm.sf(POINTS))
    assert _same(norm_cdf(POINTS), stats.norm.cdf(POINTS))
    q = [0.0, 1e-12, 0.0125, 0.025, 0.5, 0.975, 1 - 1e-12, 1.0]
    assert _same(norm_ppf(q), stats.norm.ppf(q))


@pytest.mark.parametrize("seed", range(20))
def test_rankdata_is_scipys_average_ranks(seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, size=(9, 5)).astype(float)  # many ties
    if seed % 3 == 0:
        a[seed % 9, seed % 5] = np.nan  # the slice holding it is all NaN, as scipy propagates
    for axis in (None, 0, 1, -1):
        assert _same(rankdata(a, axis=axis), stats.rankdata(a, axis=axis)), axis
    x = rng.normal(size=31)
    assert _same(rankdata(x), stats.rankdata(x))


@pytest.mark.parametrize("k", [2, 3, 5, 9, 20, 50])
def test_studentized_range_agrees_with_scipy(k):
    for q in (0.1, 1.0, 2.5, 4.0, 6.0):
        assert studentized_range_sf(q, k) == pytest.approx(
            stats.studentized_range.sf(q, k, np.inf), rel=1e-9, abs=1e-13
        )
    for alpha in (0.01, 0.05, 0.10):
        assert studentized_range_ppf(1 - alpha, k) == pytest.approx(
            stats.studentized_range.ppf(1 - alpha, k, np.inf), rel=1e-10
        )


def test_studentized_range_of_two_is_root_two_times_a_half_normal():
    for q in (0.5, 2.0, 5.0, 9.0):
        assert studentized_range_sf(q, 2) == pytest.approx(
            2.0 * stats.norm.sf(q / np.sqrt(2.0)), rel=1e-12
        )
    with pytest.raises(ValueError, match="k >= 2"):
        studentized_range_sf(1.0, 1)
    with pytest.raises(ValueError, match="0 < p < 1"):
        studentized_range_ppf(1.0, 4)


def test_a_comparison_without_those_tables_does_not_import_scipy_stats():
    code = (
        "import sys, pandas as pd\n"
        "from svmlab.stats.analysis import analyse\n"
        "t = pd.DataFrame({'A': [.9, .8, .7, .6], 'B': [.8, .85, .6, .5], 'C': [.7, .6, .5, .4]})\n"
        "analyse(t, 'max', pairwise=('p', 'nemenyi', 'holm', 'shaffer', 'bergmann'))\n"
        "print('scipy.stats' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
