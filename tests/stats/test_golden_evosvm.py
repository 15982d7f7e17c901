"""Golden tests, EvoSVM study: no published statistics; the specs' derived targets.

How computed values are compared with printed ones: see ``_golden``.
"""

from __future__ import annotations

import pytest
from _golden import (
    EVOSVM,
    as_printed,
    check_derived_rank_targets,
    cmp,
    published,
    recomputed,
    table,
)
from _misprints import (
    check,
    misprint_id,
    misprint_keys,
    run_check,
)

from svmlab.stats import compare


@pytest.mark.parametrize("fid", EVOSVM)
def test_derived_rank_targets(fid):
    check_derived_rank_targets(fid)


@pytest.mark.parametrize("fid", [f for f in EVOSVM if published(f).get("bold_cells")])
def test_evosvm_bold_cells_are_the_best(fid):
    ranks = cmp(fid).ranks
    for dataset, methods in published(fid)["bold_cells"].items():
        for method in methods:
            assert ranks.at[dataset, method] == ranks.loc[dataset].min(), (dataset, method)


@check(("evosvm_t33_error", "value", "all", "Lawsuit"))
def _(fid, e):
    assert "Lawsuit" in table(fid).index
    without = compare(table(fid).drop(index="Lawsuit"), "min").average_ranks
    assert not all(as_printed(without[m], v) for m, v in recomputed(fid)["average_ranks"].items())


# The misprints of this study: each one's check, registered above with @check.
@pytest.mark.parametrize("key", misprint_keys(EVOSVM), ids=misprint_id)
def test_misprint(key):
    run_check(key)
