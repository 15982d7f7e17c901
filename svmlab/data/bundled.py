"""Datasets that ship with scikit-learn, as :class:`~svmlab.data.Dataset` objects (no download)."""

from __future__ import annotations

import sklearn
from sklearn import datasets as skd

from ..errors import UnknownNameError
from .dataset import Dataset

#: registry name -> (scikit-learn loader, task)
BUNDLED = {
    "iris": (skd.load_iris, "multiclass"),
    "wine": (skd.load_wine, "multiclass"),
    "breast_cancer": (skd.load_breast_cancer, "binary"),
    "digits": (skd.load_digits, "multiclass"),
    "linnerud": (skd.load_linnerud, "multitarget"),
    "diabetes": (skd.load_diabetes, "regression"),
}


def load_bundled(name: str) -> Dataset:
    """Load one of scikit-learn's bundled datasets.

    Parameters
    ----------
    name : {"iris", "wine", "breast_cancer", "digits", "linnerud", "diabetes"}
        ``breast_cancer`` is WDBC (569 x 30), not the original Wisconsin data;
        ``diabetes`` is the regression set (442 x 10, scikit-learn's scaled
        features), not Pima Indians Diabetes; ``linnerud`` has 3 targets.

    Returns
    -------
    Dataset
        Class labels are scikit-learn's integer codes; their names are in
        ``meta["class_names"]``.
    """
    try:
        loader, task = BUNDLED[name]
    except KeyError:
        raise UnknownNameError("bundled dataset", name, BUNDLED) from None
    bunch = loader()
    meta = {
        "source": "sklearn",
        "loader": f"sklearn.datasets.{loader.__name__}",
        "sklearn_version": sklearn.__version__,
    }
    common = {
        "name": name,
        "task": task,
        "X": bunch.data,
        "feature_names": tuple(map(str, bunch.feature_names)),
        "meta": meta,
    }
    if task == "multitarget":
        return Dataset(Y=bunch.target, target_names=tuple(map(str, bunch.target_names)), **common)
    if task != "regression":
        meta["class_names"] = [str(c) for c in bunch.target_names]
    return Dataset(y=bunch.target, **common)
