"""R ``mlbench`` data frames (``.rda``) written as the benchmark folder's CSV files.

The folder's ``classification/mlbench/*.csv`` were converted from the ``.rda`` files of the R
package mlbench 2.1-3; :func:`mlbench_csv` repeats that conversion byte for byte, so
``svmlab data fetch`` can rebuild them from the package's data files and check them against
the registry's sha256. The layout: a header row, commas, LF line endings; the class column
moved last and named ``class``; factors written as their level labels; a double column whose
values are all integral written without a decimal point, any other double as Python's
shortest round-trip ``repr``; NA as an empty cell.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd

from ..errors import DataFormatError


def mlbench_csv(rda: bytes, r_object: str, class_column: str, *, name: str = "") -> bytes:
    """The CSV bytes of data frame ``r_object`` of an ``.rda`` file.

    Parameters
    ----------
    rda : bytes
        The content of the R data file.
    r_object : str
        The data frame's name in the file (``"Glass"``).
    class_column : str
        Its class column (``"Type"`` for Glass, ``"Class"`` for most), written last as
        ``class``.
    name : str, optional
        The file's name, for error messages.

    Raises
    ------
    DataFormatError
        The file holds no such data frame or column.
    """
    import rdata  # read only when a file is converted

    with warnings.catch_warnings():  # "Unknown encoding. Assumed ASCII." for mlbench's files
        warnings.simplefilter("ignore", UserWarning)
        objects = rdata.conversion.convert(rdata.parser.parse_data(rda))
    frame = objects.get(r_object)
    if not isinstance(frame, pd.DataFrame) or class_column not in frame.columns:
        raise DataFormatError(name or r_object, f"no data frame {r_object} with {class_column}")
    columns = [c for c in frame.columns if c != class_column] + [class_column]
    cells = [_cells(frame[c]) for c in columns]
    header = ",".join(["class" if c == class_column else str(c) for c in columns])
    rows = (",".join(row) for row in zip(*cells))
    return ("\n".join([header, *rows]) + "\n").encode()


def _cells(column: pd.Series) -> list[str]:
    """One column's cells as text (see the module's layout)."""
    if pd.api.types.is_float_dtype(column.dtype) and not isinstance(
        column.dtype, pd.CategoricalDtype
    ):
        values = column.to_numpy(dtype=np.float64)
        finite = values[~np.isnan(values)]
        integral = bool(np.all(finite == np.round(finite)))
        return [
            "" if math.isnan(v) else (str(int(v)) if integral else repr(float(v))) for v in values
        ]
    return ["" if pd.isna(v) else str(v) for v in column]
