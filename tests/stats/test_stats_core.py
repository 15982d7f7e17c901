import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from svmlab.errors import StatsInputError, UnknownNameError
from svmlab.stats import compare
from svmlab.stats.omnibus import friedman
from svmlab.stats.posthoc import (
    adjust,
    bonferroni_dunn_cd,
    holm_rejections,
    holm_thresholds,
    nemenyi_cd,
    pairwise_comparison,
)
from svmlab.stats.ranks import meta_rank, rank_table
from svmlab.stats.wilcoxon import exact_p, rank_sum, signed_rank


def _random_table(seed=0, N=12, k=5):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        rng.normal(size=(N, k)) + np.arange(k) * 0.3,
        index=[f"d{i}" for i in range(N)],
        columns=[f"m{j}" for j in range(k)],
    )


def test_ranks_average_ties_and_follow_direction():
    t = pd.DataFrame([[0.9, 0.8, 0.8, 0.7]], columns=list("abcd"))
    assert rank_table(t, "max").iloc[0].tolist() == [1.0, 2.5, 2.5, 4.0]
    assert rank_table(t, "min").iloc[0].tolist() == [4.0, 2.5, 2.5, 1.0]


def test_friedman_matches_scipy_with_tie_correction():
    t = _random_table().round(1)  # rounding creates ties
    o = friedman(rank_table(t, "max"), tie_correction=True)
    ref = sps.friedmanchisquare(*[t[c] for c in t.columns])
    assert o.chi2 == pytest.approx(ref.statistic) and o.chi2_p == pytest.approx(ref.pvalue)
    plain = friedman(rank_table(t, "max"))
    assert plain.chi2 <= o.chi2 and plain.F_df2 == (5 - 1) * (12 - 1)


def test_critical_differences_of_the_papers():
    assert bonferroni_dunn_cd(10, 24, 0.05) == pytest.approx(2.4236, abs=5e-5)  # MTR, printed
    assert bonferroni_dunn_cd(12, 15, 0.10) == pytest.approx(3.4344, abs=5e-5)  # MIL, spec §6.3
    assert bonferroni_dunn_cd(4, 85, 0.05) == pytest.approx(0.4741, abs=5e-5)  # HyDR-MI
    assert nemenyi_cd(4, 85, 0.05) == pytest.approx(2.569 * np.sqrt(4 * 5 / (6 * 85)), abs=2e-3)


@pytest.mark.parametrize(
    "t, n, p",
    [
        (3, 24, 6.0e-7),
        (33.5, 24, 4.0e-4),
        (77.5, 24, 3.8e-2),
        (78.5, 24, 4.1e-2),
        (21.5, 15, 0.0279),
        (13.5, 14, 0.0121),
    ],
)
def test_exact_wilcoxon_reproduces_the_published_p(t, n, p):
    digits = -int(np.floor(np.log10(p))) + 1
    assert round(exact_p(t, n), digits) == pytest.approx(p, abs=10 ** -(digits + 1) * 5)


def test_signed_rank_agrees_with_scipy_without_zeros_or_ties():
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=15), rng.normal(size=15) + 0.5
    r = signed_rank(a, b, "max")
    ref = sps.wilcoxon(a, b, method="exact")
    assert r.p == pytest.approx(ref.pvalue) and min(r.r_plus, r.r_minus) == ref.statistic
    assert r.r_plus + r.r_minus == 15 * 16 / 2


def test_signed_rank_zero_differences():
    a = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 7.0])
    b = np.array([1.0, 1.0, 1.0, 1.0, 6.0, 7.0])
    # d = 0, 1, 2, 3, -1, 0: two zeros (ranks 1.5 each) split evenly, |1| ties at 3.5
    r = signed_rank(a, b, "max", zero_method="demsar")
    assert (r.r_plus, r.r_minus, r.n) == (1.5 + 3.5 + 5 + 6, 1.5 + 3.5, 6)
    assert signed_rank(a, b, "min").r_plus == r.r_minus
    # an odd number of zeros: one is ignored (Demsar), or all are split (zsplit)
    odd = signed_rank(a[:5], b[:5], "max")
    assert odd.n == 4 and odd.r_plus + odd.r_minus == 10
    assert signed_rank(a[:5], b[:5], "max", zero_method="zsplit").r_plus == 12.0
    assert signed_rank(a, b, "max", zero_method="wilcox").n == 4


def test_rank_sum_matches_scipy():
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=17), rng.normal(size=17) + 1
    r = rank_sum(a, b)
    ref = sps.mannwhitneyu(a, b, alternative="two-sided", method="asymptotic", use_continuity=False)
    assert r.p == pytest.approx(ref.pvalue) and r.U == ref.statistic
    assert r.W == pytest.approx(
        min(sps.rankdata(np.r_[a, b])[:17].sum(), sps.rankdata(np.r_[a, b])[17:].sum())
    )


def test_adjustments_agree_with_statsmodels_and_are_monotone():
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    p = np.array([0.01, 0.04, 0.03, 0.005, 0.2, 0.04])
    assert np.allclose(adjust(p, "holm"), multitest.multipletests(p, method="holm")[1])
    assert np.allclose(
        adjust(p, "hochberg"), multitest.multipletests(p, method="simes-hochberg")[1]
    )
    assert np.allclose(adjust(p, "bonferroni"), multitest.multipletests(p, method="bonferroni")[1])
    order = np.argsort(p, kind="stable")
    for method in ("holm", "hochberg", "finner"):
        a = adjust(p, method)[order]
        assert np.all(np.diff(a) >= -1e-12) and np.all((a >= p[order] - 1e-12) & (a <= 1))


