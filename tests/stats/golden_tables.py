"""Loader for the golden statistics fixtures in ``tests/stats/golden/``.

Each fixture ``<id>`` is a pair of files transcribed from the published papers
(via the specs in ``shared/specs``):

* ``<id>.csv``: the per-dataset result table as printed. The first column is
  ``dataset``; then one column per method, in the paper's column order.
  Summary rows (Average/Rank) are not included.
* ``<id>.yaml``: metadata and the published statistics (``published``), the
  values the spec recomputed (``recomputed``), the known misprints, the
  conventions the test must follow, and an informative ``sanity_check``.

Usage::

    from golden_tables import ALL_IDS, load
    df, meta = load("mtr_acc")      # df indexed by dataset, columns = meta["methods"]
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import yaml

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"

ALL_IDS: tuple[str, ...] = (
    # Melki 2018, MTR (Tables 3.3-3.12)
    "mtr_acc",
    "mtr_mse",
    "mtr_armse",
    "mtr_arrmse",
    "mtr_time",
    # Melki 2018, MIL (Tables 4.3-4.14)
    "mil_accuracy",
    "mil_precision",
    "mil_recall",
    "mil_kappa",
    "mil_auc",
    "mil_time",
    "mil_meta_rank",
    # Melki 2018, OLLAWV (Tables 5.3, 5.5)
    "ollawv_accuracy",
    "ollawv_runtime",
    "ollawv_sv",
    "ollawv_nonsvm_accuracy",
    # HyDR-MI (Tables 2-6: Friedman over the four ReliefF-MI distances)
    "hydrmi_distances_p10",
    "hydrmi_distances_p20",
    "hydrmi_distances_p30",
    "hydrmi_distances_p40",
    "hydrmi_distances_p50",
    "hydrmi_distances_p60",
    # HyDR-MI (Tables 7-13: HyDR-MI vs ReliefF-MI vs all features, Mann-Whitney)
    "hydrmi_elephant",
    "hydrmi_tiger",
    "hydrmi_fox",
    "hydrmi_musk1",
    "hydrmi_musk2",
    # EvoSVM (Mierswa 2009, Tables 3.3, 3.4, 4.2; derived Friedman targets)
    "evosvm_t33_error",
    "evosvm_t34_c1_error",
    "evosvm_t34_c01_error",
    "evosvm_t34_c001_error",
    "evosvm_t42_error",
    # LSSVM / MLM (Tables 7, 11, 12, 13, 16, 19; derived Friedman targets)
    "lssvm_t7_acc",
    "lssvm_t11_rmse",
    "lssvm_t12_r2",
    "lssvm_t13_norm",
    "lssvm_t16_rmse",
    "lssvm_t16_r2",
    "lssvm_t19_acc",
    "lssvm_t19_norm",
)


def load(fixture_id: str) -> tuple[pd.DataFrame, dict]:
    """Return ``(table, meta)`` for a golden fixture.

    ``table`` is a float DataFrame indexed by ``dataset`` (paper row order) with
    one column per method (paper column order). ``meta`` is the parsed YAML.
    """
    if fixture_id not in ALL_IDS:
        raise KeyError(f"unknown golden fixture {fixture_id!r}")
    table = pd.read_csv(GOLDEN_DIR / f"{fixture_id}.csv", dtype={"dataset": str})
    table = table.set_index("dataset").astype(float)
    with open(GOLDEN_DIR / f"{fixture_id}.yaml", encoding="utf-8") as fh:
        meta = yaml.safe_load(fh)
    if list(table.columns) != list(meta["methods"]):
        raise ValueError(f"{fixture_id}: CSV columns do not match meta['methods']")
    return table, meta
