"""The mlbench conversion (.rda data frame -> the benchmark folder's CSV layout) on a data
frame written with PyPI ``rdata``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import rdata

from svmlab.data.mlbench_csv import mlbench_csv
from svmlab.errors import DataFormatError


def toy_rda(tmp_path) -> bytes:
    frame = pd.DataFrame(
        {
            "Type": pd.Categorical(["grey soil", "b", "grey soil"], categories=["grey soil", "b"]),
            "count": [1.0, 2.0, np.nan],
            "ratio": [0.5, 1.0, 2.25],
            "Id": [1000025.0, 1002945.0, 1015425.0],  # (rdata cannot write a character column)
        }
    )
    path = tmp_path / "toy.rda"
    rdata.write_rda(path, {"Toy": frame})
    return path.read_bytes()


def test_class_last_factors_as_labels_integral_doubles_without_point(tmp_path):
    assert mlbench_csv(toy_rda(tmp_path), "Toy", "Type").decode() == (
        "count,ratio,Id,class\n1,0.5,1000025,grey soil\n2,1.0,1002945,b\n,2.25,1015425,grey soil\n"
    )


def test_a_missing_frame_or_class_column_is_named(tmp_path):
    rda = toy_rda(tmp_path)
    with pytest.raises(DataFormatError, match="no data frame Glass with Type"):
        mlbench_csv(rda, "Glass", "Type", name="glass.rda")
    with pytest.raises(DataFormatError, match="no data frame Toy with Class"):
        mlbench_csv(rda, "Toy", "Class")
