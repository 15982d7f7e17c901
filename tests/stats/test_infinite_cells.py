"""An infinite cell cannot be ranked: one line naming it, never a best value (issue 17, item 8)."""

import numpy as np
import pandas as pd
import pytest

from svmlab.cli import main
from svmlab.errors import StatsInputError
from svmlab.stats.compare import clean_table

TABLE = "dataset,a,b,c\nd1,0.9,inf,0.8\nd2,0.7,0.6,0.5\nd3,0.1,0.3,-inf\n"


def test_stats_on_a_table_with_inf_is_one_line_naming_the_cells(tmp_path, capsys):
    """Regression: `svmlab stats` ranked an inf cell as the best value of its dataset."""
    path = tmp_path / "acc.csv"
    path.write_text(TABLE)
    for direction in ("higher", "lower"):
        assert main(["stats", str(path), "-d", direction, "--figures", "-o", str(tmp_path)]) == 2
        err = capsys.readouterr().err
        assert err == (
            "svmlab: error: 2 infinite value(s), which cannot be ranked: dataset 'd1', method 'b' "
            "(inf); dataset 'd3', method 'c' (-inf); fix or remove those cells\n"
        )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["acc.csv"]  # nothing written


def test_clean_table_refuses_inf_but_keeps_finite_tables():
    table = pd.DataFrame({"a": [1.0, 2.0], "b": [np.inf, 1.0]}, index=["x", "y"])
    with pytest.raises(StatsInputError, match=r"dataset 'x', method 'b' \(inf\)"):
        clean_table(table)
    numeric, dropped = clean_table(table.replace(np.inf, 3.0))
    assert numeric.shape == (2, 2) and dropped == []
