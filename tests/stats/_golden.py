"""Shared helpers of the golden tests: ``svmlab.stats`` against the published statistics.

The golden tests check the module against the statistics published in the reproduced
papers, one test module per study: ``test_golden_mtr``, ``test_golden_mil``,
``test_golden_ollawv``, ``test_golden_hydrmi``, ``test_golden_evosvm``,
``test_golden_lssvm``; ``test_golden_fixtures`` checks the fixtures as a whole. This
module holds the fixture families, the comparison of computed with printed numbers and
the fixture accessors; ``_misprints`` holds the registry of known misprints.

The fixtures (``tests/stats/golden/<id>.csv`` + ``<id>.yaml``, loaded by ``golden_tables``)
hold each per-dataset table as printed, the published statistics (``published``), the
specs' recomputations (``recomputed``), the known misprints, the conventions and the
printed precision (``decimals``). The module must reproduce every published quantity.

How a computed value is compared with a printed one
---------------------------------------------------
* It must round to the printed value at the printed precision: the fixture's
  ``decimals``, or else the digits of the printed literal (half a unit of tolerance).
* The MTR 1xN columns (Wilcoxon p, "Nemenyi" z-test p, Holm thresholds) come from KEEL,
  which prints E-notation after rounding twice (3 significant digits, then 2, half up;
  fixture ``conventions.printed_rounding``): they are compared *exactly* after that double
  rounding, and every cell where plain rounding would differ must be a listed misprint.
  A z-test p printed as 0.0 ("0.0000") underflowed the format: the computed p is < 1e-6
  (the largest such p is 1.1e-7, the smallest printed one 2.4e-6).
* A column average of per-dataset values that are themselves rounded may differ from the
  rounded average by half a unit of the values' precision plus half a unit of the
  average's.
* The known misprints of the fixtures are the only exceptions. Each is a named entry of
  ``_misprints.EXPECTED_EXCEPTIONS`` (key = fixture, quantity, method, dataset/claim) with its
  reason, the cells it excuses from the plain checks, and a check asserting that the
  printed value is NOT reproduced while the corrected one is (or, for data notes, what
  the note says), run by the study's ``test_misprint``.
  ``test_misprint_registry_matches_fixtures`` fails when a fixture lists a
  misprint the registry lacks or the registry names one the fixtures do not list.
* The four MIL Wilcoxon rows that only the authors' unrounded results reproduce, and the
  KEEL output of the MTR study, are checked against ``<SVMLAB_DATA_DIR>/reference/...``
  (marked ``data``: skipped when the benchmark folder is absent).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
from golden_tables import load

from svmlab.stats import compare
from svmlab.stats.tables import results_section
from svmlab.testing import benchmark_data_dir

# --- the fixtures of each study -----------------------------------------------------------

MTR = ("mtr_acc", "mtr_mse", "mtr_armse", "mtr_arrmse", "mtr_time")
MIL_TESTED = (
    "mil_accuracy",
    "mil_precision",
    "mil_recall",
    "mil_kappa",
    "mil_auc",
)  # with 1xN tests
MIL = MIL_TESTED + ("mil_time",)
OLLAWV = ("ollawv_accuracy", "ollawv_runtime", "ollawv_sv", "ollawv_nonsvm_accuracy")
HYDR_DIST = tuple(f"hydrmi_distances_p{p}" for p in (10, 20, 30, 40, 50, 60))
HYDR_MW = ("hydrmi_elephant", "hydrmi_tiger", "hydrmi_fox", "hydrmi_musk1", "hydrmi_musk2")
EVOSVM = (
    "evosvm_t33_error",
    "evosvm_t34_c1_error",
    "evosvm_t34_c01_error",
    "evosvm_t34_c001_error",
    "evosvm_t42_error",
)
LSSVM = (
    "lssvm_t7_acc",
    "lssvm_t11_rmse",
    "lssvm_t12_r2",
    "lssvm_t13_norm",
    "lssvm_t16_rmse",
    "lssvm_t16_r2",
    "lssvm_t19_acc",
    "lssvm_t19_norm",
)


# --- printed numbers ----------------------------------------------------------------------


def _dec(x) -> Decimal:
    return Decimal(repr(float(x)))


def round_dec(x, decimals: int, rounding=ROUND_HALF_UP) -> float:
    """x rounded to ``decimals`` places (half up on the shortest decimal repr, as printed)."""
    return float(_dec(x).quantize(Decimal(1).scaleb(-decimals), rounding=rounding))


def round_sig(x, sig: int, rounding=ROUND_HALF_UP) -> float:
    """x rounded to ``sig`` significant digits."""
    if x == 0:
        return 0.0
    d = _dec(x)
    return float(d.quantize(Decimal(1).scaleb(d.adjusted() - sig + 1), rounding=rounding))


def keel(x) -> float:
    """KEEL's E-notation: rounded to 3 significant digits, then to 2 (half up)."""
    return round_sig(round_sig(x, 3), 2)


def literal_decimals(printed) -> int:
    return max(0, -_dec(printed).as_tuple().exponent)


