"""Golden tests of the fixtures as a whole: the study families cover every fixture, the
misprint registry matches the misprints the fixtures list (and every one has a check in
its study's module), and each fixture's informative Friedman line agrees with the module.
"""

from __future__ import annotations

import importlib

import pytest
from _golden import (
    EVOSVM,
    HYDR_DIST,
    HYDR_MW,
    LSSVM,
    MIL,
    MTR,
    OLLAWV,
    at_decimals,
    at_sig,
    cmp,
    meta,
)
from _misprints import (
    CHECKS,
    EXPECTED_EXCEPTIONS,
    misprint_key,
)
from golden_tables import ALL_IDS

# The study modules register the misprint checks (``_misprints.check``) when imported.
STUDY_MODULES = (
    "test_golden_mtr",
    "test_golden_mil",
    "test_golden_ollawv",
    "test_golden_hydrmi",
    "test_golden_evosvm",
    "test_golden_lssvm",
)


def test_fixture_families_cover_all_ids():
    families = MTR + MIL + ("mil_meta_rank",) + OLLAWV + HYDR_DIST + HYDR_MW + EVOSVM + LSSVM
    assert sorted(families) == sorted(ALL_IDS)


def test_misprint_registry_matches_fixtures():
    for module in STUDY_MODULES:
        importlib.import_module(module)
    listed_in_fixtures = {
        misprint_key(fid, e) for fid in ALL_IDS for e in meta(fid).get("misprints") or []
    }
    assert listed_in_fixtures - set(EXPECTED_EXCEPTIONS) == set(), (
        "misprints listed in a fixture, not named here"
    )
    assert set(EXPECTED_EXCEPTIONS) - listed_in_fixtures == set(), (
        "misprints named here, not listed in a fixture"
    )
    assert set(CHECKS) == set(EXPECTED_EXCEPTIONS), "every named misprint needs a check"


@pytest.mark.parametrize("fid", ALL_IDS)
def test_fixture_sanity_friedman_line(fid):
    """The informative ``sanity_check.friedman_from_table`` agrees with the module.

    This checks the consistency of the fixture, not a published value.
    """
    line = meta(fid)["sanity_check"]["friedman_from_table"]
    o = cmp(fid).omnibus
    assert at_decimals(o.chi2, line["chi2"], 4) and at_decimals(o.F, line["F_ID"], 4), (o.chi2, o.F)
    assert at_sig(o.chi2_p, line["p_chi2"], 4) and at_sig(o.F_p, line["p_ID"], 4), (o.chi2_p, o.F_p)
