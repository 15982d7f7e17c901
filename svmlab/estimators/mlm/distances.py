"""Distance matrices of the Minimal Learning Machine (Oliveira (2021), Sec. 2.1.3).

Every distance is Euclidean and computed by :func:`scipy.spatial.distance.cdist` in float64.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist

__all__ = ["distance_matrix", "one_hot", "resolve_count"]

#: rows of a test block: bounds the (rows x n_reference) distance block at prediction
PREDICT_BLOCK_ROWS = 1024


def distance_matrix(A, B) -> np.ndarray:
    """``||a_i - b_k||`` for every row of ``A`` and ``B``, float64, shape (len(A), len(B)).

    With ``A is B`` (reference points = training points) the result is symmetric with a zero
    diagonal: Oliveira (2021), Eq. 2.9's ``D`` and ``Delta``.
    """
    A = np.asarray(A, dtype=np.float64)
    B = np.asarray(B, dtype=np.float64)
    return cdist(A, B, metric="euclidean")


def one_hot(y_index: np.ndarray, n_classes: int) -> np.ndarray:
    """One-hot codes ``y^(c)`` (Oliveira (2021), Eq. 5.4) of class indices, float64."""
    Y = np.zeros((len(y_index), n_classes), dtype=np.float64)
    Y[np.arange(len(y_index)), y_index] = 1.0
    return Y


def resolve_count(value, n: int, *, name: str, minimum: int = 1) -> int:
    """A count given as an int (absolute) or a float in (0, 1] (fraction of ``n``).

    ``None`` means ``n``. A fraction becomes ``ceil(value * n)`` (Oliveira (2021), Table 18:
    ``K = ceil(k N)``); the result is clipped to ``[min(minimum, n), n]``.
    """
    if value is None:
        return n
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be None, an int >= 1 or a float in (0, 1]; got {value!r}")
    if isinstance(value, (int, np.integer)):
        if value < 1:
            raise ValueError(
                f"{name} must be None, an int >= 1 or a float in (0, 1]; got {value!r}"
            )
        count = int(value)
    else:
        value = float(value)
        if not 0.0 < value <= 1.0:
            raise ValueError(
                f"{name} must be None, an int >= 1 or a float in (0, 1]; got {value!r}"
            )
        count = int(np.ceil(value * n - 1e-9))
    return int(min(max(count, min(minimum, n)), n))
