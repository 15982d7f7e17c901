"""The UCI LSVT Voice Rehabilitation data (opt-in, local files only).

The MKLPO paper's experiment II (Sec. IV) uses Tsanas, Little, Fox &
Ramig, *IEEE TNSRE* 22(1), 2014: 126 sustained /a/ phonations x 309 dysphonia measures, rated
acceptable (response 1) or unacceptable (2). UCI is not reachable offline, so svmlab registers
``lsvt`` as unavailable and :func:`read_lsvt` reads a copy the user already has.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ...errors import DataFormatError
from ..dataset import Dataset

#: Response coding of the UCI file -> svmlab label (the paper: unacceptable is positive).
LSVT_LABELS = {1: -1, 2: 1}


def _sheet(book: dict, wanted, path, role):
    if wanted is not None:
        if wanted not in book:
            raise DataFormatError(path, f"no sheet {wanted!r}; sheets: {', '.join(book)}")
        return book[wanted]
    hits = [s for s in book if role in s.lower()]
    if len(hits) != 1:
        raise DataFormatError(
            path,
            f"cannot tell which sheet holds the {role} (sheets: {', '.join(book)}); "
            f"pass {'data_sheet' if role == 'data' else 'response_sheet'}",
        )
    return book[hits[0]]


def read_lsvt(path, *, label=None, data_sheet=None, response_sheet=None, name="lsvt") -> Dataset:
    """Read the LSVT Voice Rehabilitation data from a local ``.xlsx`` or ``.csv`` file.

    Parameters
    ----------
    path : str or Path
        UCI's ``LSVT_voice_rehabilitation.xlsx`` (needs ``openpyxl``): one sheet of the 309
        features with a header row (default: the sheet whose name contains "data") and one
        of the binary response (default: the one whose name contains "response"). Or a CSV
        export with a header row: the features and a response column.
    label : str, optional
        CSV only: the response column (default: the last column).
    data_sheet, response_sheet : str, optional
        xlsx only: the sheet names, when the defaults do not find them.
    name : str, default="lsvt"

    Returns
    -------
    Dataset
        ``binary``; response 2 (unacceptable) -> +1, 1 (acceptable) -> -1 (the paper: unacceptable
        phonations are the positives).

    Raises
    ------
    DataFormatError
        A response other than 1 / 2, a non-numeric feature, sheets that cannot be told apart,
        or an ``.xlsx`` without ``openpyxl`` installed.
    """
    path = Path(path)
    if path.suffix.lower() in (".xlsx", ".xls"):
        try:
            book = pd.read_excel(path, sheet_name=None)
        except ImportError as exc:
            raise DataFormatError(
                path, f"reading Excel files needs openpyxl ({exc}); or export the sheets to CSV"
            ) from None
        features = _sheet(book, data_sheet, path, "data")
        response = _sheet(book, response_sheet, path, "response")
        if response.shape[1] != 1 or len(response) != len(features):
            raise DataFormatError(
                path,
                f"the response sheet has shape {response.shape}; expected one column of "
                f"{len(features)} rows",
            )
        target = response.iloc[:, 0]
    else:
        frame = pd.read_csv(path)
        column = frame.columns[-1] if label is None else label
        if column not in frame.columns:
            raise DataFormatError(
                path, f"no column {column!r}; columns end with {list(frame)[-3:]}"
            )
        target, features = frame[column], frame.drop(columns=[column])
    codes = pd.to_numeric(target, errors="coerce")
    bad = ~codes.isin(list(LSVT_LABELS))
    if bad.any():
        raise DataFormatError(
            path, f"response {target[bad].iloc[0]!r} is not 1 (acceptable) or 2 (unacceptable)"
        )
    try:
        X = features.to_numpy(dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise DataFormatError(path, f"non-numeric feature value: {exc}") from None
    y = codes.map(LSVT_LABELS).to_numpy(dtype=np.int64)
    return Dataset(
        name=name,
        task="binary",
        X=X,
        y=y,
        feature_names=tuple(str(c) for c in features.columns),
        meta={
            "source": "local",
            "path": str(path),
            "format": "lsvt",
            "positive_class": 1,
            "coding": "response 2 (unacceptable) = +1, 1 (acceptable) = -1",
            "counts": {"1": int((y == 1).sum()), "-1": int((y == -1).sum())},
        },
    )
