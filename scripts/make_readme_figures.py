"""Regenerate the statistics figures (docs/statistics.md) from the MTR study's published
aCC table.

Usage::

    python scripts/make_readme_figures.py

Reads tests/stats/golden/mtr_acc.csv (Melki 2018, Table 3.3 as transcribed)
and writes docs/figures/readme/mtr_acc_{rank_bars,cd_diagram}.png.
"""

from pathlib import Path

import pandas as pd

from svmlab.stats.analysis import analyse

ROOT = Path(__file__).resolve().parents[1]

table = pd.read_csv(ROOT / "tests" / "stats" / "golden" / "mtr_acc.csv", index_col=0)
_, _, paths = analyse(
    table,
    "max",
    name="mtr_acc",
    out_dir=ROOT / "docs" / "figures" / "readme",
    formats=("png",),
    control="SVRCC",
    pairwise=(),
    metric="aCC (MTR study, Table 3.3)",
)
for p in paths:
    print(p.relative_to(ROOT))