def test_shaffer_is_no_more_conservative_than_holm():
    rng = np.random.default_rng(3)
    p = rng.uniform(0, 0.1, size=10)  # k = 5 methods -> 10 pairs
    assert np.all(adjust(p, "shaffer", n_methods=5) <= adjust(p, "holm") + 1e-12)
    with pytest.raises(ValueError):
        adjust(p, "shaffer", n_methods=4)


def test_holm_thresholds_follow_ascending_p_and_column_order_on_ties():
    p = [0.03, 0.001, 0.03, 0.2]
    assert holm_thresholds(p, 0.05).round(4).tolist() == [round(0.05 / 3, 4), 0.0125, 0.025, 0.05]
    assert holm_rejections([0.001, 0.013, 0.02], 0.05).tolist() == [True, True, True]
    assert holm_rejections([0.001, 0.03, 0.026], 0.05).tolist() == [True, False, False]


def test_compare_defaults_to_the_best_rank_and_fills_the_control_table():
    cmp = compare(_random_table(), "min")
    assert cmp.control == "m0"
    assert list(cmp.control_table.index) == ["m1", "m2", "m3", "m4"]
    assert {"wilcoxon_r_plus", "wilcoxon_p", "z", "p", "holm_threshold", "holm", "finner"} <= set(
        cmp.control_table
    )
    assert all(cmp.average_ranks[m] > cmp.average_ranks["m0"] + cmp.bd_cd for m in cmp.beyond_cd)
    pw = cmp.pairwise()
    assert set(pw) == {"p", "nemenyi", "holm", "shaffer", "wilcoxon_holm"} | {
        "nemenyi_bonferroni",
        "nemenyi_tukey",
        "bergmann",
    }
    assert pw["nemenyi"].shape == (5, 5)


def test_meta_rank_of_the_mil_study():
    # MIRSVM's positions 1, 1, 2, 1, 1, 2 over six metrics -> 1.3333 (spec §6.6)
    ranks = pd.DataFrame(
        {"A": [1, 1, 2, 1, 1, 2], "B": [2, 3, 1, 2, 2, 1], "C": [3, 2, 3, 3, 3, 3]}, dtype=float
    )
    assert meta_rank(ranks).loc["rank", "A"] == pytest.approx(1 + 1 / 3)


@pytest.mark.parametrize(
    "table, kwargs, message",
    [
        (
            pd.DataFrame({"a": ["0.5", "x"], "b": ["0.4", "0.3"]}, index=["d1", "d2"]),
            {},
            "non-numeric value 'x' for dataset 'd2', method 'a'",
        ),
        (
            pd.DataFrame({"a": [0.5, 0.2], "b": [np.nan, np.nan]}, index=["d1", "d2"]),
            {},
            "method\\(s\\) b have no values",
        ),
        (pd.DataFrame({"a": [0.5, 0.2]}, index=["d1", "d2"]), {}, "at least 2 methods"),
        (pd.DataFrame({"a": [0.5], "b": [0.2]}, index=["d1"]), {}, "at least 2 datasets"),
        (
            pd.DataFrame({"a": [0.5, np.nan, 0.1], "b": [0.2, 0.1, 0.3]}, index=["d1", "d2", "d3"]),
            {},
            "1 missing cell\\(s\\): d2/a",
        ),
        (
            pd.DataFrame({"a": [0.5, 0.2], "b": [0.2, 0.1]}, index=["d1", "d2"]),
            {"control": "c"},
            "unknown method 'c'",
        ),
    ],
)
def test_bad_tables_give_one_clear_error(table, kwargs, message):
    with pytest.raises((StatsInputError, UnknownNameError), match=message):
        compare(table, "max", **kwargs)


def test_missing_cells_can_drop_datasets():
    t = pd.DataFrame(
        {"a": [0.5, np.nan, 0.1, 0.3], "b": [0.2, 0.1, 0.3, 0.2]}, index=["d1", "d2", "d3", "d4"]
    )
    cmp = compare(t, "max", missing="drop")
    assert cmp.dropped_datasets == ["d2"] and cmp.n_datasets == 3


def test_pairwise_wilcoxon_holm_is_holm_over_scipy_signed_rank_tests():
    rng = np.random.default_rng(3)
    table = pd.DataFrame(rng.normal(size=(12, 3)) + [0.0, 0.3, 1.0], columns=["a", "b", "c"])
    m = pairwise_comparison(table, table.rank(axis=1, ascending=False).mean())["wilcoxon_holm"]
    raw = {
        (x, y): sps.wilcoxon(table[x], table[y], zero_method="pratt").pvalue
        for x, y in (("a", "b"), ("a", "c"), ("b", "c"))
    }
    order = sorted(raw, key=raw.get)  # Holm: k-i+1 times the i-th smallest, running maximum
    expected, running = {}, 0.0
    for i, pair in enumerate(order):
        running = max(running, min(1.0, (3 - i) * raw[pair]))
        expected[pair] = running
    for (x, y), p in expected.items():
        assert m.at[x, y] == pytest.approx(p) and m.at[y, x] == pytest.approx(p)
