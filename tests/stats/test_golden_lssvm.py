"""Golden tests, LSSVM/MLM study: no published statistics; the specs' derived targets.

How computed values are compared with printed ones: see ``_golden``.
"""

from __future__ import annotations

import pytest
from _golden import (
    LSSVM,
    check_derived_rank_targets,
    cmp,
    published,
    table,
)
from _misprints import (
    check,
    misprint_id,
    misprint_keys,
    run_check,
)


@pytest.mark.parametrize("fid", LSSVM)
def test_derived_rank_targets(fid):
    check_derived_rank_targets(fid)


@pytest.mark.parametrize("fid", ["lssvm_t11_rmse", "lssvm_t12_r2", "lssvm_t19_acc"])
def test_lssvm_cd_figures_all_joined(fid):
    """Figs 14, 15 and 22 (ACC): no two average ranks differ by the Nemenyi CD."""
    c = cmp(fid)
    assert c.average_ranks.max() - c.average_ranks.min() < c.nemenyi_cd


def test_lssvm_norm_figure_16_groups():
    """Fig. 16 lists Rank, LW-1, LW-3 against Random, LW-2, Full: the methods beyond the CD
    of Rank-MLM."""
    c = cmp("lssvm_t13_norm")
    assert c.control == "RANK-MLM"
    limit = c.average_ranks["RANK-MLM"] + c.nemenyi_cd
    assert set(c.average_ranks.index[c.average_ranks > limit]) == {
        "RANDOM-MLM",
        "LW-MLM-2",
        "FULL-MLM",
    }
    assert set(c.beyond_cd) == {"RANDOM-MLM", "LW-MLM-2", "FULL-MLM"}


@check(
    ("lssvm_t11_rmse", "std", "all", "DAI, DEL"),
    ("lssvm_t13_norm", "std", "RANK-MLM, LW-MLM-1/2/3", "CON"),
)
def _(fid, e):
    dataset = e["dataset"].split(", ")
    methods = (
        list(table(fid).columns)
        if e["method"] == "all"
        else ["RANK-MLM", "LW-MLM-1", "LW-MLM-2", "LW-MLM-3"]
    )
    stds = published(fid)["per_dataset_std"]
    ranks = cmp(fid).ranks
    for ds in dataset:
        assert all(stds[ds][m] == "0.0*" and table(fid).at[ds, m] == 0 for m in methods)
        assert (
            ranks.loc[ds, methods].nunique() == 1
            and ranks.at[ds, methods[0]] == ranks.loc[ds].min()
        )


OCR_CELLS = {
    "lssvm_t11_rmse": [("ABA", "LW-MLM-2", 2.22, 0.07), ("BTH", "LW-MLM-1", 3.54, 0.52)],
    "lssvm_t12_r2": [("WRE", "LW-MLM-2", 0.44, 0.03)],
    "lssvm_t19_norm": [("ION", "Rank-MLM", 0.30, None)],
}


@check(
    ("lssvm_t11_rmse", "value", "several", ""),
    ("lssvm_t12_r2", "value", "LW-MLM-2", "WRE"),
    ("lssvm_t19_norm", "value", "Rank-MLM", "ION"),
)
def _(fid, e):
    stds = published(fid).get("per_dataset_std") or {}
    for dataset, method, value, std in OCR_CELLS[fid]:
        assert table(fid).at[dataset, method] == value
        if std is not None:
            assert stds[dataset][method] == std


# The misprints of this study: each one's check, registered above with @check.
@pytest.mark.parametrize("key", misprint_keys(LSSVM), ids=misprint_id)
def test_misprint(key):
    run_check(key)