def literal_sig(printed) -> int:
    return len(_dec(printed).as_tuple().digits)


def at_decimals(value, printed, decimals: int) -> bool:
    """``value`` rounds to ``printed`` at ``decimals`` places (either direction of a tie)."""
    return abs(float(value) - float(printed)) <= 0.5 * 10.0**-decimals * (1 + 1e-9)


def as_printed(value, printed) -> bool:
    """``value`` rounds to the printed literal at its own number of decimals."""
    return at_decimals(value, printed, literal_decimals(printed))


def at_sig(value, printed, sig: int | None = None) -> bool:
    """``value`` rounds to ``printed`` at ``sig`` (default: the literal's) significant digits."""
    sig = sig or literal_sig(printed)
    unit = 10.0 ** (_dec(printed).adjusted() - sig + 1)
    return abs(float(value) - float(printed)) <= 0.5 * unit * (1 + 1e-9)


def dec_of(meta: dict, key: str) -> int:
    """An integer entry of the fixture's ``decimals`` block."""
    return int(meta["decimals"][key])


# --- fixtures and comparisons -------------------------------------------------------------


@cache
def fx(fid: str) -> tuple[pd.DataFrame, dict]:
    return load(fid)


def table(fid: str) -> pd.DataFrame:
    return fx(fid)[0]


def meta(fid: str) -> dict:
    return fx(fid)[1]


def published(fid: str) -> dict:
    return meta(fid).get("published") or {}


def recomputed(fid: str) -> dict:
    return meta(fid).get("recomputed") or {}


def options(fid: str) -> dict:
    """The fixture's conventions as arguments of :func:`compare`.

    The papers' conventions are compare's defaults (no tie correction, signed-rank test with
    Demsar's zero rule) and are deliberately not passed, so that the defaults are tested too.
    """
    m = meta(fid)
    kw = dict(
        control=m.get("control"),
        alpha=m.get("holm_alpha") or 0.05,
        bd_alpha=m.get("bd_alpha") or 0.05,
    )
    if m["conventions"]["friedman_tie_correction"]:
        kw["tie_correction"] = True
    if fid in HYDR_MW:
        kw["wilcoxon"] = "rank_sum"
    if fid in OLLAWV:  # the spec's recomputed Wilcoxon drops zero differences (scipy's default)
        kw["zero_method"] = "wilcox"
    return kw


@cache
def cmp(fid: str, **overrides):
    kw = options(fid)
    kw.update(overrides)
    return compare(table(fid), meta(fid)["direction"], **kw)


def data_file(rel: str) -> Path:
    """``<benchmark folder>/reference/<rel>``, for tests marked ``@pytest.mark.data`` (the
    marker skips them when the folder is absent; a file missing from it fails the test)."""
    folder = benchmark_data_dir()
    assert folder is not None, "a test reading reference files needs @pytest.mark.data"
    path = folder / "reference" / rel
    assert path.is_file(), f"{path} is missing from the benchmark folder"
    return path


def best_mask(c) -> pd.DataFrame:
    """Cells holding their dataset's best value (the papers' bold), ties included."""
    return c.ranks.eq(c.ranks.min(axis=1), axis=0)


def column_averages(c) -> pd.Series:
    """The module's column-average row (``results_section``'s 'Average' row)."""
    return results_section(c, digits=8).table.loc["Average"].astype(float)


def oriented(fid: str, a: str, b: str) -> np.ndarray:
    """Per-dataset difference a - b, positive where ``a`` is better."""
    t = table(fid)
    d = (t[a] - t[b]).to_numpy()
    return d if meta(fid)["direction"] == "max" else -d


# --- shared by the EvoSVM and LSSVM/MLM studies -------------------------------------------


def check_derived_rank_targets(fid: str) -> None:
    """The specs' derived Friedman / Iman-Davenport / CD targets of a fixture (EvoSVM, LSSVM)."""
    c, rec = cmp(fid), recomputed(fid)
    o = c.omnibus
    assert not o.tie_correction
    for method, value in (rec.get("average_ranks") or {}).items():
        assert as_printed(c.average_ranks[method], value), (method, c.average_ranks[method])
    fr = rec.get("friedman") or {}
    if "chi2" in fr:
        assert as_printed(o.chi2, fr["chi2"]) and o.chi2_df == fr["df"], o.chi2
    if fr.get("p") == "approx 1e-8":
        assert round_sig(o.chi2_p, 1) == 1e-8
    elif "p" in fr:
        assert as_printed(o.chi2_p, fr["p"]), o.chi2_p
    iid = rec.get("iman_davenport") or {}
    if iid:
        assert as_printed(o.F, iid["F"]) and (o.F_df1, o.F_df2) == (iid["df1"], iid["df2"])
        if iid["p"] == "<0.0001":
            assert o.F_p < 1e-4
        else:
            assert as_printed(o.F_p, iid["p"]), o.F_p
    if "cd_nemenyi" in rec:
        assert as_printed(c.nemenyi_cd, rec["cd_nemenyi"])
